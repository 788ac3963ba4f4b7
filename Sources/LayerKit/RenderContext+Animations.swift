extension RenderContext {
    /// Whether the latest snapshot has animations that can change what is seen
    /// (`renderTree?.hasVisibleAnimations`; false before the first), asked where the snapshot
    /// lies. Read through `renderTree`, the tree is copied out (a retain and a release of each of
    /// its parts), and an output asks after every frame it presented; most trees animate nothing,
    /// which their sets tell without the tree.
    public var hasVisibleAnimations: Bool {
        guard let indexes = renderTree?.indexes else { return false }
        if indexes.animatedLayerIDs.isEmpty && indexes.tiledLayerIDs.isEmpty { return false }
        return renderTree?.hasVisibleAnimations == true
    }
}
