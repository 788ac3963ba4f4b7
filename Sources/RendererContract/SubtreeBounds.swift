import LayerKit

/// The box each layer and its sublayers may draw in, in the layer's own bounds space, kept from
/// frame to frame and made again only for the layers that changed and their ancestors. A frame
/// that redraws a small region maps a layer's box to pixels and skips the whole subtree when the
/// box misses the region, instead of walking every layer to find nothing to draw.
///
/// A subtree whose drawing does not follow from plane maps of its values has no box (nil) and is
/// always walked: transitions, replicators, emitters (their particles move with time), transform
/// layers (3D), filters and backdrops (they reach by pixels, not layer units).
public final class SubtreeBounds {
    /// Known boxes; nil where a subtree has none. A layer's box is known only while its sublayers'
    /// are, so forgetting climbs from a changed layer until an ancestor is not known.
    private var boxes: [LayerID: Rect?] = [:]
    private var last: (contextID: UInt64, generation: UInt64, animated: Set<LayerID>)?

    public init() {}

    /// Forgets the boxes of the layers of `tree` that changed since the tree given last, and of
    /// their ancestors: the animated layers' (their values move with the sample time) each time,
    /// and all of them for another context or when the changes in between are not known.
    public func update(for tree: RenderTree) {
        defer { last = (tree.contextID, tree.generation, tree.animatedLayerIDs) }
        guard let last, last.contextID == tree.contextID, var changed = tree.changedLayerIDs(since: last.generation) else {
            boxes = [:]
            return
        }
        changed.formUnion(tree.animatedLayerIDs)
        changed.formUnion(last.animated)
        for id in changed {
            var current: LayerID? = id
            while let known = current, boxes.removeValue(forKey: known) != nil {
                current = tree[known]?.parentID
            }
        }
    }

    /// What `layer` and its sublayers in `tree` may draw, in the layer's bounds space (a layer
    /// unit of margin included); nil when that is not known.
    public func box(of layer: RenderLayer, in tree: RenderTree) -> Rect? {
        if let known = boxes[layer.id] { return known }
        let box = makeBox(of: layer, in: tree)
        boxes[layer.id] = box
        return box
    }

    private func makeBox(of layer: RenderLayer, in tree: RenderTree) -> Rect? {
        let p = layer.properties
        guard p.transition == nil, p.replicator == nil, p.emitter == nil, !p.isTransformLayer, !layer.hasFilterEffects,
            !layer.hasBackdrop
        else { return nil }
        var box = p.bounds
        if let contents = p.contentsFrame(), !p.masksToBounds { box = box.union(contents) }
        if let shape = p.shape, !p.masksToBounds {
            let drawn = shape.drawingBounds
            if !drawn.isNull { box = box.union(drawn) }
        }
        if p.shadowOpacity > 0 {
            let reach = 3 * max(0, p.shadowRadius)
            let shape = p.shadowPath.map(\.boundingBox).flatMap { $0.isNull ? nil : $0 } ?? p.bounds
            box = box.union(shape.offsetBy(dx: p.shadowOffset.width, dy: p.shadowOffset.height).insetBy(dx: -reach, dy: -reach))
        }
        var sublayers = Rect.null
        for id in layer.sublayerIDs {
            guard let sublayer = tree[id] else { continue }
            let s = sublayer.properties
            if s.isHidden && s.transition == nil || s.opacity <= 0 && s.transition == nil { continue }
            guard let inner = self.box(of: sublayer, in: tree) else { return nil }
            if inner.isNull { continue }
            let toLayer = s.transformToSuperlayer(p.sublayerSpace).flattened
            let corners = inner.corners.compactMap { c in toLayer.apply(x: c.x, y: c.y).map { Point(x: $0.x, y: $0.y) } }
            // A corner behind the eye: the sublayer's image is not bounded by its corners.
            guard corners.count == 4 else { return nil }
            sublayers = sublayers.union(Rect(boundingPoints: corners))
        }
        if p.masksToBounds { sublayers = sublayers.intersection(p.bounds) }
        if !sublayers.isNull { box = box.union(sublayers) }
        // Anti-aliased edges and a shape's rounding reach past the geometry.
        return box.insetBy(dx: -1, dy: -1)
    }
}
