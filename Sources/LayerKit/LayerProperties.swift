/// Every visual and timing property of one layer, with Core Animation's defaults.
///
/// A `Layer` keeps its model values in one of these, so a commit snapshots a layer by copying a
/// value, and the render tree, the presentation tree and key-value access all share one description.
public struct LayerProperties: Sendable {
    // The values most commits change, or that animations commonly do, are stored here; the
    // others (`rare`, with `RareLayerValues`) in one box that copies share until one of them
    // changes a value. A commit copies every changed layer's values into a new `RenderLayer`
    // (a client's new buffer: one a frame), and a sample those of every animated layer: that
    // copy is a third of the bytes it was and retains a box, not each array and string. Read
    // in place (`_read`, from a box that never changes): a renderer asks for the filters of
    // every layer it draws, every frame.

    // Geometry.
    public var bounds = Rect.zero
    public var position = Point.zero
    public var anchorPoint = Point(x: 0.5, y: 0.5)
    public var zPosition = 0.0
    public var transform = Transform3D.identity
    public var isGeometryFlipped = false
    @inlinable public var anchorPointZ: Double {
        _read { yield rare.values.anchorPointZ }
        set { changeRare { $0.anchorPointZ = newValue } }
    }
    @inlinable public var sublayerTransform: Transform3D {
        _read { yield rare.values.sublayerTransform }
        set { changeRare { $0.sublayerTransform = newValue } }
    }
    @inlinable public var isDoubleSided: Bool {
        _read { yield rare.values.isDoubleSided }
        set { changeRare { $0.isDoubleSided = newValue } }
    }

    // Visibility and compositing.
    public var isHidden = false
    public var isOpaque = false
    public var opacity = 1.0
    @inlinable public var allowsGroupOpacity: Bool {
        _read { yield rare.values.allowsGroupOpacity }
        set { changeRare { $0.allowsGroupOpacity = newValue } }
    }
    @inlinable public var shouldRasterize: Bool {
        _read { yield rare.values.shouldRasterize }
        set { changeRare { $0.shouldRasterize = newValue } }
    }
    @inlinable public var rasterizationScale: Double {
        _read { yield rare.values.rasterizationScale }
        set { changeRare { $0.rasterizationScale = newValue } }
    }
    @inlinable public var allowsEdgeAntialiasing: Bool {
        _read { yield rare.values.allowsEdgeAntialiasing }
        set { changeRare { $0.allowsEdgeAntialiasing = newValue } }
    }
    @inlinable public var edgeAntialiasingMask: EdgeAntialiasingMask {
        _read { yield rare.values.edgeAntialiasingMask }
        set { changeRare { $0.edgeAntialiasingMask = newValue } }
    }

    // Contents.
    public var contents: Image?
    public var contentsGravity = ContentsGravity.resize
    public var masksToBounds = false
    public var contentsScale = 1.0
    public var contentsRect = Rect(x: 0, y: 0, width: 1, height: 1)
    @inlinable public var contentsCenter: Rect {
        _read { yield rare.values.contentsCenter }
        set { changeRare { $0.contentsCenter = newValue } }
    }
    @inlinable public var minificationFilter: ContentsFilter {
        _read { yield rare.values.minificationFilter }
        set { changeRare { $0.minificationFilter = newValue } }
    }
    @inlinable public var magnificationFilter: ContentsFilter {
        _read { yield rare.values.magnificationFilter }
        set { changeRare { $0.magnificationFilter = newValue } }
    }
    @inlinable public var minificationFilterBias: Double {
        _read { yield rare.values.minificationFilterBias }
        set { changeRare { $0.minificationFilterBias = newValue } }
    }

    // Background, border and corners (and masksToBounds, above).
    public var backgroundColor: Color?
    public var cornerRadius = 0.0
    @inlinable public var borderColor: Color? {
        _read { yield rare.values.borderColor }
        set { changeRare { $0.borderColor = newValue } }
    }
    @inlinable public var borderWidth: Double {
        _read { yield rare.values.borderWidth }
        set { changeRare { $0.borderWidth = newValue } }
    }
    @inlinable public var maskedCorners: CornerMask {
        _read { yield rare.values.maskedCorners }
        set { changeRare { $0.maskedCorners = newValue } }
    }
    @inlinable public var cornerCurve: CornerCurve {
        _read { yield rare.values.cornerCurve }
        set { changeRare { $0.cornerCurve = newValue } }
    }

