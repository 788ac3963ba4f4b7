/// A committed layer's values read where they lie. A method of `LayerProperties` called from
/// another module on `layer.properties` is handed a copy of all of a layer's values (about a
/// kilobyte, copied again at every call); these read only the fields they need, and a renderer's
/// walk of the tree asks them of every layer it visits.
extension RenderLayer {
    /// `properties.sublayerSpace`.
    public var sublayerSpace: LayerProperties.SublayerSpace {
        LayerProperties.SublayerSpace(
            bounds: properties.bounds, anchorPoint: properties.anchorPoint, sublayerTransform: properties.sublayerTransform,
            isGeometryFlipped: properties.isGeometryFlipped)
    }

    /// `properties.transformToSuperlayer(space)`.
    public func transformToSuperlayer(in space: LayerProperties.SublayerSpace?) -> Transform3D {
        LayerProperties.transformToSuperlayer(
            bounds: properties.bounds, anchorPoint: properties.anchorPoint, anchorPointZ: properties.anchorPointZ,
            position: properties.position, zPosition: properties.zPosition, transform: properties.transform, superlayer: space)
    }

    /// `properties.contentsFrame(contentsAreFlipped:)`.
    public func contentsFrame(contentsAreFlipped: Bool = false) -> Rect? {
        properties.contentsFrame(contentsAreFlipped: contentsAreFlipped)
    }

    /// `properties.contentsLogicalSize`.
    public var contentsLogicalSize: Size? { properties.contentsLogicalSize }

    /// `properties.externalContents`.
    public var externalContents: (any ExternalContents)? { properties.externalContents }

    /// Whether the layer is a replicator (`properties.replicator != nil`), without copying its
    /// replicator's values out.
    public var isReplicator: Bool {
        guard case .replicator? = properties.classProperties else { return false }
        return true
    }

    /// `properties.isTransformLayer`.
    public var isTransformLayer: Bool { properties.isTransformLayer }

    /// Whether the layer has values of a specialised layer class (a shape, text, a gradient, a
    /// replicator, an emitter, tiles, a transform layer, external contents, a scroll mode): none
    /// of those getters needs asking when it has not.
    public var hasClassProperties: Bool { properties.classProperties != nil }
}
