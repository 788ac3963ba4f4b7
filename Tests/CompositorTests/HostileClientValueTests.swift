import Compositor
import Glibc
import Graphics
import Testing
import WaylandTestClient

/// Numbers a client sends are clamped where they enter the server, and what the compositor
/// derives from them saturates: no value traps the compositor's thread.
@Suite(.serialized) struct HostileClientValueTests {
    /// A 20×20 popup of `parent` centred on the anchor point (5, 5) of a 10×10 anchor rectangle,
    /// moved by (`offsetX`, 0), with no constraint adjustment; mapped once configured.
    private func popup(
        _ client: SessionClient, parent: XdgSurfaceProxy, offsetX: Int32 = 0
    ) throws -> (popup: XdgPopupProxy, xdgSurface: XdgSurfaceProxy) {
        let positioner = try client.shell.createPositioner()
        try positioner.setSize(width: 20, height: 20)
        try positioner.setAnchorRect(x: 0, y: 0, width: 10, height: 10)
        try positioner.setOffset(x: offsetX, y: 0)
        let surface = try client.compositor.createSurface()
        let xdgSurface = try client.shell.getXdgSurface(surface: surface)
        let popup = try xdgSurface.getPopup(parent: parent, positioner: positioner)
        try surface.commit()
        try client.client.roundtrip()
        try client.acknowledgeConfigure(of: xdgSurface)
        try client.show(client.makeBuffer(width: 20, height: 20), on: surface)
        try client.client.roundtrip()
        return (popup, xdgSurface)
    }

    /// The x, y, width and height of each configure `popup` received.
    private func configures(of popup: XdgPopupProxy) -> [[Int32]] {
        popup.events.compactMap { event in
            guard case .configure(let x, let y, let width, let height) = event else { return nil }
            return [x, y, width, height]
        }
    }

    /// A 16384×16384 buffer (a 1 GiB pool, never touched) is refused at attach with
    /// wl_surface.invalid_size (past Surface.maximumBufferDimension, 8192): its client is
    /// disconnected before the compositor copies anything, and another window stays on screen.
    @Test func aClientAttachingA16384SquareBufferGetsInvalidSizeWhileAnotherWindowIsShown() throws {
        let session = try HeadlessSession()
        let shown = try InputWindow(session)
        #expect(try session.run(seconds: 20) { session.screen?.pixel(x: 320, y: 240) == white })
        let client = try SessionClient(session)
        let (surface, _) = try client.makeToplevel()
        try surface.attach(buffer: try client.makeBuffer(width: 16384, height: 16384), x: 0, y: 0)
        try surface.commit()
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(WlSurfaceError.invalidSize, on: surface))) {
            try client.client.roundtrip()
        }
        try shown.client.client.roundtrip()
        #expect(session.screen?.pixel(x: 320, y: 240) == white)
    }

    /// The parent's window geometry at x = Int32.min once trapped `Int32(-parentOrigin.x)`
    /// ("greater than Int32.max"); the popup is configured where its positioner puts it.
    @Test func aPopupOnAWindowWhoseGeometryStartsAtInt32MinIsConfigured() throws {
        let session = try HeadlessSession()
        let client = try SessionClient(session)
        let (surface, xdgSurface) = try client.makeToplevel()
        try xdgSurface.setWindowGeometry(x: Int32.min, y: 0, width: 64, height: 64)
        try client.show(client.makeBuffer(width: 64, height: 64), on: surface)
        let (popup, _) = try popup(client, parent: xdgSurface)
        #expect(configures(of: popup) == [[-5, -5, 20, 20]])
        #expect(client.client.protocolError == nil)
        try SessionClient(session).client.roundtrip()
    }

    /// A popup placed past Int32.max by its offset, then a popup on it, once trapped the same
    /// conversion the other way ("less than Int32.min"). The offset is kept within ±2²⁴.
    @Test func aPopupOnAPopupPlacedPastInt32MaxIsConfigured() throws {
        let session = try HeadlessSession()
        let client = try SessionClient(session)
        let (surface, xdgSurface) = try client.makeToplevel()
        try client.show(client.makeBuffer(width: 64, height: 64), on: surface)
        let (far, farXdgSurface) = try popup(client, parent: xdgSurface, offsetX: 2_147_483_646)
        #expect(configures(of: far) == [[-5 + (1 << 24), -5, 20, 20]])
        let (nested, _) = try popup(client, parent: farXdgSurface)
        #expect(configures(of: nested) == [[-5, -5, 20, 20]])
        try SessionClient(session).client.roundtrip()
    }

    /// `vitrine capture --scale 2` draws the output again through cairo: a popup placed 2²⁴
    /// points off (its positioner's offset at Int32.max, clamped) lands 2²⁵ pixels away, where
    /// cairo once failed to compose its image, left the bitmap in an error state and the capture
    /// trapped (found by the protocol fuzzer). The image shows the window under it.
    @Test func aCaptureAtScale2WithAPopupPlaced2To24PointsOffShowsTheWindow() throws {
        let session = try HeadlessSession()
        let client = try SessionClient(session)
        let (surface, xdgSurface) = try client.makeToplevel()
        try client.show(client.makeBuffer(width: 640, height: 480) { memset($0, 0xff, 640 * 480 * 4) }, on: surface)
        _ = try popup(client, parent: xdgSurface, offsetX: Int32.max)
        #expect(try session.run(seconds: 20) { session.screen?.pixel(x: 320, y: 240) == white })
        // What the capture draws: the output's layer tree over its black, at scale 2.
        let image = try session.compositor.exportedLayer(named: nil, onOutputAt: 0).get().renderedImage(scale: 2, background: Color(white: 0))
        #expect(image.width == 1280 && image.height == 960)
        #expect(image.pixel(x: 640, y: 480) == white)
    }

    /// Each popup as far off its parent as a client may put it: 130 of them reach past 2³¹ on the
    /// output, where the compositor's own arithmetic must saturate.
    @Test func aChainOfPopupsReachingPastInt32MaxIsConfigured() throws {
        let session = try HeadlessSession()
        let client = try SessionClient(session)
        let (surface, xdgSurface) = try client.makeToplevel()
        try client.show(client.makeBuffer(width: 64, height: 64), on: surface)
        var parent = xdgSurface
        for _ in 0..<130 {
            let (next, nextXdgSurface) = try popup(client, parent: parent, offsetX: Int32.max)
            #expect(configures(of: next) == [[-5 + (1 << 24), -5, 20, 20]])
            parent = nextXdgSurface
        }
        #expect(client.client.protocolError == nil)
        try SessionClient(session).client.roundtrip()
    }
}