    // Shadow. shadowRadius is the Gaussian's standard deviation in points (Vitrine's decision).
    @inlinable public var shadowColor: Color? {
        _read { yield rare.values.shadowColor }
        set { changeRare { $0.shadowColor = newValue } }
    }
    @inlinable public var shadowOpacity: Double {
        _read { yield rare.values.shadowOpacity }
        set { changeRare { $0.shadowOpacity = newValue } }
    }
    @inlinable public var shadowOffset: Size {
        _read { yield rare.values.shadowOffset }
        set { changeRare { $0.shadowOffset = newValue } }
    }
    @inlinable public var shadowRadius: Double {
        _read { yield rare.values.shadowRadius }
        set { changeRare { $0.shadowRadius = newValue } }
    }
    @inlinable public var shadowPath: Path? {
        _read { yield rare.values.shadowPath }
        set { changeRare { $0.shadowPath = newValue } }
    }

    // Filters.
    @inlinable public var filters: [Filter] {
        _read { yield rare.values.filters }
        set { changeRare { $0.filters = newValue } }
    }
    @inlinable public var backgroundFilters: [Filter] {
        _read { yield rare.values.backgroundFilters }
        set { changeRare { $0.backgroundFilters = newValue } }
    }
    @inlinable public var compositingFilter: Filter? {
        _read { yield rare.values.compositingFilter }
        set { changeRare { $0.compositingFilter = newValue } }
    }

    // Media timing.
    @inlinable public var beginTime: Double {
        _read { yield rare.values.beginTime }
        set { changeRare { $0.beginTime = newValue } }
    }
    @inlinable public var duration: Double {
        _read { yield rare.values.duration }
        set { changeRare { $0.duration = newValue } }
    }
    @inlinable public var speed: Double {
        _read { yield rare.values.speed }
        set { changeRare { $0.speed = newValue } }
    }
    @inlinable public var timeOffset: Double {
        _read { yield rare.values.timeOffset }
        set { changeRare { $0.timeOffset = newValue } }
    }
    @inlinable public var repeatCount: Double {
        _read { yield rare.values.repeatCount }
        set { changeRare { $0.repeatCount = newValue } }
    }
    @inlinable public var repeatDuration: Double {
        _read { yield rare.values.repeatDuration }
        set { changeRare { $0.repeatDuration = newValue } }
    }
    @inlinable public var autoreverses: Bool {
        _read { yield rare.values.autoreverses }
        set { changeRare { $0.autoreverses = newValue } }
    }
    @inlinable public var fillMode: FillMode {
        _read { yield rare.values.fillMode }
        set { changeRare { $0.fillMode = newValue } }
    }

    @inlinable public var name: String? {
        _read { yield rare.values.name }
        set { changeRare { $0.name = newValue } }
    }

    /// The values of a specialised layer class, boxed: every commit and sample copies the values of
    /// many layers, and most layers are of no such class (see `gradient`, `shape`, `replicator`, `text`).
    var classProperties: ClassProperties?

    // Set only on presentation values, by running animations: what the renderer blends.
    /// A contents animation in flight: the old image fading out under `contents`.
    @inlinable public var contentsCrossFade: ContentsCrossFade? {
        get { inFlight?.contentsCrossFade }
        set { inFlight = InFlightStates(contentsCrossFade: newValue, transition: transition) }
    }
    /// A transition in flight: the layer's previous state giving way to its current one.
    @inlinable public var transition: TransitionState? {
        get { inFlight?.transition }
        set { inFlight = InFlightStates(contentsCrossFade: contentsCrossFade, transition: newValue) }
    }
    /// The two above, boxed (about a hundred bytes, nil on every committed layer): every commit
    /// copies the values of each changed layer into a new `RenderLayer`, which they keep under
    /// the size up to which the allocator serves blocks from its per-thread cache.
    @usableFromInline var inFlight: InFlightStates?

    /// Values set with `setValue(_:forKey:)` for keys the layer does not declare.
    @inlinable public var customValues: [String: any Sendable] {
        _read { yield rare.values.customValues }
        set { changeRare { $0.customValues = newValue } }
    }

    /// The rarely changed values (see above); the defaults' box is shared by every new layer.
    @usableFromInline var rare = RareLayerValues.defaults

