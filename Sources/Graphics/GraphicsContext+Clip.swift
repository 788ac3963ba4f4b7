internal import CCairo

extension GraphicsContext {
    /// The smallest rectangle in user space that holds the clip (`CGContext.boundingBoxOfClipPath`):
    /// a drawer that is handed part of a larger picture (a `TiledLayer`'s tile) reads what to draw
    /// from it. Without a clip, the whole target mapped into user space.
    public var clipBoundingBox: Rect {
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        cairo_clip_extents(cr, &x0, &y0, &x1, &y1)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
