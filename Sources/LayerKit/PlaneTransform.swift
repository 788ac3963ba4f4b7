/// A projective map of the plane (3×3, row-vector convention): what a flattened `Transform3D`
/// does to points with z = 0 when the output's z is dropped. Unlike the flattened 4×4 matrix it
/// can be inverted, which converting a point *into* a layer needs.
struct PlaneTransform: Equatable {
    var m: (Double, Double, Double, Double, Double, Double, Double, Double, Double)

    static let identity = PlaneTransform(m: (1, 0, 0, 0, 1, 0, 0, 0, 1))

    static func == (a: PlaneTransform, b: PlaneTransform) -> Bool {
        a.m.0 == b.m.0 && a.m.1 == b.m.1 && a.m.2 == b.m.2 && a.m.3 == b.m.3 && a.m.4 == b.m.4
            && a.m.5 == b.m.5 && a.m.6 == b.m.6 && a.m.7 == b.m.7 && a.m.8 == b.m.8
    }

    /// Rows and columns x, y and w of the 4×4 matrix (z in and out dropped).
    init(_ t: Transform3D) {
        m = (t.m11, t.m12, t.m14, t.m21, t.m22, t.m24, t.m41, t.m42, t.m44)
    }

    init(m: (Double, Double, Double, Double, Double, Double, Double, Double, Double)) {
        self.m = m
    }

    /// `self` applied first, then `t`.
    func concatenating(_ t: PlaneTransform) -> PlaneTransform {
        let a = m, b = t.m
        return PlaneTransform(m: (
            a.0 * b.0 + a.1 * b.3 + a.2 * b.6, a.0 * b.1 + a.1 * b.4 + a.2 * b.7, a.0 * b.2 + a.1 * b.5 + a.2 * b.8,
            a.3 * b.0 + a.4 * b.3 + a.5 * b.6, a.3 * b.1 + a.4 * b.4 + a.5 * b.7, a.3 * b.2 + a.4 * b.5 + a.5 * b.8,
            a.6 * b.0 + a.7 * b.3 + a.8 * b.6, a.6 * b.1 + a.7 * b.4 + a.8 * b.7, a.6 * b.2 + a.7 * b.5 + a.8 * b.8))
    }

    /// The inverse, or nil when the map is singular (a layer seen edge-on, or scaled to nothing).
    func inverted() -> PlaneTransform? {
        let (a, b, c, d, e, f, g, h, i) = m
        let A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g
        let det = a * A + b * B + c * C
        guard abs(det) > 1e-15, det.isFinite else { return nil }
        let r = 1 / det
        return PlaneTransform(m: (
            A * r, -(b * i - c * h) * r, (b * f - c * e) * r,
            B * r, (a * i - c * g) * r, -(a * f - c * d) * r,
            C * r, -(a * h - b * g) * r, (a * e - b * d) * r))
    }

    /// Maps a point; nil when it lands at or behind the eye of a perspective.
    func apply(_ p: Point) -> Point? {
        let w = p.x * m.2 + p.y * m.5 + m.8
        guard w > 0 else { return nil }
        return Point(x: (p.x * m.0 + p.y * m.3 + m.6) / w, y: (p.x * m.1 + p.y * m.4 + m.7) / w)
    }
}
