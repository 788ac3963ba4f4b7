import LayerKit

/// The geometry of one view tree as it is on screen at one instant: the presentation copies of
/// its layers when the tree has been committed (so an animating view is where it is seen), the
/// model layers when it never was. Made once per dispatched event, since each presentation tree
/// costs a walk of the whole tree.
final class ShownTree {
    let root: View
    /// Model layer → the copy on screen; nil when the tree is not committed (the model is shown).
    private let shownLayers: [ObjectIdentifier: Layer]?

    init(root: View) {
        self.root = root
        guard let shownRoot = root.layer.presentation() else {
            shownLayers = nil
            return
        }
        var map: [ObjectIdentifier: Layer] = [:]
        var stack = [shownRoot]
        while let layer = stack.popLast() {
            map[ObjectIdentifier(layer.modelLayer)] = layer
            stack.append(contentsOf: layer.sublayers)
        }
        shownLayers = map
    }

    /// The layer that shows `view` now; nil when the tree is committed but the view's layer is
    /// not on screen yet (it was added after the last commit).
    func layer(showing view: View) -> Layer? {
        guard let shownLayers else { return view.layer }
        return shownLayers[ObjectIdentifier(view.layer)]
    }

    /// Converts a point in the root's bounds space to `view`'s, through what is on screen, or
    /// through the model when the view is not on screen.
    func convert(_ point: Point, toShownSpaceOf view: View) -> Point {
        if let shown = layer(showing: view), let shownRoot = layer(showing: root) {
            return shown.convert(point, from: shownRoot)
        }
        return view.layer.convert(point, from: root.layer)
    }

    /// The deepest view under `point` (in `view`'s shown bounds space), searched front to back.
    func hitTest(_ view: View, at point: Point) -> View? {
        guard view.isUserInteractionEnabled, let shown = layer(showing: view),
              !shown.isHidden, shown.opacity >= 0.01 else { return nil }
        if shown.masksToBounds && !Self.roundedBounds(of: shown, contain: point) { return nil }
        let candidates = view.subviews.compactMap { subview in layer(showing: subview).map { (subview, $0) } }
        // Front to back: the reverse of drawing order (zPosition, then order among siblings).
        let frontToBack = candidates.enumerated().sorted { a, b in
            let za = a.element.1.zPosition, zb = b.element.1.zPosition
            return za != zb ? za > zb : a.offset > b.offset
        }
        for (_, (subview, subShown)) in frontToBack {
            if let hit = hitTest(subview, at: subShown.convert(point, from: shown)) { return hit }
        }
        return view.point(inside: point) ? view : nil
    }

    /// Whether `p` is inside the layer's bounds less the corners cornerRadius cuts off, as
    /// masksToBounds clips drawing and LayerKit's own hit test.
    static func roundedBounds(of layer: Layer, contain p: Point) -> Bool {
        let b = layer.bounds
        guard b.contains(p) else { return false }
        let r = layer.properties.effectiveCornerRadius
        guard r > 0 else { return true }
        let corners: [(CornerMask, Double, Double, Bool, Bool)] = [
            (.minXMinYCorner, b.minX + r, b.minY + r, p.x < b.minX + r, p.y < b.minY + r),
            (.maxXMinYCorner, b.maxX - r, b.minY + r, p.x > b.maxX - r, p.y < b.minY + r),
            (.minXMaxYCorner, b.minX + r, b.maxY - r, p.x < b.minX + r, p.y > b.maxY - r),
            (.maxXMaxYCorner, b.maxX - r, b.maxY - r, p.x > b.maxX - r, p.y > b.maxY - r),
        ]
        for (corner, cx, cy, inX, inY) in corners where inX && inY && layer.maskedCorners.contains(corner) {
            let dx = p.x - cx, dy = p.y - cy
            if dx * dx + dy * dy > r * r { return false }
        }
        return true
    }
}

extension View {
    /// The deepest view at `point` (in this view's bounds space) that takes input, or nil.
    ///
    /// The search runs on the geometry on screen: the presentation tree when the tree has been
    /// committed, so an animating view is hit where it is seen, and views added since the last
    /// commit are not hit yet; the model tree when it never was. It goes through every transform
    /// (3D ones flattened as LayerKit flattens them), skips hidden, nearly transparent (opacity
    /// below 0.01) and non-interactive views with their subtrees, clips to the rounded bounds of
    /// layers with masksToBounds, searches subviews front to back, and ends with `point(inside:)`.
    public func hitTest(_ point: Point) -> View? {
        ShownTree(root: topmostView).hitTest(self, at: point)
    }
}

extension View {
    /// `point`, given in the topmost view's bounds space, in this view's bounds space through the
    /// geometry on screen (the presentation tree once committed), as hit testing sees it: what a
    /// host of foreign content (a client's surface) needs to pass a position on.
    public func shownLocation(ofRootPoint point: Point) -> Point {
        ShownTree(root: topmostView).convert(point, toShownSpaceOf: self)
    }
}

extension RootView {
    /// `hitTest(_:)` and the point in the hit view's bounds space, from one look at what is on
    /// screen: a host that hit tests and passes the position on walks the tree once.
    public func hitTestAndLocate(_ point: Point) -> (view: View, location: Point)? {
        let shown = ShownTree(root: self)
        guard let hit = shown.hitTest(self, at: point) else { return nil }
        return (hit, shown.convert(point, toShownSpaceOf: hit))
    }
}