    /// Replaces `rare` with a box of its values changed by `change`. A box never changes once
    /// made: a reader then borrows its arrays and strings where they lie rather than retaining
    /// them (a renderer reads every drawn layer's filters every frame).
    @usableFromInline mutating func changeRare(_ change: (inout RareLayerValues.Values) -> Void) {
        var values = rare.values
        change(&values)
        rare = RareLayerValues(values)
    }

    public init() {}

    /// The corner radius actually drawn: Vitrine clamps it to half the shorter side.
    public var effectiveCornerRadius: Double {
        max(0, min(cornerRadius, min(bounds.width, bounds.height) / 2))
    }

    /// What a superlayer contributes to mapping its sublayers into its bounds space.
    public struct SublayerSpace: Sendable {
        var bounds: Rect
        var anchorPoint: Point
        var sublayerTransform: Transform3D
        var isGeometryFlipped: Bool
    }

    public var sublayerSpace: SublayerSpace {
        SublayerSpace(
            bounds: bounds, anchorPoint: anchorPoint, sublayerTransform: sublayerTransform,
            isGeometryFlipped: isGeometryFlipped)
    }

    /// The transform that maps a point in this layer's bounds space into its superlayer's bounds
    /// space (ca-semantics G7), with the superlayer's sublayerTransform pivoting about the
    /// superlayer's anchor point in its bounds space (`origin + anchorPoint⊙size`, Vitrine's choice
    /// where Core Animation is silent) and its isGeometryFlipped applied last.
    public func transformToSuperlayer(_ superlayer: SublayerSpace?) -> Transform3D {
        LayerProperties.transformToSuperlayer(
            bounds: bounds, anchorPoint: anchorPoint, anchorPointZ: anchorPointZ, position: position,
            zPosition: zPosition, transform: transform, superlayer: superlayer)
    }

