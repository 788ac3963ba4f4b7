public import SystemCalls
import WaylandProtocols

/// What the compositor decides for xdg-shell windows and popups. The protocol objects keep their
/// own state and errors; these calls are where the compositor's policy answers the client.
public protocol XdgShellHandler: AnyObject {
    /// A surface became an xdg_toplevel; it shows nothing until it is configured and mapped.
    func toplevelCreated(_ toplevel: XdgToplevel)
    /// The toplevel's initial commit (again after each unmap): the compositor must answer with
    /// `toplevel.configure(width:height:states:bounds:)`, now or later; the client waits for it.
    func toplevelNeedsInitialConfigure(_ toplevel: XdgToplevel)
    /// A buffer was committed after an acknowledged configure: the toplevel may be shown.
    func toplevelMapped(_ toplevel: XdgToplevel)
    /// The toplevel must no longer be shown (null buffer, destruction); its popups were dismissed.
    func toplevelUnmapped(_ toplevel: XdgToplevel)
    /// The toplevel object is gone (after `toplevelUnmapped` when it was mapped).
    func toplevelDestroyed(_ toplevel: XdgToplevel)
    /// A client request that needs the compositor's decision or attention. The protocol expects a
    /// configure in answer to the maximize and fullscreen requests, even when nothing changes.
    func toplevelRequested(_ toplevel: XdgToplevel, _ request: XdgToplevelRequest)
    /// A surface became an xdg_popup of `popup.parent`, placed by `popup.positioner`.
    func popupCreated(_ popup: XdgPopup)
    /// The popup's initial commit or an xdg_popup.reposition: the compositor must answer with
    /// `popup.configure(x:y:width:height:)`, typically `popup.positioner.geometry(constrainedTo:)`.
    func popupNeedsConfigure(_ popup: XdgPopup)
    func popupMapped(_ popup: XdgPopup)
    /// The popup must no longer be shown (null buffer, dismissal, destruction).
    func popupUnmapped(_ popup: XdgPopup)
    /// The popup asks for an explicit grab (keyboard focus, dismissal on a click elsewhere). The
    /// chain rules were checked; a compositor that denies it calls `popup.sendPopupDone()`.
    func popupGrabRequested(_ popup: XdgPopup, seat: Resource?, serial: UInt32)
    func popupDestroyed(_ popup: XdgPopup)
    /// The client did not answer `XdgShellGlobal.ping` in time (reported once per ping); the
    /// compositor may call `postUnresponsiveError` or `client.disconnect()`.
    func clientDidNotAnswerPing(_ client: Client)
}

/// The xdg_wm_base global (version 6: wm_capabilities and the suspended state): desktop-style
/// windows and popups, and the ping that tells whether a client still answers.
public final class XdgShellGlobal {
    /// The newest version Vitrine implements (wayland-protocols 1.43 defines 7, whose constrained
    /// edge states a kiosk's fullscreen windows have no use for).
    public static let version: UInt32 = 6

    private final class ClientState {
        var bindings: [XdgWmBase] = []
        var pingSerial: UInt32?
        var pingTimer: TimerSource?
        /// Grabbing popups, bottom to top, not yet dismissed or destroyed.
        var grabs: [XdgPopup] = []
    }

    /// The newest version without wm_capabilities: for clients that bind whatever version is
    /// advertised but have no handler for that event, which libwayland aborts them for (weston
    /// 10's presentation-shm, mpv 0.35).
    public static let versionWithoutCapabilities: UInt32 = 4

    private var global: Global?
    /// The same xdg_wm_base at `versionWithoutCapabilities`, for the display's filter to show
    /// instead of `global` to the clients that need it.
    private var globalWithoutCapabilities: Global?
    /// Strong, not weak (docs/architecture.md: a weak reference would give the display, which
    /// every attach retains, a side table): the globals' binders hold it as strongly.
    private let display: Display
    private var clients: [Client: ClientState] = [:]
    /// The compositor's window policy. Unowned, not weak (docs/architecture.md: no weak references
    /// to what a frame touches): the compositor clears it before the policy goes.
    public unowned var handler: XdgShellHandler?
    /// How long a client has to answer a ping.
    public var pingTimeoutMilliseconds: Int32 = 5000
    /// What xdg_toplevel.wm_capabilities advertises (v5); clients hide controls for the rest.
    /// Configured toplevels hear about a change with a new configure sequence.
    public var toplevelCapabilities: [XdgToplevel.Capability] = [] {
        didSet {
            guard toplevelCapabilities != oldValue else { return }
            for toplevel in toplevels { toplevel.capabilitiesChanged() }
        }
    }
    /// Every live xdg_toplevel, in creation order.
    public private(set) var toplevels: [XdgToplevel] = []

    /// Advertises xdg_wm_base at `version` (at most `XdgShellGlobal.version`), and with
    /// `offeringVersionWithoutCapabilities` a second global of it at `versionWithoutCapabilities`:
    /// the display's filter then shows each client one of the two (`isWithoutCapabilities`).
    public init(
        display: Display, version: UInt32 = XdgShellGlobal.version, offeringVersionWithoutCapabilities: Bool = false,
        handler: XdgShellHandler? = nil
    ) {
        self.display = display
        self.handler = handler
        let bind: (Client, UInt32, UInt32) -> Void = { [weak self] client, version, id in
            let binding = XdgWmBase(client: client, version: version, id: id, owner: self)
            self?.state(of: client).bindings.append(binding)
        }
        global = Global(display: display, interface: XdgWmBase.interface, version: min(version, Self.version), bind: bind)
        if offeringVersionWithoutCapabilities {
            globalWithoutCapabilities = Global(
                display: display, interface: XdgWmBase.interface, version: min(version, Self.versionWithoutCapabilities), bind: bind)
        }
    }

