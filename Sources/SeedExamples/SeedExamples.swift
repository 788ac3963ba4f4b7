import LayerKit

/// The seeds' code listings, written once in LayerKit so that the tests check them against the
/// seeds' numbers and the demo shows them.
public enum SeedExamples {
    /// Listing 2-4: a delegate that strokes a cubic curve 5 points wide in the context's current
    /// colour. It counts its calls, so tests can tell when drawing happened.
    public final class CurveDelegate: LayerDrawingDelegate {
        public private(set) var draws = 0

        public init() {}

        public func draw(_ layer: Layer, in context: GraphicsContext) {
            draws += 1
            var path = Path()
            path.move(to: Point(x: 15, y: 15))
            path.addCurve(to: Point(x: 295, y: 15), control1: Point(x: 15, y: 250), control2: Point(x: 295, y: 250))
            context.beginPath()
            context.addPath(path)
            context.setLineWidth(5)
            context.strokePath()
        }
    }

    /// Listing 2-6: adds a pinch distortion filter to `myLayer`, configured before it is added
    /// (radius 500, scale 1.25, centre (250, 150)); the layer's image is its input.
    public static func applyListing26Filter(to myLayer: Layer) {
        var aFilter = Filter(name: "CIPinchDistortion")!
        aFilter.setValue(500.0, forKey: "inputRadius")
        aFilter.setValue(1.25, forKey: "inputScale")
        aFilter.setValue(Point(x: 250, y: 150), forKey: "inputCenter")
        myLayer.filters = [aFilter]
    }

    /// Listing 4-2: gives `theLayer` a constraint layout manager and adds layerA (100×25, centred)
    /// and layerB (layerA's width and midX, between 10 points from the superlayer's MinY edge
    /// and 10 points short of layerA's MinY edge). layerB's size is never set.
    public static func addListing42Layers(to theLayer: Layer) -> (layerA: Layer, layerB: Layer) {
        theLayer.layoutManager = ConstraintLayoutManager()

        let layerA = Layer()
        layerA.name = "layerA"
        layerA.bounds = Rect(x: 0, y: 0, width: 100, height: 25)
        layerA.borderWidth = 2
        layerA.addConstraint(Constraint(attribute: .midY, relativeTo: "superlayer", attribute: .midY))
        layerA.addConstraint(Constraint(attribute: .midX, relativeTo: "superlayer", attribute: .midX))
        theLayer.addSublayer(layerA)

        let layerB = Layer()
        layerB.name = "layerB"
        layerB.borderWidth = 2
        layerB.addConstraint(Constraint(attribute: .width, relativeTo: "layerA", attribute: .width))
        layerB.addConstraint(Constraint(attribute: .midX, relativeTo: "layerA", attribute: .midX))
        layerB.addConstraint(Constraint(attribute: .maxY, relativeTo: "layerA", attribute: .minY, offset: -10))
        layerB.addConstraint(Constraint(attribute: .minY, relativeTo: "superlayer", attribute: .minY, offset: 10))
        theLayer.addSublayer(layerB)
        return (layerA, layerB)
    }
}
