import WaylandProtocols

/// A scroll axis (wl_pointer.axis).
public enum PointerAxis: UInt32, Sendable {
    case vertical = 0
    case horizontal = 1

    var protocolValue: WlPointerAxis { WlPointerAxis(rawValue: rawValue) }
}

/// What produced scroll events (wl_pointer.axis_source).
public enum PointerAxisSource: UInt32, Sendable {
    case wheel = 0
    case finger = 1
    case continuous = 2
    case wheelTilt = 3

    var protocolValue: WlPointerAxisSource { WlPointerAxisSource(rawValue: rawValue) }
}

/// How the physical motion behind a scroll relates to its axis value
/// (wl_pointer.axis_relative_direction): a volume slider follows the fingers either way.
public enum PointerAxisRelativeDirection: UInt32, Sendable {
    /// The value has the motion's direction (traditional scrolling).
    case identical = 0
    /// The value is the motion's inverse (natural scrolling: the content follows the fingers).
    case inverted = 1

    var protocolValue: WlPointerAxisRelativeDirection { WlPointerAxisRelativeDirection(rawValue: rawValue) }
}

/// The seat's pointer: focus, position and pressed buttons.
struct PointerState {
    /// Held strongly until focus moves or the surface is destroyed.
    private var focusReference: LiveSurfaceReference?
    /// The last position reported, in the focus's surface coordinates.
    var x = 0.0
    var y = 0.0
    /// Pressed buttons and the serial of their press (a drag must quote one).
    var buttons: [UInt32: UInt32] = [:]
    /// Only one axis_source per frame is allowed.
    var axisSourceSentInFrame = false
    /// value120 not yet sent as whole axis_discrete steps (to versions 5–7), per axis.
    var discreteRemainder: [PointerAxis: Int32] = [:]
    /// Held strongly until the client sets another or the surface is destroyed.
    private var cursorReference: LiveSurfaceReference?

    /// The surface with pointer focus, nil from its destruction on.
    var focus: Surface? {
        get { focusReference?.surface }
        set { focusReference = newValue.map(LiveSurfaceReference.init) }
    }

    /// The surface the focused client set as its cursor, nil from its destruction on.
    var cursor: Surface? {
        get { cursorReference?.surface }
        set { cursorReference = newValue.map(LiveSurfaceReference.init) }
    }
}

extension SeatGlobal {
    /// The surface with pointer focus (nil while nothing is focused or during a pointer drag).
    public var pointerFocus: Surface? {
        guard let focus = pointer.focus, focus.isAlive else { return nil }
        return focus
    }

    /// Moves pointer focus to `surface` at surface-local (`x`, `y`): leave to the previous focus
    /// (with a frame when it belongs to another client), then enter and frame. Entering the focused
    /// surface again does nothing. During a pointer drag this moves the drag instead.
    public func pointerEnter(_ surface: Surface, x: Double, y: Double) {
        if data.drag?.isPointerDriven == true {
            dragEnter(surface, x: x, y: y)
            return
        }
        let previous = pointerFocus
        guard previous !== surface else { return }
        if let previous { sendPointerLeave(previous, frame: previous.client !== surface.client) }
        pointer.focus = surface
        pointer.x = x
        pointer.y = y
        let serial = display.nextSerial()
        let target = seatClient(for: surface.client)
        target.pointerEnterSerial = serial
        target.record(serial)
        for resource in target.pointers {
            resource.sendEnter(serial: serial, surface: surface, x: x, y: y)
            resource.sendFrame()
        }
    }

    /// Takes pointer focus away (leave, frame). During a pointer drag the drag leaves its surface.
    public func pointerLeave() {
        if data.drag?.isPointerDriven == true {
            dragLeave()
            return
        }
        guard let previous = pointerFocus else { return }
        sendPointerLeave(previous, frame: true)
        pointer.focus = nil
    }

