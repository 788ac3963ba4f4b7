import LayerKit

/// A rectangle of the screen that owns or hosts a layer and receives input (NSView/UIView).
///
/// A view is layer-backed by default: it makes its layer on first use through
/// `makeBackingLayer()`, is that layer's delegate, keeps the layer's geometry, visibility and
/// `contentsScale` in step, draws its contents (`draw(_:in:)` or `updateLayer()`) as its
/// `layerContentsRedrawPolicy` says, and puts its subviews' layers in its own layer.
///
/// A view is layer-hosting when its owner gives it a layer (`init(hostingLayer:)` or setting
/// `layer`): the view still places and hides the layer, but leaves its contents, drawing, delegate
/// and `contentsScale` to the owner, and it can have no subviews, since the hosted layer's tree is
/// the owner's (Core Animation Programming Guide, "Layer Hosting Lets You Change the Layer Object").
///
/// Changes a view makes to its layer do not animate, as in UIKit, unless made inside
/// `View.animate(duration:_:)`.
open class View: Responder, LayerDisplayDelegate, LayerRedrawingDelegate, LayerActionDelegate {
    /// When the contents of a layer-backed view are redrawn (Table 2-2 of the Core Animation
    /// Programming Guide; NSViewLayerContentsRedrawPolicy).
    public enum LayerContentsRedrawPolicy: Hashable, Sendable {
        /// Only `setNeedsDisplay()` redraws; a resize stretches the existing contents. Core
        /// Animation's own behaviour, and the policy the guide recommends.
        case onSetNeedsDisplay
        /// Every change of size redraws, at the next commit, at the new size (the default).
        case duringViewResize
        /// A change of size redraws at once, at the final size, before the change is committed,
        /// so an animated resize scales a bitmap already drawn at its final size.
        case beforeViewResize
        /// The contents are drawn once, when the layer is made, and never again, not even on
        /// `setNeedsDisplay()`.
        case never
    }

    private var storedLayer: Layer?
    /// True when the owner assigned the layer.
    public private(set) var isLayerHosting = false
    public private(set) weak var superview: View?
    /// Subviews back to front.
    public private(set) var subviews: [View] = []
    public private(set) var gestureRecognizers: [GestureRecognizer] = []
    /// Whether the view and its subviews take part in hit testing.
    public var isUserInteractionEnabled = true

    /// The seed: "AppKit sets the redraw policy to NSViewLayerContentsRedrawDuringViewResize by default".
    public var layerContentsRedrawPolicy = LayerContentsRedrawPolicy.duringViewResize
    /// The part of the bounds to redraw at the next display; nil when nothing is pending.
    private var dirtyRect: Rect?
    private var hasDisplayed = false
    /// Set when the base `draw(_:in:)` ran, so a view that does not draw stops making backing stores.
    private var baseDrawRan = false
    private var drawsNothing = false

    public override init() {
        super.init()
    }

    public convenience init(frame: Rect) {
        self.init()
        self.frame = frame
    }

    /// A layer-hosting view showing `layer`, which keeps its geometry.
    public init(hostingLayer layer: Layer) {
        super.init()
        storedLayer = layer
        isLayerHosting = true
    }

    // MARK: - The layer

    /// The view's layer. Reading it makes the backing layer if the view has none yet; assigning it
    /// makes the view layer-hosting, with the view's current frame if it had a layer before.
    public var layer: Layer {
        get {
            if let storedLayer { return storedLayer }
            let made = makeBackingLayer()
            storedLayer = made
            made.delegate = self
            if let root = rootView {
                made.contentsScale = root.scaleFactor
            }
            needsDisplay = true
            return made
        }
        set {
            precondition(
                subviews.isEmpty,
                "View.layer: a view with subviews cannot become layer-hosting; remove its subviews first")
            let old = storedLayer
            if let old, old.delegate === self { old.delegate = nil }
            isLayerHosting = true
            dirtyRect = nil
            guard newValue !== old else { return }
            if let old {
                newValue.frame = old.frame
                newValue.isHidden = old.isHidden
            }
            storedLayer = newValue
            if let superview {
                if let old, old.superlayer === superview.layer {
                    superview.layer.replaceSublayer(old, with: newValue)
                } else {
                    superview.placeSublayer(of: self)
                }
            }
            applyInheritedContentsScale()
        }
    }

