import Testing
import WaylandServer
import WaylandTestClient

/// The kiosk policy the xdg-shell tests run against, recording what the compositor hears: every
/// toplevel is fullscreen at the output's logical size and activated; popups are placed by their
/// positioner inside the output; maximize and fullscreen requests get the same configure again.
final class XdgTestShell: XdgShellHandler, XdgActivationHandler {
    let outputSize: SurfaceSize
    /// Handler calls in order, e.g. "toplevelMapped".
    var calls: [String] = []
    var toplevels: [XdgToplevel] = []
    var popups: [XdgPopup] = []
    var requests: [XdgToplevelRequest] = []
    var grabs: [(popup: XdgPopup, seat: Resource?, serial: UInt32)] = []
    var unansweredPings: [Client] = []
    var activations: [(token: XdgActivationToken, surface: Surface)] = []
    /// When false, initial commits get no configure (the test sends its own).
    var configuresToplevels = true
    /// Where each configured popup's window geometry lies on the output.
    private var popupOrigins: [ObjectIdentifier: (x: Int32, y: Int32)] = [:]

    init(outputSize: SurfaceSize) {
        self.outputSize = outputSize
    }

    func toplevelCreated(_ toplevel: XdgToplevel) {
        calls.append("toplevelCreated")
        toplevels.append(toplevel)
    }

    func toplevelNeedsInitialConfigure(_ toplevel: XdgToplevel) {
        calls.append("toplevelNeedsInitialConfigure")
        if configuresToplevels { configureFullscreen(toplevel) }
    }

    func toplevelMapped(_ toplevel: XdgToplevel) { calls.append("toplevelMapped") }
    func toplevelUnmapped(_ toplevel: XdgToplevel) { calls.append("toplevelUnmapped") }
    func toplevelDestroyed(_ toplevel: XdgToplevel) { calls.append("toplevelDestroyed") }

    func toplevelRequested(_ toplevel: XdgToplevel, _ request: XdgToplevelRequest) {
        calls.append("toplevelRequested")
        requests.append(request)
        switch request {
        case .setMaximized, .unsetMaximized, .setFullscreen, .unsetFullscreen: configureFullscreen(toplevel)
        default: break
        }
    }

    func configureFullscreen(_ toplevel: XdgToplevel) {
        toplevel.configure(width: outputSize.width, height: outputSize.height, states: [.fullscreen, .activated])
    }

    func popupCreated(_ popup: XdgPopup) {
        calls.append("popupCreated")
        popups.append(popup)
    }

    /// Places the popup inside the output: toplevels cover the output from its origin, popups lie
    /// where they were configured.
    func popupNeedsConfigure(_ popup: XdgPopup) {
        calls.append("popupNeedsConfigure")
        let parent = origin(of: popup.parent)
        let output = IntRect(x: -parent.x, y: -parent.y, width: outputSize.width, height: outputSize.height)
        let geometry = popup.positioner.geometry(constrainedTo: output)
        popupOrigins[ObjectIdentifier(popup)] = (parent.x + geometry.x, parent.y + geometry.y)
        popup.configure(x: geometry.x, y: geometry.y, width: geometry.width, height: geometry.height)
    }

    private func origin(of parent: PopupParent?) -> (x: Int32, y: Int32) {
        guard case .xdgSurface(let surface)? = parent else { return (0, 0) }
        return surface.popup.flatMap { popupOrigins[ObjectIdentifier($0)] } ?? (0, 0)
    }

    func popupMapped(_ popup: XdgPopup) { calls.append("popupMapped") }
    func popupUnmapped(_ popup: XdgPopup) { calls.append("popupUnmapped") }
    func popupDestroyed(_ popup: XdgPopup) { calls.append("popupDestroyed") }

    func popupGrabRequested(_ popup: XdgPopup, seat: Resource?, serial: UInt32) {
        calls.append("popupGrabRequested")
        grabs.append((popup, seat, serial))
    }

    func clientDidNotAnswerPing(_ client: Client) {
        calls.append("clientDidNotAnswerPing")
        unansweredPings.append(client)
    }

    func activationRequested(token: XdgActivationToken, surface: Surface) {
        activations.append((token, surface))
    }
}

/// The core harness plus xdg-shell, xdg-decoration, xdg-activation and a seat, with the kiosk
/// policy above; the client has bound xdg_wm_base (version 6).
final class XdgHarness {
    /// A toplevel as both sides see it.
    struct Window {
        let surface: WlSurfaceProxy
        let xdgSurface: XdgSurfaceProxy
        let toplevel: XdgToplevelProxy
        let server: XdgToplevel
    }

