import WaylandProtocols

/// The wp_viewporter global (version 1): gives surfaces a crop-and-scale wp_viewport.
public final class ViewporterGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: ViewporterResource.interface, version: 1) { client, version, id in
            _ = ViewporterResource(ViewporterResource.self, client: client, version: version, id: id)
        }
    }
}

final class ViewporterResource: Resource, RequestHandler {
    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy: destroy()
        case .getViewport(let id, let surface):
            if surface.viewport != nil {
                throw ProtocolError(WpViewporterError.viewportExists, "wl_surface@\(surface.id) already has a wp_viewport")
            }
            Viewport(client: client, id: id, surface: surface).attach()
        }
    }
}
