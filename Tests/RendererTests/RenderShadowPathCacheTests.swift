import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// A `shadowPath`'s blurred mask is made once in the layer's plane and kept by the renderer while
/// the path, shadowRadius and the layer's scale stay (ca-semantics A5: σ = shadowRadius).
@MainActor
@Suite(.serialized) struct RenderShadowPathCacheTests {
    /// A blue layer whose shadow is an ellipse, offset and blurred.
    func scene() -> (root: Layer, layer: Layer) {
        let root = makeRoot(200, 150)
        let layer = sublayer(root, frame: Rect(x: 40, y: 40, width: 80, height: 40), background: .blue)
        layer.shadowPath = Path(ellipseIn: Rect(x: -10, y: 10, width: 100, height: 40))
        layer.shadowOpacity = 1
        layer.shadowRadius = 4
        layer.shadowOffset = Size(width: 6, height: 8)
        return (root, layer)
    }

    @Test func aMovedLayerReusesItsMaskAndMatchesAFreshRenderExactly() throws {
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        let (root, layer) = scene()
        let context = RenderContext(rootLayer: root)
        change {}
        _ = try renderer.render(try #require(context.renderTree), width: 200, height: 150)
        #expect(renderer.shadowMasks.rasterizationCount == 1 && renderer.shadowMasks.hitCount == 0)
        change { layer.position = Point(x: 95, y: 75) }
        // Only the moved layer's region is redrawn, with the kept mask.
        let cached = try renderer.render(try #require(context.renderTree), width: 200, height: 150)
        #expect(renderer.shadowMasks.rasterizationCount == 1 && renderer.shadowMasks.hitCount == 1)
        #expect(renderer.lastFrameStatistics.damage != .full)
        let fresh = try Renderer().render(try #require(context.renderTree), width: 200, height: 150)
        #expect(cached.maximumChannelDifference(from: fresh) == 0)
        // The shadow moved with the layer: its ellipse now spans y 73…113 under the layer's lower
        // edge (95), 8 points (2σ) inside at (100, 105), where the old one ended at 98.
        #expect(pixel(cached, 100, 105)[0] < 60)
        #expect(renderer.takeValidationMessages() == [])
    }

    @Test func aNewPathRadiusOrScaleDrawsTheMaskAgainButOffsetAndColourDoNot() throws {
        let renderer = try Renderer()
        let (root, layer) = scene()
        let context = RenderContext(rootLayer: root)
        func frame() throws -> Image { try renderer.render(try #require(context.renderTree), width: 200, height: 150) }
        change {}
        _ = try frame()
        change { layer.shadowOffset = Size(width: -6, height: 10) }
        _ = try frame()
        change { layer.shadowColor = .red; layer.shadowOpacity = 0.5 }
        _ = try frame()
        #expect(renderer.shadowMasks.rasterizationCount == 1 && renderer.shadowMasks.hitCount == 2)
        change { layer.shadowPath = Path(rect: Rect(x: 0, y: 20, width: 80, height: 40)) }
        _ = try frame()
        #expect(renderer.shadowMasks.rasterizationCount == 2)
        change { layer.shadowRadius = 2 }
        _ = try frame()
        #expect(renderer.shadowMasks.rasterizationCount == 3)
        change { layer.transform = Transform3D(scaleX: 1.5, y: 1.5) }
        let scaled = try frame()
        #expect(renderer.shadowMasks.rasterizationCount == 4)
        // The offset is in the layer's units, scaled with it: the rectangle's shadow spans y 75…135
        // on the target; 12 pixels (4σ) inside its lower edge it is red at half strength.
        #expect(isNear(pixel(scaled, 80, 123), [255, 128, 128, 255], 3))
        // Turning the layer keeps the scale: the mask stays.
        change { layer.transform = Transform3D(scaleX: 1.5, y: 1.5).concatenating(Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)) }
        _ = try frame()
        #expect(renderer.shadowMasks.rasterizationCount == 4 && renderer.shadowMasks.hitCount == 3)
    }

    @Test func aRemovedLayersMaskIsDropped() throws {
        let renderer = try Renderer()
        let (root, layer) = scene()
        let context = RenderContext(rootLayer: root)
        change {}
        _ = try renderer.render(try #require(context.renderTree), width: 200, height: 150)
        // 100×40 points of ellipse, a pixel of padding and 12 pixels of blur (3σ) on each side.
        #expect(renderer.shadowMasks.keptBytes == (102 + 24) * (42 + 24) * 4)
        change { layer.removeFromSuperlayer() }
        _ = try renderer.render(try #require(context.renderTree), width: 200, height: 150)
        #expect(renderer.shadowMasks.keptBytes == 0)
    }

    /// Over budget, the largest images go first; what is left is drawn again when asked for.
    @Test func theCacheKeepsNoMoreThanItsBudget() throws {
        let cache = RasterCache<Int>(budgetBytes: 1000)
        func image(_ side: Int) -> (image: Image, frame: Rect)? {
            (Image(width: side, height: side, fill: .clear), Rect(x: 0, y: 0, width: Double(side), height: Double(side)))
        }
        let ids = (0..<3).map { _ in Layer().id }
        let context = RenderContext(rootLayer: Layer())
        change {}
        for (id, side) in zip(ids, [10, 12, 5]) { _ = cache.raster(for: id, source: side, scale: 1) { s, _ in image(s) } }
        cache.endFrame(of: try #require(context.renderTree), walkedWhole: true)
        // 400 + 576 + 100 bytes: the 12×12 image goes.
        #expect(cache.keptBytes == 500)
        for (id, side) in zip(ids, [10, 12, 5]) { _ = cache.raster(for: id, source: side, scale: 1) { s, _ in image(s) } }
        #expect(cache.rasterizationCount == 4 && cache.hitCount == 2)
    }

    /// A frame that skipped subtrees keeps the unused images of layers still in its tree, and
    /// drops those of layers gone from it; a frame that walked the whole tree drops every unused one.
    @Test func aPartialFrameKeepsTheImagesOfLayersStillInItsTree() throws {
        let cache = RasterCache<Int>()
        let root = Layer()
        let (kept, removed) = (Layer(), Layer())
        change {
            root.addSublayer(kept)
            root.addSublayer(removed)
        }
        let context = RenderContext(rootLayer: root)
        change {}
        let image = (image: Image(width: 2, height: 2, fill: .clear), frame: Rect(x: 0, y: 0, width: 2, height: 2))
        for id in [kept.id, removed.id] { _ = cache.raster(for: id, source: 1, scale: 1) { _, _ in image } }
        cache.endFrame(of: try #require(context.renderTree), walkedWhole: false)
        cache.endFrame(of: try #require(context.renderTree), walkedWhole: false)
        #expect(cache.keptBytes == 2 * 16)
        change { removed.removeFromSuperlayer() }
        cache.endFrame(of: try #require(context.renderTree), walkedWhole: false)
        #expect(cache.keptBytes == 16)
        _ = cache.raster(for: kept.id, source: 1, scale: 1) { _, _ in image }
        #expect(cache.rasterizationCount == 2 && cache.hitCount == 1)
        cache.endFrame(of: try #require(context.renderTree), walkedWhole: true)
        #expect(cache.keptBytes == 16)
        cache.endFrame(of: try #require(context.renderTree), walkedWhole: true)
        #expect(cache.keptBytes == 0)
    }

    /// The CPU blur is the shader's Gaussian: a one-pixel dot spreads into the normalised kernel.
    @Test func theMaskBlurIsANormalisedGaussian() throws {
        let dot = try makeImage((0..<9).map { y in (0..<9).map { x in x == 4 && y == 4 ? rgba(255, 255, 255, 255) : .clear } })
        let blurred = dot.gaussianBlurredMask(sigma: 1)
        let weights = (-3...3).map { i in exp(-Double(i * i) / 2) }
        let total = weights.reduce(0, +)
        for (x, y) in [(4, 4), (5, 4), (6, 5), (7, 4)] {
            let expected = (255 * weights[x - 1] / total * weights[y - 1] / total).rounded()
            #expect(Int(blurred.pixel(x: x, y: y).alpha) == Int(expected))
            #expect(blurred.pixel(x: x, y: y).red == blurred.pixel(x: x, y: y).alpha)
        }
    }
}