    /// A popup as both sides see it.
    struct Popup {
        let surface: WlSurfaceProxy
        let xdgSurface: XdgSurfaceProxy
        let popup: XdgPopupProxy
        let server: XdgPopup
    }

    let core: Harness
    let policy: XdgTestShell
    let shell: XdgShellGlobal
    let decorations: XdgDecorationGlobal
    let activation: XdgActivationGlobal
    let seat: SeatGlobal
    let wmBase: XdgWmBaseProxy
    /// The server's side of the harness's client.
    let serverClient: Client
    /// Events of the objects passed to `track`, in arrival order, as "interface.event".
    private(set) var events: [String] = []
    private var compositor: WlCompositorProxy?

    var client: TestClient { core.client }
    var display: Display { core.display }

    init(wmBaseVersion: UInt32 = 6) throws {
        core = try Harness()
        let output = core.output.state
        policy = XdgTestShell(outputSize: SurfaceSize(width: output.logicalWidth, height: output.logicalHeight))
        shell = XdgShellGlobal(display: core.display, handler: policy)
        decorations = XdgDecorationGlobal(display: core.display)
        activation = XdgActivationGlobal(display: core.display, handler: policy)
        seat = SeatGlobal(display: core.display, name: "seat0")
        serverClient = try #require(core.display.connectedClients.first)
        // The client connected before these globals existed: let it hear about them.
        try core.client.roundtrip()
        wmBase = try core.client.bind(XdgWmBaseProxy.self, version: wmBaseVersion)
        try core.client.roundtrip()
    }


    /// Records the proxy's events in `events` from now on.
    func track(_ proxies: TestProxy...) {
        for proxy in proxies {
            let interface = proxy.interfaceName
            proxy.onEvent = { [unowned self] event in events.append("\(interface).\(event.name)") }
        }
    }

    func clearEvents() {
        events = []
    }

    func makeSurface() throws -> WlSurfaceProxy {
        if compositor == nil { compositor = try client.bind(WlCompositorProxy.self, version: 5) }
        return try compositor!.createSurface()
    }

    /// wl_surface, xdg_surface and xdg_toplevel, tracked, before the initial commit.
    func makeToplevel() throws -> Window {
        let surface = try makeSurface()
        let xdgSurface = try wmBase.getXdgSurface(surface: surface)
        let toplevel = try xdgSurface.getToplevel()
        track(xdgSurface, toplevel)
        try client.roundtrip()
        let server = try #require(policy.toplevels.last)
        #expect(server.id == toplevel.id)
        return Window(surface: surface, xdgSurface: xdgSurface, toplevel: toplevel, server: server)
    }

    /// A toplevel through the whole handshake: initial commit, ack, buffer: mapped.
    func makeMappedToplevel(width: Int32 = 320, height: Int32 = 240) throws -> Window {
        let window = try makeToplevel()
        try commit(window.surface)
        try acknowledgeLastConfigure(window.xdgSurface)
        try attachBuffer(to: window.surface, width: width, height: height)
        try commit(window.surface)
        #expect(window.server.isMapped)
        return window
    }

    /// Ends `window` as its client would, destroying its toplevel, xdg_surface and surface in that
    /// order or (`leaving`) disconnecting, and forgets what the harness kept of it.
    func end(_ window: Window, leaving: Bool) throws {
        if leaving {
            serverClient.disconnect()
        } else {
            try window.toplevel.destroy()
            try window.xdgSurface.destroy()
            try window.surface.destroy()
            try client.roundtrip()
        }
        policy.toplevels = []
        core.commits = []
    }

    /// A positioner with the given rules (size and anchor rectangle always set).
    func makePositioner(width: Int32 = 60, height: Int32 = 40, anchorRect: IntRect = IntRect(x: 0, y: 0, width: 320, height: 240),
                        anchor: XdgPositionerAnchor? = nil, gravity: XdgPositionerGravity? = nil,
                        constraintAdjustment: UInt32? = nil) throws -> XdgPositionerProxy {
        let positioner = try wmBase.createPositioner()
        try positioner.setSize(width: width, height: height)
        try positioner.setAnchorRect(x: anchorRect.x, y: anchorRect.y, width: anchorRect.width, height: anchorRect.height)
        if let anchor { try positioner.setAnchor(anchor: anchor) }
        if let gravity { try positioner.setGravity(gravity: gravity) }
        if let constraintAdjustment { try positioner.setConstraintAdjustment(constraintAdjustment: constraintAdjustmentArgument(constraintAdjustment)) }
        return positioner
    }

