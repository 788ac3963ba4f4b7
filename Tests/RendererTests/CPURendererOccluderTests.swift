import BufferFixtures
import Buffers
@testable import CPURenderer
import Graphics
import LayerKit
import RendererContract
import Testing
@testable import Renderer

/// The occluder a measuring walk found is kept while the tree changes only layers' contents, each
/// as large and as opaque as before (a window's next buffer), over the same box; anything else
/// walks again, and the pixels are those of a walk.
@MainActor
@Suite(.serialized) struct CPURendererOccluderTests {
    /// A window over the output's black, showing client buffers committed one after another.
    @MainActor final class Window {
        let root = makeRoot(64, 48)
        let layer = ExternalContentsLayer()
        let surface: ClientSurfaceTexture
        var contents: ClientBufferContents?
        let context: RenderContext

        init() {
            let (root, layer) = (root, layer)
            root.backgroundColor = .black
            surface = ClientSurfaceTexture(owner: root)
            change {
                layer.frame = root.bounds
                root.addSublayer(layer)
            }
            context = RenderContext(rootLayer: root)
            Transaction.flush()
        }

        /// Commits a buffer of `format` and size, every pixel `pixel`.
        func commit(_ format: PixelFormat, _ pixel: UInt32, width: Int = 64, height: Int = 48) throws -> RenderTree {
            let buffer = try #require(LentMemory(width: width, height: height, format: format))
            for row in 0..<height {
                (buffer.mapping.baseAddress! + row * buffer.bytesPerRow).initializeMemory(as: UInt32.self, repeating: pixel, count: width)
            }
            contents = ClientBufferContents(buffer: buffer, dmabuf: nil, damage: nil, surface: surface, replacing: contents)
            change { layer.externalContents = contents }
            return try #require(context.renderTree)
        }
    }

    @Test func anOccluderHoldsWhileOnlyContentsChangeAsLargeAndAsOpaque() throws {
        let window = Window()
        var known = KnownOccluder()
        let full = PixelBox(x: 0, y: 0, width: 64, height: 48)
        func holds(_ tree: RenderTree, box: PixelBox = full) -> Bool {
            known.holds(for: tree, scale: 1, box: box, target: full)
        }
        // Nothing known yet; then the window's contents changed, which are known from then on.
        #expect(!holds(try window.commit(.xrgb8888, 0xFF_0000)))
        #expect(!holds(try window.commit(.xrgb8888, 0x00_FF00)))
        #expect(holds(try window.commit(.xrgb8888, 0x00_00FF)))
        // The same tree again.
        #expect(holds(try #require(window.context.renderTree)))
        // Contents that may let what is behind show through, then as those again.
        #expect(!holds(try window.commit(.argb8888, 0)))
        #expect(holds(try window.commit(.argb8888, 0xFF00_FF00)))
        // Another box, contents of another size, then the same size again.
        #expect(!holds(try window.commit(.argb8888, 0), box: PixelBox(x: 0, y: 0, width: 32, height: 48)))
        #expect(!holds(try window.commit(.argb8888, 0, width: 32)))
        #expect(holds(try window.commit(.argb8888, 0, width: 32)))
        // The window moved.
        change { window.layer.position.x += 1 }
        #expect(!holds(try #require(window.context.renderTree)))
        // Forgotten (the renderer's previous frame invalidated).
        known.forget()
        #expect(!holds(try window.commit(.argb8888, 0, width: 32)))
    }

    /// A fullscreen opaque window is the occluder, its next buffers copied alone; once one has
    /// alpha, the output's black is drawn beneath it again.
    @Test func contentsTurningTranslucentAreDrawnOverWhatIsBehindThem() throws {
        let window = Window()
        let renderer = CPURenderer()
        var image = try renderer.render(try window.commit(.xrgb8888, 0xFF_0000), width: 64, height: 48)
        image = try renderer.render(try window.commit(.xrgb8888, 0x00_FF00), width: 64, height: 48)
        #expect(pixel(image, 10, 10) == [0, 255, 0, 255])
        #expect(renderer.lastFrameStatistics.drawCount == 1)
        image = try renderer.render(try window.commit(.argb8888, 0), width: 64, height: 48)
        #expect(pixel(image, 10, 10) == [0, 0, 0, 255])
        #expect(renderer.lastFrameStatistics.drawCount == 2)
        image = try renderer.render(try window.commit(.xrgb8888, 0x00_00FF), width: 64, height: 48)
        #expect(pixel(image, 10, 10) == [0, 0, 255, 255])
        #expect(renderer.lastFrameStatistics.drawCount == 1)
    }
}
