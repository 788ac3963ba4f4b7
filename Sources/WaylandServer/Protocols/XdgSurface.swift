import WaylandProtocols

/// What xdg_toplevel and xdg_popup add to the xdg_surface state machine that they share.
protocol XdgSurfaceRole: SurfaceRole {
    /// Applies the role's double-buffered state at a commit.
    func applyPendingState()
    /// The initial commit (again after each unmap): the compositor must configure the surface.
    func initialCommitDidHappen()
    /// Whether a committed buffer may map the surface now (a dismissed popup may not).
    var mayMap: Bool { get }
    func didMap()
    func didUnmap()
    /// The client acknowledged the configure with `serial` (older ones are consumed with it).
    func configureAcknowledged(_ serial: UInt32)
}

/// xdg_surface: the base of xdg_toplevel and xdg_popup. It owns the configure/ack handshake, the
/// window geometry and the map/unmap cycle: the first commit (without a buffer) asks the
/// compositor for a configure, a buffer committed after an acknowledged configure maps the
/// surface, a null buffer unmaps it and starts the cycle again.
public final class XdgSurface: Resource, RequestHandler {
    public let surface: Surface
    let wmBase: XdgWmBase
    /// The role object while it exists.
    public private(set) var toplevel: XdgToplevel?
    public private(set) var popup: XdgPopup?
    private var hadRole = false
    private var geometry: IntRect?
    private var pendingGeometry: IntRect?
    /// Serials of configures sent and not yet acknowledged, oldest first (an ack consumes the older ones too).
    private var unacknowledgedSerials: [UInt32] = []
    /// Whether the initial commit of this map cycle happened.
    private(set) var hasInitialCommit = false
    /// Whether a configure was ever sent: from then on the client may attach and commit buffers
    /// (the spec makes buffers "prior to the first xdg_surface.configure" an error). After an
    /// unmap the client should make an initial commit again; one that commits a buffer straight
    /// away is answered as if it had (a configure is sent) and mapped, as Mir does, rather than
    /// disconnected: the spec names no error for it.
    public private(set) var hasBeenSentConfigure = false
    /// Whether a configure was acknowledged in this map cycle.
    public private(set) var isConfigured = false
    public private(set) var isMapped = false
    /// The serial of the last acknowledged configure.
    public private(set) var lastAckedSerial: UInt32?
    /// Popups whose parent this is, in creation order (bottom to top), until they are destroyed.
    var childPopups: [XdgPopup] = []

    init(client: Client, version: UInt32, id: UInt32, surface: Surface, wmBase: XdgWmBase) {
        self.surface = surface
        self.wmBase = wmBase
        super.init(XdgSurface.self, client: client, version: version, id: id)
    }

    /// The live xdg_surface of a wl_surface.
    static func of(_ surface: Surface) -> XdgSurface? {
        (surface.extensions[ObjectIdentifier(XdgSurface.self)] as? XdgSurface).flatMap { $0.isAlive ? $0 : nil }
    }

    var shell: XdgShellGlobal? { wmBase.owner }
    private var role: XdgSurfaceRole? { toplevel ?? popup }

    /// Joins the wl_surface: its commits are checked against the handshake from now on.
    func attach() {
        let key = ObjectIdentifier(XdgSurface.self)
        surface.extensions[key] = self
        // A typed constant rather than a closure literal in the assignment: the latter crashes
        // Swift 6.3's SIL generation. The validators hold this object strongly, as `extensions`
        // does: the three entries go together (`destroyed()`, the surface's destruction). Weak
        // references would give it a side table, which makes every retain and release slow.
        // Reads the two fields it checks: passing the requests on copied them all.
        let validator: (Surface, inout PendingSurfaceState) throws(ProtocolError) -> Void = { _, pending throws(ProtocolError) in
            try self.validateCommit(attachingBuffer: pending.attached && pending.buffer != nil)
        }
        surface.commitValidators[key] = validator
        let attachValidator: (Surface, Buffer?) throws(ProtocolError) -> Void = { _, buffer throws(ProtocolError) in
            try self.validateAttach(buffer)
        }
        surface.attachValidators[key] = attachValidator
    }

