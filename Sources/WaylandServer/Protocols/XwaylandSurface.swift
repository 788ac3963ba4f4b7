import WaylandProtocols

/// xwayland_surface_v1: the xwayland_surface role, by which Xwayland says which X window a
/// surface shows. The serial set here takes effect with the surface's next commit; it equals the
/// one of the window's `WL_SURFACE_SERIAL` message, which the X window manager matches. A surface
/// is associated once; the association outlives this object, and the object is inert once its
/// surface is destroyed (the protocol has no error for that, and Xwayland may destroy the surface
/// first).
final class XwaylandSurface: Resource, RequestHandler, SurfaceRole {
    static let roleName = "xwayland_surface_v1"
    var roleName: String { Self.roleName }

    /// Strong, not weak (docs/architecture.md: a weak reference would give the surface, which
    /// every frame retains, a side table): let go of when it or this object is destroyed (`end`).
    private var surface: Surface?
    private weak var shell: XwaylandShellGlobal?
    private var surfaceDestruction: ResourceDestructionListener?
    /// Set, not committed yet.
    private var pendingSerial: UInt64?
    /// Committed, taking effect when the commit applies.
    private var committedSerial: UInt64?

    init(client: Client, version: UInt32, id: UInt32, surface: Surface, shell: XwaylandShellGlobal?) {
        self.surface = surface
        self.shell = shell
        super.init(XwaylandSurface.self, client: client, version: version, id: id)
    }

    func didAttach() {
        guard let surface else { return }
        surfaceDestruction = ResourceDestructionListener(surface) { [unowned self] in end() }
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy: destroy()
        case .setSerial(let low, let high):
            let serial = UInt64(high) << 32 | UInt64(low)
            guard serial != 0 else {
                throw ProtocolError(XwaylandSurfaceV1Error.invalidSerial, "serial 0 is not valid")
            }
            guard surfaceDestruction != nil else { return }
            pendingSerial = serial
        }
    }

    func validateCommit(_ surface: Surface, _ pending: PendingSurfaceState) throws(ProtocolError) {
        guard let serial = pendingSerial else { return }
        if let associated = surface.xwaylandSerial ?? committedSerial {
            throw ProtocolError(XwaylandSurfaceV1Error.alreadyAssociated,
                                "wl_surface@\(surface.id) is already associated with serial \(associated)", on: self)
        }
        pendingSerial = nil
        committedSerial = serial
    }

    func surfaceDidCommit(_ surface: Surface) {
        guard let serial = committedSerial, surface.xwaylandSerial == nil else { return }
        surface.xwaylandSerial = serial
        shell?.associate(surface, serial: serial)
    }

    /// The surface or this object goes away: the role object is forgotten, the surface's
    /// association stays.
    private func end() {
        surfaceDestruction = nil
        pendingSerial = nil
        surface?.clearRole(self)
        surface = nil
    }

    override func destroyed() {
        end()
    }
}

extension Surface {
    /// The serial Xwayland committed on the surface through xwayland_surface_v1, once it did.
    public internal(set) var xwaylandSerial: UInt64? {
        get { (extensions[ObjectIdentifier(XwaylandSurface.self)] as? XwaylandSerialBox)?.serial }
        set { extensions[ObjectIdentifier(XwaylandSurface.self)] = newValue.map(XwaylandSerialBox.init) }
    }
}

/// The serial kept with the surface among its extensions' objects.
private final class XwaylandSerialBox {
    let serial: UInt64
    init(serial: UInt64) { self.serial = serial }
}
