import Foundation
import Testing
@testable import LayerKit

@Suite struct AnimationMathInterpolationTests {
    // MARK: Scalars and geometry

    @Test func doublesHitTheirEndpointsExactlyAndExtrapolate() {
        #expect(Double.interpolate(from: 0.1, to: 0.3, fraction: 0) == 0.1)
        #expect(Double.interpolate(from: 0.1, to: 0.3, fraction: 1) == 0.3)
        #expect(isClose(Double.interpolate(from: 10, to: 20, fraction: 0.25), 12.5))
        #expect(isClose(Double.interpolate(from: 10, to: 20, fraction: 1.5), 25))
        #expect(isClose(Double.interpolate(from: 10, to: 20, fraction: -0.5), 5))
        #expect(Double.add(2, 3) == 5 && Double.subtract(2, 3) == -1 && Double.additiveIdentity == 0)
        #expect(Double.distance(from: 3, to: -1) == 4)
    }

    @Test func geometryInterpolatesComponentWise() {
        let p = Point.interpolate(from: Point(x: 0, y: 10), to: Point(x: 10, y: 30), fraction: 0.5)
        #expect(p == Point(x: 5, y: 20))
        let s = Size.interpolate(from: Size(width: 10, height: 10), to: Size(width: 20, height: 0), fraction: 0.25)
        #expect(s == Size(width: 12.5, height: 7.5))
        let r = Rect.interpolate(
            from: Rect(x: 0, y: 0, width: 10, height: 10), to: Rect(x: 10, y: 20, width: 30, height: 50), fraction: 0.5)
        #expect(r == Rect(x: 5, y: 10, width: 20, height: 30))
        #expect(Point.distance(from: .zero, to: Point(x: 3, y: 4)) == 5)
        #expect(Size.distance(from: .zero, to: Size(width: 6, height: 8)) == 10)
        #expect(isClose(Rect.distance(from: .zero, to: Rect(x: 1, y: 1, width: 1, height: 1)), 2))
    }

    @Test func geometrySubtractionUndoesAddition() {
        let a = Rect(x: 1, y: 2, width: 3, height: 4), b = Rect(x: 10, y: -20, width: 30, height: 0.5)
        #expect(Rect.add(Rect.subtract(a, b), b) == a)
        #expect(Rect.add(a, .additiveIdentity) == a)
        #expect(Point.add(Point(x: 1, y: 2), Point(x: 3, y: 4)) == Point(x: 4, y: 6))
    }

    @Test func combineIsTheWeightedSum() {
        let terms: [(value: Point, weight: Double)] = [
            (Point(x: 0, y: 0), -0.25), (Point(x: 4, y: 8), 0.75), (Point(x: 8, y: 0), 0.5),
        ]
        #expect(isClose(Point.combine(terms), Point(x: 7, y: 6)))
        #expect(isClose(Double.combine([(1, 0.5), (3, 0.5)]), 2))
    }

    /// A type that leaves `combine` to the protocol's default, built from `interpolate`.
    private struct Scalar: Interpolatable {
        var v: Double
        static func interpolate(from: Scalar, to: Scalar, fraction: Double) -> Scalar {
            Scalar(v: from.v + (to.v - from.v) * fraction)
        }
        static func add(_ a: Scalar, _ b: Scalar) -> Scalar { Scalar(v: a.v + b.v) }
        static func subtract(_ a: Scalar, _ b: Scalar) -> Scalar { Scalar(v: a.v - b.v) }
        static var additiveIdentity: Scalar { Scalar(v: 0) }
        static func distance(from: Scalar, to: Scalar) -> Double { abs(to.v - from.v) }
    }

    @Test func defaultCombineHandlesNegativeWeights() {
        // Catmull-Rom midpoint weights: −1/16, 9/16, 9/16, −1/16.
        let values = [0.0, 1, 4, 9]
        let weights = [-1.0 / 16, 9.0 / 16, 9.0 / 16, -1.0 / 16]
        let combined = Scalar.combine(zip(values, weights).map { (Scalar(v: $0), $1) })
        #expect(isClose(combined.v, zip(values, weights).reduce(0) { $0 + $1.0 * $1.1 }))
        // Partial sums that would reach zero in the given order (1, −1, 1).
        let tricky = Scalar.combine([(Scalar(v: 2), 1), (Scalar(v: 5), -1), (Scalar(v: 7), 1)])
        #expect(isClose(tricky.v, 4))
    }

    // MARK: Colour

