import Testing
import WaylandServer
import WaylandTestClient

@Suite struct SinglePixelBufferTests {
    private func singlePixelBuffer(_ harness: ExtensionHarness, red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32) throws -> WlBufferProxy {
        let manager = try harness.client.bind(WpSinglePixelBufferManagerV1Proxy.self, version: 1)
        return try manager.createU32RgbaBuffer(r: red, g: green, b: blue, a: alpha)
    }

    @Test func bufferIsOneByOneWithTheChannelValues() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        let buffer = try singlePixelBuffer(harness, red: 0xffff_ffff, green: 0x8000_0000, blue: 0, alpha: 0xffff_ffff)
        try harness.attach(buffer, to: proxy)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        let shown = try #require(surface.current.buffer)
        #expect(shown.width == 1 && shown.height == 1)
        #expect(shown.storage == .singlePixel(red: 0xffff_ffff, green: 0x8000_0000, blue: 0, alpha: 0xffff_ffff))
        #expect(surface.current.size == SurfaceSize(width: 1, height: 1))
        #expect(shown.withShmContents { _ in true } == nil)
    }

    @Test func aViewportDestinationStretchesThePixel() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        let viewporter = try harness.client.bind(WpViewporterProxy.self, version: 1)
        let viewport = try viewporter.getViewport(surface: proxy)
        try viewport.setDestination(width: 1920, height: 1080)
        try harness.attach(try singlePixelBuffer(harness, red: 0, green: 0, blue: 0, alpha: 0xffff_ffff), to: proxy)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        #expect(surface.current.size == SurfaceSize(width: 1920, height: 1080))
    }

    /// Nothing releases the buffer but the end of the compositor's last hold on it: two holds (a
    /// surface's and a display's, say) release it once, when the second ends.
    @Test func bufferIsReleasedOnlyWhenTheCompositorsLastHoldEnds() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        let buffer = try singlePixelBuffer(harness, red: 1, green: 2, blue: 3, alpha: 4)
        try harness.attach(buffer, to: proxy)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        let shown = try #require(surface.current.buffer)
        try harness.attach(try singlePixelBuffer(harness, red: 5, green: 6, blue: 7, alpha: 8), to: proxy)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        #expect(buffer.events.isEmpty)
        shown.hold()
        shown.hold()
        shown.endHold()
        try harness.client.roundtrip()
        #expect(buffer.events.isEmpty)
        shown.endHold()
        try harness.client.roundtrip()
        #expect(buffer.events == [.release])
    }

    @Test func destroyRequestDestroysTheBuffer() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        let buffer = try singlePixelBuffer(harness, red: 1, green: 2, blue: 3, alpha: 4)
        try harness.attach(buffer, to: proxy)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        let shown = try #require(surface.current.buffer)
        #expect(shown.isAlive)
        try buffer.destroy()
        try harness.client.roundtrip()
        #expect(!shown.isAlive)
        #expect(harness.client.protocolError == nil)
    }
}
