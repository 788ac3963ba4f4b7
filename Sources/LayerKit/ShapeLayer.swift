/// `ShapeLayer`'s values, carried in `LayerProperties.shape` to the render tree, where the
/// renderer rasterises them (see `rasterized(scale:)`) and keeps the image while they stay the same.
public struct ShapeProperties: Sendable, Hashable {
    /// In the layer's bounds space; the shape is not clipped to the bounds (unless masksToBounds).
    public var path: Path?
    public var fillColor: Color? = .black
    public var fillRule = FillRule.winding
    public var strokeColor: Color?
    public var lineWidth = 1.0
    public var lineCap = LineCap.butt
    public var lineJoin = LineJoin.miter
    public var miterLimit = 10.0
    /// Alternating painted and unpainted lengths, applied along the stroked (trimmed) part.
    public var lineDashPattern: [Double]?
    public var lineDashPhase = 0.0
    /// The stroked part of the path, as fractions of its length (the fill is always whole).
    public var strokeStart = 0.0
    public var strokeEnd = 1.0

    public init() {}

    /// The part of the path the stroke draws: from strokeStart to strokeEnd of its length.
    public var strokedPath: Path? {
        path.map { strokeStart <= 0 && strokeEnd >= 1 ? $0 : $0.trimmed(from: strokeStart, to: strokeEnd) }
    }

    var drawsFill: Bool { (fillColor?.alpha ?? 0) > 0 }
    var drawsStroke: Bool { (strokeColor?.alpha ?? 0) > 0 && lineWidth > 0 && strokeStart < strokeEnd }

    /// A rectangle holding everything the shape draws, in the layer's bounds space (null when it
    /// draws nothing): the path's control box, grown by how far the stroke can reach past it
    /// (half the width, times the miter limit at miter joins, or √2 for square caps).
    public var drawingBounds: Rect {
        guard let path, !path.isEmpty, drawsFill || drawsStroke else { return .null }
        let box = path.boundingBox
        guard drawsStroke else { return box }
        var reach = lineWidth / 2
        if lineJoin == .miter { reach *= max(miterLimit, 1) }
        if lineCap == .square { reach = max(reach, lineWidth / 2 * 2.0.squareRoot()) }
        return box.insetBy(dx: -reach, dy: -reach)
    }

    /// Draws the shape in the context's user space (the layer's bounds space): the fill with the
    /// fill rule, then the trimmed and dashed stroke. The context's line settings change.
    public func draw(in context: GraphicsContext) {
        guard let path, !path.isEmpty else { return }
        if let fillColor, drawsFill {
            context.setFillColor(fillColor)
            context.beginPath()
            context.addPath(path)
            context.fillPath(using: fillRule)
        }
        if let strokeColor, drawsStroke, let stroked = strokedPath, !stroked.isEmpty {
            context.setStrokeColor(strokeColor)
            context.setLineWidth(lineWidth)
            context.setLineCap(lineCap)
            context.setLineJoin(lineJoin)
            context.setMiterLimit(miterLimit)
            context.setLineDash(phase: lineDashPhase, lengths: lineDashPattern ?? [])
            context.beginPath()
            context.addPath(stroked)
            context.strokePath()
        }
    }

    /// The shape drawn at `scale` pixels per point: the fill (with the fill rule), then the
    /// trimmed and dashed stroke, into an image whose `frame` (in the bounds space) has corners on
    /// the pixel grid, so that the image lands pixel for pixel. Images are capped at
    /// `maximumPixels` a side by lowering the scale. Nil when nothing shows or on allocation failure.
    public func rasterized(scale: Double, maximumPixels: Int = 4096) -> (image: Image, frame: Rect)? {
        let bounds = drawingBounds
        guard path != nil, !bounds.isNull, !bounds.isEmpty, bounds.width.isFinite, bounds.height.isFinite,
            scale > 0, scale.isFinite
        else { return nil }
        let largest = Double(maximumPixels - 1)
        let k = min(scale, largest / bounds.width, largest / bounds.height)
        let x0 = (bounds.minX * k).rounded(.down), y0 = (bounds.minY * k).rounded(.down)
        let x1 = (bounds.maxX * k).rounded(.up), y1 = (bounds.maxY * k).rounded(.up)
        let width = max(1, Int(x1 - x0)), height = max(1, Int(y1 - y0))
        guard let context = try? GraphicsContext(width: width, height: height) else { return nil }
        context.translateBy(x: -x0, y: -y0)
        context.scaleBy(x: k, y: k)
        draw(in: context)
        let frame = Rect(x: x0 / k, y: y0 / k, width: Double(width) / k, height: Double(height) / k)
        return (context.makeImage(), frame)
    }
}

/// A layer that draws a path, filled and stroked (CAShapeLayer). The shape is composited above
/// the layer's contents and below its sublayers. It stays crisp at any scale: the renderer
/// rasterises it at the layer's `contentsScale` (which the compositor sets from the output's
/// scale) and redraws it only when the path, fill, stroke or scale change.
open class ShapeLayer: Layer {
    public override init() {
        super.init()
        properties.shape = ShapeProperties()
    }

