import Foundation

/// A 4×4 homogeneous transform with `CATransform3D`'s layout and rules: the **row-vector
/// convention** (a point `p = (x, y, z, 1)` maps to `p·M`), so `m41…m43` hold the translation and
/// `m34 = −1/d` gives a perspective with the eye at distance `d` on +z.
public struct Transform3D: Hashable, Sendable, CustomStringConvertible {
    public var m11: Double, m12: Double, m13: Double, m14: Double
    public var m21: Double, m22: Double, m23: Double, m24: Double
    public var m31: Double, m32: Double, m33: Double, m34: Double
    public var m41: Double, m42: Double, m43: Double, m44: Double

    public init(
        m11: Double, m12: Double, m13: Double, m14: Double,
        m21: Double, m22: Double, m23: Double, m24: Double,
        m31: Double, m32: Double, m33: Double, m34: Double,
        m41: Double, m42: Double, m43: Double, m44: Double
    ) {
        (self.m11, self.m12, self.m13, self.m14) = (m11, m12, m13, m14)
        (self.m21, self.m22, self.m23, self.m24) = (m21, m22, m23, m24)
        (self.m31, self.m32, self.m33, self.m34) = (m31, m32, m33, m34)
        (self.m41, self.m42, self.m43, self.m44) = (m41, m42, m43, m44)
    }

    /// Rows as arrays, for tests and printing.
    public init(rows r: [[Double]]) {
        precondition(r.count == 4 && r.allSatisfy { $0.count == 4 }, "Transform3D needs 4 rows of 4")
        self.init(
            m11: r[0][0], m12: r[0][1], m13: r[0][2], m14: r[0][3],
            m21: r[1][0], m22: r[1][1], m23: r[1][2], m24: r[1][3],
            m31: r[2][0], m32: r[2][1], m33: r[2][2], m34: r[2][3],
            m41: r[3][0], m42: r[3][1], m43: r[3][2], m44: r[3][3])
    }

    public var rows: [[Double]] {
        [[m11, m12, m13, m14], [m21, m22, m23, m24], [m31, m32, m33, m34], [m41, m42, m43, m44]]
    }

    public static let identity = Transform3D(
        m11: 1, m12: 0, m13: 0, m14: 0, m21: 0, m22: 1, m23: 0, m24: 0,
        m31: 0, m32: 0, m33: 1, m34: 0, m41: 0, m42: 0, m43: 0, m44: 1)

    /// CATransform3DMakeTranslation.
    public init(translationX tx: Double, y ty: Double, z tz: Double = 0) {
        self = .identity
        (m41, m42, m43) = (tx, ty, tz)
    }

    /// CATransform3DMakeScale.
    public init(scaleX sx: Double, y sy: Double, z sz: Double = 1) {
        self = .identity
        (m11, m22, m33) = (sx, sy, sz)
    }

    /// CATransform3DMakeRotation: `angle` radians about the axis `(x, y, z)`; a zero axis gives the identity.
    /// About +z, positive angles turn +x towards +y (clockwise on Vitrine's y-down screen, as on iOS).
    public init(rotationAngle angle: Double, x: Double, y: Double, z: Double) {
        let length = (x * x + y * y + z * z).squareRoot()
        guard length > 0, length.isFinite else {
            self = .identity
            return
        }
        let (ux, uy, uz) = (x / length, y / length, z / length)
        let c = cos(angle), s = sin(angle), t = 1 - c
        self.init(
            m11: t * ux * ux + c, m12: t * ux * uy + s * uz, m13: t * ux * uz - s * uy, m14: 0,
            m21: t * ux * uy - s * uz, m22: t * uy * uy + c, m23: t * uy * uz + s * ux, m24: 0,
            m31: t * ux * uz + s * uy, m32: t * uy * uz - s * ux, m33: t * uz * uz + c, m34: 0,
            m41: 0, m42: 0, m43: 0, m44: 1)
    }

    /// CATransform3DMakeAffineTransform: the six values go into m11, m12, m21, m22, m41, m42.
    public init(_ t: AffineTransform2D) {
        self = .identity
        (m11, m12, m21, m22, m41, m42) = (t.a, t.b, t.c, t.d, t.tx, t.ty)
    }

