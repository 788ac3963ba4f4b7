import WaylandProtocols

/// What an xdg_popup is placed against.
public enum PopupParent {
    /// A toplevel or another popup (xdg_surface.get_popup's parent).
    case xdgSurface(XdgSurface)
    /// A layer surface (zwlr_layer_surface_v1.get_popup, for a popup made without a parent).
    case layerSurface(LayerSurface)

    public var surface: Surface {
        switch self {
        case .xdgSurface(let parent): parent.surface
        case .layerSurface(let parent): parent.surface
        }
    }

    /// The rectangle the popup's position is relative to, in the parent surface's coordinates:
    /// an xdg_surface's window geometry, a layer surface's whole surface.
    public var windowGeometry: IntRect {
        switch self {
        case .xdgSurface(let parent): return parent.windowGeometry
        case .layerSurface(let parent):
            let size = parent.surface.current.size
            return IntRect(x: 0, y: 0, width: size.width, height: size.height)
        }
    }

    var isMapped: Bool {
        switch self {
        case .xdgSurface(let parent): parent.isMapped
        case .layerSurface(let parent): parent.isMapped
        }
    }
}

/// xdg_popup: a short-lived surface (menu, tooltip) placed against its parent by positioner rules.
/// Popups of one parent stack in creation order and must be destroyed topmost first; grabbing
/// popups form one chain per client, each grabbing on top of the previous one. A popup made
/// without a parent waits for a layer surface to take it (zwlr_layer_surface_v1.get_popup) before
/// its initial commit; until it has a parent it is not configured.
public final class XdgPopup: Resource, RequestHandler, XdgSurfaceRole {
    static let roleName = "xdg_popup"
    var roleName: String { Self.roleName }

    public let xdgSurface: XdgSurface
    public var surface: Surface { xdgSurface.surface }
    /// What the popup is placed against; nil until a layer surface takes a popup made without one.
    public private(set) var parent: PopupParent?
    /// The rules of the positioner it was created or last repositioned with.
    public private(set) var positioner: XdgPositionerRules
    /// Whether the popup asked for an explicit grab (until it is unmapped).
    public private(set) var hasGrab = false
    /// Whether popup_done was sent: the popup stays unmapped until the client destroys it.
    public private(set) var isDismissed = false
    /// Configures sent and not yet acknowledged, oldest first.
    private var sentGeometries: [(serial: UInt32, geometry: IntRect)] = []
    private var acknowledgedGeometry: IntRect?
    /// The geometry (relative to the parent's window geometry) the client acknowledged and committed.
    public private(set) var geometry: IntRect?
    private var repositionToken: UInt32?

    init(client: Client, version: UInt32, id: UInt32, xdgSurface: XdgSurface, parent: XdgSurface?, rules: XdgPositionerRules) {
        self.xdgSurface = xdgSurface
        self.parent = parent.map { .xdgSurface($0) }
        positioner = rules
        super.init(XdgPopup.self, client: client, version: version, id: id)
    }

    public var isMapped: Bool { xdgSurface.isMapped }
    public var isConfigured: Bool { xdgSurface.isConfigured }
    public var lastAckedSerial: UInt32? { xdgSurface.lastAckedSerial }

    private var shell: XdgShellGlobal? { xdgSurface.shell }
    private var handler: XdgShellHandler? { shell?.handler }

    /// Sends a configure sequence: repositioned(token) when it answers xdg_popup.reposition (v3),
    /// xdg_popup.configure with the geometry relative to the parent's window geometry, then
    /// xdg_surface.configure, whose serial it returns.
    @discardableResult
    public func configure(x: Int32, y: Int32, width: Int32, height: Int32) -> UInt32 {
        if let token = repositionToken { send(.repositioned(token: token)) }
        repositionToken = nil
        send(.configure(x: x, y: y, width: width, height: height))
        let serial = xdgSurface.sendConfigure()
        sentGeometries.append((serial, IntRect(x: x, y: y, width: width, height: height)))
        return serial
    }

    /// Dismisses the popup (popup_done) after the popups above it, topmost first, and unmaps it.
    public func sendPopupDone() {
        guard isAlive, !isDismissed else { return }
        xdgSurface.dismissChildPopups()
        isDismissed = true
        shell?.removeGrab(self)
        send(.popupDone)
        if xdgSurface.isMapped { xdgSurface.unmap() }
    }

    func didAttach() {
        handler?.popupCreated(self)
        // A popup on a dismissed popup can never show; the client learns it at once.
        if case .xdgSurface(let parent)? = parent, parent.popup?.isDismissed == true { sendPopupDone() }
    }

