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

    private func origin(of surface: XdgSurface) -> (x: Int32, y: Int32) {
        surface.popup.flatMap { popupOrigins[ObjectIdentifier($0)] } ?? (0, 0)
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
/// policy above; the client has bound xdg_wm_base (version 5).
final class XdgHarness {
    /// A toplevel as both sides see it.
    struct Window {
        let surface: TestProxy
        let xdgSurface: TestProxy
        let toplevel: TestProxy
        let server: XdgToplevel
    }

    /// A popup as both sides see it.
    struct Popup {
        let surface: TestProxy
        let xdgSurface: TestProxy
        let popup: TestProxy
        let server: XdgPopup
    }

    let core: Harness
    let policy: XdgTestShell
    let shell: XdgShellGlobal
    let decorations: XdgDecorationGlobal
    let activation: XdgActivationGlobal
    let seat: SeatGlobal
    let wmBase: TestProxy
    /// The server's side of the harness's client.
    let serverClient: Client
    /// Events of the objects passed to `track`, in arrival order, as "interface.event".
    private(set) var events: [String] = []
    private var compositor: TestProxy?

    var client: TestClient { core.client }
    var display: Display { core.display }

    init(wmBaseVersion: UInt32 = 5) throws {
        core = try Harness()
        let output = core.output.state
        policy = XdgTestShell(outputSize: SurfaceSize(width: output.logicalWidth, height: output.logicalHeight))
        shell = XdgShellGlobal(display: core.display, handler: policy)
        decorations = XdgDecorationGlobal(display: core.display)
        activation = XdgActivationGlobal(display: core.display, handler: policy)
        seat = try SeatGlobal(display: core.display, name: "seat0")
        serverClient = try #require(core.display.connectedClients.first)
        // The client connected before these globals existed: let it hear about them.
        try core.client.roundtrip()
        wmBase = try core.client.bind("xdg_wm_base", version: wmBaseVersion)
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

    func makeSurface() throws -> TestProxy {
        if compositor == nil { compositor = try client.bind("wl_compositor", version: 5) }
        return try compositor!.send(0, [.newID], interface: "wl_surface")
    }

    /// wl_surface, xdg_surface and xdg_toplevel, tracked, before the initial commit.
    func makeToplevel() throws -> Window {
        let surface = try makeSurface()
        let xdgSurface = try wmBase.send(2, [.newID, .object(surface)], interface: "xdg_surface")
        let toplevel = try xdgSurface.send(1, [.newID], interface: "xdg_toplevel")
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

    /// A positioner with the given rules (size and anchor rectangle always set).
    func makePositioner(width: Int32 = 60, height: Int32 = 40, anchorRect: IntRect = IntRect(x: 0, y: 0, width: 320, height: 240),
                        anchor: UInt32? = nil, gravity: UInt32? = nil, constraintAdjustment: UInt32? = nil) throws -> TestProxy {
        let positioner = try wmBase.send(1, [.newID], interface: "xdg_positioner")
        try positioner.send(1, [.int(width), .int(height)])
        try positioner.send(2, [.int(anchorRect.x), .int(anchorRect.y), .int(anchorRect.width), .int(anchorRect.height)])
        if let anchor { try positioner.send(3, [.uint(anchor)]) }
        if let gravity { try positioner.send(4, [.uint(gravity)]) }
        if let constraintAdjustment { try positioner.send(5, [.uint(constraintAdjustment)]) }
        return positioner
    }

    /// wl_surface, xdg_surface and xdg_popup of `parent` (an xdg_surface proxy), tracked, before
    /// the initial commit.
    func makePopup(parent: TestProxy, positioner: TestProxy? = nil) throws -> Popup {
        let rules = try positioner ?? makePositioner()
        let surface = try makeSurface()
        let xdgSurface = try wmBase.send(2, [.newID, .object(surface)], interface: "xdg_surface")
        let popup = try xdgSurface.send(2, [.newID, .object(parent), .object(rules)], interface: "xdg_popup")
        track(xdgSurface, popup)
        try client.roundtrip()
        let server = try #require(policy.popups.last)
        #expect(server.id == popup.id)
        return Popup(surface: surface, xdgSurface: xdgSurface, popup: popup, server: server)
    }

    /// A popup through the whole handshake, optionally grabbing before its initial commit.
    func makeMappedPopup(parent: TestProxy, positioner: TestProxy? = nil, grab: Bool = false) throws -> Popup {
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
        let seatProxy = try client.bind("wl_seat", version: 1)
        try popup.popup.send(1, [.object(seatProxy), .uint(serial)])
    }

    func commit(_ surface: TestProxy) throws {
        try surface.send(6)
        try client.roundtrip()
    }

    func attachBuffer(to surface: TestProxy, width: Int32, height: Int32) throws {
        let buffer = try core.shmBuffer(client, width: width, height: height, pixel: 0xff80_8080)
        try surface.send(1, [.object(buffer), .int(0), .int(0)])
    }

    func attachNull(to surface: TestProxy) throws {
        try surface.send(1, [.object(nil), .int(0), .int(0)])
    }

    /// The serial of the last xdg_surface.configure the proxy received.
    func lastConfigureSerial(_ xdgSurface: TestProxy) -> UInt32 {
        guard case .uint(let serial)? = xdgSurface.events(named: "configure").last?.arguments.first else {
            Issue.record("xdg_surface@\(xdgSurface.id) received no configure")
            return 0
        }
        return serial
    }

    func acknowledgeLastConfigure(_ xdgSurface: TestProxy) throws {
        try xdgSurface.send(4, [.uint(lastConfigureSerial(xdgSurface))])
    }

    /// Runs the server's loop until `condition` holds (at most about `milliseconds`).
    func pump(forMilliseconds milliseconds: Int, until condition: () -> Bool = { false }) throws {
        for _ in 0..<(milliseconds / 5) where !condition() {
            try display.dispatch(timeoutMilliseconds: 5)
            display.flushClients()
        }
    }

    /// The next roundtrip of `client` fails with this protocol error.
    func expectError(_ interface: String, _ objectID: UInt32, code: UInt32, client: TestClient? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        let report = ProtocolErrorReport(interface: interface, objectID: objectID, code: code)
        #expect(throws: TestClientError.protocolError(report), sourceLocation: sourceLocation) {
            try (client ?? self.client).roundtrip()
        }
    }
}

/// A uint32 array argument (toplevel states, capabilities) as the bytes the protocol carries.
func uint32Array(_ values: [UInt32]) -> TestValue {
    .bytes(values.flatMap { value in withUnsafeBytes(of: value) { Array($0) } })
}
