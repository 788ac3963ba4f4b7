import WaylandProtocols

/// wl_subsurface: a surface placed relative to a parent surface, stacked among its siblings, and
/// committed together with the parent while synchronized.
public final class Subsurface: Resource, RequestHandler, SurfaceRole {
    public private(set) unowned var surface: Surface
    /// Strong, not weak (docs/architecture.md: a weak reference would give the parent, which
    /// frames and commits retain, a side table): let go of when the parent, the surface or this
    /// role is destroyed.
    public private(set) var parent: Surface?
    /// Position of the subsurface's origin in the parent's surface coordinates (applied on the parent's commit).
    public private(set) var position: (x: Int32, y: Int32) = (0, 0)
    private var pendingPosition: (x: Int32, y: Int32)?
    public private(set) var isSynchronized = true
    private var cached: PendingSurfaceState?
    private var surfaceAlive = true

    let roleName = "wl_subsurface"

    init(client: Client, id: UInt32, surface: Surface, parent: Surface) {
        self.surface = surface
        self.parent = parent
        super.init(Subsurface.self, client: client, version: 1, id: id)
    }

    /// New subsurfaces go on top of the parent's pending stack.
    func attachToParent() {
        parent?.pendingStack.append(surface)
    }

    /// Synchronized itself or through any ancestor subsurface.
    public var isEffectivelySynchronized: Bool {
        isSynchronized || (parent?.subsurface?.isEffectivelySynchronized ?? false)
    }

    func cache(_ requests: PendingSurfaceState) {
        if cached == nil { cached = requests } else { cached!.merge(requests) }
    }

    func takeCache() -> PendingSurfaceState? {
        defer { cached = nil }
        return cached
    }

    func applyPendingPosition() {
        if let pendingPosition { position = pendingPosition }
        pendingPosition = nil
    }

    func validateCommit(_ surface: Surface, _ pending: PendingSurfaceState) throws(ProtocolError) {}
    func surfaceDidCommit(_ surface: Surface) {}

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy: destroy()
        case .setPosition(let x, let y): pendingPosition = (ClientCoordinate.clamp(x), ClientCoordinate.clamp(y))
        case .placeAbove(let sibling): try restack(sibling: sibling, above: true)
        case .placeBelow(let sibling): try restack(sibling: sibling, above: false)
        case .setSync: isSynchronized = true
        case .setDesync:
            isSynchronized = false
            // Leaving synchronized mode applies what was cached, as a commit would.
            if surfaceAlive, !isEffectivelySynchronized, var cached = takeCache() { surface.apply(&cached) }
        }
    }

    private func restack(sibling: Surface, above: Bool) throws(ProtocolError) {
        guard surfaceAlive, let parent else { return }
        guard sibling !== surface, sibling === parent || sibling.subsurface?.parent === parent else {
            throw ProtocolError(WlSubsurfaceError.badSurface, "place_\(above ? "above" : "below") needs the parent or a sibling of wl_surface@\(surface.id)")
        }
        parent.pendingStack.removeAll { $0 === surface }
        guard let index = parent.pendingStack.firstIndex(where: { $0 === sibling }) else { return }
        parent.pendingStack.insert(surface, at: above ? index + 1 : index)
    }

    /// The parent surface was destroyed: the subsurface is unmapped and stays inert.
    func parentDestroyed() {
        parent = nil
    }

    /// The subsurface's own wl_surface was destroyed.
    func surfaceDestroyed() {
        surfaceAlive = false
        parent?.removeFromStack(surface)
        parent = nil
    }

    override func destroyed() {
        if surfaceAlive {
            parent?.removeFromStack(surface)
            surface.clearRole(self)
        }
        parent = nil
        cached = nil
    }
}
