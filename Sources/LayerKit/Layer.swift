import Synchronization

/// A layer of the model tree (CALayer): geometry, appearance, contents and timing, with Core
/// Animation's defaults and rules (see `ca-semantics.md` in the project's shared notes).
///
/// Coordinates are y-down with the origin at the top left, as in Wayland; `isGeometryFlipped`
/// flips a subtree. `Transaction.commit()` snapshots the model tree into immutable `RenderTree`s.
///
/// A layer is not `Sendable`: a tree is used from one thread at a time, and its changes join that
/// thread's transactions (see `Transaction`). The compositor keeps its whole state on one thread.
open class Layer {
    public let id: LayerID

    /// The model values; every property setter below writes through `setProperty`.
    public internal(set) final var properties = LayerProperties()

    /// The layer this one is a sublayer of. The superlayer owns its sublayers, so the back
    /// reference is not counted, and the superlayer clears it when it lets the sublayer go or
    /// goes itself. Not weak: weak references would give every layer a side table and make each
    /// retain and release slow. Unmanaged rather than unowned, as it is always cleared in time:
    /// a walk up the tree (a commit walks up to every changed layer's root) then checks and
    /// retains nothing on the way.
    public final var superlayer: Layer? { _superlayer }
    private final var _superlayer: Layer? {
        get { superlayerReference?.takeUnretainedValue() }
        set { superlayerReference = newValue.map(Unmanaged.passUnretained) }
    }
    private final var superlayerReference: Unmanaged<Layer>?
    @usableFromInline final var _sublayers: [Layer] = []
    /// The layer this one masks, so that a mask (which has no superlayer) still belongs to a tree;
    /// not counted for the same reasons, since the masked layer owns its mask and clears it.
    private final var maskedLayer: Layer? {
        get { maskedLayerReference?.takeUnretainedValue() }
        set { maskedLayerReference = newValue.map(Unmanaged.passUnretained) }
    }
    private final var maskedLayerReference: Unmanaged<Layer>?

    /// The ids of the superlayer and of the layer this one masks, read without retaining those
    /// layers (a commit asks them of every layer it stores; a retain of a layer with a side table
    /// takes the runtime's slow path).
    final var superlayerID: LayerID? { superlayerReference?._withUnsafeGuaranteedRef(\.id) }
    final var maskedLayerID: LayerID? { maskedLayerReference?._withUnsafeGuaranteedRef(\.id) }

    public weak var delegate: (any LayerDelegate)?

    // Commit bookkeeping (see Transaction and RenderContext).
    var isMarkedChanged = false
    /// See `RenderLayer.revisionExceptContents`.
    var revisionExceptContents: UInt64 = 0
    /// See `RenderLayer.revisionExceptSublayers`.
    var revisionExceptSublayers: UInt64 = 0
    var needsDisplayFlag = false
    /// The part of the bounds marked since the last display (`setNeedsDisplay(in:)`); infinite for all.
    var needsDisplayRect = Rect.null
    var needsLayoutFlag = false
    var descendantNeedsLayout = false
    var isInLayout = false
    /// Set on a root layer that a RenderContext renders. The context holds its root layer and
    /// every layer of its snapshot, and clears these two when it goes (see `RenderContext.deinit`):
    /// weak references would give the context a side table, and every retain and release of it
    /// would take the runtime's slow path. Kept unmanaged, as `superlayer` is: a commit compares
    /// them for every changed layer, retaining neither.
    final var hostingContext: RenderContext? {
        get { hostingContextReference?.takeUnretainedValue() }
        set { hostingContextReference = newValue.map(Unmanaged.passUnretained) }
    }
    final var hostingContextReference: Unmanaged<RenderContext>?
    /// The context whose last snapshot holds this layer.
    final var committedContext: RenderContext? {
        get { committedContextReference?.takeUnretainedValue() }
        set { committedContextReference = newValue.map(Unmanaged.passUnretained) }
    }
    final var committedContextReference: Unmanaged<RenderContext>?
    /// The commit that last stored this layer in its context.
    var storedInCommit: UInt64 = 0
    /// The indexes of `committedContext`'s snapshot that hold this layer.
    var committedIndexes: RenderIndexes = []
    /// The superlayer size this layer's frame was last placed for: autoresizing moves it from there.
    var autoresizingReferenceSize: Size?
    /// True while `contents` is the backing store that `display()` drew, so a contentsScale change redraws.
    var contentsAreBackingStore = false
    /// The animations added to this layer, in the order they were added.
    var animationEntries: [AnimationEntry] = []
    /// True for the copies `presentation()` returns.
    var isPresentation = false
    /// For a presentation copy, the model layer it shows.
    var presentedModel: Layer?

