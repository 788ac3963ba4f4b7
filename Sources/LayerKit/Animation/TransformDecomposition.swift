import Foundation

/// A `Transform3D` split into the parts that animate naturally: translation, scale, skew,
/// perspective and a rotation quaternion, after CSS Transforms Level 2 ("decomposing a 4×4
/// matrix", from Graphics Gems II's `unmatrix`), written for Core Animation's row-vector
/// convention.
///
/// With `p' = p·M`, the matrix factors as `M = S · K · R · T · P`, applied left to right to a point:
/// scale `S = diag(scale)`, skew `K` (rows `(1,0,0)`, `(xy,1,0)`, `(xz,yz,1)`), rotation `R`,
/// translation `T` (`m41…m43` as they are), and perspective `P`, the identity with `perspective`
/// as its last column. CSS divides the matrix by `m44` first; that is not needed for the
/// factorisation and would rescale the translation of a matrix like `translate(z) · perspective`,
/// whose `m44` is not 1, so it is left out.
public struct DecomposedTransform3D: Hashable, Sendable {
    public var translation: SIMD3<Double>
    /// Per-axis scale; all three are negated (with a half turn in `rotation`) when the matrix
    /// mirrors, so that `rotation` stays a proper rotation.
    public var scale: SIMD3<Double>
    /// Shear factors: `x` is XY, `y` is XZ and `z` is YZ.
    public var skew: SIMD3<Double>
    /// The last column of the perspective factor: `(0, 0, 0, 1)` when there is none, and `w` is 1
    /// whenever `m44 = 1 + translation · (x, y, z)`, as for any product ending in a perspective.
    public var perspective: SIMD4<Double>
    /// A unit quaternion `(x, y, z, w)`, stored with `w ≥ 0`.
    public var rotation: SIMD4<Double>

    /// Parts to compose; `rotation` is normalised (the identity if it is zero).
    public init(
        translation: SIMD3<Double> = .zero, scale: SIMD3<Double> = .one, skew: SIMD3<Double> = .zero,
        perspective: SIMD4<Double> = SIMD4(0, 0, 0, 1), rotation: SIMD4<Double> = SIMD4(0, 0, 0, 1)
    ) {
        self.translation = translation
        self.scale = scale
        self.skew = skew
        self.perspective = perspective
        self.rotation = Quaternion.canonical(rotation)
    }

    /// The parts of `t`, or nil when it has none: `m44` is zero (as CSS rules), a component is
    /// not finite, or the upper 3×3 block is singular (a zero or flattened scale), to within
    /// 10⁻¹² relative.
    public init?(_ t: Transform3D) {
        guard t.m44 != 0, t.rows.joined().allSatisfy(\.isFinite) else { return nil }
        var rows = [SIMD3(t.m11, t.m12, t.m13), SIMD3(t.m21, t.m22, t.m23), SIMD3(t.m31, t.m32, t.m33)]
        let column = SIMD3(t.m14, t.m24, t.m34)
        translation = SIMD3(t.m41, t.m42, t.m43)

        // Gram–Schmidt on the rows: each length is a scale, each projection removed a skew.
        let threshold = 1e-12 * rows.map(Self.length).max()!
        scale = .zero
        skew = .zero
        scale.x = Self.length(rows[0])
        guard scale.x > threshold else { return nil }
        rows[0] /= scale.x
        skew.x = Self.dot(rows[0], rows[1])
        rows[1] -= skew.x * rows[0]
        scale.y = Self.length(rows[1])
        guard scale.y > threshold else { return nil }
        rows[1] /= scale.y
        skew.x /= scale.y
        skew.y = Self.dot(rows[0], rows[2])
        rows[2] -= skew.y * rows[0]
        skew.z = Self.dot(rows[1], rows[2])
        rows[2] -= skew.z * rows[1]
        scale.z = Self.length(rows[2])
        guard scale.z > threshold else { return nil }
        rows[2] /= scale.z
        skew.y /= scale.z
        skew.z /= scale.z

        // A mirror: negating every scale and row keeps the product and makes R a rotation.
        if Self.dot(rows[0], Self.cross(rows[1], rows[2])) < 0 {
            scale = -scale
            rows = rows.map { -$0 }
        }

        // M's last column is (S·K·R)·p above and t·p + p_w below. Solve the upper part by undoing
        // S, then K (unit lower triangular, by forward substitution), then R (orthonormal, so its
        // inverse is its transpose).
        if column == .zero {
            perspective = SIMD4(0, 0, 0, t.m44)
        } else {
            let y = column / scale
            let z0 = y.x
            let z1 = y.y - skew.x * z0
            let z2 = y.z - skew.y * z0 - skew.z * z1
            let p = z0 * rows[0] + z1 * rows[1] + z2 * rows[2]
            perspective = SIMD4(p, t.m44 - Self.dot(translation, p))
        }
        rotation = Quaternion.from(rows: rows[0], rows[1], rows[2])
    }

