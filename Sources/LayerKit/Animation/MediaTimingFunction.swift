import Foundation

/// The pacing of an animation as a cubic Bézier from `(0, 0)` to `(1, 1)`
/// (CAMediaTimingFunction): x is the fraction of time elapsed, y the fraction of the change.
public struct MediaTimingFunction: Hashable, Sendable {
    /// Core Animation's predefined functions (`kCAMediaTimingFunction…`).
    public enum Name: String, Hashable, Sendable {
        case linear
        case easeIn
        case easeOut
        case easeInEaseOut
        /// The curve of implicit animations: a gentle ease in and out (CSS's `ease`).
        case `default`
    }

    private let c1: Point
    private let c2: Point

    /// A curve with control points `(c1x, c1y)` and `(c2x, c2y)`, kept as given. The y values may
    /// leave 0…1 (overshooting curves); x values outside 0…1 would make time run backwards, so
    /// evaluation clamps them to 0…1, as CSS requires of them.
    public init(controlPoints c1x: Double, _ c1y: Double, _ c2x: Double, _ c2y: Double) {
        c1 = Point(x: c1x, y: c1y)
        c2 = Point(x: c2x, y: c2y)
    }

    public init(name: Name) {
        switch name {
        case .linear: self.init(controlPoints: 0, 0, 1, 1)
        case .easeIn: self.init(controlPoints: 0.42, 0, 1, 1)
        case .easeOut: self.init(controlPoints: 0, 0, 0.58, 1)
        case .easeInEaseOut: self.init(controlPoints: 0.42, 0, 0.58, 1)
        case .default: self.init(controlPoints: 0.25, 0.1, 0.25, 1)
        }
    }

    public static let linear = MediaTimingFunction(name: .linear)
    public static let easeIn = MediaTimingFunction(name: .easeIn)
    public static let easeOut = MediaTimingFunction(name: .easeOut)
    public static let easeInEaseOut = MediaTimingFunction(name: .easeInEaseOut)
    public static let `default` = MediaTimingFunction(name: .default)

    /// The Bézier's points: 0 is `(0, 0)`, 1 and 2 the control points, 3 is `(1, 1)`.
    public func controlPoint(at index: Int) -> Point {
        switch index {
        case 0: return .zero
        case 1: return c1
        case 2: return c2
        case 3: return Point(x: 1, y: 1)
        default: preconditionFailure("a timing function has control points 0…3, not \(index)")
        }
    }

    /// The fraction of the change at time fraction `x` (clamped to 0…1): the curve's y where its
    /// x equals `x`. The parameter is found by Newton's method, falling back to bisection where the
    /// slope is too flat for Newton to converge; it is accurate to about 10⁻¹⁴ in x.
    public func value(atTime x: Double) -> Double {
        let x = x.isNaN ? 0 : min(max(x, 0), 1)
        // The endpoints are exact whatever the control points.
        if x == 0 { return 0 }
        if x == 1 { return 1 }
        return Self.bezier(c1.y, c2.y, parameter(forX: x))
    }

    private static let tolerance = 1e-14

    private func parameter(forX x: Double) -> Double {
        let x1 = min(max(c1.x, 0), 1), x2 = min(max(c2.x, 0), 1)
        var t = x
        for _ in 0..<8 {
            let error = Self.bezier(x1, x2, t) - x
            if abs(error) < Self.tolerance { return t }
            let slope = Self.bezierSlope(x1, x2, t)
            guard abs(slope) > 1e-6 else { break }
            t -= error / slope
            guard t >= 0, t <= 1 else { break }
        }
        // x(t) is non-decreasing on 0…1 with x(0) = 0 and x(1) = 1, so bisection always brackets.
        var low = 0.0, high = 1.0
        t = x
        for _ in 0..<100 {
            let value = Self.bezier(x1, x2, t)
            if abs(value - x) < Self.tolerance { break }
            if value < x { low = t } else { high = t }
            t = (low + high) / 2
            if high - low < Self.tolerance { break }
        }
        return t
    }

    /// One coordinate of the Bézier with end values 0 and 1: `3(1−t)²t·a + 3(1−t)t²·b + t³`.
    private static func bezier(_ a: Double, _ b: Double, _ t: Double) -> Double {
        let u = 1 - t
        return 3 * u * u * t * a + 3 * u * t * t * b + t * t * t
    }

    private static func bezierSlope(_ a: Double, _ b: Double, _ t: Double) -> Double {
        let u = 1 - t
        return 3 * u * u * a + 6 * u * t * (b - a) + 3 * t * t * (1 - b)
    }
}