    @Test func colorsInterpolateInTheFirstColorsSpace() {
        let mid = Color.interpolate(from: .black, to: .white, fraction: 0.5)
        #expect(mid == Color(white: 0.5))
        let linearWhite = Color(red: 1, green: 1, blue: 1, colorSpace: .linearSRGB)
        let linearGrey = Color(red: 0.2, green: 0.2, blue: 0.2, alpha: 0.5, colorSpace: .linearSRGB)
        let mixed = Color.interpolate(from: Color(white: 0, alpha: 0), to: linearGrey, fraction: 1)
        #expect(mixed.colorSpace == .sRGB)
        #expect(isClose(mixed.red, Color.linearGreyInSRGB, 1e-12) && isClose(mixed.alpha, 0.5))
        let inLinear = Color.interpolate(from: linearWhite, to: .black, fraction: 0.25)
        #expect(inLinear.colorSpace == .linearSRGB && isClose(inLinear.red, 0.75))
    }

    @Test func colorArithmeticIsComponentWise() {
        let a = Color(red: 0.5, green: 0.25, blue: 1, alpha: 1)
        let b = Color(red: 0.25, green: 0.25, blue: 0.5, alpha: 0.5)
        #expect(Color.add(a, b) == Color(red: 0.75, green: 0.5, blue: 1.5, alpha: 1.5))
        let back = Color.add(Color.subtract(a, b), b)
        #expect(isClose(back.red, a.red) && isClose(back.green, a.green) && isClose(back.blue, a.blue))
        #expect(Color.add(a, .additiveIdentity) == a)
        #expect(Color.distance(from: .clear, to: .white) == 2)
        let linear = Color(red: 0.5, green: 0.5, blue: 0.5, colorSpace: .linearSRGB)
        let roundTrip = Color.add(Color.subtract(a, linear), linear)
        #expect(roundTrip.colorSpace == .sRGB && isClose(roundTrip.red, 0.5, 1e-12))
    }

    // MARK: Paths

    private func triangle(_ offset: Double) -> Path {
        var p = Path()
        p.move(to: Point(x: offset, y: 0))
        p.addLine(to: Point(x: offset + 10, y: 0))
        p.addCurve(
            to: Point(x: offset, y: 10), control1: Point(x: offset + 10, y: 5), control2: Point(x: offset + 5, y: 10))
        p.closeSubpath()
        return p
    }

    @Test func pathsWithTheSameStructureInterpolatePointByPoint() {
        let mid = Path.interpolate(from: triangle(0), to: triangle(20), fraction: 0.5)
        #expect(mid == triangle(10))
        #expect(Path.add(Path.subtract(triangle(30), triangle(20)), triangle(20)) == triangle(30))
        #expect(isClose(Path.distance(from: triangle(0), to: triangle(1)), 5.squareRootOfInt))
        let combined = Path.combine([(triangle(0), -0.5), (triangle(10), 1), (triangle(20), 0.5)])
        #expect(combined == triangle(20))
    }

    @Test func pathsOfDifferentStructureSwitchAtTheHalfway() {
        let rect = Path(rect: Rect(x: 0, y: 0, width: 10, height: 10))
        #expect(Path.interpolate(from: rect, to: triangle(0), fraction: 0.49) == rect)
        #expect(Path.interpolate(from: rect, to: triangle(0), fraction: 0.5) == triangle(0))
        #expect(Path.add(rect, triangle(0)) == rect)
        #expect(Path.add(Path.subtract(rect, triangle(0)), triangle(0)) == rect)
        #expect(Path.combine([(rect, 0.4), (triangle(0), 0.6)]) == triangle(0))
        #expect(Path.distance(from: rect, to: triangle(5)) > 0)
        #expect(Path.add(rect, .additiveIdentity) == rect)
    }

    // MARK: Arrays

    @Test func arraysInterpolateOverTheShorterCountWithExtrasFromTo() {
        #expect([Double].interpolate(from: [0, 10], to: [10, 20, 30], fraction: 0.5) == [5, 15, 30])
        #expect([Double].interpolate(from: [0, 10, 99], to: [10, 20], fraction: 0.5) == [5, 15])
        let colors = [Color].interpolate(from: [.black], to: [.white, .red], fraction: 0.5)
        #expect(colors == [Color(white: 0.5), .red])
        #expect([Double].distance(from: [0, 0, 7], to: [3, 4]) == 5)
    }

    @Test func arrayArithmeticPadsWithTheIdentity() {
        #expect([Double].add([1, 2], [10, 20, 30]) == [11, 22, 30])
        #expect([Double].subtract([1, 2, 3], [1]) == [0, 2, 3])
        #expect([Double].add([Double].subtract([5, 6], [1, 2]), [1, 2]) == [5, 6])
        #expect([Double].add([1], .additiveIdentity) == [1] && [Double].add([], [4]) == [4])
        let combined = [Double].combine([([0, 100], -0.5), ([2], 0.5), ([4, 8], 1)])
        #expect(combined == [0 * -0.5 + 2 * 0.5 + 4, 100 * -0.5 + 8 * 0.5 + 8])
    }

