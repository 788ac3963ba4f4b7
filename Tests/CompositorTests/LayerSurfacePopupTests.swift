import Compositor
import Graphics
import LayerKit
import Testing
import WaylandServer
import WaylandTestClient

/// xdg popups of layer surfaces (zwlr_layer_surface_v1.get_popup, for a popup made without a
/// parent): placed by their positioner against the layer surface, kept on the output, shown and
/// hit above it, dismissed when it unmaps; the requests' misuse is invalid_popup_parent.
@Suite struct LayerSurfacePopupTests {
    /// A panel 40 points high along the bottom of the 640×480 output (at y 440), and an unmapped
    /// 100×60 popup made without a parent, on a positioner anchored to the panel's (10, 0, 20, 40).
    struct PanelWithPopup {
        let panel: LayerSurfacePlacementTests.LayerClient
        let surface: WlSurfaceProxy
        let xdgSurface: XdgSurfaceProxy
        let popup: XdgPopupProxy

        init(_ session: HeadlessSession, layer: ZwlrLayerShellV1Layer = .top, anchor: XdgPositionerAnchor, gravity: XdgPositionerGravity,
             adjustment: UInt32) throws {
            panel = try LayerSurfacePlacementTests.LayerClient(session, layer: layer, pixel: 0xff00_00ff) {
                try $0.setAnchor(anchor: [.bottom, .left, .right])
                try $0.setSize(width: 0, height: 40)
            }
            let client = panel.client
            let positioner = try client.shell.createPositioner()
            try positioner.setSize(width: 100, height: 60)
            try positioner.setAnchorRect(x: 10, y: 0, width: 20, height: 40)
            try positioner.setAnchor(anchor: anchor)
            try positioner.setGravity(gravity: gravity)
            try positioner.setConstraintAdjustment(constraintAdjustment: XdgPositionerConstraintAdjustment(rawValue: adjustment))
            surface = try client.compositor.createSurface()
            xdgSurface = try client.shell.getXdgSurface(surface: surface)
            popup = try xdgSurface.getPopup(parent: nil, positioner: positioner)
        }

        /// get_popup on the panel, the initial commit, the ack and a buffer: mapped.
        func map() throws {
            try panel.layerSurface.getPopup(popup: popup)
            try surface.commit()
            try panel.client.client.roundtrip()
            try panel.client.acknowledgeConfigure(of: xdgSurface)
            try panel.client.show(panel.client.makeBuffer(width: 100, height: 60, fill: fillPixels(0xffff_0000, count: 6000)), on: surface)
            try panel.client.client.roundtrip()
        }

        var configures: [[Int32]] {
            popup.events.compactMap { event in
                guard case .configure(let x, let y, let width, let height) = event else { return nil }
                return [x, y, width, height]
            }
        }
    }

    /// Above the anchor rectangle, centred on it: x 20 − 50 = −30, which slide_x (1) moves onto the
    /// output at 0; y −60 from the panel's top, 380 on the output.
    @Test func aPopupAboveThePanelIsPlacedByItsPositionerAndSlidOntoTheOutput() throws {
        let session = try HeadlessSession()
        let panel = try PanelWithPopup(session, anchor: .top, gravity: .top, adjustment: 1)
        try panel.map()
        #expect(panel.configures == [[0, -60, 100, 60]])
        let server = try #require(panel.panel.client.server.resource(withID: panel.surface.id) as? Surface)
        #expect(session.compositor.windowAreaPosition(of: server) == Point(x: 0, y: 380))
        // What the pointer finds there is the popup, at its own coordinates.
        session.compositor.pointerMoved(toX: 50, y: 400)
        try session.run(seconds: 0.05)
        #expect(session.compositor.seat.pointerFocus === server)
        // Drawn over the panel's blue, away from the pointer's arrow.
        let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
        #expect(try session.run(seconds: 10) { session.screen?.pixel(x: 95, y: 435) == red })
    }

