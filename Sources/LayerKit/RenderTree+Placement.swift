extension RenderTree {
    /// This tree with its root's bounds mapped onto the target by `transform` alone (points to
    /// points, before the renderer's scale), instead of by the root's position, anchor point and
    /// transform: the same scene drawn elsewhere and at another size (a mirrored display's frame).
    /// Every other layer is shared; the root counts as changed.
    public func placingRoot(by transform: Transform3D) -> RenderTree {
        guard let root = layers[rootID] else { return self }
        func placed(_ properties: LayerProperties) -> LayerProperties {
            var result = properties
            // With the anchor at the bounds' origin and no position, what is left maps the bounds'
            // origin through `transform` as any other point.
            result.anchorPoint = .zero
            result.anchorPointZ = 0
            result.position = .zero
            result.zPosition = 0
            result.transform = Transform3D(translationX: properties.bounds.origin.x, y: properties.bounds.origin.y).concatenating(transform)
            return result
        }
        var placedLayers = layers
        placedLayers[rootID] = root.with(properties: placed(root.properties))
        var shown = sampledProperties
        if let sampled = shown[rootID] { shown[rootID] = placed(sampled) }
        return RenderTree(
            contextID: contextID, rootID: rootID, generation: generation, changedLayerIDs: changedLayerIDs.union([rootID]),
            animatedLayerIDs: animatedLayerIDs, tiledLayerIDs: tiledLayerIDs,
            externalContentsLayerIDs: externalContentsLayerIDs, backdropLayerIDs: backdropLayerIDs, layers: placedLayers, recentChanges: recentChanges,
            sampledProperties: shown, sampleTime: sampleTime)
    }
}