    /// Makes the layer of a layer-backed view; override it to pick the layer class
    /// (NSView.makeBackingLayer).
    open func makeBackingLayer() -> Layer {
        Layer()
    }

    // MARK: - Geometry (kept in the layer)

    /// The view's rectangle in its superview's bounds space (the layer's frame).
    public var frame: Rect {
        get { layer.frame }
        set {
            let oldSize = layer.bounds.size
            layer.frame = newValue
            sizeChanged(from: oldSize)
        }
    }

    /// The view's own coordinate space.
    public var bounds: Rect {
        get { layer.bounds }
        set {
            let oldSize = layer.bounds.size
            layer.bounds = newValue
            sizeChanged(from: oldSize)
        }
    }

    /// Where the centre of the bounds is in the superview (the layer's position, anchor in the middle).
    public var center: Point {
        get { layer.position }
        set { layer.position = newValue }
    }

    /// The view's 2D transform about its centre (the layer's affineTransform).
    public var transform: AffineTransform2D {
        get { layer.affineTransform }
        set { layer.affineTransform = newValue }
    }

    public var isHidden: Bool {
        get { layer.isHidden }
        set { layer.isHidden = newValue }
    }

    /// Converts a point from this view's bounds space to `view`'s (nil: the topmost view's), through
    /// the model geometry. Events convert through the geometry on screen (`location(in:)`).
    public func convert(_ point: Point, to view: View?) -> Point {
        layer.convert(point, to: (view ?? topmostView).layer)
    }

    public func convert(_ point: Point, from view: View?) -> Point {
        layer.convert(point, from: (view ?? topmostView).layer)
    }

    // MARK: - Hierarchy

    public func addSubview(_ view: View) {
        insertSubview(view, at: subviews.count)
    }

    /// Inserts `view` at `index` of `subviews` (clamped), first removing it from its superview.
    /// A layer-hosting view cannot have subviews: that is a programming error, stopped by a
    /// precondition, since the hosted layer tree belongs to the owner and no caller could recover
    /// from it at run time (check `isLayerHosting` first when unsure).
    public func insertSubview(_ view: View, at index: Int) {
        precondition(
            !isLayerHosting,
            "View.addSubview: a layer-hosting view cannot have subviews, because its layer tree belongs to its owner; add sublayers to the hosted layer, or put both views in a layer-backed superview")
        precondition(view !== self && !isDescendant(of: view), "View.addSubview: adding an ancestor as a subview would make a cycle")
        var index = index
        if view.superview === self, let old = subviews.firstIndex(where: { $0 === view }), old < index {
            index -= 1
        }
        let oldRoot = view.rootView
        view.detachFromSuperview()
        index = min(max(index, 0), subviews.count)
        subviews.insert(view, at: index)
        view.superview = self
        placeSublayer(of: view)
        if view.rootView !== oldRoot { view.applyInheritedContentsScale() }
    }

    public func removeFromSuperview() {
        guard superview != nil else { return }
        detachFromSuperview()
        layer.removeFromSuperlayer()
    }

    private func detachFromSuperview() {
        guard let parent = superview else { return }
        parent.subviews.removeAll { $0 === self }
        superview = nil
    }

    /// Puts a subview's layer among this view's sublayers in the subview's order, keeping any
    /// sublayers that belong to no view where they are.
    private func placeSublayer(of view: View) {
        guard let index = subviews.firstIndex(where: { $0 === view }) else { return }
        if index + 1 < subviews.count {
            layer.insertSublayer(view.layer, below: subviews[index + 1].layer)
        } else if index > 0 {
            layer.insertSublayer(view.layer, above: subviews[index - 1].layer)
        } else {
            layer.addSublayer(view.layer)
        }
    }

