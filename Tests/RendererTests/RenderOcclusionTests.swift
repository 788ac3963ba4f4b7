import Graphics
import LayerKit
import Testing
@testable import Renderer

/// Occlusion culling: what opaque layers hide is not drawn, and the pixels stay the same.
@MainActor
@Suite struct RenderOcclusionTests {
    func encode(_ root: Layer, region: PixelRect? = nil) throws -> SceneEncoder {
        var e = SceneEncoder(
            tree: try commit(root), scale: 1, targetSize: (Int(root.bounds.width), Int(root.bounds.height)))
        e.cullOccludedDraws(within: region)
        return e
    }

    func opaqueImage(_ width: Int, _ height: Int) throws -> Image {
        let words = [UInt32](repeating: 0x00FF_8000, count: width * height)
        return try words.withUnsafeBytes {
            try Image(width: width, height: height, pixelFormat: .xrgb8888, bytesPerRow: width * 4, bytes: $0)
        }
    }

    @Test func aLayerUnderAnOpaqueOneIsNotDrawn() throws {
        let root = makeRoot(100, 100)
        _ = sublayer(root, frame: Rect(x: 10, y: 10, width: 30, height: 30), background: .red)
        _ = sublayer(root, frame: Rect(x: 0, y: 0, width: 100, height: 100), background: .blue)
        let e = try encode(root)
        // The white root and the red layer are both under the blue one.
        #expect(e.draws.count == 1)
        #expect(e.draws[0].scissor == PixelRect(x: 0, y: 0, width: 100, height: 100))
    }

