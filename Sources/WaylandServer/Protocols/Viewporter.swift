internal import CWaylandServer
internal import CVitrineWayland

/// The wp_viewporter global (version 1): gives surfaces a crop-and-scale wp_viewport.
public final class ViewporterGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: vitrine_wp_viewporter_interface(), version: 1) { client, version, id in
            _ = ViewporterResource(client: client, version: version, id: id)
        }
    }
}

private final class ViewporterResource: Resource {
    override init(client: Client, version: UInt32, id: UInt32) {
        super.init(client: client, interface: vitrine_wp_viewporter_interface(), version: version, id: id)
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        switch opcode {
        case 0: destroy()
        case 1:
            guard let surface = arguments.object(1, as: Surface.self) else { return }
            if surface.viewport != nil {
                throw ProtocolError(code: UInt32(WP_VIEWPORTER_ERROR_VIEWPORT_EXISTS.rawValue),
                                    "wl_surface@\(surface.id) already has a wp_viewport")
            }
            Viewport(client: client, id: arguments.newID(0), surface: surface).attach()
        default: try super.handle(opcode, arguments)
        }
    }
}
