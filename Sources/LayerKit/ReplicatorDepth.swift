extension RenderTree {
    /// One plane of a depth-preserving replicator's instances.
    public struct DepthSortedInstancePlane: Sendable {
        /// Which instance it belongs to (its colour and delay).
        public let instance: Int
        /// The tree to draw it from: the sample with the instance's delay applied.
        public let tree: RenderTree
        /// The plane, in the replicator's bounds space, unflattened.
        public let plane: DepthSortedLayer
    }

    /// The planes of every instance of a replicator whose `preservesDepth` is set, back to front:
    /// instance k's sublayers (sampled k × instanceDelay earlier) placed in its instance space,
    /// each flattening its own subtree but transform layers opened up, all sorted together by the
    /// depth of their centres in the replicator's bounds space, as a transform layer's sublayers
    /// are (ties keep instance order, then drawing order). The replicator itself stays one plane in
    /// its superlayer: the instances' depths order them among themselves only.
    public func depthSortedInstances(of replicator: RenderLayer) -> [DepthSortedInstancePlane] {
        guard let properties = replicator.properties.replicator else { return [] }
        var found: [DepthSortedInstancePlane] = []
        for (k, space) in replicator.properties.instanceSublayerSpaces.enumerated() {
            let tree = k == 0 ? self : sampled(sublayersOf: replicator.id, delayedBy: Double(k) * properties.instanceDelay)
            var planes: [DepthSortedLayer] = []
            tree.collectPlanes(sublayersOf: replicator, space: space, transform: .identity, opacity: 1, flipped: false, into: &planes)
            found += planes.map { DepthSortedInstancePlane(instance: k, tree: tree, plane: $0) }
        }
        return found.enumerated()
            .sorted { a, b in
                a.element.plane.depth != b.element.plane.depth ? a.element.plane.depth < b.element.plane.depth : a.offset < b.offset
            }
            .map(\.element)
    }
}
