/// A layer whose sublayers share one 3D space (CATransformLayer): they keep their depth instead of
/// being flattened into this layer's plane, and are drawn nearest last, so that layers placed as
/// the faces of a solid show it from any angle. The whole space is flattened into the plane of the
/// closest ancestor that is not a transform layer, under that ancestor's sublayerTransform.
///
/// As Core Animation documents, only the sublayers render: the layer's own backgroundColor,
/// contents, border, shadow, filters, mask and masksToBounds are ignored, and its opacity applies
/// to each sublayer separately (there is no group). Its geometry (transform, sublayerTransform,
/// bounds, position, isGeometryFlipped) places the sublayers as usual.
open class TransformLayer: Layer {
    public override init() {
        super.init()
        properties.isTransformLayer = true
    }

    public required init(layer: Layer) {
        super.init(layer: layer)
    }

    override class var defaultProperties: LayerProperties {
        var p = LayerProperties()
        p.isTransformLayer = true
        return p
    }

    /// Hits only sublayers (the layer itself draws nothing), nearest first by the same depth order
    /// as drawing. `point` is in the space of the closest ancestor that is not a transform layer,
    /// as in Core Animation, and it reaches each sublayer through the unflattened 3D geometry.
    open override func hitTest(_ point: Point) -> Layer? {
        guard !isHidden, opacity >= 0.01 else { return nil }
        var flatAncestor = superlayer
        while let a = flatAncestor, a.properties.isTransformLayer { flatAncestor = a.superlayer }
        let ordered = sublayersInDrawingOrder.enumerated().map { index, sublayer in
            (sublayer, index, sublayer.depthOfCentre(inPlaneOf: flatAncestor))
        }
        .sorted { $0.2 != $1.2 ? $0.2 > $1.2 : $0.1 > $1.1 }
        for (sublayer, _, _) in ordered {
            if sublayer.properties.isTransformLayer {
                if let hit = sublayer.hitTest(point) { return hit }
                continue
            }
            // The point in the sublayer's own plane, handed over in this layer's plane (the
            // sublayer's flattened map there is a bijection of planes, so its hitTest gets it back).
            let local = sublayer.convert(point, from: flatAncestor)
            guard local.x.isFinite, local.y.isFinite, let inSelf = sublayer.planeTransformToParent.apply(local) else {
                continue
            }
            if let hit = sublayer.hitTest(inSelf) { return hit }
        }
        return nil
    }
}

extension Layer {
    /// The z of the bounds' centre in the 3D space of `ancestor`'s plane, through unflattened
    /// geometry (−∞ when it is behind the eye).
    func depthOfCentre(inPlaneOf ancestor: Layer?) -> Double {
        var transform = Transform3D.identity
        var layer: Layer = self
        while layer !== ancestor {
            transform = transform.concatenating(layer.transformToParent)
            guard let parent = layer.parentInTree else { break }
            layer = parent
        }
        return transform.apply(x: bounds.midX, y: bounds.midY)?.z ?? -.infinity
    }
}

extension RenderTree {
    /// A layer that a transform layer's 3D space holds, placed in that space.
    public struct DepthSortedLayer: Sendable {
        public let layer: RenderLayer
        /// From the layer's bounds space into the 3D space of the plane the transform layer is
        /// flattened into, unflattened through every transform layer between.
        public let transform: Transform3D
        /// The product of the opacities of the transform layers between (the outer one excluded):
        /// each applies to its sublayers separately.
        public let opacity: Double
        /// Whether an odd number of the transform layers between (the outer one included) flip
        /// their geometry, which turns contents upright.
        public let isFlipped: Bool
        /// The z of the bounds' centre under `transform`, homogenised (−∞ behind the eye): larger
        /// is nearer.
        public let depth: Double
    }

    /// The layers of `transformLayer`'s 3D space back to front: its visible sublayers, and theirs
    /// through nested transform layers, each flattening its own subtree, sorted by the depth of
    /// their bounds' centres (a painter's sort; ties keep drawing order). `transform` maps
    /// `transformLayer`'s bounds space into the plane it is flattened into, unflattened.
    ///
    /// Sorting whole planes, not pixels: the layer shader blends antialiased, translucent quads in
    /// order and has no depth buffer, which could not blend translucent faces nor keep their
    /// antialiased edges. The order is exact for planes that do not intersect and whose centres'
    /// depths order them where they overlap, as for the faces of a convex solid; intersecting
    /// planes are not split.
    public func depthSortedSublayers(of transformLayer: RenderLayer, transform: Transform3D) -> [DepthSortedLayer] {
        var found: [DepthSortedLayer] = []
        collectPlanes(
            sublayersOf: transformLayer, space: transformLayer.properties.sublayerSpace, transform: transform, opacity: 1,
            flipped: transformLayer.properties.isGeometryFlipped, into: &found)
        return found.enumerated()
            .sorted { a, b in a.element.depth != b.element.depth ? a.element.depth < b.element.depth : a.offset < b.offset }
            .map(\.element)
    }

    /// The planes of `layer`'s visible sublayers placed in `space`, in drawing order: each layer
    /// flattening its own subtree, but transform layers opened up into their sublayers' planes.
    /// `transform` maps `layer`'s bounds space into the 3D space the planes are sorted in, and
    /// `opacity` and `flipped` are those the planes start from.
    func collectPlanes(
        sublayersOf layer: RenderLayer, space: LayerProperties.SublayerSpace, transform: Transform3D, opacity: Double,
        flipped: Bool, into found: inout [DepthSortedLayer]
    ) {
        for sublayer in sortedSublayers(of: layer) where !sublayer.properties.isHidden {
            let p = sublayer.properties
            let t = p.transformToSuperlayer(space).concatenating(transform)
            if p.isTransformLayer {
                collectPlanes(
                    sublayersOf: sublayer, space: p.sublayerSpace, transform: t, opacity: opacity * p.opacity,
                    flipped: flipped != p.isGeometryFlipped, into: &found)
            } else {
                let depth = t.apply(x: p.bounds.midX, y: p.bounds.midY)?.z ?? -.infinity
                found.append(DepthSortedLayer(layer: sublayer, transform: t, opacity: opacity, isFlipped: flipped, depth: depth))
            }
        }
    }
}
