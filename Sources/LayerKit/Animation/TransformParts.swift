import Foundation

/// A transform split into translation, per-axis scale and rotation angles, for the
/// `transform.rotation.z`-style key paths: one part is replaced and the transform recomposed.
///
/// The linear part is read as `scale · Rx · Ry · Rz` (row vectors: scale first, then the
/// rotations about x, y and z); skew and perspective are not represented and are dropped when a
/// part is set.
struct TransformParts: Equatable {
    var translation: [Double]
    var scale: [Double]
    /// Angles about x, y and z in radians.
    var rotation: [Double]

    init(_ t: Transform3D) {
        translation = [t.m41, t.m42, t.m43]
        let rows = [[t.m11, t.m12, t.m13], [t.m21, t.m22, t.m23], [t.m31, t.m32, t.m33]]
        var s = rows.map { ($0[0] * $0[0] + $0[1] * $0[1] + $0[2] * $0[2]).squareRoot() }
        var r = zip(rows, s).map { row, length in length > 0 ? row.map { $0 / length } : row }
        let det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1])
            - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0])
            + r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0])
        if det < 0 {
            s[0] = -s[0]
            r[0] = r[0].map { -$0 }
        }
        scale = s
        let sinB = max(-1, min(1, -r[0][2]))
        let b = asin(sinB)
        if abs(cos(b)) > 1e-9 {
            rotation = [atan2(r[1][2], r[2][2]), b, atan2(r[0][1], r[0][0])]
        } else {
            // Gimbal lock: put all of the remaining turn about x.
            rotation = [atan2(r[1][0] * sinB, r[1][1]), b, 0]
        }
    }

    var transform: Transform3D {
        let rotationMatrix = Transform3D(rotationAngle: rotation[0], x: 1, y: 0, z: 0)
            .concatenating(Transform3D(rotationAngle: rotation[1], x: 0, y: 1, z: 0))
            .concatenating(Transform3D(rotationAngle: rotation[2], x: 0, y: 0, z: 1))
        var t = Transform3D(scaleX: scale[0], y: scale[1], z: scale[2]).concatenating(rotationMatrix)
        (t.m41, t.m42, t.m43) = (translation[0], translation[1], translation[2])
        return t
    }
}