    public func isDescendant(of view: View) -> Bool {
        var current: View? = self
        while let v = current {
            if v === view { return true }
            current = v.superview
        }
        return false
    }

    /// The root view (one per output) this view is under, if any.
    public var rootView: RootView? {
        topmostView as? RootView
    }

    /// The view at the top of this view's tree.
    public var topmostView: View {
        var view = self
        while let parent = view.superview { view = parent }
        return view
    }

    // MARK: - Responder chain

    /// The superview, or for the topmost view the responder the shell set.
    open override var next: Responder? {
        get { superview ?? super.next }
        set { super.next = newValue }
    }

    // MARK: - Hit testing

    /// Whether `point`, in the view's bounds space, is inside the view. Override it for a shape
    /// other than the bounds (a client surface answers with its input region).
    open func point(inside point: Point) -> Bool {
        bounds.contains(point)
    }

    // MARK: - Gesture recognizers

    public func addGestureRecognizer(_ recognizer: GestureRecognizer) {
        recognizer.view?.removeGestureRecognizer(recognizer)
        gestureRecognizers.append(recognizer)
        recognizer.view = self
    }

    public func removeGestureRecognizer(_ recognizer: GestureRecognizer) {
        guard recognizer.view === self else { return }
        gestureRecognizers.removeAll { $0 === recognizer }
        recognizer.view = nil
    }

    // MARK: - Contents scale

    /// Asked for a layer-hosting view when its root's scale factor differs from its layer's
    /// contentsScale (the role of AppKit's layer(_:shouldInheritContentsScale:from:)): returning
    /// true lets the view set the layer's contentsScale to `scale`, and the override should update
    /// the contents for it. The default keeps the owner's contentsScale.
    open func layer(_ layer: Layer, shouldInheritContentsScale scale: Double, from root: RootView) -> Bool {
        false
    }

    // MARK: - Drawing

    /// True when the view sets its layer's properties in `updateLayer()` instead of drawing.
    open var wantsUpdateLayer: Bool { false }

    /// Updates the layer directly (colours, an image as contents); used when `wantsUpdateLayer`.
    open func updateLayer() {}

    /// Draws the view's contents into a backing store of bounds × contentsScale pixels, in the
    /// view's points. The base implementation draws nothing, and once it has run the view stops
    /// making backing stores; a view that draws overrides it without calling super.
    open func draw(_ dirtyRect: Rect, in context: GraphicsContext) {
        baseDrawRan = true
    }

    /// True while the view draws for a print or an export rather than for a display: a view may
    /// set it itself, and `render(forPrintingIn:)` sets it while it draws, so that `draw(_:in:)`
    /// can leave out what belongs on screen only (a focus ring, a "tap here" hint), as AppKit's
    /// drawRect: does when it is called again for printing.
    public var isPrinting = false

    /// Draws the view's layer tree into a print or export context through `Layer.render(in:)`,
    /// every view in it drawing again (with `isPrinting` set) rather than copying its bitmap.
    public func render(forPrintingIn context: GraphicsContext) {
        var marked: [View] = []
        func mark(_ view: View) {
            if !view.isPrinting {
                view.isPrinting = true
                marked.append(view)
            }
            view.subviews.forEach(mark)
        }
        mark(self)
        defer { marked.forEach { $0.isPrinting = false } }
        layer.render(in: context)
    }

    /// Whether the contents will be redrawn at the next commit.
    public var needsDisplay: Bool {
        get { dirtyRect != nil }
        set {
            if newValue { setNeedsDisplay() } else { dirtyRect = nil }
        }
    }

    public func setNeedsDisplay() {
        setNeedsDisplay(bounds)
    }

    /// Marks `rect` (in bounds space) for redrawing; the dirty rectangles of one commit are united.
    /// A layer-hosting view, or a view whose policy is `.never` once drawn, ignores it.
    public func setNeedsDisplay(_ rect: Rect) {
        guard !isLayerHosting, !(layerContentsRedrawPolicy == .never && hasDisplayed) else { return }
        dirtyRect = dirtyRect.map { $0.union(rect) } ?? rect
        storedLayer?.setNeedsDisplay()
    }