    // MARK: Transforms

    private func rotateZ(_ angle: Double) -> Transform3D { Transform3D(rotationAngle: angle, x: 0, y: 0, z: 1) }

    /// Translate, rotate (about several axes), scale, skew and perspective combined.
    private var composedTransforms: [Transform3D] {
        var perspective = Transform3D.identity
        perspective.m34 = -1.0 / 500
        var skew = Transform3D.identity
        (skew.m21, skew.m31, skew.m32) = (0.3, -0.2, 0.4)
        let base = Transform3D.identity.translatedBy(x: 12, y: -7, z: 3)
            .rotated(by: 0.7, x: 1, y: 2, z: 3).scaledBy(x: 2, y: 0.5, z: 1.5)
        return [
            Transform3D.identity,
            Transform3D(translationX: 4, y: 5, z: 6),
            base,
            base.concatenating(perspective),
            perspective.concatenating(base),
            skew.concatenating(base).concatenating(perspective),
            Transform3D(scaleX: -1, y: 1).rotated(by: 2.5, x: 0, y: 1, z: 0),
            rotateZ(.pi),
            Transform3D(rotationAngle: .pi, x: 1, y: 1, z: 0).translatedBy(x: 1, y: 2),
            Transform3D(rotationAngle: 3, x: 0, y: 1, z: 0.2).scaledBy(x: 1e-3, y: 1e3, z: 1),
        ]
    }

    @Test func decompositionRecomposesTheMatrix() throws {
        for t in composedTransforms {
            let parts = try #require(DecomposedTransform3D(t))
            #expect(isClose(parts.transform, t, 1e-9), "\(t)")
            #expect(isClose((parts.rotation * parts.rotation).sum(), 1, 1e-12) && parts.rotation.w >= 0)
        }
    }

    @Test func decompositionNamesTheParts() throws {
        let t = Transform3D.identity.translatedBy(x: 1, y: 2, z: 3).rotated(by: .pi / 3, x: 0, y: 0, z: 1)
            .scaledBy(x: 4, y: 5, z: 6)
        let parts = try #require(DecomposedTransform3D(t))
        #expect(isClose(parts.translation.x, 1) && isClose(parts.translation.y, 2) && isClose(parts.translation.z, 3))
        #expect(isClose(parts.scale.x, 4) && isClose(parts.scale.y, 5) && isClose(parts.scale.z, 6))
        #expect(isClose(parts.skew.x, 0) && isClose(parts.skew.y, 0) && isClose(parts.skew.z, 0))
        #expect(parts.perspective == SIMD4(0, 0, 0, 1))
        #expect(isClose(parts.rotation.z, sin(Double.pi / 6)) && isClose(parts.rotation.w, cos(Double.pi / 6)))
        var p = Transform3D.identity
        p.m34 = -0.002
        #expect(isClose(try #require(DecomposedTransform3D(p)).perspective.z, -0.002))
        // A translation in z before the perspective leaves m44 ≠ 1; the parts stay as built.
        let deep = try #require(DecomposedTransform3D(Transform3D(translationX: 5, y: 6, z: 50).concatenating(p)))
        #expect(isClose(Transform3D(translationX: 5, y: 6, z: 50).concatenating(p).m44, 0.9))
        #expect(deep.translation == SIMD3(5, 6, 50))
        #expect(isClose(deep.perspective.z, -0.002) && isClose(deep.perspective.w, 1))
    }

    @Test func singularMatricesDoNotDecompose() {
        var zeroW = Transform3D.identity
        zeroW.m44 = 0
        #expect(DecomposedTransform3D(zeroW) == nil)
        #expect(DecomposedTransform3D(Transform3D(scaleX: 0, y: 1)) == nil)
        #expect(DecomposedTransform3D(rotateZ(0.4).flattened) == nil)
        var infinite = Transform3D.identity
        infinite.m41 = .infinity
        #expect(DecomposedTransform3D(infinite) == nil)
    }

    @Test func rotationsAnimateAsRotations() {
        let half = Transform3D.interpolate(from: .identity, to: rotateZ(.pi / 2), fraction: 0.5)
        #expect(isClose(half, rotateZ(.pi / 4)))
        let axis = Transform3D.interpolate(
            from: .identity, to: Transform3D(rotationAngle: 2, x: 1, y: -1, z: 0.5), fraction: 0.25)
        #expect(isClose(axis, Transform3D(rotationAngle: 0.5, x: 1, y: -1, z: 0.5)))
        // Beyond the end the turn continues.
        #expect(isClose(Transform3D.interpolate(from: .identity, to: rotateZ(.pi / 2), fraction: 2), rotateZ(.pi)))
    }