    /// A panel on the bottom layer lies under the app's window, but its popup is shown above the
    /// window (and the top layer), where the pointer finds it.
    @Test func aPopupOfABottomLayerPanelIsShownAboveTheWindows() throws {
        let session = try HeadlessSession()
        let app = try SessionClient(session)
        let (appSurface, _, _) = try toplevel(app)
        try app.show(app.makeBuffer(width: 640, height: 480, fill: fillPixels(0xff00_ff00, count: 640 * 480)), on: appSurface)
        try app.client.roundtrip()
        let panel = try PanelWithPopup(session, layer: .bottom, anchor: .top, gravity: .top, adjustment: 1)
        try panel.map()
        #expect(panel.configures == [[0, -60, 100, 60]])
        let server = try #require(panel.panel.client.server.resource(withID: panel.surface.id) as? Surface)
        #expect(session.compositor.windowAreaPosition(of: server) == Point(x: 0, y: 380))
        let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
        let green = PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255)
        #expect(try session.run(seconds: 10) { session.screen?.pixel(x: 95, y: 435) == red })
        let screen = try #require(session.screen)
        // The popup's corners (0…100 × 380…440); the window covers the panel beside it.
        #expect(screen.pixel(x: 0, y: 380) == red)
        #expect(screen.pixel(x: 99, y: 439) == red)
        #expect(screen.pixel(x: 100, y: 439) == green)
        #expect(screen.pixel(x: 320, y: 460) == green)
        session.compositor.pointerMoved(toX: 50, y: 400)
        try session.run(seconds: 0.05)
        #expect(session.compositor.seat.pointerFocus === server)
        // Dismissed with the panel, the popup leaves the screen.
        try panel.panel.surface.attach(buffer: nil, x: 0, y: 0)
        try panel.panel.surface.commit()
        try panel.panel.client.client.roundtrip()
        #expect(panel.popup.events.last == .popupDone)
        #expect(try session.run(seconds: 10) { session.screen?.pixel(x: 95, y: 435) == green })
    }

    /// An overlay surface covers the popup of a bottom-layer panel (0…100 × 380…440); once the
    /// panel moves to the overlay layer, its open popup is drawn over it there, and back under
    /// the overlay when the panel returns to the bottom layer.
    @Test func anOpenPopupMovesWithItsPanelToAndFromTheOverlayLayer() throws {
        let session = try HeadlessSession()
        let panel = try PanelWithPopup(session, layer: .bottom, anchor: .top, gravity: .top, adjustment: 1)
        try panel.map()
        let cover = try LayerSurfacePlacementTests.LayerClient(session, layer: .overlay, pixel: 0xffff_ff00) {
            try $0.setSize(width: 100, height: 60)
            try $0.setAnchor(anchor: [.bottom, .left])
            try $0.setMargin(top: 0, right: 0, bottom: 40, left: 0)
        }
        let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
        let yellow = PremultipliedPixel(red: 255, green: 255, blue: 0, alpha: 255)
        #expect(try session.run(seconds: 10) { session.screen?.pixel(x: 95, y: 435) == yellow })
        for (layer, expected) in [(ZwlrLayerShellV1Layer.overlay, red), (.bottom, yellow)] {
            try panel.panel.layerSurface.setLayer(layer: layer)
            try panel.panel.surface.commit()
            try panel.panel.client.client.roundtrip()
            #expect(try session.run(seconds: 10) { session.screen?.pixel(x: 95, y: 435) == expected }, "on \(layer)")
            #expect(session.screen?.pixel(x: 0, y: 380) == expected, "on \(layer)")
        }
        withExtendedLifetime(cover) {}
    }

    /// Taken by a mapped panel, the popup is configured at once (its placement is known), and a
    /// buffer committed before the ack, with no initial commit of its own (as WLCS's clients do),
    /// shows where that configure placed it; no second configure follows.
    @Test func aPopupTakenByAMappedPanelIsConfiguredAtOnceAndItsBufferShowsBeforeTheAck() throws {
        let session = try HeadlessSession()
        let panel = try PanelWithPopup(session, anchor: .top, gravity: .top, adjustment: 1)
        try panel.panel.layerSurface.getPopup(popup: panel.popup)
        try panel.panel.client.client.roundtrip()
        #expect(panel.configures == [[0, -60, 100, 60]])
        try panel.panel.client.show(panel.panel.client.makeBuffer(width: 100, height: 60, fill: fillPixels(0xffff_0000, count: 6000)), on: panel.surface)
        try panel.panel.client.client.roundtrip()
        let server = try #require(panel.panel.client.server.resource(withID: panel.surface.id) as? Surface)
        #expect(session.compositor.windowAreaPosition(of: server) == Point(x: 0, y: 380))
        #expect(panel.configures.count == 1)
    }

    /// Below the panel it would leave the output: flip_y (8) puts it above, as anchor top and
    /// gravity top would.
    @Test func aPopupBelowThePanelIsFlippedAboveIt() throws {
        let session = try HeadlessSession()
        let panel = try PanelWithPopup(session, anchor: .bottom, gravity: .bottom, adjustment: 1 | 8)
        try panel.map()
        #expect(panel.configures == [[0, -60, 100, 60]])
    }

    @Test func thePanelUnmappingDismissesItsPopup() throws {
        let session = try HeadlessSession()
        let panel = try PanelWithPopup(session, anchor: .top, gravity: .top, adjustment: 1)
        try panel.map()
        try panel.panel.surface.attach(buffer: nil, x: 0, y: 0)
        try panel.panel.surface.commit()
        try panel.panel.client.client.roundtrip()
        #expect(panel.popup.events.last == .popupDone)
    }

    @Test func aPopupWithAParentOrAnInitialCommitCannotBeTakenByALayerSurface() throws {
        for late in [false, true] {
            let session = try HeadlessSession()
            let panel = try PanelWithPopup(session, anchor: .top, gravity: .top, adjustment: 0)
            if late {
                try panel.surface.commit()
                try panel.panel.client.client.roundtrip()
                #expect(panel.configures.isEmpty, "a popup without a parent is not configured")
            } else {
                try panel.panel.layerSurface.getPopup(popup: panel.popup)
            }
            try panel.panel.layerSurface.getPopup(popup: panel.popup)
            #expect(throws: TestClientError.protocolError(ProtocolErrorReport(XdgWmBaseError.invalidPopupParent, on: panel.panel.client.shell))) {
                try panel.panel.client.client.roundtrip()
            }
        }
    }
}