    /// wl_surface, xdg_surface and xdg_popup of `parent` (an xdg_surface proxy), tracked, before
    /// the initial commit.
    func makePopup(parent: XdgSurfaceProxy, positioner: XdgPositionerProxy? = nil) throws -> Popup {
        let rules = try positioner ?? makePositioner()
        let surface = try makeSurface()
        let xdgSurface = try wmBase.getXdgSurface(surface: surface)
        let popup = try xdgSurface.getPopup(parent: parent, positioner: rules)
        track(xdgSurface, popup)
        try client.roundtrip()
        let server = try #require(policy.popups.last)
        #expect(server.id == popup.id)
        return Popup(surface: surface, xdgSurface: xdgSurface, popup: popup, server: server)
    }

    /// A popup through the whole handshake, optionally grabbing before its initial commit.
    func makeMappedPopup(parent: XdgSurfaceProxy, positioner: XdgPositionerProxy? = nil, grab: Bool = false) throws -> Popup {
        let popup = try makePopup(parent: parent, positioner: positioner)
        if grab { try self.grab(popup) }
        try commit(popup.surface)
        try acknowledgeLastConfigure(popup.xdgSurface)
        try attachBuffer(to: popup.surface, width: 60, height: 40)
        try commit(popup.surface)
        #expect(popup.server.isMapped)
        return popup
    }

    func grab(_ popup: Popup, serial: UInt32 = 7) throws {
        let seatProxy = try client.bind(WlSeatProxy.self, version: 1)
        try popup.popup.grab(seat: seatProxy, serial: serial)
    }

    func commit(_ surface: WlSurfaceProxy) throws {
        try surface.commit()
        try client.roundtrip()
    }

    func attachBuffer(to surface: WlSurfaceProxy, width: Int32, height: Int32) throws {
        let buffer = try core.shmBuffer(client, width: width, height: height, pixel: 0xff80_8080)
        try surface.attach(buffer: buffer, x: 0, y: 0)
    }

    func attachNull(to surface: WlSurfaceProxy) throws {
        try surface.attach(buffer: nil, x: 0, y: 0)
    }

    /// The serial of the last xdg_surface.configure the proxy received.
    func lastConfigureSerial(_ xdgSurface: XdgSurfaceProxy) -> UInt32 {
        guard case .configure(let serial)? = xdgSurface.events.last(where: { $0.name == "configure" }) else {
            Issue.record("xdg_surface@\(xdgSurface.id) received no configure")
            return 0
        }
        return serial
    }

    func acknowledgeLastConfigure(_ xdgSurface: XdgSurfaceProxy) throws {
        try xdgSurface.ackConfigure(serial: lastConfigureSerial(xdgSurface))
    }

    /// Runs the server's loop until `condition` holds (at most about `milliseconds`).
    func pump(forMilliseconds milliseconds: Int, until condition: () -> Bool = { false }) throws {
        for _ in 0..<(milliseconds / 5) where !condition() {
            try display.eventLoop.dispatch(timeoutMilliseconds: 5)
            display.flushClients()
        }
    }

    /// The next roundtrip of `client` fails with protocol error `code` on `object`.
    func expectError(_ code: some WaylandEnumeration, on object: TestProxy, client: TestClient? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(code, on: object)), sourceLocation: sourceLocation) {
            try (client ?? self.client).roundtrip()
        }
    }
}

/// A uint32 array argument (toplevel states, capabilities) as the bytes the protocol carries.
func uint32Array(_ values: [UInt32]) -> [UInt8] {
    values.flatMap { value in withUnsafeBytes(of: value) { Array($0) } }
}

/// set_constraint_adjustment's argument from its bits, whichever xdg-shell.xml generated the
/// proxy: a plain number from Debian 12's wayland-protocols (1.31), the bitfield once the XML ties the
/// argument to its enum.
func constraintAdjustmentArgument(_ bits: UInt32) -> UInt32 { bits }

func constraintAdjustmentArgument(_ bits: UInt32) -> XdgPositionerConstraintAdjustment { .init(rawValue: bits) }