    /// LayerDisplayDelegate: the commit calls it for the view's layer.
    public func display(_ layer: Layer) {
        guard !isLayerHosting, layer === storedLayer else { return }
        guard !(layerContentsRedrawPolicy == .never && hasDisplayed) else {
            dirtyRect = nil
            return
        }
        hasDisplayed = true
        let dirty = dirtyRect ?? layer.bounds
        dirtyRect = nil
        if wantsUpdateLayer {
            updateLayer()
        } else {
            drawBackingStore(of: layer, dirtyRect: dirty)
        }
    }

    /// LayerRedrawingDelegate: a view that draws (not one that updates its layer, hosts a layer,
    /// or draws nothing) draws again into a print or export context, in its points.
    public func redraw(_ layer: Layer, in context: GraphicsContext) -> Bool {
        guard !isLayerHosting, layer === storedLayer, !wantsUpdateLayer, !drawsNothing, hasDisplayed else { return false }
        draw(layer.bounds, in: context)
        return true
    }

    /// LayerActionDelegate: no implicit animations outside `View.animate(duration:_:)`.
    public func action(for layer: Layer, forKey event: String) -> (any Action)? {
        Transaction.value(forKey: View.animationsKey) as? Bool == true ? nil : NullAction()
    }

    // MARK: - Drawing, resizing and scale internals

    private func drawBackingStore(of layer: Layer, dirtyRect: Rect) {
        let scale = layer.contentsScale > 0 ? layer.contentsScale : 1
        let b = layer.bounds
        let pixelWidth = Int((b.width * scale).rounded(.up))
        let pixelHeight = Int((b.height * scale).rounded(.up))
        guard !drawsNothing, pixelWidth > 0, pixelHeight > 0,
              let context = try? GraphicsContext(width: pixelWidth, height: pixelHeight) else {
            layer.contents = nil
            return
        }
        context.scaleBy(x: scale, y: scale)
        if layer.contentsAreFlipped() {
            context.translateBy(x: 0, y: b.height)
            context.scaleBy(x: 1, y: -1)
        }
        context.translateBy(x: -b.origin.x, y: -b.origin.y)
        baseDrawRan = false
        draw(dirtyRect, in: context)
        if baseDrawRan {
            drawsNothing = true
            layer.contents = nil
            return
        }
        layer.contents = context.makeImage()
    }

    /// Applies the redraw policy to a change of the bounds size.
    private func sizeChanged(from oldSize: Size) {
        guard !isLayerHosting, let layer = storedLayer, layer.bounds.size != oldSize else { return }
        switch layerContentsRedrawPolicy {
        case .onSetNeedsDisplay, .never:
            break
        case .duringViewResize:
            setNeedsDisplay()
        case .beforeViewResize:
            setNeedsDisplay()
            layer.displayIfNeeded()
        }
    }

    /// Gives this view's subtree the contentsScale of the root it is under now.
    func applyInheritedContentsScale() {
        guard let root = rootView else { return }
        applyContentsScale(root.scaleFactor, from: root)
    }

    func applyContentsScale(_ scale: Double, from root: RootView) {
        if let layer = storedLayer, layer.contentsScale != scale {
            if !isLayerHosting {
                layer.contentsScale = scale
                if hasDisplayed { setNeedsDisplay() }
            } else if self.layer(layer, shouldInheritContentsScale: scale, from: root) {
                layer.contentsScale = scale
            }
        }
        for subview in subviews { subview.applyContentsScale(scale, from: root) }
    }

    static let animationsKey = "vitrine.views.animatesChanges"

    /// Makes the view changes in `changes` animate implicitly over `duration` seconds, in one
    /// transaction (UIView.animate(withDuration:animations:)).
    public static func animate(duration: Double, _ changes: () -> Void) {
        Transaction.begin()
        Transaction.animationDuration = duration
        Transaction.setValue(true, forKey: animationsKey)
        changes()
        Transaction.commit()
    }
}
