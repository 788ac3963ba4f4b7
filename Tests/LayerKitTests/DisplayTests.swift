import Testing
@testable import LayerKit
import SeedExamples

/// The distance from `p` to Listing 2-4's curve: coarse sampling, then fine sampling around the
/// nearest coarse sample (accurate to about 0.03 point).
func distanceToListing24Curve(_ p: Point) -> Double {
    func distance(_ t: Double) -> Double {
        let u = 1 - t
        let x = u * u * u * 15 + 3 * u * u * t * 15 + 3 * u * t * t * 295 + t * t * t * 295
        let y = u * u * u * 15 + 3 * u * u * t * 250 + 3 * u * t * t * 250 + t * t * t * 15
        return ((p.x - x) * (p.x - x) + (p.y - y) * (p.y - y)).squareRoot()
    }
    let coarse = 300
    let nearest = (0...coarse).min { distance(Double($0) / Double(coarse)) < distance(Double($1) / Double(coarse)) }!
    let lo = Double(max(nearest - 1, 0)) / Double(coarse), hi = Double(min(nearest + 1, coarse)) / Double(coarse)
    return (0...200).map { distance(lo + (hi - lo) * Double($0) / 200) }.min()!
}

@MainActor
@Suite struct DisplayTests {
    @Test(arguments: [1.0, 2.0])
    func listing24DrawsTheCurveThroughTheDelegate(scale: Double) throws {
        let delegate = SeedExamples.CurveDelegate()
        let layer = makeLayer(310, 200)
        layer.contentsScale = scale
        layer.delegate = delegate
        layer.setNeedsDisplay()
        layer.displayIfNeeded()
        let image = try #require(layer.contents)
        // The backing store is bounds × contentsScale pixels.
        #expect(image.width == Int(310 * scale) && image.height == Int(200 * scale))
        // Every pixel whose centre is well inside the 5-point stroke is opaque black; every pixel
        // well outside it is untouched. The half-pixel band at the edge is anti-aliased.
        let halfWidth = 2.5, slack = 0.75 / scale
        var checkedInside = 0, checkedOutside = 0
        for py in stride(from: 0, to: image.height, by: 4) {
            for px in stride(from: 0, to: image.width, by: 4) {
                let centre = Point(x: (Double(px) + 0.5) / scale, y: (Double(py) + 0.5) / scale)
                // Butt caps end the stroke square at the endpoints; judge only the curve's sides.
                let nearStart = abs(centre.x - 15) < 4 && abs(centre.y - 15) < 4
                let nearEnd = abs(centre.x - 295) < 4 && abs(centre.y - 15) < 4
                if nearStart || nearEnd { continue }
                let d = distanceToListing24Curve(centre)
                let pixel = image.pixel(x: px, y: py)
                if d < halfWidth - slack {
                    #expect(pixel == PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255), "inside at \(px),\(py)")
                    checkedInside += 1
                } else if d > halfWidth + slack {
                    #expect(pixel.alpha == 0, "outside at \(px),\(py)")
                    checkedOutside += 1
                }
            }
        }
        #expect(checkedInside > 100 && checkedOutside > 1000)
        // The curve's lowest point, t = 0.5: (155, 191.25).
        #expect(image.pixel(x: Int(155 * scale), y: Int(191.25 * scale)).alpha == 255)
        #expect(delegate.draws == 1)
    }

    @Test func setNeedsDisplayManyTimesDrawsOnceAtCommit() {
        let delegate = SeedExamples.CurveDelegate()
        let layer = makeLayer(50, 50)
        layer.delegate = delegate
        layer.setNeedsDisplay()
        layer.setNeedsDisplay()
        layer.setNeedsDisplay()
        #expect(delegate.draws == 0 && layer.needsDisplay())
        Transaction.flush()
        #expect(delegate.draws == 1 && !layer.needsDisplay() && layer.contents != nil)
    }

