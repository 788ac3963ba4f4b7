import Foundation

/// How a `GradientLayer` maps a point to a place along its colour stops (CAGradientLayerType).
public enum GradientType: String, Sendable, Hashable {
    /// Along the line from `startPoint` to `endPoint`; constant across it.
    case axial
    /// An ellipse centred on `startPoint` whose radii reach `endPoint` along x and along y.
    case radial
    /// Round `startPoint`, starting in the direction of `endPoint` and turning clockwise on
    /// screen (y down) through a full turn.
    case conic
}

/// `GradientLayer`'s values, carried in `LayerProperties.gradient` to the render tree.
///
/// Points are in the unit coordinate space of the bounds ((0, 0) the bounds' origin, (1, 1) its
/// far corner), and the gradient's geometry is worked out there, as Core Animation does: an axial
/// gradient from (0, 0) to (1, 1) has its middle colour on the other diagonal whatever the
/// aspect ratio.
public struct GradientProperties: Sendable, Hashable {
    /// Nil or empty draws nothing; one colour fills.
    public var colors: [Color]?
    /// Where each colour sits along the gradient, in 0…1 and increasing; nil, or a count other
    /// than the colours', spaces the colours evenly (Vitrine's rule where Core Animation is silent).
    public var locations: [Double]?
    public var startPoint = Point(x: 0.5, y: 0)
    public var endPoint = Point(x: 0.5, y: 1)
    public var type = GradientType.axial

    public init() {}

    /// The stops as drawn: each colour with its location (evenly spaced unless `locations` gives
    /// one per colour). Before the first stop and after the last the end colours extend.
    public var stops: [(location: Double, color: Color)] {
        guard let colors, !colors.isEmpty else { return [] }
        if let locations, locations.count == colors.count {
            return zip(locations, colors).map { ($0, $1) }
        }
        let last = Double(max(colors.count - 1, 1))
        return colors.enumerated().map { (Double($0.offset) / last, $0.element) }
    }

    /// Paints the gradient over the context's clip, which the caller limits to the layer's
    /// (rounded) bounds: its geometry is laid out in the unit space of `bounds`, as on screen.
    public func draw(in context: GraphicsContext, bounds: Rect) {
        let stops = self.stops.map { GradientStop(location: $0.location, color: $0.color) }
        guard !stops.isEmpty, bounds.width > 0, bounds.height > 0 else { return }
        context.saveGState()
        context.translateBy(x: bounds.minX, y: bounds.minY)
        context.scaleBy(x: bounds.width, y: bounds.height)
        let dx = endPoint.x - startPoint.x, dy = endPoint.y - startPoint.y
        // Far enough to cover the unit square from any start point.
        let reach = 2 + abs(startPoint.x) + abs(startPoint.y)
        switch type {
        case .axial:
            if dx == 0 && dy == 0 {
                // No direction: the parameter is 0 everywhere.
                context.drawLinearGradient([GradientStop(location: 0, color: stops[0].color)], start: .zero, end: Point(x: 1, y: 0))
            } else {
                context.drawLinearGradient(stops, start: startPoint, end: endPoint)
            }
        case .radial:
            if dx == 0 || dy == 0 {
                // A zero radius on an axis: the end colour off the start point, which is a line.
                context.drawLinearGradient([GradientStop(location: 0, color: stops[stops.count - 1].color)], start: .zero, end: Point(x: 1, y: 0))
            } else {
                context.translateBy(x: startPoint.x, y: startPoint.y)
                context.scaleBy(x: abs(dx), y: abs(dy))
                context.drawRadialGradient(stops, center: .zero, radius: 1)
            }
        case .conic:
            context.drawConicGradient(stops, center: startPoint, startAngle: atan2(dy, dx), radius: reach)
        }
        context.restoreGState()
    }

    /// The place along the stops (0 at the start, 1 at the end, beyond outside) of `point`, given in
    /// the unit coordinate space of the bounds.
    public func parameter(at point: Point) -> Double {
        let dx = endPoint.x - startPoint.x, dy = endPoint.y - startPoint.y
        let px = point.x - startPoint.x, py = point.y - startPoint.y
        switch type {
        case .axial:
            let lengthSquared = dx * dx + dy * dy
            return lengthSquared > 0 ? (px * dx + py * dy) / lengthSquared : 0
        case .radial:
            // A zero radius on one axis makes the gradient its end colour off that axis.
            let u = dx != 0 ? px / abs(dx) : (px == 0 ? 0 : .infinity)
            let v = dy != 0 ? py / abs(dy) : (py == 0 ? 0 : .infinity)
            return (u * u + v * v).squareRoot()
        case .conic:
            let turn = 2 * Double.pi
            var angle = (atan2(py, px) - atan2(dy, dx)) / turn
            angle -= angle.rounded(.down)
            return angle
        }
    }

