extension RenderTree {
    /// This tree with the layers `ids` hidden (and with them their sublayers): the same scene
    /// without them, such as a screen capture without the pointer cursor. Every other layer is
    /// shared; the hidden ones count as changed, so a renderer redraws where they were.
    public func hiding(_ ids: [LayerID]) -> RenderTree {
        var hiddenLayers = layers
        var shown = sampledProperties
        for id in ids {
            guard let layer = layers[id] else { continue }
            var properties = layer.properties
            properties.isHidden = true
            hiddenLayers[id] = layer.with(properties: properties)
            shown[id]?.isHidden = true
        }
        return RenderTree(
            contextID: contextID, rootID: rootID, generation: generation, changedLayerIDs: changedLayerIDs.union(ids),
            animatedLayerIDs: animatedLayerIDs, tiledLayerIDs: tiledLayerIDs,
            externalContentsLayerIDs: externalContentsLayerIDs, backdropLayerIDs: backdropLayerIDs, layers: hiddenLayers, recentChanges: recentChanges,
            sampledProperties: shown, sampleTime: sampleTime)
    }
}