    @Test func rotationsTakeTheShortWayRound() {
        // 270° is the same orientation as −90°; the quaternion slerp turns through −45° at the halfway.
        let mid = Transform3D.interpolate(from: rotateZ(0), to: rotateZ(3 * .pi / 2), fraction: 0.5)
        #expect(isClose(mid, rotateZ(-.pi / 4)))
        let across = Transform3D.interpolate(from: rotateZ(3), to: rotateZ(-3), fraction: 0.5)
        #expect(isClose(across, rotateZ(.pi)))
    }

    @Test func scaleAndTranslationInterpolateLinearly() {
        let scale = Transform3D.interpolate(from: .identity, to: Transform3D(scaleX: 3, y: 3, z: 3), fraction: 0.5)
        #expect(isClose(scale, Transform3D(scaleX: 2, y: 2, z: 2)))
        let from = Transform3D(translationX: 10, y: 0).rotated(by: 0.2, x: 0, y: 0, z: 1)
        let to = Transform3D(translationX: 30, y: 40).rotated(by: 1.0, x: 0, y: 0, z: 1)
        let mid = Transform3D.interpolate(from: from, to: to, fraction: 0.5)
        #expect(isClose(mid, Transform3D(translationX: 20, y: 20).rotated(by: 0.6, x: 0, y: 0, z: 1)))
        #expect(Transform3D.interpolate(from: from, to: to, fraction: 0) == from)
        #expect(Transform3D.interpolate(from: from, to: to, fraction: 1) == to)
    }

    @Test func undecomposableTransformsInterpolateTheirComponents() {
        let zero = Transform3D(scaleX: 0, y: 0)
        let mid = Transform3D.interpolate(from: zero, to: rotateZ(.pi / 2), fraction: 0.5)
        #expect(isClose(mid, Transform3D(rows: [[0, 0.5, 0, 0], [-0.5, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])))
        let combined = Transform3D.combine([(zero, 0.5), (.identity, 0.5)])
        #expect(isClose(combined, Transform3D(scaleX: 0.5, y: 0.5)))
    }

    @Test func additionConcatenatesWithTheDeltaFirst() {
        let base = Transform3D(translationX: 100, y: 0)
        let delta = Transform3D(scaleX: 2, y: 2)
        // The delta acts in the layer's space first: (1, 0) scales to (2, 0), then moves to (102, 0).
        let p = Transform3D.add(base, delta).apply(x: 1, y: 0)!
        #expect(isClose(p.x, 102) && isClose(p.y, 0))
        for a in composedTransforms {
            let b = rotateZ(0.3).translatedBy(x: 5, y: 1)
            #expect(isClose(Transform3D.add(Transform3D.subtract(a, b), b), a))
        }
        #expect(Transform3D.add(base, .additiveIdentity) == base && Transform3D.additiveIdentity == .identity)
    }

    @Test func transformDistanceMeasuresTranslationScaleAndAngle() {
        #expect(isClose(Transform3D.distance(from: .identity, to: rotateZ(0.8)), 0.8))
        #expect(isClose(Transform3D.distance(from: rotateZ(-3), to: rotateZ(3)), 2 * .pi - 6))
        #expect(isClose(Transform3D.distance(from: .identity, to: Transform3D(translationX: 3, y: 4)), 5))
        #expect(isClose(Transform3D.distance(from: .identity, to: Transform3D(scaleX: 2, y: 1)), 1))
        #expect(isClose(Transform3D.distance(from: Transform3D(scaleX: 0, y: 0), to: .identity), 2.squareRootOfInt))
    }

    @Test func transformCombinationMatchesInterpolationForTwoTerms() {
        let from = composedTransforms[2], to = composedTransforms[5]
        for f in [-0.3, 0.2, 0.5, 0.9, 1.4] {
            let combined = Transform3D.combine([(from, 1 - f), (to, f)])
            #expect(isClose(combined, Transform3D.interpolate(from: from, to: to, fraction: f), 1e-9))
        }
        // Rotations about one axis combine like their angles.
        let angles = [0.2, 0.5, 1.1, 1.3], weights = [-0.0625, 0.5625, 0.5625, -0.0625]
        let combined = Transform3D.combine(zip(angles, weights).map { (rotateZ($0), $1) })
        #expect(isClose(combined, rotateZ(zip(angles, weights).reduce(0) { $0 + $1.0 * $1.1 })))
    }
}

private extension Int {
    var squareRootOfInt: Double { Double(self).squareRoot() }
}

private extension Color {
    /// Linear 0.2 encoded as sRGB.
    static var linearGreyInSRGB: Double { 1.055 * pow(0.2, 1 / 2.4) - 0.055 }
}
