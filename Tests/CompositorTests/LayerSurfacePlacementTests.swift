import Glibc
import Compositor
import Graphics
import LayerKit
import Testing
import WaylandServer
import WaylandTestClient

/// Layer-shell surfaces on the headless compositor under the kiosk policy: placed by anchors and
/// margins, drawn below or above the kiosk app by layer, their exclusive zones taking room from
/// the app, and keyboard focus by interactivity.
@Suite struct LayerSurfacePlacementTests {
    struct LayerClient {
        let client: SessionClient
        let surface: WlSurfaceProxy
        let layerSurface: ZwlrLayerSurfaceV1Proxy

        /// A layer surface of a client of its own, set up by `configure` before its initial commit,
        /// mapped with a buffer of `pixel` at the configured size.
        init(_ session: HeadlessSession, layer: ZwlrLayerShellV1Layer, pixel: UInt32,
             configure: (ZwlrLayerSurfaceV1Proxy) throws -> Void) throws {
            // The layer shell is privileged: the test's own clients (this process's user) get it.
            session.compositor.privilegeRules = [PrivilegeRule(.user(getuid()), privileges: [.layerShell])]
            client = try SessionClient(session)
            let shell = try client.client.bind(ZwlrLayerShellV1Proxy.self, version: 4)
            surface = try client.compositor.createSurface()
            layerSurface = try shell.getLayerSurface(surface: surface, output: nil, layer: layer, namespace: "test")
            try configure(layerSurface)
            try surface.commit()
            try client.client.roundtrip()
            guard case .configure(let serial, let width, let height)? = layerSurface.events.last else {
                throw TestClientError.timedOut
            }
            try layerSurface.ackConfigure(serial: serial)
            let count = Int(width) * Int(height)
            try client.show(client.makeBuffer(width: Int(width), height: Int(height), fill: fillPixels(pixel, count: count)), on: surface)
            try client.client.roundtrip()
        }

        var configuredSizes: [[UInt32]] {
            layerSurface.events.compactMap { event in
                guard case .configure(_, let width, let height) = event else { return nil }
                return [width, height]
            }
        }
    }

    private let red: UInt32 = 0xffff_0000
    private let blue: UInt32 = 0xff00_00ff

    /// A 640×480 output: a panel 100 high along the bottom with an exclusive zone of 100 (and a
    /// margin of 4) leaves the app 640×376 at the top; the panel spans the width at y 376.
    @Test func anExclusiveZoneAlongTheBottomShrinksTheAreaTheAppIsConfiguredTo() throws {
        let session = try HeadlessSession()
        let app = try SessionClient(session)
        let (appSurface, _, appToplevel) = try toplevel(app)
        try app.show(app.makeBuffer(width: 640, height: 480, fill: fillPixels(blue, count: 640 * 480)), on: appSurface)
        try app.client.roundtrip()
        #expect(configuredSize(appToplevel) == [640, 480])

        let panel = try LayerClient(session, layer: .top, pixel: red) { layerSurface in
            try layerSurface.setSize(width: 0, height: 100)
            try layerSurface.setAnchor(anchor: [.bottom, .left, .right])
            try layerSurface.setMargin(top: 0, right: 0, bottom: 4, left: 0)
            try layerSurface.setExclusiveZone(zone: 100)
        }
        try app.client.roundtrip()
        #expect(panel.configuredSizes == [[640, 100]])
        #expect(session.compositor.windowArea == Rect(x: 0, y: 0, width: 640, height: 376))
        #expect(configuredSize(appToplevel) == [640, 376])
        let panelSurface = try #require(session.compositor.layerShell.layerSurfaces.first?.surface)
        #expect(session.compositor.layer(for: panelSurface)?.position == Point(x: 0, y: 376))

        let panelRed = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
        #expect(try session.run(seconds: 10) { session.screen?.pixel(x: 320, y: 420) == panelRed })
        let screen = try #require(session.screen)
        #expect(screen.pixel(x: 320, y: 376) == panelRed)
        #expect(screen.pixel(x: 320, y: 375) == PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255))
        #expect(screen.pixel(x: 320, y: 478) == black)

        // The panel goes: the app gets the whole output back.
        try panel.layerSurface.destroy()
        try panel.surface.destroy()
        try panel.client.client.roundtrip()
        try app.client.roundtrip()
        #expect(session.compositor.windowArea == Rect(x: 0, y: 0, width: 640, height: 480))
        #expect(configuredSize(appToplevel) == [640, 480])
    }

