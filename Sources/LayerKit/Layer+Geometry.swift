/// Coordinate conversion and hit testing through every transform, sublayerTransform, anchorPoint,
/// bounds origin and geometry flip (ca-semantics G7 and H1–H4).
extension Layer {
    /// Maps this layer's bounds space into its superlayer's (or, for a root, into the space its
    /// position is given in), keeping z. A mask maps into the layer it masks with no geometry of
    /// its own above it, since its geometry is already in that layer's space.
    var transformToParent: Transform3D {
        var space: LayerProperties.SublayerSpace?
        if let s = superlayer {
            space = LayerProperties.SublayerSpace(
                bounds: s.properties.bounds, anchorPoint: s.properties.anchorPoint,
                sublayerTransform: s.properties.sublayerTransform, isGeometryFlipped: s.properties.isGeometryFlipped)
        }
        return LayerProperties.transformToSuperlayer(
            bounds: properties.bounds, anchorPoint: properties.anchorPoint, anchorPointZ: properties.anchorPointZ,
            position: properties.position, zPosition: properties.zPosition, transform: properties.transform,
            superlayer: space)
    }

    /// The same map flattened into the superlayer's plane.
    var planeTransformToParent: PlaneTransform { PlaneTransform(transformToParent) }

    /// The map from this layer's space to `ancestor`'s (nil: the root's parent space). Each level
    /// is flattened into its parent's plane, except into a transform layer, whose sublayers keep
    /// their z until the first ancestor that is not one.
    private func planeTransform(toAncestor ancestor: Layer?) -> PlaneTransform {
        var result = PlaneTransform.identity
        var inSpace = Transform3D.identity
        var layer: Layer = self
        while layer !== ancestor {
            inSpace = inSpace.concatenating(layer.transformToParent)
            let parent = layer.parentInTree
            if let parent, parent !== ancestor, parent.properties.isTransformLayer, layer.superlayer === parent {
                layer = parent
                continue
            }
            result = result.concatenating(PlaneTransform(inSpace))
            inSpace = .identity
            guard let parent else { break }
            layer = parent
        }
        return result
    }

    /// The number of layers above this one in its tree.
    private var depthInTree: Int {
        var depth = 0
        var layer = parentInTree
        while let l = layer {
            depth += 1
            layer = l.parentInTree
        }
        return depth
    }

    /// The nearest layer that is this one or above it and also `other` or above it; nil when they
    /// are in different trees (they then meet in the roots' shared parent space).
    private func commonAncestor(with other: Layer) -> Layer? {
        var a: Layer? = self, b: Layer? = other
        var da = depthInTree, db = other.depthInTree
        while da > db { a = a?.parentInTree; da -= 1 }
        while db > da { b = b?.parentInTree; db -= 1 }
        while let x = a, let y = b {
            if x === y { return x }
            a = x.parentInTree
            b = y.parentInTree
        }
        return nil
    }

    /// The map from this layer's space to `layer`'s (nil: the root's parent space); nil when `layer`
    /// is seen edge-on and nothing maps into it.
    private func planeTransform(to layer: Layer?) -> PlaneTransform? {
        guard let layer else { return planeTransform(toAncestor: nil) }
        let meeting = commonAncestor(with: layer)
        let up = planeTransform(toAncestor: meeting)
        guard let down = layer.planeTransform(toAncestor: meeting).inverted() else { return nil }
        return up.concatenating(down)
    }

    /// Converts a point from this layer's bounds space to `layer`'s (nil: the root's parent space).
    /// A point that cannot be represented there (behind a perspective's eye, or in a layer seen
    /// edge-on) converts to (nan, nan).
    public func convert(_ point: Point, to layer: Layer?) -> Point {
        planeTransform(to: layer)?.apply(point) ?? Point(x: .nan, y: .nan)
    }

    /// Converts a point from `layer`'s bounds space (nil: the root's parent space) to this layer's.
    public func convert(_ point: Point, from layer: Layer?) -> Point {
        if let layer { return layer.convert(point, to: self) }
        guard let map = planeTransform(toAncestor: nil).inverted(), let p = map.apply(point) else {
            return Point(x: .nan, y: .nan)
        }
        return p
    }

    /// Converts a rectangle to `layer`'s space: the bounding box of its four converted corners.
    public func convert(_ rect: Rect, to layer: Layer?) -> Rect {
        Rect(boundingPoints: rect.standardized.corners.map { convert($0, to: layer) })
    }

    /// Converts a rectangle from `layer`'s space: the bounding box of its four converted corners.
    public func convert(_ rect: Rect, from layer: Layer?) -> Rect {
        Rect(boundingPoints: rect.standardized.corners.map { convert($0, from: layer) })
    }

    /// Whether a point is inside the bounds with the rounded corners that cornerRadius cuts off.
    func roundedBoundsContain(_ p: Point) -> Bool {
        guard bounds.contains(p) else { return false }
        let r = properties.effectiveCornerRadius
        guard r > 0 else { return true }
        let b = bounds
        let corners: [(CornerMask, Double, Double)] = [
            (.minXMinYCorner, b.minX + r, b.minY + r), (.maxXMinYCorner, b.maxX - r, b.minY + r),
            (.minXMaxYCorner, b.minX + r, b.maxY - r), (.maxXMaxYCorner, b.maxX - r, b.maxY - r),
        ]
        for (corner, cx, cy) in corners where maskedCorners.contains(corner) {
            let inCornerX = corner.contains(.minXMinYCorner) || corner.contains(.minXMaxYCorner) ? p.x < cx : p.x > cx
            let inCornerY = corner.contains(.minXMinYCorner) || corner.contains(.maxXMinYCorner) ? p.y < cy : p.y > cy
            if inCornerX && inCornerY {
                let dx = p.x - cx, dy = p.y - cy
                if dx * dx + dy * dy > r * r { return false }
            }
        }
        return true
    }
}
