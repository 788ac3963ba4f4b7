import LayerKit

extension Transform3D {
    /// Whether the rectangle's image winds the other way round than the rectangle: its back faces
    /// the viewer (y grows downwards on both sides, so a front keeps a positive signed area).
    public func showsBack(of rect: Rect) -> Bool {
        let corners = rect.corners.compactMap { c in apply(x: c.x, y: c.y) }
        guard corners.count == 4 else { return false }
        var area = 0.0
        for i in 0..<4 {
            let (a, b) = (corners[i], corners[(i + 1) % 4])
            area += a.x * b.y - b.x * a.y
        }
        let own = rect.corners
        var ownArea = 0.0
        for i in 0..<4 {
            let (a, b) = (own[i], own[(i + 1) % 4])
            ownArea += a.x * b.y - b.x * a.y
        }
        return area * ownArea < 0
    }
}

extension RenderTree {
    /// Whether any sublayer of `layer` can draw something (hidden and fully transparent ones cannot).
    public func hasVisibleSublayers(_ layer: RenderLayer) -> Bool {
        layer.sublayerIDs.contains { id in
            self[id].map { !$0.properties.isHidden && $0.properties.opacity > 0 } ?? false
        }
    }
}

extension Color {
    /// The colour as premultiplied sRGB-encoded values (what the renderers blend), its alpha
    /// multiplied by `alpha` first.
    public func premultipliedSRGB(times alpha: Double) -> (Double, Double, Double, Double) {
        let s = converted(to: .sRGB)
        let a = s.alpha * alpha
        return (s.red * a, s.green * a, s.blue * a, a)
    }
}