    /// `self` applied first, then `t` (CATransform3DConcat(self, t) = self·t).
    public func concatenating(_ t: Transform3D) -> Transform3D {
        let a = self, b = t
        return Transform3D(
            m11: a.m11 * b.m11 + a.m12 * b.m21 + a.m13 * b.m31 + a.m14 * b.m41,
            m12: a.m11 * b.m12 + a.m12 * b.m22 + a.m13 * b.m32 + a.m14 * b.m42,
            m13: a.m11 * b.m13 + a.m12 * b.m23 + a.m13 * b.m33 + a.m14 * b.m43,
            m14: a.m11 * b.m14 + a.m12 * b.m24 + a.m13 * b.m34 + a.m14 * b.m44,
            m21: a.m21 * b.m11 + a.m22 * b.m21 + a.m23 * b.m31 + a.m24 * b.m41,
            m22: a.m21 * b.m12 + a.m22 * b.m22 + a.m23 * b.m32 + a.m24 * b.m42,
            m23: a.m21 * b.m13 + a.m22 * b.m23 + a.m23 * b.m33 + a.m24 * b.m43,
            m24: a.m21 * b.m14 + a.m22 * b.m24 + a.m23 * b.m34 + a.m24 * b.m44,
            m31: a.m31 * b.m11 + a.m32 * b.m21 + a.m33 * b.m31 + a.m34 * b.m41,
            m32: a.m31 * b.m12 + a.m32 * b.m22 + a.m33 * b.m32 + a.m34 * b.m42,
            m33: a.m31 * b.m13 + a.m32 * b.m23 + a.m33 * b.m33 + a.m34 * b.m43,
            m34: a.m31 * b.m14 + a.m32 * b.m24 + a.m33 * b.m34 + a.m34 * b.m44,
            m41: a.m41 * b.m11 + a.m42 * b.m21 + a.m43 * b.m31 + a.m44 * b.m41,
            m42: a.m41 * b.m12 + a.m42 * b.m22 + a.m43 * b.m32 + a.m44 * b.m42,
            m43: a.m41 * b.m13 + a.m42 * b.m23 + a.m43 * b.m33 + a.m44 * b.m43,
            m44: a.m41 * b.m14 + a.m42 * b.m24 + a.m43 * b.m34 + a.m44 * b.m44)
    }

    /// CATransform3DTranslate: the translation is applied first, then `self`.
    public func translatedBy(x: Double, y: Double, z: Double = 0) -> Transform3D {
        Transform3D(translationX: x, y: y, z: z).concatenating(self)
    }

    /// CATransform3DScale: the scale is applied first, then `self`.
    public func scaledBy(x: Double, y: Double, z: Double = 1) -> Transform3D {
        Transform3D(scaleX: x, y: y, z: z).concatenating(self)
    }

    /// CATransform3DRotate: the rotation is applied first, then `self`.
    public func rotated(by angle: Double, x: Double, y: Double, z: Double) -> Transform3D {
        Transform3D(rotationAngle: angle, x: x, y: y, z: z).concatenating(self)
    }

    /// Compared field by field where the matrix is: `self == .identity` copied both matrices
    /// and went through the derived `==` (about 90 instructions; a frame asks this of every layer).
    @inlinable public var isIdentity: Bool {
        m11 == 1 && m12 == 0 && m13 == 0 && m14 == 0 && m21 == 0 && m22 == 1 && m23 == 0 && m24 == 0
            && m31 == 0 && m32 == 0 && m33 == 1 && m34 == 0 && m41 == 0 && m42 == 0 && m43 == 0 && m44 == 1
    }

    /// True when the matrix maps the plane z = 0 onto itself with an affine 2D map
    /// (no z scale or translation, no rotation out of the plane, no perspective).
    public var isAffine: Bool {
        m13 == 0 && m14 == 0 && m23 == 0 && m24 == 0 && m31 == 0 && m32 == 0
            && m33 == 1 && m34 == 0 && m43 == 0 && m44 == 1
    }

