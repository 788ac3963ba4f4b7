import Foundation

/// Geometry in points, y down (origin at the top left), as in Wayland and on iOS.
/// These are the CoreGraphics value types (`CGPoint`, `CGSize`, `CGRect`) with the same rules.

public struct Point: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = Point(x: 0, y: 0)

    public func applying(_ t: AffineTransform2D) -> Point {
        Point(x: t.a * x + t.c * y + t.tx, y: t.b * x + t.d * y + t.ty)
    }

    public var description: String { "(\(formatNumber(x)), \(formatNumber(y)))" }
}

public struct Size: Hashable, Sendable, CustomStringConvertible {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    public static let zero = Size(width: 0, height: 0)

    public var description: String { "\(formatNumber(width))×\(formatNumber(height))" }
}

/// A rectangle whose size may be negative, as `CGRect`: the `min`/`max` accessors and the
/// set operations work on the standardized rectangle.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var origin: Point
    public var size: Size

    public init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)
    /// The rectangle that `intersection` returns when there is none (CGRectNull).
    public static let null = Rect(x: .infinity, y: .infinity, width: 0, height: 0)
    public static let infinite = Rect(
        x: -Double.greatestFiniteMagnitude / 2, y: -Double.greatestFiniteMagnitude / 2,
        width: Double.greatestFiniteMagnitude, height: Double.greatestFiniteMagnitude)

    public var width: Double { abs(size.width) }
    public var height: Double { abs(size.height) }
    public var minX: Double { min(origin.x, origin.x + size.width) }
    public var maxX: Double { max(origin.x, origin.x + size.width) }
    public var minY: Double { min(origin.y, origin.y + size.height) }
    public var maxY: Double { max(origin.y, origin.y + size.height) }
    public var midX: Double { origin.x + size.width / 2 }
    public var midY: Double { origin.y + size.height / 2 }

    public var isNull: Bool { origin.x.isInfinite || origin.y.isInfinite }
    public var isEmpty: Bool { isNull || size.width == 0 || size.height == 0 }

    public var standardized: Rect {
        isNull ? self : Rect(x: minX, y: minY, width: width, height: height)
    }

    /// Half-open containment, as CGRectContainsPoint: the min edges are inside, the max edges are not.
    public func contains(_ p: Point) -> Bool {
        !isNull && p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY
    }

    public func contains(_ r: Rect) -> Bool {
        !isNull && !r.isNull && r.minX >= minX && r.maxX <= maxX && r.minY >= minY && r.maxY <= maxY
    }

    public func union(_ r: Rect) -> Rect {
        if isNull { return r.standardized }
        if r.isNull { return standardized }
        let x0 = min(minX, r.minX), y0 = min(minY, r.minY)
        return Rect(x: x0, y: y0, width: max(maxX, r.maxX) - x0, height: max(maxY, r.maxY) - y0)
    }

    public func intersection(_ r: Rect) -> Rect {
        if isNull || r.isNull { return .null }
        let x0 = max(minX, r.minX), y0 = max(minY, r.minY)
        let x1 = min(maxX, r.maxX), y1 = min(maxY, r.maxY)
        if x1 < x0 || y1 < y0 { return .null }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public func intersects(_ r: Rect) -> Bool {
        let i = intersection(r)
        return !i.isNull && !i.isEmpty
    }

    /// Insets each side; a rectangle that becomes negative in size is null, as CGRectInset.
    public func insetBy(dx: Double, dy: Double) -> Rect {
        if isNull { return self }
        let r = Rect(x: minX + dx, y: minY + dy, width: width - 2 * dx, height: height - 2 * dy)
        return r.size.width < 0 || r.size.height < 0 ? .null : r
    }

    public func offsetBy(dx: Double, dy: Double) -> Rect {
        isNull ? self : Rect(x: origin.x + dx, y: origin.y + dy, width: size.width, height: size.height)
    }

    /// The bounding box of the four transformed corners.
    public func applying(_ t: AffineTransform2D) -> Rect {
        if isNull { return self }
        return Rect(boundingPoints: corners.map { $0.applying(t) })
    }

    /// The corners in the order min-min, max-min, max-max, min-max.
    public var corners: [Point] {
        [Point(x: minX, y: minY), Point(x: maxX, y: minY), Point(x: maxX, y: maxY), Point(x: minX, y: maxY)]
    }

    /// The smallest rectangle holding all the points (null for none).
    public init(boundingPoints points: [Point]) {
        guard let first = points.first else {
            self = .null
            return
        }
        var x0 = first.x, x1 = first.x, y0 = first.y, y1 = first.y
        for p in points.dropFirst() {
            x0 = min(x0, p.x); x1 = max(x1, p.x)
            y0 = min(y0, p.y); y1 = max(y1, p.y)
        }
        self.init(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public var description: String {
        "(\(formatNumber(origin.x)), \(formatNumber(origin.y)), \(formatNumber(size.width)), \(formatNumber(size.height)))"
    }
}

/// A 2D affine transform, `CGAffineTransform`'s layout and rules: a point maps as
/// `(a·x + c·y + tx, b·x + d·y + ty)`.
public struct AffineTransform2D: Hashable, Sendable {
    public var a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    public static let identity = AffineTransform2D(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public init(translationX tx: Double, y ty: Double) {
        self.init(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: ty)
    }

    public init(scaleX sx: Double, y sy: Double) {
        self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
    }

    /// Rotation by `angle` radians; positive angles turn +x towards +y (clockwise on a y-down screen).
    public init(rotationAngle angle: Double) {
        let c = cos(angle), s = sin(angle)
        self.init(a: c, b: s, c: -s, d: c, tx: 0, ty: 0)
    }

    public var isIdentity: Bool { self == .identity }

    /// `self` applied first, then `t`.
    public func concatenating(_ t: AffineTransform2D) -> AffineTransform2D {
        AffineTransform2D(
            a: a * t.a + b * t.c, b: a * t.b + b * t.d,
            c: c * t.a + d * t.c, d: c * t.b + d * t.d,
            tx: tx * t.a + ty * t.c + t.tx, ty: tx * t.b + ty * t.d + t.ty)
    }

    /// The translation applied first, then `self` (CGAffineTransformTranslate).
    public func translatedBy(x: Double, y: Double) -> AffineTransform2D {
        AffineTransform2D(translationX: x, y: y).concatenating(self)
    }

    public func scaledBy(x: Double, y: Double) -> AffineTransform2D {
        AffineTransform2D(scaleX: x, y: y).concatenating(self)
    }

    public func rotated(by angle: Double) -> AffineTransform2D {
        AffineTransform2D(rotationAngle: angle).concatenating(self)
    }

    public var determinant: Double { a * d - b * c }

    /// The inverse, or `self` unchanged when it is singular (CGAffineTransformInvert).
    public func inverted() -> AffineTransform2D {
        let det = determinant
        guard det != 0, det.isFinite else { return self }
        return AffineTransform2D(
            a: d / det, b: -b / det, c: -c / det, d: a / det,
            tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
    }
}

/// Prints numbers the way the seeds write them: whole numbers without a fractional part, others
/// to six decimals with trailing zeros dropped (so float noise like 7e-15 prints as 0).
func formatNumber(_ v: Double) -> String {
    guard v.isFinite else { return String(v) }
    let rounded = (v * 1e6).rounded() / 1e6
    if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int64(rounded)) }
    var text = String(format: "%.6f", rounded)
    while text.hasSuffix("0") { text.removeLast() }
    return text
}