    public required init(layer: Layer) {
        super.init(layer: layer)
    }

    /// Animatable point by point when the old and new paths have the same elements; not
    /// implicitly animated, as in Core Animation.
    public var path: Path? {
        get { properties.shape?.path }
        set { setProperty(\.shape!.path, newValue, key: "path") }
    }
    /// Default opaque black; nil fills nothing.
    public var fillColor: Color? {
        get { properties.shape?.fillColor }
        set { setProperty(\.shape!.fillColor, newValue, key: "fillColor") }
    }
    public var fillRule: FillRule {
        get { properties.shape?.fillRule ?? .winding }
        set { setProperty(\.shape!.fillRule, newValue, key: "fillRule") }
    }
    /// Default nil: no stroke.
    public var strokeColor: Color? {
        get { properties.shape?.strokeColor }
        set { setProperty(\.shape!.strokeColor, newValue, key: "strokeColor") }
    }
    public var lineWidth: Double {
        get { properties.shape?.lineWidth ?? 1 }
        set { setProperty(\.shape!.lineWidth, newValue, key: "lineWidth") }
    }
    public var lineCap: LineCap {
        get { properties.shape?.lineCap ?? .butt }
        set { setProperty(\.shape!.lineCap, newValue, key: "lineCap") }
    }
    public var lineJoin: LineJoin {
        get { properties.shape?.lineJoin ?? .miter }
        set { setProperty(\.shape!.lineJoin, newValue, key: "lineJoin") }
    }
    public var miterLimit: Double {
        get { properties.shape?.miterLimit ?? 10 }
        set { setProperty(\.shape!.miterLimit, newValue, key: "miterLimit") }
    }
    public var lineDashPattern: [Double]? {
        get { properties.shape?.lineDashPattern }
        set { setProperty(\.shape!.lineDashPattern, newValue, key: "lineDashPattern") }
    }
    public var lineDashPhase: Double {
        get { properties.shape?.lineDashPhase ?? 0 }
        set { setProperty(\.shape!.lineDashPhase, newValue, key: "lineDashPhase") }
    }
    /// Where the stroke starts, as a fraction of the path's length; animatable.
    public var strokeStart: Double {
        get { properties.shape?.strokeStart ?? 0 }
        set { setProperty(\.shape!.strokeStart, newValue, key: "strokeStart") }
    }
    /// Where the stroke ends, as a fraction of the path's length; animatable (a progress ring).
    public var strokeEnd: Double {
        get { properties.shape?.strokeEnd ?? 1 }
        set { setProperty(\.shape!.strokeEnd, newValue, key: "strokeEnd") }
    }

    override class func propertyEntry(forKey key: String) -> LayerKeyTable.Entry? {
        shapeEntries[key] ?? super.propertyEntry(forKey: key)
    }

    override class var defaultProperties: LayerProperties {
        var p = LayerProperties()
        p.shape = ShapeProperties()
        return p
    }

    override class var implicitlyAnimatedKeys: Set<String> { shapeAnimatedKeys }

    /// Not `path`: Core Animation animates paths only explicitly.
    private static let shapeAnimatedKeys = Layer.baseImplicitlyAnimatedKeys.union([
        "fillColor", "strokeColor", "lineWidth", "miterLimit", "lineDashPhase", "lineDashPattern",
        "strokeStart", "strokeEnd",
    ])

    private static let shapeEntries: [String: LayerKeyTable.Entry] = [
        "path": LayerKeyTable.optionalEntry({ $0.shape?.path }, \ShapeLayer.path),
        "fillColor": LayerKeyTable.optionalEntry({ $0.shape?.fillColor }, \ShapeLayer.fillColor),
        "fillRule": LayerKeyTable.entry({ $0.shape?.fillRule }, \ShapeLayer.fillRule),
        "strokeColor": LayerKeyTable.optionalEntry({ $0.shape?.strokeColor }, \ShapeLayer.strokeColor),
        "lineWidth": LayerKeyTable.entry({ $0.shape?.lineWidth }, \ShapeLayer.lineWidth),
        "lineCap": LayerKeyTable.entry({ $0.shape?.lineCap }, \ShapeLayer.lineCap),
        "lineJoin": LayerKeyTable.entry({ $0.shape?.lineJoin }, \ShapeLayer.lineJoin),
        "miterLimit": LayerKeyTable.entry({ $0.shape?.miterLimit }, \ShapeLayer.miterLimit),
        "lineDashPattern": LayerKeyTable.optionalEntry({ $0.shape?.lineDashPattern }, \ShapeLayer.lineDashPattern),
        "lineDashPhase": LayerKeyTable.entry({ $0.shape?.lineDashPhase }, \ShapeLayer.lineDashPhase),
        "strokeStart": LayerKeyTable.entry({ $0.shape?.strokeStart }, \ShapeLayer.strokeStart),
        "strokeEnd": LayerKeyTable.entry({ $0.shape?.strokeEnd }, \ShapeLayer.strokeEnd),
    ]
}