    /// The same from the individual values, so callers holding a layer need not copy all its properties.
    static func transformToSuperlayer(
        bounds: Rect, anchorPoint: Point, anchorPointZ az: Double, position: Point, zPosition: Double,
        transform: Transform3D, superlayer: SublayerSpace?
    ) -> Transform3D {
        // T(−anchor) · transform · T(position, zPosition), by row operations rather than products.
        var m = transform
        let ax = bounds.origin.x + anchorPoint.x * bounds.size.width
        let ay = bounds.origin.y + anchorPoint.y * bounds.size.height
        m.m41 = m.m41 - ax * m.m11 - ay * m.m21 - az * m.m31
        m.m42 = m.m42 - ax * m.m12 - ay * m.m22 - az * m.m32
        m.m43 = m.m43 - ax * m.m13 - ay * m.m23 - az * m.m33
        m.m44 = m.m44 - ax * m.m14 - ay * m.m24 - az * m.m34
        let (px, py, pz) = (position.x, position.y, zPosition)
        m.m11 += m.m14 * px; m.m12 += m.m14 * py; m.m13 += m.m14 * pz
        m.m21 += m.m24 * px; m.m22 += m.m24 * py; m.m23 += m.m24 * pz
        m.m31 += m.m34 * px; m.m32 += m.m34 * py; m.m33 += m.m34 * pz
        m.m41 += m.m44 * px; m.m42 += m.m44 * py; m.m43 += m.m44 * pz
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
            // y → (2·origin.y + height) − y.
            let c = 2 * s.bounds.origin.y + s.bounds.size.height
            m.m12 = m.m14 * c - m.m12
            m.m22 = m.m24 * c - m.m22
            m.m32 = m.m34 * c - m.m32
            m.m42 = m.m44 * c - m.m42
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

/// The values of `LayerProperties` that most layers leave at their defaults and few commits
/// change, in one box that copies of the values share (`LayerProperties.rare`); replaced, never
/// changed.
@usableFromInline final class RareLayerValues: Sendable {
    @usableFromInline struct Values: Sendable {
        @usableFromInline var anchorPointZ: Double = 0.0
        @usableFromInline var sublayerTransform: Transform3D = Transform3D.identity
        @usableFromInline var isDoubleSided: Bool = true
        @usableFromInline var allowsGroupOpacity: Bool = true
        @usableFromInline var shouldRasterize: Bool = false
        @usableFromInline var rasterizationScale: Double = 1.0
        @usableFromInline var allowsEdgeAntialiasing: Bool = false
        @usableFromInline var edgeAntialiasingMask: EdgeAntialiasingMask = EdgeAntialiasingMask.all
        @usableFromInline var contentsCenter: Rect = Rect(x: 0, y: 0, width: 1, height: 1)
        @usableFromInline var minificationFilter: ContentsFilter = ContentsFilter.linear
        @usableFromInline var magnificationFilter: ContentsFilter = ContentsFilter.linear
        @usableFromInline var minificationFilterBias: Double = 0.0
        @usableFromInline var borderColor: Color? = .black
        @usableFromInline var borderWidth: Double = 0.0
        @usableFromInline var maskedCorners: CornerMask = CornerMask.all
        @usableFromInline var cornerCurve: CornerCurve = CornerCurve.circular
        @usableFromInline var shadowColor: Color? = .black
        @usableFromInline var shadowOpacity: Double = 0.0
        @usableFromInline var shadowOffset: Size = Size(width: 0, height: -3)
        @usableFromInline var shadowRadius: Double = 3.0
        @usableFromInline var shadowPath: Path?
        @usableFromInline var filters: [Filter] = []
        @usableFromInline var backgroundFilters: [Filter] = []
        @usableFromInline var compositingFilter: Filter?
        @usableFromInline var beginTime: Double = 0.0
        @usableFromInline var duration: Double = 0.0
        @usableFromInline var speed: Double = 1.0
        @usableFromInline var timeOffset: Double = 0.0
        @usableFromInline var repeatCount: Double = 0.0
        @usableFromInline var repeatDuration: Double = 0.0
        @usableFromInline var autoreverses: Bool = false
        @usableFromInline var fillMode: FillMode = FillMode.removed
        @usableFromInline var name: String?
        @usableFromInline var customValues: [String: any Sendable] = [:]

        init() {}
    }

    @usableFromInline let values: Values

    @usableFromInline static let defaults = RareLayerValues(Values())

    @usableFromInline init(_ values: Values) {
        self.values = values
    }
}

/// A layer's presentation states in flight (`LayerProperties.inFlight`); never changed once made.
@usableFromInline final class InFlightStates: Sendable {
    @usableFromInline let contentsCrossFade: ContentsCrossFade?
    @usableFromInline let transition: TransitionState?

    /// Nil when neither is in flight.
    @usableFromInline init?(contentsCrossFade: ContentsCrossFade?, transition: TransitionState?) {
        guard contentsCrossFade != nil || transition != nil else { return nil }
        (self.contentsCrossFade, self.transition) = (contentsCrossFade, transition)
    }
}

/// The values only layers of one specialised class have; boxed, so a value is one reference.
enum ClassProperties: Sendable {
    indirect case gradient(GradientProperties)
    indirect case shape(ShapeProperties)
    indirect case replicator(ReplicatorProperties)
    indirect case text(TextProperties)
    indirect case scroll(ScrollMode)
    indirect case emitter(EmitterProperties)
    indirect case tiled(TiledProperties)
    /// A `TransformLayer`: it has no values of its own, only its kind.
    case transformLayer
    /// Held in place, not boxed: a client's surface gets new contents every frame, and a box was
    /// an allocation and a free each time, for a reference and its witness table.
    case externalContents(any ExternalContents)
}

extension LayerProperties {
    // The values of the specialised layer classes: set on layers of that class only, nil otherwise.
    // Setting nil clears only the class's own values.

    /// `GradientLayer`'s colours, stops and geometry.
    public var gradient: GradientProperties? {
        get {
            guard case .gradient(let g)? = classProperties else { return nil }
            return g
        }
        set {
            if let newValue { classProperties = .gradient(newValue) } else if gradient != nil { classProperties = nil }
        }
    }

    /// `ShapeLayer`'s path, fill and stroke.
    public var shape: ShapeProperties? {
        get {
            guard case .shape(let s)? = classProperties else { return nil }
            return s
        }
        set {
            if let newValue { classProperties = .shape(newValue) } else if shape != nil { classProperties = nil }
        }
    }

    /// `TextLayer`'s string, font, colour and modes.
    public var text: TextProperties? {
        get {
            guard case .text(let t)? = classProperties else { return nil }
            return t
        }
        set {
            if let newValue { classProperties = .text(newValue) } else if text != nil { classProperties = nil }
        }
    }

    /// `ReplicatorLayer`'s instances.
    public var replicator: ReplicatorProperties? {
        get {
            guard case .replicator(let r)? = classProperties else { return nil }
            return r
        }
        set {
            if let newValue { classProperties = .replicator(newValue) } else if replicator != nil { classProperties = nil }
        }
    }

    /// `EmitterLayer`'s cells and emitter.
    public var emitter: EmitterProperties? {
        get {
            guard case .emitter(let e)? = classProperties else { return nil }
            return e
        }
        set {
            if let newValue { classProperties = .emitter(newValue) } else if emitter != nil { classProperties = nil }
        }
    }

    /// `TiledLayer`'s grid and its tiles.
    public var tiled: TiledProperties? {
        get {
            guard case .tiled(let t)? = classProperties else { return nil }
            return t
        }
        set {
            if let newValue { classProperties = .tiled(newValue) } else if tiled != nil { classProperties = nil }
        }
    }

    /// `ScrollLayer`'s scroll mode.
    public var scrollMode: ScrollMode? {
        get {
            guard case .scroll(let mode)? = classProperties else { return nil }
            return mode
        }
        set {
            if let newValue { classProperties = .scroll(newValue) } else if scrollMode != nil { classProperties = nil }
        }
    }

    /// Whether these are a `TransformLayer`'s values: its sublayers keep their depth, and its own
    /// background, contents, border, shadow, filters, mask and masksToBounds are ignored.
    public var isTransformLayer: Bool {
        get {
            guard case .transformLayer? = classProperties else { return false }
            return true
        }
        set {
            if newValue { classProperties = .transformLayer } else if isTransformLayer { classProperties = nil }
        }
    }
}

extension LayerProperties {
    /// The contents' size in points for gravity: the pixels of the part `contentsRect` selects,
    /// divided by contentsScale.
    public var contentsLogicalSize: Size? {
        // External contents, while they show something, are drawn in place of `contents`.
        guard let pixels = externalContents?.pixelSize ?? contents.map({ (width: $0.width, height: $0.height) }) else {
            return nil
        }
        let scale = contentsScale > 0 ? contentsScale : 1
        return Size(
            width: Double(pixels.width) * contentsRect.width / scale,
            height: Double(pixels.height) * contentsRect.height / scale)
    }

    /// Where the contents land in the bounds (ca-semantics C1): the bounds for `resize`, scaled to
    /// fit or fill (centred) for the aspect modes, unscaled at the edge or corner the gravity names
    /// otherwise. `top` is the visual top (minimum y) unless `contentsAreFlipped`, which swaps top
    /// and bottom as in Core Animation. Nil when there are no contents.
    public func contentsFrame(contentsAreFlipped: Bool = false) -> Rect? {
        guard let size = contentsLogicalSize else { return nil }
        let b = bounds
        let (cw, ch) = (size.width, size.height)
        switch contentsGravity {
        case .resize:
            return b
        case .resizeAspect, .resizeAspectFill:
            guard cw > 0, ch > 0 else { return b }
            let sx = b.width / cw, sy = b.height / ch
            let s = contentsGravity == .resizeAspect ? min(sx, sy) : max(sx, sy)
            return Rect(x: b.minX + (b.width - cw * s) / 2, y: b.minY + (b.height - ch * s) / 2, width: cw * s, height: ch * s)
        default:
            let name = contentsGravity.rawValue.lowercased()
            var top = name.contains("top"), bottom = name.contains("bottom")
            if contentsAreFlipped { swap(&top, &bottom) }
            let x = name.contains("left") ? b.minX : name.contains("right") ? b.maxX - cw : b.minX + (b.width - cw) / 2
            let y = top ? b.minY : bottom ? b.maxY - ch : b.minY + (b.height - ch) / 2
            return Rect(x: x, y: y, width: cw, height: ch)
        }
    }

    /// The radius of each corner as drawn: min-x/min-y, max-x/min-y, max-x/max-y, min-x/max-y.
    public var cornerRadii: (Double, Double, Double, Double) {
        let r = effectiveCornerRadius
        func radius(_ corner: CornerMask) -> Double { maskedCorners.contains(corner) ? r : 0 }
        return (radius(.minXMinYCorner), radius(.maxXMinYCorner), radius(.maxXMaxYCorner), radius(.minXMaxYCorner))
    }
}
