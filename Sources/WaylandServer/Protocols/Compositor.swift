/// The wl_compositor global (version 6: surfaces hear their preferred buffer scale and transform):
/// creates surfaces and regions.
public final class CompositorGlobal {
    private var global: Global?
    /// Called for every new surface, before the client can use it.
    public var surfaceCreated: ((Surface) -> Void)?

    public init(display: Display) {
        global = Global(display: display, interface: CompositorResource.interface, version: 6) { [weak self] client, version, id in
            _ = CompositorResource(client: client, version: version, id: id, owner: self)
        }
    }

    fileprivate func created(_ surface: Surface) {
        surfaceCreated?(surface)
    }
}

final class CompositorResource: Resource, RequestHandler {
    private weak var owner: CompositorGlobal?

    init(client: Client, version: UInt32, id: UInt32, owner: CompositorGlobal?) {
        self.owner = owner
        super.init(CompositorResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .createSurface(let id):
            let surface = Surface(client: client, version: version, id: id)
            owner?.created(surface)
        case .createRegion(let id): _ = RegionResource(client: client, id: id)
        }
    }
}