    /// Ids are unique in the process, whichever thread makes the layer.
    private static let nextID = Atomic<UInt64>(1)

    public init() {
        id = LayerID(rawValue: Layer.nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    /// Makes a copy of `layer` (Core Animation's initWithLayer:), which `presentation()` uses for
    /// its shadow copies. Subclasses with state of their own override it, copy that state and call
    /// super.
    public required init(layer: Layer) {
        id = layer.id
        properties = layer.properties
        needsDisplayOnBoundsChange = layer.needsDisplayOnBoundsChange
        autoresizingMask = layer.autoresizingMask
        constraints = layer.constraints
    }

    deinit {
        for sublayer in _sublayers { sublayer._superlayer = nil }
        _mask?.maskedLayer = nil
        for entry in animationEntries { entry.end(finished: false) }
    }

    /// Links presentation copies into a tree, without touching any transaction.
    final func linkPresentation(sublayers: [Layer], mask: Layer?) {
        _sublayers = sublayers
        for sublayer in sublayers { sublayer._superlayer = self }
        _mask = mask
        mask?.maskedLayer = self
    }

    // MARK: - Writing properties

    /// Sets one model value and performs what a change of it implies: the layer joins the current
    /// transaction's changes, and bounds, transform and contents changes schedule layout or display.
    /// Setting the value a property already has changes nothing, as in Core Animation. Inlined
    /// into each setter, so that the key path is a constant the optimizer resolves: called, it is
    /// projected at run time on every set, unchanged values included.
    @inline(__always)
    final func setProperty<T: Equatable>(_ keyPath: WritableKeyPath<LayerProperties, T>, _ value: T, key: String) {
        let old = properties[keyPath: keyPath]
        guard old != value else { return }
        properties[keyPath: keyPath] = value
        didChange(key: key, oldBounds: key == "bounds" ? (old as? Rect) : nil)
    }

    final func didChange(key: String, oldBounds: Rect? = nil) {
        markChanged(contentsOnly: key == "contents")
        runActionForChange(ofKey: key)
        switch key {
        case "bounds":
            setNeedsLayoutImplicitly()
            if let oldBounds, oldBounds.size != properties.bounds.size {
                superlayer?.setNeedsLayoutImplicitly()
                if needsDisplayOnBoundsChange { setNeedsDisplay() }
            }
        case "transform":
            setNeedsLayoutImplicitly()
            superlayer?.setNeedsLayoutImplicitly()
        case "contentsScale":
            if contentsAreBackingStore { setNeedsDisplay() }
        case "contents":
            contentsAreBackingStore = false
        default:
            if type(of: self).needsDisplay(forKey: key) { setNeedsDisplay() }
        }
    }

    /// Adds the layer to the current transaction's set of changed layers (once per transaction).
    /// Presentation copies are never committed.
    /// Notes a change for the next commit; anything but a new `contents` counts in
    /// `revisionExceptContents`, anything but a change of the sublayers in
    /// `revisionExceptSublayers`.
    final func markChanged(contentsOnly: Bool = false, sublayersOnly: Bool = false) {
        guard !isPresentation else { return }
        Transaction.withState { transaction in
            if !contentsOnly {
                revisionExceptContents &+= 1
                transaction.revisionExceptContents &+= 1
            }
            if !sublayersOnly { revisionExceptSublayers &+= 1 }
            transaction.noteChange()
            guard !isMarkedChanged else { return }
            isMarkedChanged = true
            transaction.changedLayers.append(self)
        }
    }

    // MARK: - Geometry

    /// The layer's own coordinate space; a negative size is standardised, as Core Animation does.
    public var bounds: Rect {
        get { properties.bounds }
        set { setProperty(\.bounds, newValue.standardized, key: "bounds") }
    }
    /// Where the anchor point sits in the superlayer's bounds space.
    public var position: Point {
        get { properties.position }
        set { setProperty(\.position, newValue, key: "position") }
    }
    /// The point of the bounds, in unit coordinates, that `position` places and transforms pivot about.
    public var anchorPoint: Point {
        get { properties.anchorPoint }
        set { setProperty(\.anchorPoint, newValue, key: "anchorPoint") }
    }
    public var anchorPointZ: Double {
        get { properties.anchorPointZ }
        set { setProperty(\.anchorPointZ, newValue, key: "anchorPointZ") }
    }
    public var zPosition: Double {
        get { properties.zPosition }
        set { setProperty(\.zPosition, newValue, key: "zPosition") }
    }
    public var transform: Transform3D {
        get { properties.transform }
        set { setProperty(\.transform, newValue, key: "transform") }
    }
    public var sublayerTransform: Transform3D {
        get { properties.sublayerTransform }
        set { setProperty(\.sublayerTransform, newValue, key: "sublayerTransform") }
    }
    /// The 2D part of `transform`; reads the identity when the transform is not affine, as Core Animation does.
    public var affineTransform: AffineTransform2D {
        get { transform.isAffine ? transform.affineTransform : .identity }
        set { transform = Transform3D(newValue) }
    }
    public var isGeometryFlipped: Bool {
        get { properties.isGeometryFlipped }
        set { setProperty(\.isGeometryFlipped, newValue, key: "geometryFlipped") }
    }
    public var isDoubleSided: Bool {
        get { properties.isDoubleSided }
        set { setProperty(\.isDoubleSided, newValue, key: "doubleSided") }
    }

    /// The bounding box of the transformed bounds in the superlayer's space; derived, never stored.
    /// Setting it sets bounds.size and position for the current anchorPoint and transform.
    public var frame: Rect {
        get { properties.frame }
        set {
            let f = newValue.standardized
            var size = f.size
            var anchorOffset = Point.zero
            let t = transform
            if !t.isIdentity {
                // The bounds size whose transformed box has the frame's size, and the anchor's
                // displacement by the transform's translation.
                var linear = t.affineTransform
                linear.tx = 0
                linear.ty = 0
                size = Rect(origin: .zero, size: f.size).applying(linear.inverted()).size
                if let moved = t.apply(x: 0, y: 0) { anchorOffset = Point(x: moved.x, y: moved.y) }
            }
            bounds = Rect(origin: bounds.origin, size: size)
            position = Point(
                x: f.origin.x + anchorPoint.x * f.size.width - anchorOffset.x,
                y: f.origin.y + anchorPoint.y * f.size.height - anchorOffset.y)
        }
    }

    /// True when an odd number of layers from this one up to the root have isGeometryFlipped set;
    /// drawing then gets a y-flipped context and contents gravity swaps top and bottom.
    public func contentsAreFlipped() -> Bool {
        var flipped = false
        var layer: Layer? = superlayer
        while let l = layer {
            if l.isGeometryFlipped { flipped.toggle() }
            layer = l.superlayer ?? l.maskedLayer
        }
        return flipped
    }

    // MARK: - Visibility and compositing

    public var isHidden: Bool {
        get { properties.isHidden }
        set { setProperty(\.isHidden, newValue, key: "hidden") }
    }
    /// Opacity in 0…1; values outside are clamped, as Core Animation's documentation says.
    public var opacity: Double {
        get { properties.opacity }
        set { setProperty(\.opacity, min(1, max(0, newValue)), key: "opacity") }
    }
    public var allowsGroupOpacity: Bool {
        get { properties.allowsGroupOpacity }
        set { setProperty(\.allowsGroupOpacity, newValue, key: "allowsGroupOpacity") }
    }
    public var isOpaque: Bool {
        get { properties.isOpaque }
        set { setProperty(\.isOpaque, newValue, key: "opaque") }
    }
    public var shouldRasterize: Bool {
        get { properties.shouldRasterize }
        set { setProperty(\.shouldRasterize, newValue, key: "shouldRasterize") }
    }
    public var rasterizationScale: Double {
        get { properties.rasterizationScale }
        set { setProperty(\.rasterizationScale, newValue, key: "rasterizationScale") }
    }
    public var allowsEdgeAntialiasing: Bool {
        get { properties.allowsEdgeAntialiasing }
        set { setProperty(\.allowsEdgeAntialiasing, newValue, key: "allowsEdgeAntialiasing") }
    }
    public var edgeAntialiasingMask: EdgeAntialiasingMask {
        get { properties.edgeAntialiasingMask }
        set { setProperty(\.edgeAntialiasingMask, newValue, key: "edgeAntialiasingMask") }
    }

    // MARK: - Contents

    /// The layer's image. Assigning one image to many layers shares it; it is never copied.
    public var contents: Image? {
        get { properties.contents }
        set { setProperty(\.contents, newValue, key: "contents") }
    }
    public var contentsGravity: ContentsGravity {
        get { properties.contentsGravity }
        set { setProperty(\.contentsGravity, newValue, key: "contentsGravity") }
    }
    /// Pixels per point of the contents: an image of w×h pixels is w/scale × h/scale points for
    /// gravity, and display() draws a backing store of bounds × contentsScale pixels.
    public var contentsScale: Double {
        get { properties.contentsScale }
        set { setProperty(\.contentsScale, newValue, key: "contentsScale") }
    }
    public var contentsRect: Rect {
        get { properties.contentsRect }
        set { setProperty(\.contentsRect, newValue, key: "contentsRect") }
    }
    public var contentsCenter: Rect {
        get { properties.contentsCenter }
        set { setProperty(\.contentsCenter, newValue, key: "contentsCenter") }
    }
    public var minificationFilter: ContentsFilter {
        get { properties.minificationFilter }
        set { setProperty(\.minificationFilter, newValue, key: "minificationFilter") }
    }
    public var magnificationFilter: ContentsFilter {
        get { properties.magnificationFilter }
        set { setProperty(\.magnificationFilter, newValue, key: "magnificationFilter") }
    }
    public var minificationFilterBias: Double {
        get { properties.minificationFilterBias }
        set { setProperty(\.minificationFilterBias, newValue, key: "minificationFilterBias") }
    }

    // MARK: - Background, border, corners

    public var backgroundColor: Color? {
        get { properties.backgroundColor }
        set { setProperty(\.backgroundColor, newValue, key: "backgroundColor") }
    }
    public var borderColor: Color? {
        get { properties.borderColor }
        set { setProperty(\.borderColor, newValue, key: "borderColor") }
    }
    /// Drawn inset from the bounds, above contents and sublayers.
    public var borderWidth: Double {
        get { properties.borderWidth }
        set { setProperty(\.borderWidth, newValue, key: "borderWidth") }
    }
    /// Rounds the background and border always, contents and sublayers only with masksToBounds.
    public var cornerRadius: Double {
        get { properties.cornerRadius }
        set { setProperty(\.cornerRadius, newValue, key: "cornerRadius") }
    }
    public var maskedCorners: CornerMask {
        get { properties.maskedCorners }
        set { setProperty(\.maskedCorners, newValue, key: "maskedCorners") }
    }
    public var cornerCurve: CornerCurve {
        get { properties.cornerCurve }
        set { setProperty(\.cornerCurve, newValue, key: "cornerCurve") }
    }
    public var masksToBounds: Bool {
        get { properties.masksToBounds }
        set { setProperty(\.masksToBounds, newValue, key: "masksToBounds") }
    }

    // MARK: - Shadow

    public var shadowColor: Color? {
        get { properties.shadowColor }
        set { setProperty(\.shadowColor, newValue, key: "shadowColor") }
    }
    public var shadowOpacity: Double {
        get { properties.shadowOpacity }
        set { setProperty(\.shadowOpacity, min(1, max(0, newValue)), key: "shadowOpacity") }
    }
    public var shadowOffset: Size {
        get { properties.shadowOffset }
        set { setProperty(\.shadowOffset, newValue, key: "shadowOffset") }
    }
    /// The blur's Gaussian standard deviation, in points.
    public var shadowRadius: Double {
        get { properties.shadowRadius }
        set { setProperty(\.shadowRadius, newValue, key: "shadowRadius") }
    }
    public var shadowPath: Path? {
        get { properties.shadowPath }
        set { setProperty(\.shadowPath, newValue, key: "shadowPath") }
    }

    // MARK: - Filters

    public var filters: [Filter] {
        get { properties.filters }
        set { setProperty(\.filters, newValue, key: "filters") }
    }
    public var backgroundFilters: [Filter] {
        get { properties.backgroundFilters }
        set { setProperty(\.backgroundFilters, newValue, key: "backgroundFilters") }
    }
    public var compositingFilter: Filter? {
        get { properties.compositingFilter }
        set { setProperty(\.compositingFilter, newValue, key: "compositingFilter") }
    }

    // MARK: - Identity and layout inputs

    /// Names a layer for constraints (`Constraint.sourceName`) and lookup.
    public var name: String? {
        get { properties.name }
        set { setProperty(\.name, newValue, key: "name") }
    }
    public var needsDisplayOnBoundsChange = false
    public var autoresizingMask: AutoresizingMask = []
    public var constraints: [Constraint] = [] {
        didSet { superlayer?.setNeedsLayout() }
    }
    public func addConstraint(_ constraint: Constraint) {
        constraints.append(constraint)
    }
    public var layoutManager: (any LayoutManager)? {
        didSet { setNeedsLayout() }
    }

    // MARK: - Mask

    /// A layer whose alpha selects what of this layer shows, in this layer's coordinate space.
    /// It must not have a superlayer; a mask already masking another layer moves here.
    public var mask: Layer? {
        get { _mask }
        set {
            guard newValue !== _mask else { return }
            if let newValue {
                precondition(newValue.superlayer == nil, "a mask layer must not have a superlayer")
                precondition(newValue !== self, "a layer cannot mask itself")
                newValue.maskedLayer?.mask = nil
            }
            if let old = _mask {
                old.maskedLayer = nil
                old.markChanged()
            }
            _mask = newValue
            newValue?.maskedLayer = self
            newValue?.markChanged()
            markChanged()
        }
    }
    private var _mask: Layer?

    /// The layer above this one: its superlayer, or for a mask the layer it masks.
    var parentInTree: Layer? { superlayer ?? maskedLayer }

    // MARK: - Hierarchy

    /// Sublayers back to front. Setting it removes the current ones and adds the new ones in order.
    /// Read in place from other modules: called, the getter retained the array for the caller to
    /// release, and a compositor counts a window's sublayers every frame.
    public final var sublayers: [Layer] {
        @inlinable get { _sublayers }
        set {
            // The old sublayers leave together: one by one, each removal would search the rest.
            for layer in _sublayers {
                layer._superlayer = nil
                layer.markChanged()
            }
            _sublayers = []
            markChanged(sublayersOnly: true)
            setNeedsLayout()
            for layer in newValue { addSublayer(layer) }
        }
    }

    /// Adds `layer` at the end of `sublayers` (on top of siblings with the same zPosition),
    /// first removing it from wherever it was.
    public func addSublayer(_ layer: Layer) {
        insertSublayer(layer, at: _sublayers.count)
    }

    /// Inserts `layer` at `index` in `sublayers`, first removing it from wherever it was.
    /// An index past the end appends.
    public func insertSublayer(_ layer: Layer, at index: Int) {
        precondition(layer !== self, "a layer cannot be its own sublayer")
        precondition(!isDescendant(of: layer), "adding an ancestor as a sublayer would make a cycle")
        var index = index
        if layer.superlayer === self, let old = _sublayers.firstIndex(where: { $0 === layer }), old < index {
            index -= 1
        }
        layer.detachFromSuperlayer()
        if let masked = layer.maskedLayer { masked.mask = nil }
        _sublayers.insert(layer, at: min(max(index, 0), _sublayers.count))
        layer._superlayer = self
        layer.autoresizingReferenceSize = bounds.size
        layer.markChanged()
        markChanged(sublayersOnly: true)
        setNeedsLayout()
    }

    /// Inserts `layer` just above `sibling` in `sublayers` (or at the end when `sibling` is not a sublayer).
    public func insertSublayer(_ layer: Layer, above sibling: Layer?) {
        guard let sibling, sibling !== layer, let i = _sublayers.firstIndex(where: { $0 === sibling }) else {
            addSublayer(layer)
            return
        }
        insertSublayer(layer, at: i + 1)
    }

    /// Inserts `layer` just below `sibling` in `sublayers` (or at the start when `sibling` is not a sublayer).
    public func insertSublayer(_ layer: Layer, below sibling: Layer?) {
        guard let sibling, sibling !== layer, let i = _sublayers.firstIndex(where: { $0 === sibling }) else {
            insertSublayer(layer, at: 0)
            return
        }
        insertSublayer(layer, at: i)
    }

    /// Puts `newLayer` where `oldLayer` was; `oldLayer` must be a sublayer of this layer.
    public func replaceSublayer(_ oldLayer: Layer, with newLayer: Layer) {
        precondition(oldLayer.superlayer === self, "replaceSublayer: the old layer is not a sublayer of this layer")
        guard oldLayer !== newLayer else { return }
        newLayer.detachFromSuperlayer()
        guard let i = _sublayers.firstIndex(where: { $0 === oldLayer }) else { return }
        oldLayer.removeFromSuperlayer()
        insertSublayer(newLayer, at: i)
    }

    /// Removes the layer from its superlayer, or, for a mask, from the layer it masks.
    public func removeFromSuperlayer() {
        if let masked = maskedLayer {
            masked.mask = nil
            return
        }
        guard let parent = superlayer else { return }
        detachFromSuperlayer()
        parent.setNeedsLayout()
    }

    private func detachFromSuperlayer() {
        guard let parent = superlayer else { return }
        // By index: a partition over every sibling costs a layer with thousands of sublayers
        // (a client's subsurfaces) far more per removal.
        if let index = parent._sublayers.lastIndex(where: { $0 === self }) { parent._sublayers.remove(at: index) }
        _superlayer = nil
        parent.markChanged(sublayersOnly: true)
        markChanged()
    }

    /// True when `ancestor` is above this layer in its tree (masks count as inside the layer they mask).
    public func isDescendant(of ancestor: Layer) -> Bool {
        var layer = parentInTree
        while let l = layer {
            if l === ancestor { return true }
            layer = l.parentInTree
        }
        return false
    }

    /// The topmost layer of this layer's tree.
    public var rootLayer: Layer { rootLayerReference.takeUnretainedValue() }

    /// The topmost layer, unretained: held by the tree, the layers on the way up are not retained
    /// one by one (a commit asks this of every changed layer).
    final var rootLayerReference: Unmanaged<Layer> {
        var layer = Unmanaged.passUnretained(self)
        while let parent = layer._withUnsafeGuaranteedRef({ $0.superlayerReference ?? $0.maskedLayerReference }) { layer = parent }
        return layer
    }

    /// Sublayers in drawing order, back to front: zPosition ascending, ties in `sublayers` order.
    public var sublayersInDrawingOrder: [Layer] {
        sortedByDrawingOrder(_sublayers) { $0.properties.zPosition }
    }

    // MARK: - Overridable behaviour (open methods must live in the class body)

    /// Whether `point`, in this layer's bounds space, is inside its bounds.
    open func contains(_ point: Point) -> Bool {
        bounds.contains(point)
    }

    /// The farthest descendant (or this layer) under `point`, given in the superlayer's space.
    /// Siblings are searched front to back in drawing order; hidden layers, layers with opacity
    /// below 0.01 and their subtrees are not hit; masksToBounds clips the search to the bounds,
    /// rounded by cornerRadius. Sublayers outside a non-clipping layer's bounds can still be hit.
    open func hitTest(_ point: Point) -> Layer? {
        guard !isHidden, opacity >= 0.01 else { return nil }
        guard let local = planeTransformToParent.inverted()?.apply(point) else { return nil }
        if masksToBounds && !roundedBoundsContain(local) { return nil }
        for sublayer in sublayersInDrawingOrder.reversed() {
            if let hit = sublayer.hitTest(local) { return hit }
        }
        return contains(local) ? self : nil
    }

    /// Lays out the sublayers. The default applies each sublayer's autoresizing rules (from the size
    /// this layer had when that sublayer was last placed), then the delegate's
    /// `layoutSublayers(of:)` or else the layout manager. An override replaces all of that, as in
    /// Core Animation.
    open func layoutSublayers() {
        let size = bounds.size
        for sublayer in sublayers {
            if let reference = sublayer.autoresizingReferenceSize, reference != size {
                sublayer.resize(withOldSuperlayerSize: reference)
            }
            sublayer.autoresizingReferenceSize = size
        }
        if let delegate = delegate as? any LayerLayoutDelegate {
            delegate.layoutSublayers(of: self)
        } else {
            layoutManager?.layoutSublayers(of: self)
        }
    }

    /// The size the layer should have to fit its contents; layout managers and subclasses refine it.
    open func preferredFrameSize() -> Size { bounds.size }

    /// Applies the autoresizing rules to each sublayer for a change from `oldSize` to the current size.
    open func resizeSublayers(withOldSize oldSize: Size) {
        for sublayer in sublayers { sublayer.resize(withOldSuperlayerSize: oldSize) }
    }

    /// Moves and resizes this layer by its autoresizingMask for its superlayer's change from
    /// `oldSize`. The size difference is split evenly among the flexible parts of each axis
    /// (NSView's rule; Core Animation does not document one for layers).
    open func resize(withOldSuperlayerSize oldSize: Size) {
        guard let superlayer, !autoresizingMask.isEmpty else { return }
        let newSize = superlayer.bounds.size
        let f = frame
        let (x, w) = Layer.autoresize(
            origin: f.origin.x, length: f.size.width, delta: newSize.width - oldSize.width,
            flexibleLow: autoresizingMask.contains(.minXMargin),
            flexibleLength: autoresizingMask.contains(.widthSizable),
            flexibleHigh: autoresizingMask.contains(.maxXMargin))
        let (y, h) = Layer.autoresize(
            origin: f.origin.y, length: f.size.height, delta: newSize.height - oldSize.height,
            flexibleLow: autoresizingMask.contains(.minYMargin),
            flexibleLength: autoresizingMask.contains(.heightSizable),
            flexibleHigh: autoresizingMask.contains(.maxYMargin))
        let newFrame = Rect(x: x, y: y, width: w, height: h)
        if newFrame != f { frame = newFrame }
        autoresizingReferenceSize = newSize
    }

    /// Updates `contents`. The default asks a display delegate to set them; otherwise it draws a
    /// backing store of bounds × contentsScale pixels through `draw(in:)`, with the context scaled
    /// so that drawing is in the layer's points and bounds.origin is at the top left (flipped when
    /// `contentsAreFlipped()`). A layer with an empty size gets no contents.
    open func display() {
        if let delegate = delegate as? any LayerDisplayDelegate {
            delegate.display(self)
            return
        }
        let scale = contentsScale > 0 ? contentsScale : 1
        let pixelWidth = Int((bounds.width * scale).rounded(.up))
        let pixelHeight = Int((bounds.height * scale).rounded(.up))
        guard pixelWidth > 0, pixelHeight > 0, let context = try? GraphicsContext(width: pixelWidth, height: pixelHeight) else {
            contents = nil
            return
        }
        context.scaleBy(x: scale, y: scale)
        if contentsAreFlipped() {
            context.translateBy(x: 0, y: bounds.height)
            context.scaleBy(x: 1, y: -1)
        }
        context.translateBy(x: -bounds.origin.x, y: -bounds.origin.y)
        draw(in: context)
        contents = context.makeImage()
        contentsAreBackingStore = true
    }

    /// Draws the layer's contents in points. The default hands the context to a drawing delegate;
    /// subclasses that draw themselves override it.
    open func draw(in context: GraphicsContext) {
        (delegate as? any LayerDrawingDelegate)?.draw(self, in: context)
    }

    // MARK: - Actions

    /// The action for a property change or other event, searched in Core Animation's order: the
    /// delegate's `action(for:forKey:)`, `actions`, the `style` dictionaries (each may nest a
    /// further "style"; each may hold "actions"), `defaultAction(forKey:)`, and finally the
    /// built-in implicit animation for animatable properties. The first answer wins; a
    /// `NullAction` answer ends the search with no action.
    open func action(forKey event: String) -> (any Action)? {
        func answer(_ a: (any Action)?) -> (any Action)?? {
            guard let a else { return .none }
            return .some(a is NullAction ? nil : a)
        }
        if let delegate = delegate as? any LayerActionDelegate, let found = answer(delegate.action(for: self, forKey: event)) {
            return found
        }
        if let found = answer(actions?[event]) { return found }
        var style = self.style
        while let s = style {
            if let found = answer((s["actions"] as? [String: any Action])?[event]) { return found }
            style = s["style"] as? [String: Any]
        }
        if let found = answer(type(of: self).defaultAction(forKey: event)) { return found }
        return builtInAction(forKey: event)
    }

    /// The class's action for an event; nil by default, as in Core Animation (whose implicit
    /// animations come after this step).
    open class func defaultAction(forKey event: String) -> (any Action)? { nil }

    /// Actions by event name, consulted after the delegate.
    public var actions: [String: any Action]?
    /// Default values and actions ("actions") consulted after `actions`; may nest a "style".
    /// `Any`, as Core Animation's dictionary is, since actions (animations) are not `Sendable`.
    public var style: [String: Any]?

    // MARK: - Custom properties and key-value access

    /// Whether a change of the property `key` marks the layer as needing display (CALayer's
    /// `needsDisplay(forKey:)`); subclasses with drawn custom properties override it.
    open class func needsDisplay(forKey key: String) -> Bool { false }

    /// The value a property has before it is set: Core Animation's defaults for declared keys,
    /// nil for others unless a subclass overrides this for its custom properties. Like Core
    /// Animation, `bounds`, `position` and `frame` answer nil (ca-semantics G1), though a new
    /// layer's are zero.
    open class func defaultValue(forKey key: String) -> (any Sendable)? {
        if key == "bounds" || key == "position" || key == "frame" { return nil }
        return propertyEntry(forKey: key)?.get(defaultProperties)
    }

    /// The declared property `key` names for this class (a subclass adds its own keys).
    class func propertyEntry(forKey key: String) -> LayerKeyTable.Entry? {
        LayerKeyTable.entries[key]
    }

    /// The values of a new layer of this class.
    class var defaultProperties: LayerProperties { LayerProperties() }

    /// The keys whose changes start the built-in implicit animation (a subclass adds its own).
    class var implicitlyAnimatedKeys: Set<String> { Layer.baseImplicitlyAnimatedKeys }

    /// Reads a declared property by its Core Animation key, or a custom property set with
    /// `setValue(_:forKey:)` (falling back to `defaultValue(forKey:)`).
    public func value(forKey key: String) -> (any Sendable)? {
        if let entry = type(of: self).propertyEntry(forKey: key) { return entry.get(properties) }
        return properties.customValues[key] ?? type(of: self).defaultValue(forKey: key)
    }

    /// Writes a declared property by key (the value must have the property's type), or stores a
    /// custom property for a key the layer does not declare; custom values reach the render tree.
    public func setValue(_ value: (any Sendable)?, forKey key: String) {
        if let entry = type(of: self).propertyEntry(forKey: key) {
            precondition(entry.set(self, value), "setValue(_:forKey:): \(key) takes a \(entry.typeName), not \(value.map { "\(type(of: $0))" } ?? "nil")")
            return
        }
        if value == nil && properties.customValues[key] == nil { return }
        properties.customValues[key] = value
        didChange(key: key)
    }
}

/// Sorts layers (or their snapshots) for drawing: zPosition ascending, ties keep their order.
func sortedByDrawingOrder<T>(_ items: [T], zPosition: (T) -> Double) -> [T] {
    var needsSort = false
    for i in items.indices.dropFirst() where zPosition(items[i]) < zPosition(items[i - 1]) {
        needsSort = true
        break
    }
    guard needsSort else { return items }
    return items.enumerated()
        .sorted { a, b in
            let za = zPosition(a.element), zb = zPosition(b.element)
            return za != zb ? za < zb : a.offset < b.offset
        }
        .map(\.element)
}