    /// The interface's name, as a global filter sees it.
    public static let interfaceName = XdgWmBase.interface.name

    /// Whether `global` is the xdg_wm_base offered at `versionWithoutCapabilities`.
    public func isWithoutCapabilities(_ global: Global) -> Bool {
        global === globalWithoutCapabilities
    }

    /// Sends xdg_wm_base.ping to each of the client's bindings and starts the timeout; a pong with
    /// that serial stops it, otherwise `handler.clientDidNotAnswerPing` runs once. While a ping is
    /// unanswered, another ping sends nothing and keeps the first deadline. Returns false when the
    /// client has no xdg_wm_base to ping.
    @discardableResult
    public func ping(_ client: Client) throws(SystemCallError) -> Bool {
        guard let state = clients[client] else { return false }
        if state.pingSerial != nil { return true }
        let timer: TimerSource
        if let existing = state.pingTimer {
            timer = existing
        } else {
            timer = try display.eventLoop.addTimer { [weak self, weak client] in
                guard let self, let client else { return }
                pingTimedOut(client)
            }
            state.pingTimer = timer
        }
        let serial = display.nextSerial()
        state.pingSerial = serial
        for binding in state.bindings { binding.sendPing(serial) }
        timer.arm(milliseconds: pingTimeoutMilliseconds)
        return true
    }

    /// Whether a ping to the client is still unanswered.
    public func isAwaitingPong(from client: Client) -> Bool {
        clients[client]?.pingSerial != nil
    }

    /// Posts xdg_wm_base.unresponsive, which disconnects the client.
    public func postUnresponsiveError(_ client: Client) {
        clients[client]?.bindings.first?.postError(XdgWmBaseError.unresponsive, "the client did not answer a ping in time")
    }

    private func state(of client: Client) -> ClientState {
        if let state = clients[client] { return state }
        let state = ClientState()
        clients[client] = state
        return state
    }

    private func pingTimedOut(_ client: Client) {
        guard let state = clients[client], state.pingSerial != nil else { return }
        state.pingSerial = nil
        handler?.clientDidNotAnswerPing(client)
    }

    fileprivate func pong(_ serial: UInt32, from client: Client) {
        guard let state = clients[client], state.pingSerial == serial else { return }
        state.pingSerial = nil
        state.pingTimer?.disarm()
    }

    fileprivate func forget(_ binding: XdgWmBase) {
        guard let state = clients[binding.client] else { return }
        state.bindings.removeAll { $0 === binding }
        // The state goes with the last binding, and its timer with it.
        if state.bindings.isEmpty { clients[binding.client] = nil }
    }

    func add(_ toplevel: XdgToplevel) {
        toplevels.append(toplevel)
    }

    func remove(_ toplevel: XdgToplevel) {
        toplevels.removeAll { $0 === toplevel }
    }

    /// The client's grabbing popups that are still shown, bottom to top.
    func grabs(of client: Client) -> [XdgPopup] {
        clients[client]?.grabs ?? []
    }

    func addGrab(_ popup: XdgPopup) {
        clients[popup.client]?.grabs.append(popup)
    }

    func removeGrab(_ popup: XdgPopup) {
        clients[popup.client]?.grabs.removeAll { $0 === popup }
    }
}

/// One client's binding of xdg_wm_base: creates positioners and xdg_surfaces, answers pings.
final class XdgWmBase: Resource, RequestHandler {
    private(set) weak var owner: XdgShellGlobal?
    /// The xdg_surfaces created through this binding that still exist.
    private var surfaces: [XdgSurface] = []

    init(client: Client, version: UInt32, id: UInt32, owner: XdgShellGlobal?) {
        self.owner = owner
        super.init(XdgWmBase.self, client: client, version: version, id: id)
    }

    func sendPing(_ serial: UInt32) {
        send(.ping(serial: serial))
    }

    func forget(_ surface: XdgSurface) {
        surfaces.removeAll { $0 === surface }
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy:
            guard surfaces.isEmpty else {
                throw ProtocolError(XdgWmBaseError.defunctSurfaces,
                                    "xdg_wm_base destroyed while \(surfaces.count) xdg_surface(s) it created exist")
            }
            destroy()
        case .createPositioner(let id): _ = XdgPositioner(XdgPositioner.self, client: client, version: version, id: id)
        case .getXdgSurface(let id, let surface): try createXdgSurface(id: id, for: surface)
        case .pong(let serial): owner?.pong(serial, from: client)
        }
    }

    private func createXdgSurface(id: UInt32, for surface: Surface) throws(ProtocolError) {
        let roleError = XdgWmBaseError.role
        if let role = surface.roleName, role != XdgToplevel.roleName, role != XdgPopup.roleName {
            throw ProtocolError(roleError, "wl_surface@\(surface.id) already has the role \(role)")
        }
        if XdgSurface.of(surface) != nil {
            throw ProtocolError(roleError, "wl_surface@\(surface.id) already has an xdg_surface")
        }
        // A surface with a buffer attached or committed cannot become an xdg_surface: the
        // request itself is wrong, so xdg_wm_base reports it (invalid_surface_state).
        if surface.current.buffer != nil || (surface.pending.attached && surface.pending.buffer != nil) {
            throw ProtocolError(XdgWmBaseError.invalidSurfaceState,
                                "wl_surface@\(surface.id) has a buffer attached or committed")
        }
        let xdgSurface = XdgSurface(client: client, version: version, id: id, surface: surface, wmBase: self)
        surfaces.append(xdgSurface)
        xdgSurface.attach()
    }

    override func destroyed() {
        owner?.forget(self)
    }
}
