internal import CVitrineWayland

/// The wl_compositor global (version 5): creates surfaces and regions.
public final class CompositorGlobal {
    private var global: Global?
    /// Called for every new surface, before the client can use it.
    public var surfaceCreated: ((Surface) -> Void)?

    public init(display: Display) {
        global = Global(display: display, interface: vitrine_wl_compositor_interface(), version: 5) { [weak self] client, version, id in
            _ = CompositorResource(client: client, version: version, id: id, owner: self)
        }
    }

    fileprivate func created(_ surface: Surface) {
        surfaceCreated?(surface)
    }
}

private final class CompositorResource: Resource {
    private weak var owner: CompositorGlobal?

    init(client: Client, version: UInt32, id: UInt32, owner: CompositorGlobal?) {
        self.owner = owner
        super.init(client: client, interface: vitrine_wl_compositor_interface(), version: version, id: id)
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        switch opcode {
        case 0:
            let surface = Surface(client: client, version: version, id: arguments.newID(0))
            owner?.created(surface)
        case 1: _ = RegionResource(client: client, id: arguments.newID(0))
        default: try super.handle(opcode, arguments)
        }
    }
}