    /// The pointer moved to surface-local (`x`, `y`) of the focus; `time` in milliseconds.
    public func pointerMotion(time: UInt32, x: Double, y: Double) {
        if data.drag?.isPointerDriven == true {
            dragMotion(time: time, x: x, y: y)
            return
        }
        pointer.x = x
        pointer.y = y
        for resource in focusedPointers() { resource.send(.motion(time: time, surfaceX: x, surfaceY: y)) }
    }

    /// A button (evdev code, e.g. BTN_LEFT 0x110) changed state; returns the event's serial.
    /// Releasing the button that started a pointer drag drops it.
    @discardableResult
    public func pointerButton(time: UInt32, button: UInt32, pressed: Bool) -> UInt32 {
        let serial = display.nextSerial()
        pointer.buttons[button] = pressed ? serial : nil
        if let drag = data.drag, drag.isPointerDriven {
            if !pressed, case .pointer(button) = drag.trigger { dropDrag() }
            return serial
        }
        if let focus = pointerFocus { seatClient(for: focus.client).record(serial) }
        for resource in focusedPointers() {
            resource.send(.button(serial: serial, time: time, button: button, state: pressed ? .pressed : .released))
        }
        return serial
    }

    /// Scrolling by `value` (surface-local units) on `axis`. `value120` is the wheel's high-resolution
    /// step count (120 per detent): version 8 gets it as axis_value120, versions 5–7 as whole
    /// axis_discrete steps. `source` goes out once per frame to version 5 and later, and
    /// `direction` with every axis event to version 9.
    public func pointerAxis(time: UInt32, axis: PointerAxis, value: Double, value120: Int32? = nil,
                            source: PointerAxisSource? = nil, direction: PointerAxisRelativeDirection = .identical) {
        guard data.drag?.isPointerDriven != true else { return }
        let sendsSource = source != nil && !pointer.axisSourceSentInFrame
        if sendsSource { pointer.axisSourceSentInFrame = true }
        var discrete: Int32 = 0
        if let value120, value120 != 0 {
            var remainder = pointer.discreteRemainder[axis] ?? 0
            if remainder != 0 && (remainder < 0) != (value120 < 0) { remainder = 0 }
            remainder += value120
            discrete = remainder / 120
            pointer.discreteRemainder[axis] = remainder - discrete * 120
        }
        for resource in focusedPointers() {
            if sendsSource, let source { resource.send(.axisSource(axisSource: source.protocolValue)) }
            if resource.version >= 8, let value120, value120 != 0 {
                resource.send(.axisValue120(axis: axis.protocolValue, value120: value120))
            } else if discrete != 0 {
                resource.send(.axisDiscrete(axis: axis.protocolValue, discrete: discrete))
            }
            resource.send(.axisRelativeDirection(axis: axis.protocolValue, direction: direction.protocolValue))
            resource.send(.axis(time: time, axis: axis.protocolValue, value: value))
        }
    }

    /// Scrolling on `axis` stopped (a finger left the touchpad); version 5 and later.
    public func pointerAxisStop(time: UInt32, axis: PointerAxis) {
        guard data.drag?.isPointerDriven != true else { return }
        pointer.discreteRemainder[axis] = nil
        for resource in focusedPointers() { resource.send(.axisStop(time: time, axis: axis.protocolValue)) }
    }

    /// Ends a group of pointer events (wl_pointer.frame, version 5 and later).
    public func pointerFrame() {
        pointer.axisSourceSentInFrame = false
        for resource in focusedPointers() { resource.sendFrame() }
    }

    /// The client's new wl_pointer learns about a focus it already has.
    func added(_ resource: PointerResource) {
        let target = seatClient(for: resource.client)
        target.pointers.append(resource)
        if let focus = pointerFocus, focus.client === resource.client, let serial = target.pointerEnterSerial {
            resource.sendEnter(serial: serial, surface: focus, x: pointer.x, y: pointer.y)
            resource.sendFrame()
        }
    }