    /// Attaching a buffer before the first configure of the map cycle is unconfigured_buffer.
    private func validateAttach(_ buffer: Buffer?) throws(ProtocolError) {
        if buffer != nil, !hasBeenSentConfigure, role?.mayMap ?? true {
            throw ProtocolError(XdgSurfaceError.unconfiguredBuffer,
                                "wl_surface@\(surface.id) attached a buffer before its first xdg_surface.configure", on: self)
        }
    }

    /// The window geometry in surface coordinates: the one set (clamped to the surface and its
    /// subsurfaces once they show something), or their bounding box while none was set.
    public var windowGeometry: IntRect {
        let bounds: IntRect
        if surface.stack.count == 1 {
            // No subsurfaces (most windows): the surface's own rectangle, without the walk.
            let size = surface.current.size
            let own = IntRect(x: 0, y: 0, width: size.width, height: size.height)
            bounds = own.isEmpty ? IntRect(x: 0, y: 0, width: 0, height: 0) : own
        } else {
            bounds = Self.bounds(of: surface, x: 0, y: 0) ?? IntRect(x: 0, y: 0, width: 0, height: 0)
        }
        guard let geometry else { return bounds }
        return bounds.isEmpty ? geometry : geometry.intersection(bounds)
    }

    private static func bounds(of surface: Surface, x: Int64, y: Int64) -> IntRect? {
        var box: (left: Int64, top: Int64, right: Int64, bottom: Int64)?
        func add(_ rect: IntRect?) {
            guard let rect, !rect.isEmpty else { return }
            let left = Int64(rect.x), top = Int64(rect.y)
            box = box.map { (min($0.left, left), min($0.top, top), max($0.right, rect.maxX), max($0.bottom, rect.maxY)) }
                ?? (left, top, rect.maxX, rect.maxY)
        }
        let size = surface.current.size
        add(IntRect(x: Int32(clamping: x), y: Int32(clamping: y), width: size.width, height: size.height))
        for child in surface.stack where child !== surface {
            guard let position = child.subsurface?.position else { continue }
            add(bounds(of: child, x: x + Int64(position.x), y: y + Int64(position.y)))
        }
        return box.map { IntRect(x: Int32(clamping: $0.left), y: Int32(clamping: $0.top),
                                 width: Int32(clamping: $0.right - $0.left), height: Int32(clamping: $0.bottom - $0.top)) }
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy:
            if role != nil {
                throw ProtocolError(XdgSurfaceError.defunctRoleObject, "xdg_surface@\(id) destroyed before its role object")
            }
            destroy()
        case .getToplevel(let id): try createToplevel(id: id)
        case .getPopup(let id, let parent, let positioner): try createPopup(id: id, parent: parent, positioner: positioner)
        case .setWindowGeometry(let x, let y, let width, let height):
            try requireRole("set_window_geometry")
            let rect = ClientCoordinate.rectangle(x: x, y: y, width: width, height: height)
            guard rect.width > 0, rect.height > 0 else {
                throw ProtocolError(XdgSurfaceError.invalidSize, "window geometry \(rect) is not positive in size")
            }
            pendingGeometry = rect
        case .ackConfigure(let serial): try acknowledge(serial)
        }
    }

    private func requireRole(_ request: String) throws(ProtocolError) {
        guard hadRole else {
            throw ProtocolError(XdgSurfaceError.notConstructed,
                                "\(request) on xdg_surface@\(id) before get_toplevel or get_popup", on: self)
        }
    }

    /// Checks that the surface may take `roleName` now.
    private func checkRole(_ roleName: String) throws(ProtocolError) {
        if role != nil {
            throw ProtocolError(XdgSurfaceError.alreadyConstructed,
                                "xdg_surface@\(id) already has a role object")
        }
        if let existing = surface.roleName, existing != roleName {
            throw ProtocolError(XdgWmBaseError.role,
                                "wl_surface@\(surface.id) has the role \(existing), not \(roleName)", on: wmBase)
        }
    }

    private func createToplevel(id: UInt32) throws(ProtocolError) {
        try checkRole(XdgToplevel.roleName)
        let toplevel = XdgToplevel(client: client, version: version, id: id, xdgSurface: self)
        do {
            try surface.setRole(toplevel, errorOn: wmBase, code: XdgWmBaseError.role)
        } catch {
            toplevel.destroy()
            throw error
        }
        self.toplevel = toplevel
        hadRole = true
        toplevel.didAttach()
    }

    private func createPopup(id: UInt32, parent: XdgSurface?, positioner: XdgPositioner) throws(ProtocolError) {
        try checkRole(XdgPopup.roleName)
        guard positioner.isComplete else {
            throw ProtocolError(XdgWmBaseError.invalidPositioner,
                                "get_popup with a positioner that lacks a size or an anchor rectangle", on: wmBase)
        }
        // A null parent is for a layer surface to fill in (zwlr_layer_surface_v1.get_popup).
        if let parent, !parent.isAlive || parent.role == nil {
            throw ProtocolError(XdgWmBaseError.invalidPopupParent,
                                "get_popup needs a parent xdg_surface with a role", on: wmBase)
        }
        let popup = XdgPopup(client: client, version: version, id: id, xdgSurface: self, parent: parent, rules: positioner.rules)
        do {
            try surface.setRole(popup, errorOn: wmBase, code: XdgWmBaseError.role)
        } catch {
            popup.destroy()
            throw error
        }
        self.popup = popup
        hadRole = true
        parent?.childPopups.append(popup)
        popup.didAttach()
    }

    private func acknowledge(_ serial: UInt32) throws(ProtocolError) {
        try requireRole("ack_configure")
        // Acks racing the role object's destruction have nothing left to configure.
        guard let role else { return }
        guard let index = unacknowledgedSerials.firstIndex(of: serial) else {
            throw ProtocolError(XdgSurfaceError.invalidSerial,
                                "ack_configure(\(serial)) does not match a configure awaiting acknowledgement")
        }
        unacknowledgedSerials.removeFirst(index + 1)
        lastAckedSerial = serial
        isConfigured = true
        role.configureAcknowledged(serial)
    }

    /// Sends xdg_surface.configure, which ends a configure sequence the role began; returns its serial.
    func sendConfigure() -> UInt32 {
        let serial = client.display?.nextSerial() ?? 0
        unacknowledgedSerials.append(serial)
        hasBeenSentConfigure = true
        send(.configure(serial: serial))
        return serial
    }

    /// Checks a commit, which attaches a buffer when `attachingBuffer`.
    private func validateCommit(attachingBuffer: Bool) throws(ProtocolError) {
        // A dismissed popup's buffers race its popup_done: they are ignored, not errors.
        if attachingBuffer, !hasBeenSentConfigure, role?.mayMap ?? true {
            throw ProtocolError(XdgSurfaceError.unconfiguredBuffer,
                                "wl_surface@\(surface.id) committed a buffer before its first xdg_surface.configure", on: self)
        }
        try requireRole("wl_surface.commit")
    }

    /// The role's share of a commit, after the surface state became current.
    func surfaceDidCommit() {
        if let pendingGeometry { geometry = pendingGeometry }
        pendingGeometry = nil
        guard let role else { return }
        role.applyPendingState()
        if !hasInitialCommit {
            hasInitialCommit = true
            role.initialCommitDidHappen()
            // Only a surface configured before its initial commit may bring a buffer with it.
            guard surface.current.buffer != nil else { return }
        }
        if surface.current.buffer == nil {
            if isMapped { unmap() }
        } else if !isMapped, hasBeenSentConfigure, role.mayMap {
            isMapped = true
            role.didMap()
        }
    }

    /// Unmaps the surface: its popups are dismissed (topmost first) and the client must make an
    /// initial commit again before the next buffer.
    func unmap() {
        dismissChildPopups()
        let wasMapped = isMapped
        isMapped = false
        isConfigured = false
        hasInitialCommit = false
        unacknowledgedSerials = []
        if wasMapped { role?.didUnmap() }
    }

    func dismissChildPopups() {
        for popup in childPopups.reversed() { popup.sendPopupDone() }
    }

    /// The role object was destroyed: the surface is unmapped and waits for a new role object.
    func roleDestroyed(_ role: XdgSurfaceRole) {
        guard role === self.role else { return }
        unmap()
        toplevel = nil
        popup = nil
        surface.clearRole(role)
    }

    override func destroyed() {
        wmBase.forget(self)
        let key = ObjectIdentifier(XdgSurface.self)
        if surface.extensions[key] === self {
            surface.extensions[key] = nil
            surface.commitValidators[key] = nil
            surface.attachValidators[key] = nil
        }
    }
}
