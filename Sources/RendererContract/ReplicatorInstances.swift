import LayerKit

/// One instance of a replicator's sublayers as the renderers draw it: its colour (red, green and
/// blue tint what it draws, alpha multiplies its opacity), the tree to draw it from (the sample
/// with the instance's delay applied), and what to draw: a depth-sorted plane (preservesDepth) or
/// the sublayers in the instance's space.
public struct ReplicatorInstance {
    public enum Part {
        /// A plane in the replicator's bounds space, unflattened, among every instance's planes
        /// back to front.
        case plane(RenderTree.DepthSortedLayer)
        /// The replicator's sublayers in drawing order, in this space.
        case sublayers([RenderLayer], space: LayerProperties.SublayerSpace)
    }

    public let color: Color
    public let tree: RenderTree
    public let part: Part

    /// The tint of what the instance draws inside a replicator instance tinted `outer`.
    public func tint(within outer: (Double, Double, Double)) -> (Double, Double, Double) {
        (outer.0 * color.red, outer.1 * color.green, outer.2 * color.blue)
    }
}

extension RenderTree {
    /// What `layer`'s replicator draws, in drawing order: instance k transformed by
    /// instanceTransform k times, coloured by `color(ofInstance:)`, its sublayers' animations
    /// sampled k × instanceDelay earlier; with preservesDepth, all instances' planes back to front.
    public func replicatorInstances(of layer: RenderLayer) -> [ReplicatorInstance] {
        guard let replicator = layer.properties.replicator else { return [] }
        if replicator.preservesDepth {
            return depthSortedInstances(of: layer).map { item in
                ReplicatorInstance(color: replicator.color(ofInstance: item.instance), tree: item.tree, part: .plane(item.plane))
            }
        }
        var instanceTransform = Transform3D.identity
        return (0..<max(0, replicator.instanceCount)).map { k in
            let tree = k == 0 ? self : sampled(sublayersOf: layer.id, delayedBy: Double(k) * replicator.instanceDelay)
            let space = layer.properties.sublayerSpace(instanceTransform: instanceTransform)
            instanceTransform = instanceTransform.concatenating(replicator.instanceTransform)
            return ReplicatorInstance(
                color: replicator.color(ofInstance: k), tree: tree, part: .sublayers(tree.sortedSublayers(of: layer), space: space))
        }
    }
}
