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

    /// Kept from frame to frame, the layers showing contents give each frame's new contents while
    /// trees change contents alone, and are found again when contents come to another layer or
    /// anything but contents changes: each frame shows what a walk of its tree finds.
    @Test func keptShownLayersFollowContentsAndAreFoundAgainAfterOtherChanges() throws {
        let root = makeRoot(100, 100)
        let windows = sublayer(root, frame: root.bounds)
        let (a, b, c) = try (client(), client(), client())
        let first = showing(a, in: windows)
        let second = showing(b, in: windows)
        let empty = ExternalContentsLayer()
        windows.addSublayer(empty)
        let hidden = sublayer(root, frame: root.bounds)
        hidden.isHidden = true
        let third = showing(c, in: hidden)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        var tracker = DamageTracker()
        var kept = ShownContentsLayers()
        func frame() throws -> (kept: Bool, shown: [ObjectIdentifier]) {
            let tree = try #require(context.renderTree)
            _ = tracker.damage(for: tree, scale: 1, width: 100, height: 100)
            if !tracker.changedContentsAlone { kept.forget() }
            var shown: [ObjectIdentifier] = []
            let reused = kept.forEach(in: tree) { shown.append(ObjectIdentifier($0)) }
            #expect(shown == tree.shownExternalContents().map { ObjectIdentifier($0) })
            return (reused, shown)
        }
        func ids(_ contents: ClientBufferContents...) -> [ObjectIdentifier] { contents.map { ObjectIdentifier($0) } }
        #expect(try frame() == (false, ids(a, b)))
        #expect(try frame() == (true, ids(a, b)))
        let d = try client()
        change { second.externalContents = d }
        #expect(try frame() == (true, ids(a, d)))
        // Contents gone from a hidden layer and come to a shown one, in one commit.
        let e = try client()
        change {
            third.externalContents = nil
            empty.externalContents = e
        }
        #expect(try frame() == (false, ids(a, d, e)))
        let f = try client()
        change { first.externalContents = f }
        #expect(try frame() == (true, ids(f, d, e)))
        change { second.zPosition = 1 }
        #expect(try frame() == (false, ids(f, e, d)))
        change { windows.isHidden = true }
        #expect(try frame() == (false, []))
        #expect(try frame() == (true, []))
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