    @Test func whatSurroundsAnOpaqueWindowIsDrawnAroundIt() throws {
        let root = makeRoot(100, 80)
        let window = sublayer(root, frame: Rect(x: 20, y: 10, width: 50, height: 40))
        window.contents = try opaqueImage(50, 40)
        let e = try encode(root)
        // The root's background in four pieces (above, below, left, right), then the window.
        #expect(e.draws.map(\.scissor) == [
            PixelRect(x: 0, y: 0, width: 100, height: 10), PixelRect(x: 0, y: 50, width: 100, height: 30),
            PixelRect(x: 0, y: 10, width: 20, height: 40), PixelRect(x: 70, y: 10, width: 30, height: 40),
            PixelRect(x: 18, y: 8, width: 54, height: 44),  // with the anti-aliasing margin
        ])
    }

    @Test func aDamagedRegionInsideAnOpaqueWindowDrawsOnlyTheWindow() throws {
        let root = makeRoot(100, 80)
        let window = sublayer(root, frame: Rect(x: 20, y: 10, width: 50, height: 40))
        window.contents = try opaqueImage(50, 40)
        let e = try encode(root, region: PixelRect(x: 30, y: 20, width: 10, height: 10))
        #expect(e.draws.count == 1)
        #expect(e.draws[0].scissor == PixelRect(x: 30, y: 20, width: 10, height: 10))
        #expect(e.draws[0].contents === window.contents)
    }

    @Test func translucentRoundedTransformedOrAlphaLayersHideNothing() throws {
        let root = makeRoot(100, 100)
        let cases: [(Layer) -> Void] = [
            { $0.opacity = 0.5 },
            { $0.cornerRadius = 4 },
            { $0.transform = Transform3D(rotationAngle: 0.1, x: 0, y: 0, z: 1) },
            { $0.backgroundColor = Color(red: 0, green: 0, blue: 1, alpha: 0.9) },
        ]
        for change in cases {
            for layer in root.sublayers { layer.removeFromSuperlayer() }
            let cover = sublayer(root, frame: Rect(x: 0, y: 0, width: 100, height: 100), background: .blue)
            change(cover)
            // The root's background stays whole under it.
            let e = try encode(root)
            #expect(e.draws.count == 2)
            #expect(e.draws[0].scissor == PixelRect(x: 0, y: 0, width: 100, height: 100))
        }
    }

    @Test func anOpaqueHintMakesAlphaContentsAnOccluder() throws {
        let root = makeRoot(60, 60)
        let words = [UInt32](repeating: 0xFF00_00FF, count: 60 * 60)
        let image = try words.withUnsafeBytes {
            try Image(width: 60, height: 60, pixelFormat: .argb8888, bytesPerRow: 240, bytes: $0)
        }
        let surface = sublayer(root, frame: Rect(x: 0, y: 0, width: 60, height: 60))
        surface.contents = image
        #expect(try encode(root).draws.count == 2)
        surface.isOpaque = true
        #expect(try encode(root).draws.count == 1)
    }

    @Test func culledFramesMatchTheSceneDrawnInFull() throws {
        let root = makeRoot(120, 90)
        _ = sublayer(root, frame: Rect(x: 5, y: 5, width: 40, height: 40), background: .red)
        let window = sublayer(root, frame: Rect(x: 20.5, y: 10, width: 60, height: 50))
        window.contents = try opaqueImage(60, 50)
        let above = sublayer(root, frame: Rect(x: 70, y: 40, width: 30, height: 30), background: .green)
        above.opacity = 0.5
        let image = try render(root)
        // Probes: the root, the red layer beside the window, the window, its left column (contents
        // edges are not anti-aliased: the pixel whose centre they cover shows them, though the
        // column is not an occluder, as it is only half covered), and the translucent green.
        #expect(image.pixel(x: 110, y: 85) == PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255))
        #expect(image.pixel(x: 10, y: 10) == PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(image.pixel(x: 40, y: 30) == PremultipliedPixel(red: 255, green: 128, blue: 0, alpha: 255))
        #expect(image.pixel(x: 20, y: 30) == PremultipliedPixel(red: 255, green: 128, blue: 0, alpha: 255))
        #expect(image.pixel(x: 75, y: 45) == PremultipliedPixel(red: 127, green: 192, blue: 0, alpha: 255))
    }

    /// The colour `takeBottomFill` returns, as an array to compare (nil when it returns none).
    func bottomFill(of root: Layer, targetSize: (Int, Int)? = nil, region: PixelRect? = nil) throws -> (fill: [Double]?, draws: Int) {
        var e = SceneEncoder(
            tree: try commit(root), scale: 1, targetSize: targetSize ?? (Int(root.bounds.width), Int(root.bounds.height)))
        let fill = e.takeBottomFill(within: region)
        return (fill.map { [$0.0, $0.1, $0.2, $0.3] }, e.draws.count)
    }

    @Test func anOpaqueBackgroundFillingTheTargetBecomesItsClearColour() throws {
        let root = makeRoot(100, 80)
        root.backgroundColor = Color(red: 0, green: 0.5, blue: 1, alpha: 1)
        _ = sublayer(root, frame: Rect(x: 10, y: 10, width: 30, height: 30), background: .red)
        #expect(try bottomFill(of: root) == ([0, 0.5, 1, 1], 1))
        // A partial redraw's area is filled by it too.
        #expect(try bottomFill(of: root, region: PixelRect(x: 50, y: 40, width: 20, height: 20)) == ([0, 0.5, 1, 1], 1))
    }

    @Test func aBottomLayerThatDoesNotFillTheAreaWithOneOpaqueColourStaysADraw() throws {
        let cases: [(Layer) -> Void] = [
            { $0.cornerRadius = 4 },
            { $0.opacity = 0.99 },
            { $0.backgroundColor = Color(red: 1, green: 1, blue: 1, alpha: 0.5) },
            { $0.bounds.size.width = 99 },
            { $0.contents = try? self.opaqueImage(100, 80) },
            { $0.transform = Transform3D(rotationAngle: 0.01, x: 0, y: 0, z: 1) },
        ]
        for change in cases {
            let root = makeRoot(100, 80)
            change(root)
            #expect(try bottomFill(of: root, targetSize: (100, 80)) == (nil, 1))
        }
        // A region outside what it fills.
        let root = makeRoot(100, 80)
        #expect(try bottomFill(of: root, targetSize: (120, 80), region: PixelRect(x: 90, y: 0, width: 20, height: 20)) == (nil, 1))
        #expect(try bottomFill(of: root, targetSize: (120, 80), region: PixelRect(x: 0, y: 0, width: 20, height: 20)) == ([1, 1, 1, 1], 0))
        // A draw its scissor cuts to less than the target.
        var e = SceneEncoder(tree: try commit(makeRoot(100, 80)), scale: 1, targetSize: (100, 80))
        e.passes[0].draws[0].reach = PixelBox(x: 0, y: 0, width: 50, height: 80)
        #expect(e.takeBottomFill(within: nil) == nil)
        #expect(e.draws.count == 1)
    }

    /// Full frames and partial redraws cleared to the background's colour show what drawing it did.
    @Test func framesClearedToTheBackgroundShowTheSamePixels() throws {
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        let root = makeRoot(100, 80)
        root.backgroundColor = Color(red: 0, green: 0.5, blue: 1, alpha: 1)
        let square = sublayer(root, frame: Rect(x: 10, y: 10, width: 30, height: 30), background: .red)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let blue = PremultipliedPixel(red: 0, green: 128, blue: 255, alpha: 255)
        let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
        let first = try renderer.render(try #require(context.renderTree), width: 100, height: 80)
        #expect(renderer.lastFrameStatistics.drawCount == 1)
        #expect(first.pixel(x: 5, y: 5) == blue && first.pixel(x: 20, y: 20) == red && first.pixel(x: 95, y: 75) == blue)
        // The square moves: the redrawn region is cleared to blue where the square was and drawn
        // where it is.
        change { square.position.x += 40 }
        let second = try renderer.render(try #require(context.renderTree), width: 100, height: 80)
        #expect(renderer.lastFrameStatistics.damage == .region(x: 9, y: 9, width: 72, height: 32))
        #expect(renderer.lastFrameStatistics.drawCount == 1)
        #expect(second.pixel(x: 20, y: 20) == blue && second.pixel(x: 60, y: 20) == red && second.pixel(x: 5, y: 5) == blue)
        #expect(renderer.takeValidationMessages() == [])
    }
}
