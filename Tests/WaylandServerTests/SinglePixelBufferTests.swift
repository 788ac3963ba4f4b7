import Testing
import WaylandServer
import WaylandTestClient

@Suite struct SinglePixelBufferTests {
    private func singlePixelBuffer(_ harness: ExtensionHarness, red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32) throws -> TestProxy {
        let manager = try harness.client.bind("wp_single_pixel_buffer_manager_v1", version: 1)
        return try manager.send(1, [.newID, .uint(red), .uint(green), .uint(blue), .uint(alpha)], interface: "wl_buffer")
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
        let viewporter = try harness.client.bind("wp_viewporter", version: 1)
        let viewport = try viewporter.send(1, [.newID, .object(proxy)], interface: "wp_viewport")
        try viewport.send(2, [.int(1920), .int(1080)])
        try harness.attach(try singlePixelBuffer(harness, red: 0, green: 0, blue: 0, alpha: 0xffff_ffff), to: proxy)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        #expect(surface.current.size == SurfaceSize(width: 1920, height: 1080))
    }

    @Test func bufferIsReleasedOnlyWhenTheCompositorReleasesIt() throws {
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
        shown.release()
        try harness.client.roundtrip()
        #expect(buffer.events.map(\.name) == ["release"])
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
        try buffer.sendDestructor(0)
        try harness.client.roundtrip()
        #expect(!shown.isAlive)
        #expect(harness.client.protocolError == nil)
    }
}
