import WaylandProtocols

/// The wl_subcompositor global: turns surfaces into subsurfaces of other surfaces.
public final class SubcompositorGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: SubcompositorResource.interface, version: 1) { client, version, id in
            _ = SubcompositorResource(client: client, version: version, id: id)
        }
    }
}

final class SubcompositorResource: Resource, RequestHandler {
    init(client: Client, version: UInt32, id: UInt32) {
        super.init(SubcompositorResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy: destroy()
        case .getSubsurface(let id, let surface, let parent):
            let badSurface = WlSubcompositorError.badSurface
            if surface === parent {
                throw ProtocolError(badSurface, "wl_surface@\(surface.id) cannot be its own parent")
            }
            var ancestor: Surface? = parent
            while let node = ancestor {
                if node === surface {
                    throw ProtocolError(badSurface, "wl_surface@\(parent.id) is a descendant of wl_surface@\(surface.id)")
                }
                ancestor = node.subsurface?.parent
            }
            let subsurface = Subsurface(client: client, id: id, surface: surface, parent: parent)
            do {
                try surface.setRole(subsurface, errorOn: self, code: badSurface)
            } catch {
                subsurface.destroy()
                throw error
            }
            subsurface.attachToParent()
        }
    }
}