    /// The 2D part (m11, m12, m21, m22, m41, m42); meaningful only when `isAffine`.
    public var affineTransform: AffineTransform2D {
        AffineTransform2D(a: m11, b: m12, c: m21, d: m22, tx: m41, ty: m42)
    }

    public var determinant: Double {
        let r = rows
        func minor(_ skipRow: Int, _ skipCol: Int) -> Double {
            let m = (0..<4).filter { $0 != skipRow }.map { i in (0..<4).filter { $0 != skipCol }.map { r[i][$0] } }
            return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        return (0..<4).reduce(0.0) { acc, j in acc + (j % 2 == 0 ? 1 : -1) * r[0][j] * minor(0, j) }
    }

    /// The inverse, or `self` unchanged when the matrix is singular (CATransform3DInvert).
    public func inverted() -> Transform3D {
        // Gauss–Jordan with partial pivoting.
        var a = rows
        var inv = Transform3D.identity.rows
        for col in 0..<4 {
            var pivot = col
            for row in col + 1..<4 where abs(a[row][col]) > abs(a[pivot][col]) { pivot = row }
            guard abs(a[pivot][col]) > 1e-12 else { return self }
            a.swapAt(col, pivot)
            inv.swapAt(col, pivot)
            let p = a[col][col]
            for j in 0..<4 {
                a[col][j] /= p
                inv[col][j] /= p
            }
            for row in 0..<4 where row != col {
                let f = a[row][col]
                guard f != 0 else { continue }
                for j in 0..<4 {
                    a[row][j] -= f * a[col][j]
                    inv[row][j] -= f * inv[col][j]
                }
            }
        }
        return Transform3D(rows: inv)
    }

    /// The smallest rectangle holding `rect`'s four corners mapped by `apply`; nil when one of
    /// them lands at or behind the eye. Built without arrays: frames ask it of many boxes.
    public func boundingBox(ofCorners rect: Rect) -> Rect? {
        guard let a = apply(x: rect.minX, y: rect.minY), let b = apply(x: rect.maxX, y: rect.minY),
            let c = apply(x: rect.maxX, y: rect.maxY), let d = apply(x: rect.minX, y: rect.maxY)
        else { return nil }
        let x0 = min(a.x, b.x, c.x, d.x), x1 = max(a.x, b.x, c.x, d.x)
        let y0 = min(a.y, b.y, c.y, d.y), y1 = max(a.y, b.y, c.y, d.y)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Maps `(x, y, z, 1)` and homogenises; nil when the point lands at or behind the eye (w ≤ 0).
    public func apply(x: Double, y: Double, z: Double = 0) -> (x: Double, y: Double, z: Double)? {
        let w = x * m14 + y * m24 + z * m34 + m44
        guard w > 0 else { return nil }
        return ((x * m11 + y * m21 + z * m31 + m41) / w,
                (x * m12 + y * m22 + z * m32 + m42) / w,
                (x * m13 + y * m23 + z * m33 + m43) / w)
    }

    /// The matrix with its z output dropped: what a layer that flattens its sublayers into its own
    /// plane (every layer but a transform layer) does after projecting them.
    public var flattened: Transform3D {
        var t = self
        (t.m13, t.m23, t.m33, t.m43) = (0, 0, 0, 0)
        return t
    }

    public var description: String {
        rows.map { "[" + $0.map { String(format: "%.5g", $0) }.joined(separator: " ") + "]" }.joined()
    }
}

extension Transform3D {
    /// The inverse of this (flattened) matrix as a map of the plane: a point of the output plane
    /// `(x, y, 0, 1)` maps back to the layer's plane, after homogenising. Nil when the layer is
    /// seen edge-on. The result is a 4×4 matrix in the same row-vector convention, with its z row
    /// and column empty.
    public var planeInverse: Transform3D? {
        guard let inverse = PlaneTransform(self).inverted() else { return nil }
        let m = inverse.m
        return Transform3D(
            m11: m.0, m12: m.1, m13: 0, m14: m.2,
            m21: m.3, m22: m.4, m23: 0, m24: m.5,
            m31: 0, m32: 0, m33: 0, m34: 0,
            m41: m.6, m42: m.7, m43: 0, m44: m.8)
    }
}