    /// The colour at `point` (unit coordinates of the bounds), premultiplied sRGB components:
    /// stops are interpolated with premultiplied alpha, so that a fade to a transparent colour
    /// shows no trace of that colour's red, green and blue (Vitrine's choice; Core Animation's
    /// documentation does not say). Nil when there are no colours.
    public func premultipliedColor(at point: Point) -> (red: Double, green: Double, blue: Double, alpha: Double)? {
        let stops = self.stops
        guard let first = stops.first else { return nil }
        let t = parameter(at: point)
        func premultiplied(_ c: Color) -> (Double, Double, Double, Double) {
            let s = c.converted(to: .sRGB)
            return (s.red * s.alpha, s.green * s.alpha, s.blue * s.alpha, s.alpha)
        }
        var result = premultiplied(first.color)
        for (a, b) in zip(stops, stops.dropFirst()) where t > a.location {
            let span = b.location - a.location
            let f = span > 0 ? min(1, (t - a.location) / span) : 1
            let (ca, cb) = (premultiplied(a.color), premultiplied(b.color))
            result = (
                ca.0 + (cb.0 - ca.0) * f, ca.1 + (cb.1 - ca.1) * f, ca.2 + (cb.2 - ca.2) * f, ca.3 + (cb.3 - ca.3) * f
            )
        }
        return result
    }
}

/// A layer that fills its background shape with a colour gradient (CAGradientLayer), within its
/// rounded corners. The gradient is drawn above the background colour and below the contents and
/// sublayers, by the renderer's shader (never rasterised on the CPU), so it is sharp at any scale
/// and its animations cost no drawing.
open class GradientLayer: Layer {
    public override init() {
        super.init()
        properties.gradient = GradientProperties()
    }

    public required init(layer: Layer) {
        super.init(layer: layer)
    }

    /// The colours, animatable (element by element when the counts match).
    public var colors: [Color]? {
        get { properties.gradient?.colors }
        set { setProperty(\.gradient!.colors, newValue, key: "colors") }
    }
    /// The stops' locations in 0…1, animatable; nil spaces the colours evenly.
    public var locations: [Double]? {
        get { properties.gradient?.locations }
        set { setProperty(\.gradient!.locations, newValue, key: "locations") }
    }
    /// In the unit coordinate space of the bounds; animatable. Default (0.5, 0), the top centre.
    public var startPoint: Point {
        get { properties.gradient?.startPoint ?? GradientProperties().startPoint }
        set { setProperty(\.gradient!.startPoint, newValue, key: "startPoint") }
    }
    /// In the unit coordinate space of the bounds; animatable. Default (0.5, 1), the bottom centre.
    public var endPoint: Point {
        get { properties.gradient?.endPoint ?? GradientProperties().endPoint }
        set { setProperty(\.gradient!.endPoint, newValue, key: "endPoint") }
    }
    public var type: GradientType {
        get { properties.gradient?.type ?? .axial }
        set { setProperty(\.gradient!.type, newValue, key: "type") }
    }

    override class func propertyEntry(forKey key: String) -> LayerKeyTable.Entry? {
        gradientEntries[key] ?? super.propertyEntry(forKey: key)
    }

    override class var defaultProperties: LayerProperties {
        var p = LayerProperties()
        p.gradient = GradientProperties()
        return p
    }

    override class var implicitlyAnimatedKeys: Set<String> { gradientAnimatedKeys }

    private static let gradientAnimatedKeys = Layer.baseImplicitlyAnimatedKeys.union([
        "colors", "locations", "startPoint", "endPoint",
    ])

    private static let gradientEntries: [String: LayerKeyTable.Entry] = [
        "colors": LayerKeyTable.optionalEntry({ $0.gradient?.colors }, \GradientLayer.colors),
        "locations": LayerKeyTable.optionalEntry({ $0.gradient?.locations }, \GradientLayer.locations),
        "startPoint": LayerKeyTable.entry({ $0.gradient?.startPoint }, \GradientLayer.startPoint),
        "endPoint": LayerKeyTable.entry({ $0.gradient?.endPoint }, \GradientLayer.endPoint),
        "type": LayerKeyTable.entry({ $0.gradient?.type }, \GradientLayer.type),
    ]
}