    /// `layerSurface` takes the popup as its own (zwlr_layer_surface_v1.get_popup): allowed once,
    /// for a popup made without a parent, before its initial commit.
    func attach(to layerSurface: LayerSurface) throws(ProtocolError) {
        guard parent == nil, !xdgSurface.hasInitialCommit else {
            throw ProtocolError(XdgWmBaseError.invalidPopupParent,
                                "get_popup: xdg_popup@\(id) has a parent or made its initial commit already", on: xdgSurface.wmBase)
        }
        parent = .layerSurface(layerSurface)
        layerSurface.childPopups.append(self)
        if layerSurface.isClosed {
            sendPopupDone()
        } else if layerSurface.isMapped {
            // Its placement is known now, so it is configured now, as toplevels are once their
            // role exists: clients (WLCS's) attach a popup's buffer right after get_popup.
            handler?.popupNeedsConfigure(self)
        }
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy:
            if let above = xdgSurface.childPopups.first {
                throw ProtocolError(XdgWmBaseError.notTheTopmostPopup,
                                    "xdg_popup@\(id) destroyed before xdg_popup@\(above.id) above it", on: xdgSurface.wmBase)
            }
            destroy()
        case .grab(let seat, let serial): try grab(seat: seat, serial: serial)
        case .reposition(let rules, let token):
            guard rules.isComplete else {
                throw ProtocolError(XdgWmBaseError.invalidPositioner,
                                    "reposition with a positioner that lacks a size or an anchor rectangle", on: xdgSurface.wmBase)
            }
            positioner = rules.rules
            repositionToken = token
            // Before the initial commit the initial configure carries the new placement (unless
            // the popup was configured already).
            if xdgSurface.hasInitialCommit || hasBeenConfiguredInThisMapCycle, !isDismissed { handler?.popupNeedsConfigure(self) }
        }
    }

    private func grab(seat: Resource?, serial: UInt32) throws(ProtocolError) {
        if xdgSurface.hasInitialCommit {
            throw ProtocolError(XdgPopupError.invalidGrab,
                                "xdg_popup@\(id) asked for a grab after its initial commit")
        }
        if isDismissed { return }
        // The parent must be the top of the client's grab chain, or, when there is none, a toplevel,
        // a layer surface, or nothing yet (a layer surface takes it before its initial commit).
        let top = shell?.grabs(of: client).last
        let parentIsTop: Bool
        switch parent {
        case .xdgSurface(let parent)?: parentIsTop = top.map { $0.xdgSurface === parent } ?? (parent.toplevel != nil)
        case .layerSurface?, nil: parentIsTop = top == nil
        }
        guard parentIsTop else {
            throw ProtocolError(XdgWmBaseError.notTheTopmostPopup,
                                "xdg_popup@\(id) grabs on a parent that is not the topmost grabbing popup", on: xdgSurface.wmBase)
        }
        hasGrab = true
        shell?.addGrab(self)
        handler?.popupGrabRequested(self, seat: seat, serial: serial)
    }

    func validateCommit(_ surface: Surface, _ pending: PendingSurfaceState) throws(ProtocolError) {
        if pending.attached, pending.buffer != nil, !isDismissed, !xdgSurface.isMapped, parent?.isMapped != true {
            throw ProtocolError(XdgWmBaseError.invalidPopupParent,
                                "xdg_popup@\(id) mapped before its parent", on: xdgSurface.wmBase)
        }
    }

    func surfaceDidCommit(_ surface: Surface) {
        xdgSurface.surfaceDidCommit()
    }

    func applyPendingState() {
        if let acknowledgedGeometry {
            geometry = acknowledgedGeometry
        } else if geometry == nil, let sent = sentGeometries.last {
            // A buffer that maps before its configure is acknowledged (allowed, as for toplevels)
            // shows where that configure placed it.
            geometry = sent.geometry
        }
    }

    func initialCommitDidHappen() {
        // A popup configured when a layer surface took it has its answer already.
        if !isDismissed, parent != nil, !hasBeenConfiguredInThisMapCycle { handler?.popupNeedsConfigure(self) }
    }

    /// Whether a configure went out since get_popup or the last unmap.
    private var hasBeenConfiguredInThisMapCycle: Bool { !sentGeometries.isEmpty || acknowledgedGeometry != nil }

    var mayMap: Bool { !isDismissed }

    func didMap() {
        handler?.popupMapped(self)
    }

    /// An unmapped popup gives up its grab and waits for a new initial commit, as after get_popup.
    func didUnmap() {
        shell?.removeGrab(self)
        hasGrab = false
        sentGeometries = []
        acknowledgedGeometry = nil
        geometry = nil
        handler?.popupUnmapped(self)
    }

    func configureAcknowledged(_ serial: UInt32) {
        guard let index = sentGeometries.firstIndex(where: { $0.serial == serial }) else { return }
        acknowledgedGeometry = sentGeometries[index].geometry
        sentGeometries.removeFirst(index + 1)
    }

    override func destroyed() {
        guard xdgSurface.popup === self else { return }
        switch parent {
        case .xdgSurface(let parent)?: parent.childPopups.removeAll { $0 === self }
        case .layerSurface(let parent)?: parent.childPopups.removeAll { $0 === self }
        case nil: break
        }
        shell?.removeGrab(self)
        xdgSurface.roleDestroyed(self)
        handler?.popupDestroyed(self)
    }
}