    /// The matrix these parts compose (`S · K · R · T · P`).
    public var transform: Transform3D {
        let r = Quaternion.rows(rotation)
        let a0 = scale.x * r[0]
        let a1 = scale.y * (r[1] + skew.x * r[0])
        let a2 = scale.z * (r[2] + skew.y * r[0] + skew.z * r[1])
        let p = SIMD3(perspective.x, perspective.y, perspective.z)
        return Transform3D(
            m11: a0.x, m12: a0.y, m13: a0.z, m14: Self.dot(a0, p),
            m21: a1.x, m22: a1.y, m23: a1.z, m24: Self.dot(a1, p),
            m31: a2.x, m32: a2.y, m33: a2.z, m34: Self.dot(a2, p),
            m41: translation.x, m42: translation.y, m43: translation.z,
            m44: Self.dot(translation, p) + perspective.w)
    }

    /// Linear in every part except the rotation, which is slerped the short way round (a turn of
    /// 270° animates as −90°); fractions outside 0…1 extrapolate, turning further.
    public func interpolated(to other: DecomposedTransform3D, fraction f: Double) -> DecomposedTransform3D {
        let g = 1 - f
        return DecomposedTransform3D(
            translation: g * translation + f * other.translation, scale: g * scale + f * other.scale,
            skew: g * skew + f * other.skew, perspective: g * perspective + f * other.perspective,
            rotation: Quaternion.slerp(rotation, other.rotation, f))
    }

    /// The affine combination of the parts: linear parts are weighted sums; rotations are
    /// combined as rotation vectors relative to the term of largest weight (for two terms this is
    /// exactly `interpolated(to:fraction:)`).
    public static func combine(_ terms: [(value: DecomposedTransform3D, weight: Double)]) -> DecomposedTransform3D {
        precondition(!terms.isEmpty, "combine needs at least one term")
        func sum<V: SIMD>(_ part: (DecomposedTransform3D) -> V) -> V where V.Scalar == Double {
            terms.reduce(V()) { $0 + $1.weight * part($1.value) }
        }
        let reference = terms.max { $0.weight < $1.weight }!.value.rotation
        let turn = terms.reduce(SIMD3<Double>.zero) {
            $0 + $1.weight * Quaternion.log(Quaternion.shortestRelative(from: reference, to: $1.value.rotation))
        }
        return DecomposedTransform3D(
            translation: sum(\.translation), scale: sum(\.scale), skew: sum(\.skew),
            perspective: sum(\.perspective), rotation: Quaternion.multiply(reference, Quaternion.exp(turn)))
    }

    /// The Euclidean distance over translation, scale, skew and perspective together with the
    /// angle in radians between the two rotations (points, scale factors and radians mixed, as
    /// they come: paced keyframes only need a monotonic measure of how much changes).
    public static func distance(from a: DecomposedTransform3D, to b: DecomposedTransform3D) -> Double {
        let angle = 2 * length(Quaternion.log(Quaternion.shortestRelative(from: a.rotation, to: b.rotation)))
        let squares = lengthSquared(b.translation - a.translation) + lengthSquared(b.scale - a.scale)
            + lengthSquared(b.skew - a.skew) + lengthSquared4(b.perspective - a.perspective) + angle * angle
        return squares.squareRoot()
    }

