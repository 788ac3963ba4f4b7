internal import CWaylandServer
internal import CVitrineWayland

/// The wl_subcompositor global: turns surfaces into subsurfaces of other surfaces.
public final class SubcompositorGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: vitrine_wl_subcompositor_interface(), version: 1) { client, version, id in
            _ = SubcompositorResource(client: client, version: version, id: id)
        }
    }
}

private final class SubcompositorResource: Resource {
    init(client: Client, version: UInt32, id: UInt32) {
        super.init(client: client, interface: vitrine_wl_subcompositor_interface(), version: version, id: id)
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        switch opcode {
        case 0: destroy()
        case 1:
            let badSurface = UInt32(WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE.rawValue)
            guard let surface = arguments.object(1, as: Surface.self), let parent = arguments.object(2, as: Surface.self) else {
                throw ProtocolError(code: badSurface, "get_subsurface needs a surface and a parent")
            }
            if surface === parent {
                throw ProtocolError(code: badSurface, "wl_surface@\(surface.id) cannot be its own parent")
            }
            var ancestor: Surface? = parent
            while let node = ancestor {
                if node === surface {
                    throw ProtocolError(code: badSurface, "wl_surface@\(parent.id) is a descendant of wl_surface@\(surface.id)")
                }
                ancestor = node.subsurface?.parent
            }
            let subsurface = Subsurface(client: client, id: arguments.newID(0), surface: surface, parent: parent)
            do {
                try surface.setRole(subsurface, errorOn: self, code: badSurface)
            } catch {
                subsurface.destroy()
                throw error
            }
            subsurface.attachToParent()
        default: try super.handle(opcode, arguments)
        }
    }
}
