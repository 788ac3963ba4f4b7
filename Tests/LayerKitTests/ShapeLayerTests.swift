import Testing
@testable import LayerKit

@MainActor
@Suite struct ShapeLayerTests {
    let square = Path(rect: Rect(x: 0, y: 0, width: 100, height: 100))

    @Test func defaultsAreCoreAnimations() {
        let layer = ShapeLayer()
        #expect(layer.path == nil)
        #expect(layer.fillColor == .black)
        #expect(layer.fillRule == .winding)
        #expect(layer.strokeColor == nil)
        #expect(layer.lineWidth == 1)
        #expect(layer.lineCap == .butt)
        #expect(layer.lineJoin == .miter)
        #expect(layer.miterLimit == 10)
        #expect(layer.lineDashPattern == nil)
        #expect(layer.lineDashPhase == 0)
        #expect(layer.strokeStart == 0)
        #expect(layer.strokeEnd == 1)
        #expect(ShapeLayer.defaultValue(forKey: "miterLimit") as? Double == 10)
    }

    @Test func propertiesAreReachableByKey() {
        let layer = ShapeLayer()
        layer.setValue(square, forKey: "path")
        layer.setValue(0.25, forKey: "strokeStart")
        layer.setValue(nil, forKey: "fillColor")
        layer.setValue(LineJoin.round, forKey: "lineJoin")
        #expect(layer.path == square)
        #expect(layer.value(forKey: "strokeStart") as? Double == 0.25)
        #expect(layer.fillColor == nil)
        #expect(layer.lineJoin == .round)
    }

    @Test func theStrokedPathIsTheTrimmedPath() {
        var shape = ShapeProperties()
        shape.path = square
        #expect(shape.strokedPath == square)
        (shape.strokeStart, shape.strokeEnd) = (0.25, 0.5)
        #expect(shape.strokedPath?.elements == [.move(to: Point(x: 100, y: 0)), .line(to: Point(x: 100, y: 100))])
    }

    @Test func drawingBoundsReachAsFarAsTheStroke() {
        var shape = ShapeProperties()
        shape.path = Path(rect: Rect(x: 10, y: 10, width: 80, height: 80))
        #expect(shape.drawingBounds == Rect(x: 10, y: 10, width: 80, height: 80))
        shape.strokeColor = .red
        shape.lineWidth = 4
        shape.lineJoin = .round
        #expect(shape.drawingBounds == Rect(x: 8, y: 8, width: 84, height: 84))
        // Miter joins may reach miterLimit × half the width.
        shape.lineJoin = .miter
        #expect(shape.drawingBounds == Rect(x: -10, y: -10, width: 120, height: 120))
        shape.fillColor = nil
        shape.strokeColor = nil
        #expect(shape.drawingBounds.isNull)
    }

    @Test func rasterisingPutsThePixelGridUnderTheFrame() throws {
        var shape = ShapeProperties()
        shape.path = Path(rect: Rect(x: 0.25, y: 0.25, width: 10, height: 10))
        shape.fillColor = .red
        let (image, frame) = try #require(shape.rasterized(scale: 2))
        // Device pixels 0.5…20.5: 21 pixels from 0, i.e. 0…10.5 points.
        #expect(frame == Rect(x: 0, y: 0, width: 10.5, height: 10.5))
        #expect((image.width, image.height) == (21, 21))
        let inside = image.pixel(x: 10, y: 10), edge = image.pixel(x: 0, y: 10)
        #expect((inside.red, inside.green, inside.blue, inside.alpha) == (255, 0, 0, 255))
        // The edge pixel is half covered.
        #expect(abs(Int(edge.alpha) - 128) <= 1 && edge.red == edge.alpha)
    }

    @Test func theFillRuleDecidesTheInsideOfNestedSubpaths() throws {
        var shape = ShapeProperties()
        var path = Path(rect: Rect(x: 0, y: 0, width: 30, height: 30))
        path.addRect(Rect(x: 10, y: 10, width: 10, height: 10))
        shape.path = path
        let winding = try #require(shape.rasterized(scale: 1)).image
        #expect(winding.pixel(x: 15, y: 15).alpha == 255)
        shape.fillRule = .evenOdd
        let evenOdd = try #require(shape.rasterized(scale: 1)).image
        #expect(evenOdd.pixel(x: 15, y: 15).alpha == 0)
        #expect(evenOdd.pixel(x: 5, y: 15).alpha == 255)
    }

    @Test func strokeEndAnimatesAlongThePath() throws {
        let clock = ManualMediaClock(startingAt: 100)
        MediaTime.clock = clock
        let root = makeLayer(200, 200)
        let layer = ShapeLayer()
        layer.path = square
        layer.strokeColor = .blue
        root.addSublayer(layer)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let grow = BasicAnimation(keyPath: "strokeEnd")
        (grow.fromValue, grow.toValue, grow.duration) = (0.0, 1.0, 2)
        layer.add(grow, forKey: "grow")
        Transaction.flush()
        let shown = context.renderTree!.presentationProperties(of: layer.id, atMediaTime: 101)!.shape!
        #expect(shown.strokeEnd == 0.5)
        #expect(shown.strokedPath?.elements == [
            .move(to: .zero), .line(to: Point(x: 100, y: 0)), .line(to: Point(x: 100, y: 100)),
        ])
        // The presentation copy is a shape layer showing the same value.
        clock.set(to: 101)
        let presented = try #require(layer.presentation())
        #expect(presented.strokeEnd == 0.5)
        #expect(presented.value(forKey: "strokeEnd") as? Double == 0.5)
        #expect(layer.strokeEnd == 1)
    }

    @Test func pathsWithTheSameElementsAnimatePointByPoint() {
        MediaTime.clock = ManualMediaClock(startingAt: 100)
        let root = makeLayer(200, 200)
        let layer = ShapeLayer()
        root.addSublayer(layer)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let morph = BasicAnimation(keyPath: "path")
        (morph.fromValue, morph.toValue, morph.duration) = (square, Path(rect: Rect(x: 0, y: 0, width: 200, height: 50)), 1)
        layer.add(morph, forKey: "morph")
        Transaction.flush()
        let shown = context.renderTree!.presentationProperties(of: layer.id, atMediaTime: 100.5)!.shape!
        #expect(shown.path == Path(rect: Rect(x: 0, y: 0, width: 150, height: 75)))
    }

    @Test func strokeAndFillChangesAnimateImplicitlyButThePathDoesNot() {
        let layer = ShapeLayer()
        for key in ["strokeStart", "strokeEnd", "lineWidth", "fillColor", "strokeColor"] {
            #expect(layer.action(forKey: key) is BasicAnimation, "\(key)")
        }
        #expect(layer.action(forKey: "path") == nil)
        #expect(Layer().action(forKey: "strokeEnd") == nil)
    }
}
