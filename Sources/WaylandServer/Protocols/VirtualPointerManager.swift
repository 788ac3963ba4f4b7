import WaylandProtocols

/// What a client's virtual pointer does, as the compositor hears it (`VirtualPointerHandler`).
public enum VirtualPointerEvent {
    /// Moved by a distance in the outputs' layout (logical points).
    case motion(dx: Double, dy: Double, time: UInt32)
    /// Moved to a point of `output` (nil: of the whole layout), given as fractions 0…1 of its
    /// width and height.
    case motionAbsolute(x: Double, y: Double, output: Output?, time: UInt32)
    /// A button (evdev code) was pressed or released.
    case button(UInt32, pressed: Bool, time: UInt32)
    /// Scrolled on `axis`; `value120` counts wheel detents in 120ths where the client gave steps.
    case axis(PointerAxis, value: Double, value120: Int32?, source: PointerAxisSource, time: UInt32)
    /// Finger scrolling on `axis` stopped.
    case axisStop(PointerAxis, time: UInt32)
}

/// Where the compositor hears its clients' virtual pointers (wayvnc's remote pointer).
public protocol VirtualPointerHandler: AnyObject {
    /// A virtual pointer ended a frame of events (all of which arrive together, in order).
    func virtualPointerFrame(_ events: [VirtualPointerEvent])
}

/// The zwlr_virtual_pointer_manager_v1 global (version 2).
public final class VirtualPointerManagerGlobal {
    private var global: Global?
    /// The compositor's handler; without one the pointers move nothing. Unowned, not weak
    /// (docs/architecture.md: no weak references to what a frame touches): the handler clears it
    /// before it goes.
    public unowned var handler: VirtualPointerHandler?

    public init(display: Display) {
        global = Global(display: display, interface: VirtualPointerManager.interface, version: 2) { [weak self] client, version, id in
            _ = VirtualPointerManager(client: client, version: version, id: id, owner: self)
        }
    }
}

/// zwlr_virtual_pointer_manager_v1: makes virtual pointers, of the seat (Vitrine has one), for an
/// output or for the whole layout.
final class VirtualPointerManager: Resource, RequestHandler {
    private weak var owner: VirtualPointerManagerGlobal?

    init(client: Client, version: UInt32, id: UInt32, owner: VirtualPointerManagerGlobal?) {
        self.owner = owner
        super.init(VirtualPointerManager.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .createVirtualPointer(_, let id):
            _ = VirtualPointer(client: client, version: version, id: id, output: nil, owner: owner)
        case .createVirtualPointerWithOutput(_, let output, let id):
            _ = VirtualPointer(client: client, version: version, id: id, output: output?.owner, owner: owner)
        case .destroy:
            destroy()
        }
    }
}
