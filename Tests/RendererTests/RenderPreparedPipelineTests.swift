import Glibc
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// The window pipeline made on another thread before the first frame that needs it.
@MainActor
@Suite struct RenderPreparedPipelineTests {
    /// A white root with a 3×3 image layer on it: a client's window on an output.
    func windowScene() throws -> Layer {
        let root = makeRoot(40, 30)
        let window = sublayer(root, frame: Rect(x: 5, y: 5, width: 3, height: 3))
        let words = [UInt32](repeating: 0xFF20_4060, count: 9)
        window.contents = try words.withUnsafeBytes {
            try Image(width: 3, height: 3, pixelFormat: .argb8888, bytesPerRow: 12, bytes: $0)
        }
        return root
    }

    @Test func aWindowsFirstFrameUsesThePipelineMadeBeforeIt() throws {
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        renderer.prepareWindowPipeline()
        let prepared = try renderer.frames.layerPipeline().madeVariants
        #expect(prepared == [[EncodedDraw.Kind.body.rawValue, SceneEncoder.Flags.hasContents.rawValue]])
        let image = try renderer.render(try commit(try windowScene()), width: 40, height: 30)
        // The frame drew the window (the root's white is the clear colour) and made no variant.
        #expect(renderer.lastFrameStatistics.drawCount == 1)
        #expect(try renderer.frames.layerPipeline().madeVariants == prepared)
        #expect(image.pixel(x: 6, y: 6) == PremultipliedPixel(red: 0x20, green: 0x40, blue: 0x60, alpha: 255))
        #expect(image.pixel(x: 20, y: 20) == PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255))
        #expect(renderer.takeValidationMessages() == [])
    }

    @Test func aRendererGoneWhileItsPipelineIsBeingMadeLetsItsDeviceGoOnceItIsMade() throws {
        var renderer: Renderer? = try Renderer()
        renderer?.prepareWindowPipeline()
        weak let context = renderer?.context
        renderer = nil
        let deadline = ContinuousClock.now + .seconds(20)
        while context != nil, ContinuousClock.now < deadline { usleep(1000) }
        #expect(context == nil)
    }
}