    private static func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { (a * b).sum() }
    private static func lengthSquared(_ a: SIMD3<Double>) -> Double { (a * a).sum() }
    private static func lengthSquared4(_ a: SIMD4<Double>) -> Double { (a * a).sum() }
    private static func length(_ a: SIMD3<Double>) -> Double { lengthSquared(a).squareRoot() }
    private static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
}

extension DecomposedTransform3D {
    /// Unit quaternions `(x, y, z, w)` as `SIMD4<Double>`, with Hamilton's product.
    fileprivate enum Quaternion {
        static func canonical(_ q: SIMD4<Double>) -> SIMD4<Double> {
            let n = (q * q).sum().squareRoot()
            guard n > 0, n.isFinite else { return SIMD4(0, 0, 0, 1) }
            return (q.w < 0 ? -q : q) / n
        }

        static func multiply(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> SIMD4<Double> {
            let av = SIMD3(a.x, a.y, a.z), bv = SIMD3(b.x, b.y, b.z)
            let v = a.w * bv + b.w * av
                + SIMD3(av.y * bv.z - av.z * bv.y, av.z * bv.x - av.x * bv.z, av.x * bv.y - av.y * bv.x)
            return SIMD4(v, a.w * b.w - (av * bv).sum())
        }

        static func conjugate(_ q: SIMD4<Double>) -> SIMD4<Double> { SIMD4(-q.x, -q.y, -q.z, q.w) }

        /// The rotation from `a` to `b`, taken as the shorter of the two turns that reach it.
        static func shortestRelative(from a: SIMD4<Double>, to b: SIMD4<Double>) -> SIMD4<Double> {
            let r = multiply(conjugate(a), b)
            return r.w < 0 ? -r : r
        }

        /// Half the rotation vector (axis · half-angle) of a unit quaternion with `w ≥ 0`.
        static func log(_ q: SIMD4<Double>) -> SIMD3<Double> {
            let v = SIMD3(q.x, q.y, q.z)
            let n = (v * v).sum().squareRoot()
            guard n > 0 else { return .zero }
            return v * (atan2(n, q.w) / n)
        }

        static func exp(_ u: SIMD3<Double>) -> SIMD4<Double> {
            let angle = (u * u).sum().squareRoot()
            guard angle > 0 else { return SIMD4(0, 0, 0, 1) }
            return SIMD4(u * (sin(angle) / angle), cos(angle))
        }

        /// `a·(a⁻¹b)^f`: constant angular speed along the shorter arc, for any `f`.
        static func slerp(_ a: SIMD4<Double>, _ b: SIMD4<Double>, _ f: Double) -> SIMD4<Double> {
            multiply(a, exp(f * log(shortestRelative(from: a, to: b))))
        }

        /// The quaternion of a rotation given by the rows of its row-vector matrix, which is the
        /// transpose of the column-vector matrix `Rc` (so `Rc[i][j]` is `r_j[i]`). Shepperd's method:
        /// the largest of the four candidates comes from a square root and the others from it, so no
        /// precision is lost near half turns.
        static func from(rows r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) -> SIMD4<Double> {
            let trace = r0.x + r1.y + r2.z
            let q: SIMD4<Double>
            if trace > 0 {
                let s = 2 * (trace + 1).squareRoot()
                q = SIMD4((r1.z - r2.y) / s, (r2.x - r0.z) / s, (r0.y - r1.x) / s, s / 4)
            } else if r0.x > r1.y && r0.x > r2.z {
                let s = 2 * (1 + r0.x - r1.y - r2.z).squareRoot()
                q = SIMD4(s / 4, (r1.x + r0.y) / s, (r2.x + r0.z) / s, (r1.z - r2.y) / s)
            } else if r1.y > r2.z {
                let s = 2 * (1 + r1.y - r0.x - r2.z).squareRoot()
                q = SIMD4((r1.x + r0.y) / s, s / 4, (r2.y + r1.z) / s, (r2.x - r0.z) / s)
            } else {
                let s = 2 * (1 + r2.z - r0.x - r1.y).squareRoot()
                q = SIMD4((r2.x + r0.z) / s, (r2.y + r1.z) / s, s / 4, (r0.y - r1.x) / s)
            }
            return canonical(q)
        }

        /// The rows of the row-vector rotation matrix of `q` (normalised first).
        static func rows(_ q: SIMD4<Double>) -> [SIMD3<Double>] {
            let n = (q * q).sum()
            let s = n > 0 ? 2 / n : 0
            let (x, y, z, w) = (q.x, q.y, q.z, q.w)
            return [
                SIMD3(1 - s * (y * y + z * z), s * (x * y + z * w), s * (x * z - y * w)),
                SIMD3(s * (x * y - z * w), 1 - s * (x * x + z * z), s * (y * z + x * w)),
                SIMD3(s * (x * z + y * w), s * (y * z - x * w), 1 - s * (x * x + y * y)),
            ]
        }
    }
}

/// Transforms animate through their decomposition, so rotations turn (the short way round)
/// instead of shrinking through a blended matrix; when either side cannot be decomposed (a zero
/// scale, a flattening matrix) the sixteen components are interpolated instead.
extension Transform3D: Interpolatable {
    public static func interpolate(from: Transform3D, to: Transform3D, fraction: Double) -> Transform3D {
        if fraction == 0 || from == to { return from }
        if fraction == 1 { return to }
        guard let a = DecomposedTransform3D(from), let b = DecomposedTransform3D(to) else {
            return componentwise([(from, 1 - fraction), (to, fraction)])
        }
        return a.interpolated(to: b, fraction: fraction).transform
    }

