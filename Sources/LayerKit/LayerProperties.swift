/// Every visual and timing property of one layer, with Core Animation's defaults.
///
/// A `Layer` keeps its model values in one of these, so a commit snapshots a layer by copying a
/// value, and the render tree, the presentation tree and key-value access all share one description.
public struct LayerProperties: Sendable {
    // Geometry.
    public var bounds = Rect.zero
    public var position = Point.zero
    public var anchorPoint = Point(x: 0.5, y: 0.5)
    public var anchorPointZ = 0.0
    public var zPosition = 0.0
    public var transform = Transform3D.identity
    public var sublayerTransform = Transform3D.identity
    public var isGeometryFlipped = false
    public var isDoubleSided = true

    // Visibility and compositing.
    public var isHidden = false
    public var opacity = 1.0
    public var allowsGroupOpacity = true
    public var isOpaque = false
    public var shouldRasterize = false
    public var rasterizationScale = 1.0
    public var allowsEdgeAntialiasing = false
    public var edgeAntialiasingMask = EdgeAntialiasingMask.all

    // Contents.
    public var contents: Image?
    public var contentsGravity = ContentsGravity.resize
    public var contentsScale = 1.0
    public var contentsRect = Rect(x: 0, y: 0, width: 1, height: 1)
    public var contentsCenter = Rect(x: 0, y: 0, width: 1, height: 1)
    public var minificationFilter = ContentsFilter.linear
    public var magnificationFilter = ContentsFilter.linear
    public var minificationFilterBias = 0.0

    // Background, border and corners.
    public var backgroundColor: Color?
    public var borderColor: Color? = .black
    public var borderWidth = 0.0
    public var cornerRadius = 0.0
    public var maskedCorners = CornerMask.all
    public var cornerCurve = CornerCurve.circular
    public var masksToBounds = false

    // Shadow. shadowRadius is the Gaussian's standard deviation in points (Vitrine's decision).
    public var shadowColor: Color? = .black
    public var shadowOpacity = 0.0
    public var shadowOffset = Size(width: 0, height: -3)
    public var shadowRadius = 3.0
    public var shadowPath: Path?

    // Filters.
    public var filters: [Filter] = []
    public var backgroundFilters: [Filter] = []
    public var compositingFilter: Filter?

    // Media timing.
    public var beginTime = 0.0
    public var duration = 0.0
    public var speed = 1.0
    public var timeOffset = 0.0
    public var repeatCount = 0.0
    public var repeatDuration = 0.0
    public var autoreverses = false
    public var fillMode = FillMode.removed

    public var name: String?

    /// Values set with `setValue(_:forKey:)` for keys the layer does not declare.
    public var customValues: [String: any Sendable] = [:]

    public init() {}

    /// The corner radius actually drawn: Vitrine clamps it to half the shorter side.
    public var effectiveCornerRadius: Double {
        max(0, min(cornerRadius, min(bounds.width, bounds.height) / 2))
    }

    /// The transform that maps a point in this layer's bounds space into its superlayer's bounds
    /// space (ca-semantics G7), with the superlayer's sublayerTransform pivoting about the
    /// superlayer's anchor point in its bounds space (`origin + anchorPoint⊙size`, Vitrine's choice
    /// where Core Animation is silent) and its isGeometryFlipped applied last.
    public func transformToSuperlayer(_ superlayer: LayerProperties?) -> Transform3D {
        let anchor = Point(
            x: bounds.origin.x + anchorPoint.x * bounds.size.width,
            y: bounds.origin.y + anchorPoint.y * bounds.size.height)
        var m = Transform3D(translationX: -anchor.x, y: -anchor.y, z: -anchorPointZ)
        if !transform.isIdentity { m = m.concatenating(transform) }
        m = m.concatenating(Transform3D(translationX: position.x, y: position.y, z: zPosition))
        guard let s = superlayer else { return m }
        if !s.sublayerTransform.isIdentity {
            let pivot = Point(
                x: s.bounds.origin.x + s.anchorPoint.x * s.bounds.size.width,
                y: s.bounds.origin.y + s.anchorPoint.y * s.bounds.size.height)
            m = m.concatenating(Transform3D(translationX: -pivot.x, y: -pivot.y))
                .concatenating(s.sublayerTransform)
                .concatenating(Transform3D(translationX: pivot.x, y: pivot.y))
        }
        if s.isGeometryFlipped {
            let flip = Transform3D(scaleX: 1, y: -1)
                .concatenating(Transform3D(translationX: 0, y: 2 * s.bounds.origin.y + s.bounds.size.height))
            m = m.concatenating(flip)
        }
        return m
    }

    /// The frame in the superlayer's space: the bounding box of the bounds, relative to the anchor,
    /// under `transform`, moved to `position` (ca-semantics G4). bounds.origin does not enter.
    public var frame: Rect {
        let w = bounds.size.width, h = bounds.size.height
        let local = Rect(x: -anchorPoint.x * w, y: -anchorPoint.y * h, width: w, height: h)
        if transform.isIdentity {
            return local.offsetBy(dx: position.x, dy: position.y)
        }
        let corners = local.corners.compactMap { transform.apply(x: $0.x, y: $0.y) }
            .map { Point(x: $0.x + position.x, y: $0.y + position.y) }
        return Rect(boundingPoints: corners)
    }
}