    @Test func aDisplayDelegateIsCalledInsteadOfDrawing() throws {
        final class Both: LayerDisplayDelegate, LayerDrawingDelegate {
            let image: Image
            var drew = false
            init(image: Image) { self.image = image }
            func display(_ layer: Layer) { layer.contents = image }
            func draw(_ layer: Layer, in context: GraphicsContext) { drew = true }
        }
        let image = Image(width: 4, height: 4, fill: PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
        let both = Both(image: image)
        let layer = makeLayer(10, 10)
        layer.delegate = both
        layer.display()
        #expect(layer.contents === image && !both.drew)
    }

    @Test func aSubclassDrawsByOverridingDrawInContext() throws {
        final class Filled: Layer {
            override func draw(in context: GraphicsContext) {
                context.setFillColor(.red)
                context.fill(Rect(x: 0, y: 0, width: 5, height: 10))
            }
        }
        let layer = Filled()
        layer.bounds = Rect(x: 0, y: 0, width: 10, height: 10)
        layer.display()
        let image = try #require(layer.contents)
        #expect(image.pixel(x: 2, y: 5) == PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(image.pixel(x: 7, y: 5).alpha == 0)
    }

    @Test func drawingIsInPointsFromTheBoundsOrigin() throws {
        final class Dot: Layer {
            override func draw(in context: GraphicsContext) {
                context.setFillColor(.blue)
                context.fill(Rect(x: 100, y: 200, width: 1, height: 1))
            }
        }
        let layer = Dot()
        layer.bounds = Rect(x: 100, y: 200, width: 4, height: 4)
        layer.contentsScale = 3
        layer.display()
        let image = try #require(layer.contents)
        #expect(image.width == 12)
        #expect(image.pixel(x: 1, y: 1) == PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255))
        #expect(image.pixel(x: 2, y: 2).alpha == 255 && image.pixel(x: 3, y: 3).alpha == 0)
    }

    @Test func contentsAreFlippedGivesAFlippedContext() throws {
        final class Top: Layer {
            override func draw(in context: GraphicsContext) {
                context.setFillColor(.green)
                context.fill(Rect(x: 0, y: 0, width: 10, height: 2))
            }
        }
        let parent = makeLayer(10, 10)
        parent.isGeometryFlipped = true
        let layer = Top()
        layer.bounds = Rect(x: 0, y: 0, width: 10, height: 10)
        parent.addSublayer(layer)
        layer.display()
        let image = try #require(layer.contents)
        #expect(image.pixel(x: 5, y: 9).alpha == 255 && image.pixel(x: 5, y: 0).alpha == 0)
    }

    @Test func needsDisplayOnBoundsChangeRedrawsWhenTheSizeChanges() {
        let delegate = SeedExamples.CurveDelegate()
        let layer = makeLayer(20, 20)
        layer.delegate = delegate
        Transaction.flush()
        layer.bounds = Rect(x: 0, y: 0, width: 30, height: 30)
        Transaction.flush()
        #expect(delegate.draws == 0)
        layer.needsDisplayOnBoundsChange = true
        layer.bounds = Rect(x: 0, y: 0, width: 40, height: 30)
        Transaction.flush()
        #expect(delegate.draws == 1)
    }

    @Test func changingContentsScaleRedrawsADrawnBackingStore() throws {
        let delegate = SeedExamples.CurveDelegate()
        let layer = makeLayer(20, 10)
        layer.delegate = delegate
        layer.display()
        layer.contentsScale = 2
        Transaction.flush()
        #expect(delegate.draws == 2)
        #expect(try #require(layer.contents).width == 40)
    }

    @Test func oneImageAssignedToManyLayersIsSharedNotCopied() throws {
        let image = Image(width: 8, height: 8, fill: PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255))
        let layers = (0..<100).map { _ in Layer() }
        for l in layers { l.contents = image }
        #expect(layers.allSatisfy { $0.contents === image })
        let root = Layer()
        root.sublayers = layers
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let tree = try #require(context.renderTree)
        #expect(layers.allSatisfy { tree[$0.id]?.properties.contents === image })
    }

    @Test func anEmptyLayerDisplaysNoContents() {
        let layer = Layer()
        let delegate = SeedExamples.CurveDelegate()
        layer.delegate = delegate
        layer.display()
        #expect(delegate.draws == 0)
        #expect(layer.contents == nil)
    }
}