    /// `b` applied first, then `a` (`b.concatenating(a)`): an additive animation's value acts in
    /// the layer's own space, inside the underlying transform, as CSS composites a transform
    /// animation by appending its functions to the underlying list.
    public static func add(_ a: Transform3D, _ b: Transform3D) -> Transform3D { b.concatenating(a) }

    /// `b⁻¹` applied first, then `a`, so `add(subtract(a, b), b) == a`. A singular `b` has no
    /// inverse (`inverted()` returns it unchanged), and then the law does not hold.
    public static func subtract(_ a: Transform3D, _ b: Transform3D) -> Transform3D {
        b.inverted().concatenating(a)
    }

    public static var additiveIdentity: Transform3D { .identity }

    /// `DecomposedTransform3D.distance` when both sides decompose, else the Euclidean distance
    /// of the sixteen components.
    public static func distance(from: Transform3D, to: Transform3D) -> Double {
        if let a = DecomposedTransform3D(from), let b = DecomposedTransform3D(to) {
            return DecomposedTransform3D.distance(from: a, to: b)
        }
        return zip(from.rows.joined(), to.rows.joined()).reduce(0.0) { $0 + ($1.1 - $1.0) * ($1.1 - $1.0) }
            .squareRoot()
    }

    public static func combine(_ terms: [(value: Transform3D, weight: Double)]) -> Transform3D {
        precondition(!terms.isEmpty, "combine needs at least one term")
        var parts: [(value: DecomposedTransform3D, weight: Double)] = []
        for term in terms {
            guard let decomposed = DecomposedTransform3D(term.value) else { return componentwise(terms) }
            parts.append((decomposed, term.weight))
        }
        return DecomposedTransform3D.combine(parts).transform
    }

    private static func componentwise(_ terms: [(value: Transform3D, weight: Double)]) -> Transform3D {
        var sum = [Double](repeating: 0, count: 16)
        for term in terms {
            for (index, component) in term.value.rows.joined().enumerated() { sum[index] += term.weight * component }
        }
        return Transform3D(rows: (0..<4).map { Array(sum[4 * $0..<4 * $0 + 4]) })
    }
}
