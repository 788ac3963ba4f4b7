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
        var damage = DamageTracker()
        let full = PixelBox(x: 0, y: 0, width: 64, height: 48)
        // As the renderer asks: told of each tree that changed more than contents.
        func holds(_ tree: RenderTree, box: PixelBox = full) -> Bool {
            _ = damage.damage(for: tree, scale: 1, width: 64, height: 48)
            if !damage.changedContentsAlone { known.noteChangeBeyondContents() }
            return known.holds(for: tree, box: box, target: full)
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
        // Another box; then such contents of another size, which hide nothing whatever their size.
        #expect(!holds(try window.commit(.argb8888, 0), box: PixelBox(x: 0, y: 0, width: 32, height: 48)))
        #expect(holds(try window.commit(.argb8888, 0, width: 32), box: PixelBox(x: 0, y: 0, width: 32, height: 48)))
        // Opaque contents of another size, then of that size again.
        #expect(!holds(try window.commit(.xrgb8888, 0, width: 32)))
        #expect(!holds(try window.commit(.xrgb8888, 0, width: 16)))
        #expect(holds(try window.commit(.xrgb8888, 0, width: 16)))
        // The window moved.
        change { window.layer.position.x += 1 }
        #expect(!holds(try #require(window.context.renderTree)))
        #expect(holds(try window.commit(.xrgb8888, 0, width: 16)))
        // Moved in a tree not asked about (a frame with nothing to redraw), then its next buffer.
        change { window.layer.position.x += 1 }
        _ = damage.damage(for: try #require(window.context.renderTree), scale: 1, width: 64, height: 48)
        known.noteChangeBeyondContents()
        #expect(!holds(try window.commit(.xrgb8888, 0, width: 16)))
        // Forgotten (the renderer's previous frame invalidated).
        known.forget()
        #expect(!holds(try window.commit(.xrgb8888, 0, width: 16)))
    }

    /// A window moved in the commit of its next buffer, as large and as opaque as the last, is
    /// walked again: the output's black shows where it left.
    @Test func aWindowMovedWithItsNextBufferUncoversWhatIsBehindIt() throws {
        let window = Window()
        let renderer = CPURenderer()
        var image = try renderer.render(try window.commit(.xrgb8888, 0xFF_0000), width: 64, height: 48)
        image = try renderer.render(try window.commit(.xrgb8888, 0x00_FF00), width: 64, height: 48)
        #expect(renderer.lastFrameStatistics.drawCount == 1)
        change { window.layer.position.x += 16 }
        image = try renderer.render(try window.commit(.xrgb8888, 0x00_00FF), width: 64, height: 48)
        #expect(pixel(image, 8, 10) == [0, 0, 0, 255])
        #expect(pixel(image, 40, 10) == [0, 0, 255, 255])
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
