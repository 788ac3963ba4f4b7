import WaylandProtocols

/// What the compositor hears about idle inhibitors. An inhibitor asks that the outputs showing
/// its surface do not blank, dim or lock while the user is idle; the compositor honours it only
/// while the surface is visible (mapped, not occluded), which it alone knows. A surface may have
/// several inhibitors: each one is reported once created and once destroyed.
public protocol IdleInhibitHandler: AnyObject {
    /// A client created an inhibitor for `surface`.
    func inhibitorCreated(for surface: Surface)
    /// An inhibitor of `surface` went away: destroyed by the client, its surface destroyed, or the
    /// client disconnected. `surface` may be about to be destroyed; do not keep it.
    func inhibitorDestroyed(for surface: Surface)
}

/// The zwp_idle_inhibit_manager_v1 global (version 1).
public final class IdleInhibitManagerGlobal {
    private var global: Global?
    /// The compositor's handler; set it before clients can bind the global. Unowned, not weak
    /// (docs/architecture.md: no weak references to what a frame touches): the handler clears it
    /// before it goes.
    public unowned var handler: IdleInhibitHandler?

    public init(display: Display) {
        global = Global(display: display, interface: IdleInhibitManagerResource.interface, version: 1) {
            [weak self] client, version, id in
            _ = IdleInhibitManagerResource(client: client, version: version, id: id, owner: self)
        }
    }
}

final class IdleInhibitManagerResource: Resource, RequestHandler {
    private weak var owner: IdleInhibitManagerGlobal?

    init(client: Client, version: UInt32, id: UInt32, owner: IdleInhibitManagerGlobal?) {
        self.owner = owner
        super.init(IdleInhibitManagerResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        case .createInhibitor(let id, let surface): IdleInhibitor(client: client, id: id, owner: owner).start(on: surface)
        }
    }
}

/// zwp_idle_inhibitor_v1: active from creation until it or its surface is destroyed.
final class IdleInhibitor: Resource, RequestHandler {
    private weak var owner: IdleInhibitManagerGlobal?
    /// Strong, not weak (docs/architecture.md: a weak reference would give the surface, which
    /// every frame retains, a side table): let go of when it or the inhibitor is destroyed.
    private var surface: Surface?
    private var surfaceDestruction: ResourceDestructionListener?

    init(client: Client, id: UInt32, owner: IdleInhibitManagerGlobal?) {
        self.owner = owner
        super.init(IdleInhibitor.self, client: client, version: 1, id: id)
    }

    func start(on surface: Surface) {
        self.surface = surface
        surfaceDestruction = ResourceDestructionListener(surface) { [unowned self] in end() }
        owner?.handler?.inhibitorCreated(for: surface)
    }

    /// Reports the end once, whichever of the inhibitor and its surface goes first.
    private func end() {
        guard let surface else { return }
        self.surface = nil
        owner?.handler?.inhibitorDestroyed(for: surface)
    }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        }
    }

    override func destroyed() {
        end()
        surfaceDestruction = nil
    }
}
