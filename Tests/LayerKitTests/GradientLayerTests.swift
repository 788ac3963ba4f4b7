import Testing
@testable import LayerKit

@MainActor
@Suite struct GradientLayerTests {
    func isClose(_ c: (red: Double, green: Double, blue: Double, alpha: Double)?, _ e: (Double, Double, Double, Double)) -> Bool {
        guard let c else { return false }
        return LayerKitTests.isClose(c.red, e.0) && LayerKitTests.isClose(c.green, e.1)
            && LayerKitTests.isClose(c.blue, e.2) && LayerKitTests.isClose(c.alpha, e.3)
    }

    @Test func defaultsAreCoreAnimations() {
        let layer = GradientLayer()
        #expect(layer.colors == nil)
        #expect(layer.locations == nil)
        #expect(layer.startPoint == Point(x: 0.5, y: 0))
        #expect(layer.endPoint == Point(x: 0.5, y: 1))
        #expect(layer.type == .axial)
        #expect(GradientLayer.defaultValue(forKey: "endPoint") as? Point == Point(x: 0.5, y: 1))
        #expect(Layer.defaultValue(forKey: "endPoint") == nil)
    }

    @Test func propertiesAreReachableByKey() {
        let layer = GradientLayer()
        layer.setValue([Color.red, Color.blue], forKey: "colors")
        layer.setValue(Point(x: 0, y: 0.5), forKey: "startPoint")
        layer.setValue(GradientType.conic, forKey: "type")
        #expect(layer.colors == [.red, .blue])
        #expect(layer.value(forKey: "startPoint") as? Point == Point(x: 0, y: 0.5))
        #expect(layer.type == .conic)
        layer.setValue(nil, forKey: "colors")
        #expect(layer.colors == nil)
        // A plain layer keeps such keys as custom values.
        let plain = Layer()
        plain.setValue(3.0, forKey: "startPoint")
        #expect(plain.value(forKey: "startPoint") as? Double == 3)
    }

    @Test func axialColourFollowsTheAxisFromTopToBottomByDefault() {
        var g = GradientProperties()
        g.colors = [.red, .blue]
        #expect(isClose(g.premultipliedColor(at: Point(x: 0.5, y: 0.25)), (0.75, 0, 0.25, 1)))
        #expect(isClose(g.premultipliedColor(at: Point(x: 0.9, y: 0.25)), (0.75, 0, 0.25, 1)))
        // Beyond the end points the end colours extend.
        #expect(isClose(g.premultipliedColor(at: Point(x: 0.5, y: -1)), (1, 0, 0, 1)))
        #expect(isClose(g.premultipliedColor(at: Point(x: 0.5, y: 2)), (0, 0, 1, 1)))
    }

    @Test func diagonalAxisWorksInUnitCoordinates() {
        var g = GradientProperties()
        g.colors = [.black, .white]
        g.startPoint = .zero
        g.endPoint = Point(x: 1, y: 1)
        // (1, 0) and (0, 1) lie on the perpendicular through the middle, whatever the bounds' shape.
        #expect(g.parameter(at: Point(x: 1, y: 0)) == 0.5)
        #expect(g.parameter(at: Point(x: 0, y: 1)) == 0.5)
        #expect(g.parameter(at: Point(x: 0.25, y: 0.25)) == 0.25)
    }

    @Test func locationsPlaceTheStops() {
        var g = GradientProperties()
        g.colors = [.red, .green, .blue]
        g.locations = [0, 0.2, 1]
        #expect(isClose(g.premultipliedColor(at: Point(x: 0.5, y: 0.1)), (0.5, 0.5, 0, 1)))
        #expect(isClose(g.premultipliedColor(at: Point(x: 0.5, y: 0.6)), (0, 0.5, 0.5, 1)))
        // A count other than the colours' spaces them evenly.
        g.locations = [0, 1]
        #expect(g.stops.map(\.location) == [0, 0.5, 1])
    }

