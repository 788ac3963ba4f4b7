/// A layer's delegate (CALayerDelegate). Core Animation's delegate methods are optional and the
/// layer behaves differently depending on which exist (only `display(_:)` runs when a delegate has
/// both it and `draw(_:in:)`; the layout manager runs only when the delegate does not lay out), so
/// each optional method is a protocol of its own that a delegate adopts when it implements it.
public protocol LayerDelegate: AnyObject {}

/// A delegate that sets a layer's contents itself, for example to a prepared image.
public protocol LayerDisplayDelegate: LayerDelegate {
    func display(_ layer: Layer)
}

/// A delegate that draws a layer's contents. The context is the layer's backing store, already
/// scaled by contentsScale and offset by bounds.origin, so the delegate draws in the layer's points.
public protocol LayerDrawingDelegate: LayerDelegate {
    func draw(_ layer: Layer, in context: GraphicsContext)
}

/// A delegate that lays out a layer's sublayers; it takes the place of the layout manager.
public protocol LayerLayoutDelegate: LayerDelegate {
    func layoutSublayers(of layer: Layer)
}

/// A delegate whose contents come from drawing it can do again at any resolution, as a view that
/// draws can: `Layer.render(in:)` has it draw into the print or export context (in the layer's
/// points, clipped to the bounds) instead of copying its bitmap, so that text and paths stay vectors.
public protocol LayerRedrawingDelegate: LayerDelegate {
    /// Draws the layer's contents into `context` and returns true, or returns false (drawing
    /// nothing) when its contents are not a drawing, so that they are drawn as the image they are.
    func redraw(_ layer: Layer, in context: GraphicsContext) -> Bool
}