    /// Background and bottom surfaces are drawn under the app, top and overlay ones over it; a
    /// surface of 0 size anchored to all edges fills the output, a corner one sits its margins in.
    @Test func layersAreDrawnBelowAndAboveTheApp() throws {
        let session = try HeadlessSession()
        let background = try LayerClient(session, layer: .background, pixel: red) { layerSurface in
            try layerSurface.setAnchor(anchor: [.top, .bottom, .left, .right])
            try layerSurface.setExclusiveZone(zone: -1)
        }
        #expect(background.configuredSizes == [[640, 480]])
        let app = try SessionClient(session)
        let (appSurface, _, _) = try toplevel(app)
        // A 200×200 blue window centred: 220…420 × 140…340.
        try app.show(app.makeBuffer(width: 200, height: 200, fill: fillPixels(blue, count: 200 * 200)), on: appSurface)
        try app.client.roundtrip()
        let overlay = try LayerClient(session, layer: .overlay, pixel: 0xff00_ff00) { layerSurface in
            try layerSurface.setSize(width: 50, height: 40)
            try layerSurface.setAnchor(anchor: [.top, .right])
            try layerSurface.setMargin(top: 10, right: 20, bottom: 0, left: 0)
        }
        #expect(overlay.configuredSizes == [[50, 40]])
        let green = PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255)
        #expect(try session.run(seconds: 10) { session.screen?.pixel(x: 570, y: 10) == green })
        let screen = try #require(session.screen)
        #expect(screen.pixel(x: 5, y: 5) == PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(screen.pixel(x: 320, y: 240) == PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255))
        // 640 - 20 - 50 = 570 … 620, 10 … 50.
        #expect(screen.pixel(x: 570, y: 10) == PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255))
        #expect(screen.pixel(x: 619, y: 49) == PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255))
        #expect(screen.pixel(x: 620, y: 30) == PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(screen.pixel(x: 569, y: 30) == PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
    }

    /// Where no window covers it, a background surface gets the pointer (the windows' host view
    /// lets input through to the layers below it); over the window, the window has it.
    @Test func thePointerReachesABackgroundSurfaceWhereNoWindowCoversIt() throws {
        let session = try HeadlessSession()
        let background = try LayerClient(session, layer: .background, pixel: red) { layerSurface in
            try layerSurface.setAnchor(anchor: [.top, .bottom, .left, .right])
            try layerSurface.setExclusiveZone(zone: -1)
        }
        let app = try SessionClient(session)
        let (appSurface, _, _) = try toplevel(app)
        // A 200×200 window centred: 220…420 × 140…340.
        try app.show(app.makeBuffer(width: 200, height: 200, fill: fillPixels(blue, count: 200 * 200)), on: appSurface)
        try app.client.roundtrip()
        session.compositor.pointerMoved(toX: 5, y: 5)
        try background.client.client.roundtrip()
        #expect(session.compositor.seat.pointerFocus?.id == background.surface.id)
        session.compositor.pointerMoved(toX: 320, y: 240)
        try app.client.roundtrip()
        #expect(session.compositor.seat.pointerFocus?.id == appSurface.id)
    }

    /// A board without keyboard interactivity (wvkbd's) never takes the focus from the app, even
    /// when pressed; an exclusive one on the top layer takes it and keeps it while the app is
    /// pressed, and gives it back when it goes.
    @Test func keyboardFocusFollowsInteractivity() throws {
        let session = try HeadlessSession()
        let window = try InputWindow(session)
        let appSurface = try #require(session.compositor.seat.keyboardFocus)
        let board = try LayerClient(session, layer: .top, pixel: red) { layerSurface in
            try layerSurface.setSize(width: 640, height: 100)
            try layerSurface.setAnchor(anchor: [.bottom])
        }
        session.compositor.pointerMoved(toX: 320, y: 450)
        session.compositor.pointerButton(0x110, pressed: true)
        session.compositor.pointerButton(0x110, pressed: false)
        try board.client.client.roundtrip()
        #expect(session.compositor.seat.pointerFocus?.id == board.surface.id)
        #expect(session.compositor.seat.keyboardFocus === appSurface)

        let lock = try LayerClient(session, layer: .overlay, pixel: blue) { layerSurface in
            try layerSurface.setSize(width: 100, height: 100)
            try layerSurface.setKeyboardInteractivity(keyboardInteractivity: .exclusive)
        }
        #expect(session.compositor.seat.keyboardFocus?.id == lock.surface.id)
        // A press on the app (its window is 288…352 × 208…272) leaves the focus where it is.
        session.compositor.pointerMoved(toX: 290, y: 210)
        session.compositor.pointerButton(0x110, pressed: true)
        session.compositor.pointerButton(0x110, pressed: false)
        try window.client.client.roundtrip()
        #expect(session.compositor.seat.keyboardFocus?.id == lock.surface.id)

        try lock.surface.attach(buffer: nil, x: 0, y: 0)
        try lock.surface.commit()
        try lock.client.client.roundtrip()
        #expect(session.compositor.seat.keyboardFocus === appSurface)
    }
}
