import LayerKit

/// One tile of a tiled layer as both renderers draw it: its image in `frame` (the layer's bounds
/// space), `contentsScale` pixels a point (its level's), at `opacity` (its fade).
public struct TileDraw {
    public let image: Image
    public let frame: Rect
    public let contentsScale: Double
    public let opacity: Double
}

extension RenderTree {
    /// The tiles to draw of `layer`, which `transform` maps to target pixels and of which the
    /// target pixels `visible` (the target cut by the clips above the layer) can show: the part of
    /// the bounds they show is asked of the layer's `TileCache` at the level of detail the
    /// transform's scale needs, which queues the missing tiles. Ready tiles come back (coarser
    /// stand-ins first), each with its fade at the tree's sample time; none while no part shows.
    public func tileDraws(of layer: RenderLayer, _ tiled: TiledProperties, transform: Transform3D, visible: Rect) -> [TileDraw] {
        let p = layer.properties
        guard let rect = Self.visibleRect(of: p.bounds, transform: transform, visible: visible) else { return [] }
        let grid = tiled.grid(contentsScale: p.contentsScale)
        let tiles = tiled.cache.tiles(
            visibleRect: rect, pixelsPerPoint: Self.pixelsPerPoint(transform), grid: grid, fadeDuration: tiled.fadeDuration,
            atTime: sampleTime)
        return tiles.filter { $0.opacity > 0 }.map { tile in
            TileDraw(image: tile.image, frame: tile.frame, contentsScale: grid.pixelsPerPoint(ofLevel: tile.key.level), opacity: tile.opacity)
        }
    }

    /// The part of `bounds` that target pixels `visible` show, mapped back into the bounds space:
    /// nil when none of it shows; all of it when the map back is lost behind the eye.
    private static func visibleRect(of bounds: Rect, transform: Transform3D, visible: Rect) -> Rect? {
        guard !visible.isNull, !visible.isEmpty, let inverse = transform.planeInverse else { return nil }
        let corners = visible.corners.compactMap { c in inverse.apply(x: c.x, y: c.y).map { Point(x: $0.x, y: $0.y) } }
        let shown = corners.count == 4 ? Rect(boundingPoints: corners).intersection(bounds) : bounds
        return shown.isNull || shown.isEmpty ? nil : shown
    }

    /// Output pixels per point of the layer along its more magnified axis.
    private static func pixelsPerPoint(_ t: Transform3D) -> Double {
        let sx = (t.m11 * t.m11 + t.m12 * t.m12).squareRoot()
        let sy = (t.m21 * t.m21 + t.m22 * t.m22).squareRoot()
        return max(sx, sy)
    }
}
