import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// ShapeLayer rasterised through Graphics and composited by the renderer on lavapipe.
@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct RenderShapeLayerTests {
    func shape(_ root: Layer, frame: Rect, path: Path) -> ShapeLayer {
        let layer = ShapeLayer()
        layer.frame = frame
        layer.path = path
        root.addSublayer(layer)
        return layer
    }

    /// A ring of radius 40 round the centre of a 100×100 layer, stroked 10 wide in blue.
    func ring(_ root: Layer, at origin: Point) -> ShapeLayer {
        let layer = shape(
            root, frame: Rect(x: origin.x, y: origin.y, width: 100, height: 100),
            path: Path(ellipseIn: Rect(x: 10, y: 10, width: 80, height: 80)))
        layer.fillColor = nil
        layer.strokeColor = .blue
        layer.lineWidth = 10
        return layer
    }

    @Test(arguments: SceneRenderer.allCases) func fillsStrokesDashesAndPartialStrokes(_ renderer: SceneRenderer) throws {
        let root = makeRoot(240, 120)
        var triangle = Path()
        triangle.move(to: Point(x: 50, y: 10))
        triangle.addLine(to: Point(x: 90, y: 90))
        triangle.addLine(to: Point(x: 10, y: 90))
        triangle.closeSubpath()
        let filled = shape(root, frame: Rect(x: 0, y: 0, width: 100, height: 100), path: triangle)
        filled.fillColor = Color(red: 1, green: 0.5, blue: 0)
        filled.strokeColor = .black
        filled.lineWidth = 6
        filled.lineJoin = .round
        var line = Path()
        line.move(to: Point(x: 0, y: 110))
        line.addLine(to: Point(x: 240, y: 110))
        let dashed = shape(root, frame: Rect(x: 0, y: 0, width: 240, height: 120), path: line)
        dashed.strokeColor = .red
        dashed.lineWidth = 4
        dashed.lineDashPattern = [20, 10]
        let partial = ring(root, at: Point(x: 120, y: 0))
        partial.strokeStart = 0.25
        partial.strokeEnd = 0.75
        partial.lineCap = .round
        let image = try render(root, with: renderer)
        #expect(isNear(pixel(image, 50, 60), [255, 128, 0, 255]))   // inside the triangle: the fill
        #expect(isNear(pixel(image, 50, 90), [0, 0, 0, 255]))       // its bottom edge: the stroke
        #expect(isNear(pixel(image, 10, 110), [255, 0, 0, 255]))    // the first dash…
        #expect(isNear(pixel(image, 25, 110), [255, 255, 255, 255]))  // …its gap
        #expect(isNear(pixel(image, 35, 110), [255, 0, 0, 255]))    // …the second dash
        // The ring from a quarter (the bottom) to three quarters (the top) of its length: its left half.
        #expect(isNear(pixel(image, 130, 50), [0, 0, 255, 255]))
        #expect(isNear(pixel(image, 209, 50), [255, 255, 255, 255]))
        try renderer.check(image, named: "shape-layer-fill-stroke-dash", cpu: (2, 0.002))
    }

    @Test func strokeEndAnimatedHalfwayDrawsHalfTheRing() throws {
        MediaTime.clock = ManualMediaClock(startingAt: 100)
        let root = makeRoot(100, 100)
        let layer = ring(root, at: .zero)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let grow = BasicAnimation(keyPath: "strokeEnd")
        (grow.fromValue, grow.toValue, grow.duration) = (0.0, 1.0, 2)
        layer.add(grow, forKey: "grow")
        Transaction.flush()
        let renderer = try validatingRenderer.get()
        let image = try renderer.render(try #require(context.renderTree).sampled(atMediaTime: 101), width: 100, height: 100)
        #expect(renderer.takeValidationMessages() == [])
        // The ring starts at its right (90, 50) and runs clockwise on screen: halfway it has
        // passed the bottom and reached the left.
        #expect(isNear(pixel(image, 87, 60), [0, 0, 255, 255]))  // just after the start
        #expect(isNear(pixel(image, 50, 88), [0, 0, 255, 255]))  // the bottom
        #expect(isNear(pixel(image, 12, 45), [255, 255, 255, 255]))  // just past the end
        #expect(isNear(pixel(image, 50, 11), [255, 255, 255, 255]))  // the top
        #expect(isNear(pixel(image, 87, 40), [255, 255, 255, 255]))  // just before the start
        try golden.check(image, named: "shape-layer-stroke-end-halfway")
    }

    @Test(arguments: SceneRenderer.allCases) func theShapeIsRasterisedAtItsContentsScale(_ renderer: SceneRenderer) throws {
        let root = makeRoot(100, 100)
        let layer = ring(root, at: .zero)
        layer.contentsScale = 2
        let tree = try commit(root)
        let encoder = SceneEncoder(tree: tree, scale: 2, targetSize: (200, 200))
        let image = try #require(encoder.draws.compactMap(\.contents).first)
        // The ring's drawing bounds (its control box 10…90, grown by 5 × the miter limit 10: −40…140)
        // at 2 pixels a point.
        #expect((image.width, image.height) == (360, 360))
        let rendered = try validatingRenderer.get().render(tree, width: 200, height: 200, scale: 2)
        // Crisp at twice the scale: the ring's outer edge at 95 points is pixel 190's edge (the
        // cubics' circle and the pixel's half-point row leave about 1 % of pixel 189 uncovered;
        // an image of one pixel a point would blur both pixels to about half).
        #expect(isNear(pixel(rendered, 189, 100), [0, 0, 255, 255], 4))
        #expect(isNear(pixel(rendered, 190, 100), [255, 255, 255, 255], 4))
    }

    @Test(arguments: SceneRenderer.allCases) func masksToBoundsClipsTheShapeToTheRoundedBounds(_ renderer: SceneRenderer) throws {
        let root = makeRoot(40, 40)
        let layer = shape(root, frame: Rect(x: 10, y: 10, width: 20, height: 20), path: Path(rect: Rect(x: -10, y: -10, width: 40, height: 40)))
        layer.masksToBounds = true
        layer.cornerRadius = 10
        let image = try render(root, with: renderer)
        #expect(isNear(pixel(image, 5, 5), [255, 255, 255, 255]))    // outside the bounds
        #expect(isNear(pixel(image, 11, 11), [255, 255, 255, 255]))  // in the rounded corner
        #expect(isNear(pixel(image, 20, 20), [0, 0, 0, 255]))
    }

    @Test func aShadowFollowsTheShape() throws {
        let root = makeRoot(100, 100)
        let layer = ring(root, at: .zero)
        layer.shadowOpacity = 1
        let encoder = SceneEncoder(tree: try commit(root), scale: 1, targetSize: (100, 100))
        // The shape's alpha into an intermediate, blurred along x, then along y, then the target.
        #expect(encoder.passes.count == 4)
        let image = try render(root)
        // The ring's hole stays clear of shadow far from the ring (more than 3σ = 9 points in).
        #expect(isNear(pixel(image, 50, 50), [255, 255, 255, 255]))
    }

    @Test func anUnchangedShapeIsNotDrawnAgain() throws {
        let renderer = try validatingRenderer.get()
        let root = makeRoot(100, 100)
        let layer = ring(root, at: .zero)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let before = renderer.shapes.rasterizationCount
        _ = try renderer.render(try #require(context.renderTree), width: 100, height: 100)
        renderer.invalidatePreviousFrame()
        _ = try renderer.render(try #require(context.renderTree), width: 100, height: 100)
        #expect(renderer.shapes.rasterizationCount == before + 1)
        // Moving the layer leaves its shape alone; a new stroke colour draws it again.
        Transaction.begin()
        Transaction.disableActions = true
        layer.position = Point(x: 60, y: 50)
        Transaction.commit()
        _ = try renderer.render(try #require(context.renderTree), width: 100, height: 100)
        #expect(renderer.shapes.rasterizationCount == before + 1)
        Transaction.begin()
        Transaction.disableActions = true
        layer.strokeColor = .red
        Transaction.commit()
        let image = try renderer.render(try #require(context.renderTree), width: 100, height: 100)
        #expect(renderer.shapes.rasterizationCount == before + 2)
        #expect(isNear(pixel(image, 60, 88), [255, 0, 0, 255]))
    }
}
