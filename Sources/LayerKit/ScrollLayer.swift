/// The axes a `ScrollLayer` may scroll along (CAScrollLayerScrollMode).
public enum ScrollMode: String, Sendable, Hashable {
    case none, vertically, horizontally, both

    var scrollsHorizontally: Bool { self == .horizontally || self == .both }
    var scrollsVertically: Bool { self == .vertically || self == .both }
}

/// A layer that shows part of content larger than itself (CAScrollLayer): its sublayers are laid
/// out in its bounds space, and scrolling moves `bounds.origin`, so the part of that space under
/// the layer changes while the layer stays where it is. It handles no input and draws no scrollers.
///
/// `masksToBounds` defaults to true here, unlike a plain layer: CAScrollLayer.h defines a layer's
/// `visibleRect` as "the area not clipped by the containing scroll layer", so the scroll layer is
/// what clips.
open class ScrollLayer: Layer {
    public override init() {
        super.init()
        properties.scrollMode = .both
        properties.masksToBounds = true
    }

    public required init(layer: Layer) {
        super.init(layer: layer)
    }

    /// The axes scrolling may change; the default is both.
    public var scrollMode: ScrollMode {
        get { properties.scrollMode ?? .both }
        set { setProperty(\.scrollMode, newValue, key: "scrollMode") }
    }

    /// Moves `bounds.origin` to `point` along the axes `scrollMode` allows; the other coordinate
    /// keeps its value. A change of bounds, so it animates implicitly like any other.
    public func scroll(to point: Point) {
        let mode = scrollMode
        var origin = bounds.origin
        if mode.scrollsHorizontally { origin.x = point.x }
        if mode.scrollsVertically { origin.y = point.y }
        guard origin != bounds.origin else { return }
        bounds.origin = origin
    }

    /// Scrolls as little as makes `rect` (in this layer's bounds space) visible: along each axis,
    /// the bounds move until the rectangle's near edge is inside them, and its far edge too where
    /// it fits. A rectangle larger than the bounds shows its minimum edge.
    public func scroll(to rect: Rect) {
        let r = rect.standardized
        guard !r.isNull else { return }
        let b = bounds
        scroll(to: Point(
            x: Self.origin(showing: r.minX, r.maxX, in: b.minX, b.width),
            y: Self.origin(showing: r.minY, r.maxY, in: b.minY, b.height)))
    }

    /// The smallest move of a window of `length` from `origin` that shows `low…high`.
    private static func origin(showing low: Double, _ high: Double, in origin: Double, _ length: Double) -> Double {
        if low < origin { return low }
        if high > origin + length { return min(high - length, low) }
        return origin
    }

    override class func propertyEntry(forKey key: String) -> LayerKeyTable.Entry? {
        key == "scrollMode" ? scrollModeEntry : super.propertyEntry(forKey: key)
    }

    override class var defaultProperties: LayerProperties {
        var p = LayerProperties()
        p.scrollMode = .both
        p.masksToBounds = true
        return p
    }

    private static let scrollModeEntry = LayerKeyTable.entry({ $0.scrollMode }, \ScrollLayer.scrollMode)
}

extension Layer {
    /// The closest layer above this one that is a `ScrollLayer`.
    var enclosingScrollLayer: ScrollLayer? {
        var layer = superlayer
        while let l = layer {
            if let scroll = l as? ScrollLayer { return scroll }
            layer = l.superlayer
        }
        return nil
    }

    /// Scrolls the closest ancestor scroll layer so that `point`, in this layer's bounds space,
    /// lies at its bounds origin (CALayer's scrollPoint:). Does nothing without one.
    public func scroll(_ point: Point) {
        guard let scrollLayer = enclosingScrollLayer else { return }
        scrollLayer.scroll(to: convert(point, to: scrollLayer))
    }

    /// Scrolls the closest ancestor scroll layer as little as makes `rect`, in this layer's bounds
    /// space, visible in it. Does nothing without one.
    public func scrollRectToVisible(_ rect: Rect) {
        guard let scrollLayer = enclosingScrollLayer else { return }
        scrollLayer.scroll(to: convert(rect, to: scrollLayer))
    }

    /// The part of the bounds, in this layer's bounds space, that the closest ancestor scroll
    /// layer's bounds let through: all of them without one, `Rect.null` when none shows. Under
    /// rotations the scroll layer's bounds come back as their bounding box.
    public var visibleRect: Rect {
        guard let scrollLayer = enclosingScrollLayer else { return bounds }
        return bounds.intersection(convert(scrollLayer.bounds, from: scrollLayer))
    }
}
