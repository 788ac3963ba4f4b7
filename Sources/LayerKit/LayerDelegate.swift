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
