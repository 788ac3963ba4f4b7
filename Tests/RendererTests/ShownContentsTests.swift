import BufferFixtures
import Buffers
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// What a frame shows and what it must redraw around backdrops, found from the layers each
/// snapshot lists (`externalContentsLayerIDs`, `backdropLayerIDs`) rather than by walking the tree.
@MainActor
@Suite struct ShownContentsTests {
    func client() throws -> ClientBufferContents {
        let buffer = try #require(LentMemory(width: 8, height: 8, format: .xrgb8888))
        return ClientBufferContents(buffer: buffer, dmabuf: nil, damage: nil, surface: ClientSurfaceTexture(owner: nil), replacing: nil)
    }

    func showing(_ contents: ClientBufferContents, in superlayer: Layer) -> ExternalContentsLayer {
        let layer = ExternalContentsLayer()
        layer.frame = Rect(x: 0, y: 0, width: 8, height: 8)
        layer.externalContents = contents
        superlayer.addSublayer(layer)
        return layer
    }

    /// Contents under a hidden or transparent layer are not shown; the others come back to front
    /// (a zPosition above its siblings last), and a removed layer's are gone at the next commit.
    @Test func shownContentsAreTheVisibleOnesBackToFront() throws {
        let root = makeRoot(100, 100)
        let windows = sublayer(root, frame: root.bounds)
        let (a, b, c, d, e) = try (client(), client(), client(), client(), client())
        _ = showing(a, in: windows)
        showing(b, in: windows).zPosition = 1
        let third = showing(c, in: windows)
        let hidden = sublayer(root, frame: root.bounds)
        hidden.isHidden = true
        _ = showing(d, in: hidden)
        let clear = sublayer(root, frame: root.bounds)
        clear.opacity = 0
        _ = showing(e, in: clear)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        func shown() throws -> [ObjectIdentifier] {
            try #require(context.renderTree).shownExternalContents().map { ObjectIdentifier($0) }
        }
        #expect(try shown() == [a, c, b].map { ObjectIdentifier($0) })
        change { third.removeFromSuperlayer() }
        #expect(try shown() == [a, b].map { ObjectIdentifier($0) })
        #expect(context.renderTree?.externalContentsLayerIDs.count == 4)
    }

    /// A layer with backgroundFilters counts as a backdrop while it and its superlayers show; a
    /// mask's does not.
    @Test func backdropsAreTheShownLayersWithBackgroundFilters() throws {
        let root = makeRoot(100, 100)
        let panel = sublayer(root, frame: Rect(x: 10, y: 20, width: 30, height: 40))
        panel.backgroundFilters = [.gaussianBlur(radius: 2)]
        let masked = sublayer(root, frame: root.bounds)
        let mask = Layer()
        mask.frame = root.bounds
        mask.backgroundFilters = [.gaussianBlur(radius: 2)]
        masked.mask = mask
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        func backdrops() throws -> [Rect] {
            DamageTracker.backdrops(in: try #require(context.renderTree), scale: 2).map(\.shape)
        }
        #expect(try backdrops() == [Rect(x: 20, y: 40, width: 60, height: 80)])
        change { root.isHidden = true }
        #expect(try backdrops() == [])
        #expect(context.renderTree?.backdropLayerIDs.count == 2)
    }
}
