import WaylandProtocols

/// The xwayland_shell_v1 global (version 1), which Xwayland 23.1 and later bind instead of naming
/// surfaces with `WL_SURFACE_ID`: each X window's wl_surface gets the xwayland_surface role and a
/// serial (`XwaylandSurface`) that the window's `WL_SURFACE_SERIAL` message names too. Only
/// Xwayland may see it; the compositor's global filter shows it to the client it started as
/// Xwayland alone (`interfaceName`).
public final class XwaylandShellGlobal {
    public static let interfaceName = XwaylandShellResource.interface.name

    /// Holds the surface until it is destroyed: strongly, not weakly (docs/architecture.md: a
    /// weak reference would give the surface, which every frame retains, a side table).
    private struct Association {
        let reference: LiveSurfaceReference
        var surface: Surface? { reference.surface }
    }

    private var global: Global?
    /// Surfaces by the serial committed on them; a destroyed surface's entry is dropped when the
    /// next association is made.
    private var associations: [UInt64: Association] = [:]
    /// The clients that bound the global, while they are connected.
    private var binders: [ObjectIdentifier: Client] = [:]
    /// Called once a serial committed on a surface took effect (`Surface.xwaylandSerial`).
    public var surfaceAssociated: ((Surface) -> Void)?

    public init(display: Display) {
        global = Global(display: display, interface: XwaylandShellResource.interface, version: 1) { [weak self] client, version, id in
            guard let self else { return }
            let key = ObjectIdentifier(client)
            if binders[key] == nil {
                binders[key] = client
                client.watchDestruction { [weak self] in self?.binders[key] = nil }
            }
            _ = XwaylandShellResource(client: client, version: version, id: id, shell: self)
        }
    }

    /// Whether `client` bound the global (it then names its surfaces by serial, not by id).
    public func isBound(by client: Client) -> Bool {
        binders[ObjectIdentifier(client)] === client
    }

    /// The live surface of `client` whose committed serial is `serial`.
    public func surface(withSerial serial: UInt64, of client: Client) -> Surface? {
        guard let surface = associations[serial]?.surface, surface.isAlive, surface.client === client else { return nil }
        return surface
    }

    func associate(_ surface: Surface, serial: UInt64) {
        associations = associations.filter { $0.value.surface?.isAlive == true }
        associations[serial] = Association(reference: LiveSurfaceReference(surface))
        surfaceAssociated?(surface)
    }
}

final class XwaylandShellResource: Resource, RequestHandler {
    private weak var shell: XwaylandShellGlobal?

    init(client: Client, version: UInt32, id: UInt32, shell: XwaylandShellGlobal) {
        self.shell = shell
        super.init(XwaylandShellResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy: destroy()
        case .getXwaylandSurface(let id, let surface):
            let role = XwaylandSurface(client: client, version: version, id: id, surface: surface, shell: shell)
            do {
                try surface.setRole(role, errorOn: self, code: XwaylandShellV1Error.role)
            } catch {
                role.destroy()
                throw error
            }
            role.didAttach()
        }
    }
}