    @Test func stopsInterpolateWithPremultipliedAlpha() {
        var g = GradientProperties()
        g.colors = [.red, Color(red: 0, green: 0, blue: 1, alpha: 0)]
        // Halfway: half-transparent red, with nothing of the transparent blue.
        #expect(isClose(g.premultipliedColor(at: Point(x: 0.5, y: 0.5)), (0.5, 0, 0, 0.5)))
    }

    @Test func radialGradientIsAnEllipseThroughTheEndPoint() {
        var g = GradientProperties()
        g.type = .radial
        g.startPoint = Point(x: 0.5, y: 0.5)
        g.endPoint = Point(x: 1, y: 1)
        #expect(g.parameter(at: Point(x: 0.75, y: 0.5)) == 0.5)
        #expect(g.parameter(at: Point(x: 0.5, y: 0)) == 1)
        #expect(g.parameter(at: Point(x: 0.5, y: 0.5)) == 0)
    }

    @Test func conicGradientTurnsClockwiseFromTheEndPointsDirection() {
        var g = GradientProperties()
        g.type = .conic
        g.startPoint = Point(x: 0.5, y: 0.5)
        g.endPoint = Point(x: 1, y: 0.5)
        #expect(g.parameter(at: Point(x: 1, y: 0.5)) == 0)
        #expect(g.parameter(at: Point(x: 0.5, y: 1)) == 0.25)  // below the centre: a quarter turn
        #expect(g.parameter(at: Point(x: 0, y: 0.5)) == 0.5)
        #expect(g.parameter(at: Point(x: 0.5, y: 0)) == 0.75)
    }

    @Test func colorsAndPointsAnimate() {
        let clock = ManualMediaClock(startingAt: 100)
        MediaTime.clock = clock
        let root = makeLayer(200, 200)
        let layer = GradientLayer()
        layer.bounds = Rect(x: 0, y: 0, width: 100, height: 100)
        layer.colors = [.red, .blue]
        root.addSublayer(layer)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let colors = BasicAnimation(keyPath: "colors")
        (colors.fromValue, colors.toValue, colors.duration) = ([Color.red, Color.blue], [Color.blue, Color.red], 1)
        let start = BasicAnimation(keyPath: "startPoint.x")
        (start.fromValue, start.toValue, start.duration) = (0.0, 1.0, 1)
        layer.add(colors, forKey: "colors")
        layer.add(start, forKey: "start")
        Transaction.flush()
        let shown = context.renderTree!.presentationProperties(of: layer.id, atMediaTime: 100.5)!.gradient!
        let purple = Color(red: 0.5, green: 0, blue: 0.5)
        #expect(shown.colors == [purple, purple])
        #expect(shown.startPoint == Point(x: 0.5, y: 0))
        #expect(context.renderTree!.presentationProperties(of: layer.id, atMediaTime: 100.25)!.gradient!.startPoint.x == 0.25)
    }

    /// A box each, except external contents, held in place (a reference and its witness table):
    /// a client's surface gets new ones every frame, and a box was allocated for each.
    @Test func classValuesCostEveryLayersValuesOneReferenceAndAWitnessTable() {
        #expect(MemoryLayout<ClassProperties?>.size == MemoryLayout<any ExternalContents>.size)
        #expect(MemoryLayout<any ExternalContents>.size == 2 * MemoryLayout<AnyObject>.size)
        var p = LayerProperties()
        p.shape = ShapeProperties()
        // Clearing another class's values leaves these alone.
        p.gradient = nil
        #expect(p.shape == ShapeProperties())
        #expect(p.gradient == nil && p.replicator == nil)
        p.shape = nil
        #expect(p.shape == nil)
    }

    @Test func gradientChangesAnimateImplicitlyOnGradientLayersOnly() {
        let layer = GradientLayer()
        for key in ["colors", "locations", "startPoint", "endPoint"] {
            #expect(layer.action(forKey: key) is BasicAnimation, "\(key)")
        }
        #expect(layer.action(forKey: "type") == nil)
        #expect(Layer().action(forKey: "colors") == nil)
    }
}