    /// Sends leave (and frame when `frame`) to the pointers of `surface`'s client.
    func sendPointerLeave(_ surface: Surface, frame: Bool) {
        let serial = display.nextSerial()
        let target = seatClient(for: surface.client)
        target.record(serial)
        for resource in target.pointers {
            resource.send(.leave(serial: serial, surface: surface))
            if frame { resource.sendFrame() }
        }
    }

    private func focusedPointers() -> [PointerResource] {
        guard let focus = pointerFocus else { return [] }
        return existingSeatClient(for: focus.client)?.pointers ?? []
    }

    /// A client asked for a cursor (the role is already given).
    fileprivate func cursorSet(by resource: PointerResource, serial: UInt32, surface: Surface?, hotspotX: Int32, hotspotY: Int32) {
        guard let focus = pointerFocus, focus.client === resource.client,
              existingSeatClient(for: resource.client)?.pointerEnterSerial == serial else { return }
        pointer.cursor = surface
        handler?.cursorRequested(self, surface: surface, hotspotX: hotspotX, hotspotY: hotspotY)
    }

    fileprivate func cursorMoved(_ role: CursorRole, surface: Surface) {
        guard pointer.cursor === surface else { return }
        handler?.cursorRequested(self, surface: surface, hotspotX: role.hotspotX, hotspotY: role.hotspotY)
    }
}

/// One client's wl_pointer.
final class PointerResource: Resource, RequestHandler {
    private weak var seat: SeatGlobal?

    init(client: Client, version: UInt32, id: UInt32, seat: SeatGlobal?) {
        self.seat = seat
        super.init(PointerResource.self, client: client, version: version, id: id)
    }

    func sendEnter(serial: UInt32, surface: Surface, x: Double, y: Double) {
        send(.enter(serial: serial, surface: surface, surfaceX: x, surfaceY: y))
    }

    func sendFrame() {
        send(.frame)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .setCursor(let serial, let surface, let hotspotX, let hotspotY):
            try setCursor(serial: serial, surface: surface, hotspotX: ClientCoordinate.clamp(hotspotX),
                          hotspotY: ClientCoordinate.clamp(hotspotY))
        case .release: destroy()
        }
    }

    /// The role comes first: a surface with another role is an error whatever the serial says.
    private func setCursor(serial: UInt32, surface: Surface?, hotspotX: Int32, hotspotY: Int32) throws(ProtocolError) {
        if let surface {
            let role = try CursorRole.of(surface, errorOn: self)
            role.seat = seat
            role.hotspotX = hotspotX
            role.hotspotY = hotspotY
        }
        seat?.cursorSet(by: self, serial: serial, surface: surface, hotspotX: hotspotX, hotspotY: hotspotY)
    }

    override func destroyed() {
        seat?.existingSeatClient(for: client)?.pointers.removeAll { $0 === self }
    }
}

/// The "wl_pointer-cursor" role: a surface's offsets move its hotspot.
final class CursorRole: SurfaceRole {
    let roleName = "wl_pointer-cursor"
    weak var seat: SeatGlobal?
    var hotspotX: Int32 = 0
    var hotspotY: Int32 = 0

    /// The surface's cursor role, given on first use (the surface keeps it for later set_cursor calls).
    static func of(_ surface: Surface, errorOn resource: Resource) throws(ProtocolError) -> CursorRole {
        let key = ObjectIdentifier(CursorRole.self)
        if let role = surface.extensions[key] as? CursorRole { return role }
        let role = CursorRole()
        try surface.setRole(role, errorOn: resource, code: WlPointerError.role)
        surface.extensions[key] = role
        return role
    }

    func validateCommit(_ surface: Surface, _ pending: PendingSurfaceState) throws(ProtocolError) {}

    func surfaceDidCommit(_ surface: Surface) {
        let state = surface.current
        guard state.offsetX != 0 || state.offsetY != 0 else { return }
        hotspotX = ClientCoordinate.sum(hotspotX, -state.offsetX)
        hotspotY = ClientCoordinate.sum(hotspotY, -state.offsetY)
        seat?.cursorMoved(self, surface: surface)
    }
}
