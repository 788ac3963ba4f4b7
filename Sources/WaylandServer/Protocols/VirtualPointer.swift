import WaylandProtocols

/// zwlr_virtual_pointer_v1: a pointer device a client drives. Its requests are collected until
/// `frame` and then handed to the compositor together, as a device's events are.
public final class VirtualPointer: Resource, RequestHandler {
    private weak var owner: VirtualPointerManagerGlobal?
    /// The output its absolute motion spans; nil: the whole layout.
    private weak var output: Output?
    private let spansOutput: Bool
    private var pending: [VirtualPointerEvent] = []
    /// The source of the frame's scrolling: axis_source describes the whole frame, whether it
    /// comes before or after the axis requests (as wl_pointer's frame groups them; wlroots and
    /// WLCS agree), so it is given to the frame's axis events when the frame ends.
    private var axisSource = PointerAxisSource.wheel
    /// A frame holds at most this many requests; a client that never ends its frames cannot make
    /// the compositor hold its requests without bound.
    static let maximumFrameLength = 256

    init(client: Client, version: UInt32, id: UInt32, output: Output?, owner: VirtualPointerManagerGlobal?) {
        self.owner = owner
        self.output = output
        spansOutput = output != nil
        super.init(VirtualPointer.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .motion(let time, let dx, let dy):
            try add(.motion(dx: dx, dy: dy, time: time))
        case .motionAbsolute(let time, let x, let y, let xExtent, let yExtent):
            // A zero extent or a point past it says nothing usable: wlroots ignores it too.
            guard xExtent > 0, yExtent > 0, x <= xExtent, y <= yExtent else { return }
            // An output that went away takes the pointer's motion with it.
            guard !spansOutput || output != nil else { return }
            try add(.motionAbsolute(x: Double(x) / Double(xExtent), y: Double(y) / Double(yExtent), output: output, time: time))
        case .button(let time, let button, let state):
            guard let pressed = Self.isPressed(state) else {
                throw ProtocolError(code: 0, "\(state.rawValue) is not a wl_pointer.button_state")
            }
            try add(.button(button, pressed: pressed, time: time))
        case .axis(let time, let axis, let value):
            try add(.axis(Self.axis(axis), value: value, value120: nil, source: axisSource, time: time))
        case .axisDiscrete(let time, let axis, let value, let discrete):
            try add(.axis(Self.axis(axis), value: value, value120: discrete.multipliedReportingOverflow(by: 120).partialValue,
                          source: axisSource, time: time))
        case .axisSource(let source):
            guard let known = PointerAxisSource(rawValue: source.rawValue) else {
                throw ProtocolError(ZwlrVirtualPointerV1Error.invalidAxisSource, "\(source.rawValue) is not a wl_pointer.axis_source")
            }
            axisSource = known
        case .axisStop(let time, let axis):
            try add(.axisStop(Self.axis(axis), time: time))
        case .frame:
            let source = axisSource
            let events = pending.map { event in
                guard case .axis(let axis, let value, let value120, _, let time) = event else { return event }
                return VirtualPointerEvent.axis(axis, value: value, value120: value120, source: source, time: time)
            }
            pending = []
            axisSource = .wheel
            if !events.isEmpty { owner?.handler?.virtualPointerFrame(events) }
        case .destroy:
            destroy()
        }
    }

    private func add(_ event: VirtualPointerEvent) throws(ProtocolError) {
        guard pending.count < Self.maximumFrameLength else {
            throw ProtocolError(code: 0, "more than \(Self.maximumFrameLength) requests without a frame")
        }
        pending.append(event)
    }

    private static func axis(_ value: WlPointerAxis) throws(ProtocolError) -> PointerAxis {
        guard let axis = PointerAxis(rawValue: value.rawValue) else {
            throw ProtocolError(ZwlrVirtualPointerV1Error.invalidAxis, "\(value.rawValue) is not a wl_pointer.axis")
        }
        return axis
    }

    private static func isPressed(_ state: WlPointerButtonState) -> Bool? {
        switch state {
        case .pressed: true
        case .released: false
        default: nil
        }
    }
}
