import Foundation

/// A value that animations can move between: the arithmetic that basic, keyframe, spring,
/// additive and cumulative animations need, defined per type.
///
/// Fractions outside 0…1 extrapolate, because springs overshoot and timing functions may leave
/// that range. Where the two sides differ in kind, each conformance says which wins: colours
/// take `from`'s colour space (the first operand's, the first term's), arrays take `to`'s count
/// (the last term's), and paths of different structure switch discretely.
public protocol Interpolatable: Sendable, Equatable {
    /// The value `fraction` of the way from `from` to `to`: `from` at 0, `to` at 1.
    static func interpolate(from: Self, to: Self, fraction: Double) -> Self

    /// `b` applied on top of `a`: what additive and cumulative animations and `by` values do.
    /// A component sum for vector types; for transforms `b` is applied first, then `a`.
    static func add(_ a: Self, _ b: Self) -> Self

    /// The inverse of `add`: `add(subtract(a, b), b) == a` (within rounding).
    static func subtract(_ a: Self, _ b: Self) -> Self

    /// The value that `add` leaves unchanged: zero, the identity transform, clear colour.
    static var additiveIdentity: Self { get }

    /// How far apart two values are, for paced keyframes: the Euclidean distance of the components.
    static func distance(from: Self, to: Self) -> Double

    /// The affine combination `Σ weightᵢ·valueᵢ` of terms whose weights sum to 1, as cubic keyframes
    /// need (some weights are negative). `interpolate(from: a, to: b, fraction: f)` is
    /// `combine([(a, 1 − f), (b, f)])`.
    static func combine(_ terms: [(value: Self, weight: Double)]) -> Self
}

extension Interpolatable {
    /// Builds the combination from pairwise interpolation: folding term `i` into the running
    /// value of accumulated weight `W` is `interpolate(running, valueᵢ, weightᵢ / (W + weightᵢ))`.
    /// Terms go in order of decreasing weight so that `W` never passes through zero (it rises
    /// through the positive weights, then falls towards their sum, 1).
    public static func combine(_ terms: [(value: Self, weight: Double)]) -> Self {
        precondition(!terms.isEmpty, "combine needs at least one term")
        let ordered = terms.filter { $0.weight != 0 }.sorted { $0.weight > $1.weight }
        guard let first = ordered.first else { return terms[terms.count - 1].value }
        var result = first.value
        var accumulated = first.weight
        for term in ordered.dropFirst() {
            accumulated += term.weight
            result = interpolate(from: result, to: term.value, fraction: term.weight / accumulated)
        }
        return result
    }
}

/// `(1 − f)·a + f·b`, which is exactly `a` at 0 and exactly `b` at 1 (unlike `a + f·(b − a)`).
private func interpolatedComponent(_ a: Double, _ b: Double, _ fraction: Double) -> Double {
    (1 - fraction) * a + fraction * b
}

/// Weighted sums of components for the vector-like conformances.
private func weightedComponentSum<T>(_ terms: [(value: T, weight: Double)], _ component: (T) -> Double) -> Double {
    terms.reduce(0) { $0 + $1.weight * component($1.value) }
}

// MARK: - Scalars and geometry

extension Double: Interpolatable {
    public static func interpolate(from: Double, to: Double, fraction: Double) -> Double {
        interpolatedComponent(from, to, fraction)
    }
    public static func add(_ a: Double, _ b: Double) -> Double { a + b }
    public static func subtract(_ a: Double, _ b: Double) -> Double { a - b }
    public static var additiveIdentity: Double { 0 }
    public static func distance(from: Double, to: Double) -> Double { abs(to - from) }
    public static func combine(_ terms: [(value: Double, weight: Double)]) -> Double {
        weightedComponentSum(terms) { $0 }
    }
}

extension Point: Interpolatable {
    public static func interpolate(from: Point, to: Point, fraction: Double) -> Point {
        Point(x: interpolatedComponent(from.x, to.x, fraction), y: interpolatedComponent(from.y, to.y, fraction))
    }
    public static func add(_ a: Point, _ b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }
    public static func subtract(_ a: Point, _ b: Point) -> Point { Point(x: a.x - b.x, y: a.y - b.y) }
    public static var additiveIdentity: Point { .zero }
    public static func distance(from: Point, to: Point) -> Double {
        ((to.x - from.x) * (to.x - from.x) + (to.y - from.y) * (to.y - from.y)).squareRoot()
    }
    public static func combine(_ terms: [(value: Point, weight: Double)]) -> Point {
        Point(x: weightedComponentSum(terms) { $0.x }, y: weightedComponentSum(terms) { $0.y })
    }
}

extension Size: Interpolatable {
    public static func interpolate(from: Size, to: Size, fraction: Double) -> Size {
        Size(
            width: interpolatedComponent(from.width, to.width, fraction),
            height: interpolatedComponent(from.height, to.height, fraction))
    }
    public static func add(_ a: Size, _ b: Size) -> Size {
        Size(width: a.width + b.width, height: a.height + b.height)
    }
    public static func subtract(_ a: Size, _ b: Size) -> Size {
        Size(width: a.width - b.width, height: a.height - b.height)
    }
    public static var additiveIdentity: Size { .zero }
    public static func distance(from: Size, to: Size) -> Double {
        let dw = to.width - from.width, dh = to.height - from.height
        return (dw * dw + dh * dh).squareRoot()
    }
    public static func combine(_ terms: [(value: Size, weight: Double)]) -> Size {
        Size(width: weightedComponentSum(terms) { $0.width }, height: weightedComponentSum(terms) { $0.height })
    }
}

/// Origin and size component-wise, as stored (not standardized), so a rectangle animates its
/// origin and size independently as `CGRect` values do.
extension Rect: Interpolatable {
    public static func interpolate(from: Rect, to: Rect, fraction: Double) -> Rect {
        Rect(
            origin: .interpolate(from: from.origin, to: to.origin, fraction: fraction),
            size: .interpolate(from: from.size, to: to.size, fraction: fraction))
    }
    public static func add(_ a: Rect, _ b: Rect) -> Rect {
        Rect(origin: .add(a.origin, b.origin), size: .add(a.size, b.size))
    }
    public static func subtract(_ a: Rect, _ b: Rect) -> Rect {
        Rect(origin: .subtract(a.origin, b.origin), size: .subtract(a.size, b.size))
    }
    public static var additiveIdentity: Rect { .zero }
    public static func distance(from: Rect, to: Rect) -> Double {
        let o = Point.distance(from: from.origin, to: to.origin)
        let s = Size.distance(from: from.size, to: to.size)
        return (o * o + s * s).squareRoot()
    }
    public static func combine(_ terms: [(value: Rect, weight: Double)]) -> Rect {
        Rect(
            origin: .combine(terms.map { ($0.value.origin, $0.weight) }),
            size: .combine(terms.map { ($0.value.size, $0.weight) }))
    }
}

// MARK: - Colour

/// Unpremultiplied components, in the colour space of `from` (the first operand, the first term):
/// the other side is converted into it first, so a colour never mixes numbers from two spaces.
extension Color: Interpolatable {
    public static func interpolate(from: Color, to: Color, fraction: Double) -> Color {
        let to = to.converted(to: from.colorSpace)
        return Color(
            red: interpolatedComponent(from.red, to.red, fraction),
            green: interpolatedComponent(from.green, to.green, fraction),
            blue: interpolatedComponent(from.blue, to.blue, fraction),
            alpha: interpolatedComponent(from.alpha, to.alpha, fraction),
            colorSpace: from.colorSpace)
    }
    public static func add(_ a: Color, _ b: Color) -> Color {
        let b = b.converted(to: a.colorSpace)
        return Color(
            red: a.red + b.red, green: a.green + b.green, blue: a.blue + b.blue, alpha: a.alpha + b.alpha,
            colorSpace: a.colorSpace)
    }
    public static func subtract(_ a: Color, _ b: Color) -> Color {
        let b = b.converted(to: a.colorSpace)
        return Color(
            red: a.red - b.red, green: a.green - b.green, blue: a.blue - b.blue, alpha: a.alpha - b.alpha,
            colorSpace: a.colorSpace)
    }
    public static var additiveIdentity: Color { .clear }
    public static func distance(from: Color, to: Color) -> Double {
        let to = to.converted(to: from.colorSpace)
        let (r, g, b, a) = (to.red - from.red, to.green - from.green, to.blue - from.blue, to.alpha - from.alpha)
        return (r * r + g * g + b * b + a * a).squareRoot()
    }
    public static func combine(_ terms: [(value: Color, weight: Double)]) -> Color {
        precondition(!terms.isEmpty, "combine needs at least one term")
        let space = terms[0].value.colorSpace
        let converted = terms.map { (value: $0.value.converted(to: space), weight: $0.weight) }
        return Color(
            red: weightedComponentSum(converted) { $0.red }, green: weightedComponentSum(converted) { $0.green },
            blue: weightedComponentSum(converted) { $0.blue }, alpha: weightedComponentSum(converted) { $0.alpha },
            colorSpace: space)
    }
}

// MARK: - Paths

/// Paths with the same elements in the same order animate point by point (control points
/// included); any other pair switches from `from` to `to` at the halfway point, as
/// `CAShapeLayer.path` does. The additive operations work point by point when the structures
/// match and otherwise keep the first operand, which keeps `subtract` the inverse of `add`.
extension Path: Interpolatable {
    public static func interpolate(from: Path, to: Path, fraction: Double) -> Path {
        guard from.hasSameStructure(as: to) else { return fraction < 0.5 ? from : to }
        return from.mapPoints(with: to) { .interpolate(from: $0, to: $1, fraction: fraction) }
    }
    public static func add(_ a: Path, _ b: Path) -> Path {
        a.hasSameStructure(as: b) ? a.mapPoints(with: b, Point.add) : a
    }
    public static func subtract(_ a: Path, _ b: Path) -> Path {
        a.hasSameStructure(as: b) ? a.mapPoints(with: b, Point.subtract) : a
    }
    public static var additiveIdentity: Path { Path() }

    /// The Euclidean distance over all coordinates when the structures match; otherwise the
    /// distance between the bounding boxes, so paced keyframes still give the jump some time.
    public static func distance(from: Path, to: Path) -> Double {
        if from.hasSameStructure(as: to) {
            let squares = zip(from.elementPoints, to.elementPoints).reduce(0.0) {
                let d = Point.distance(from: $1.0, to: $1.1)
                return $0 + d * d
            }
            return squares.squareRoot()
        }
        guard !from.isEmpty, !to.isEmpty else { return 0 }
        return Rect.distance(from: from.boundingBox, to: to.boundingBox)
    }

    /// Point by point when all structures match; otherwise the term of largest weight (the later
    /// one on a tie), which is the discrete rule of `interpolate`.
    public static func combine(_ terms: [(value: Path, weight: Double)]) -> Path {
        precondition(!terms.isEmpty, "combine needs at least one term")
        let first = terms[0].value
        guard terms.allSatisfy({ $0.value.hasSameStructure(as: first) }) else {
            return terms.reduce(terms[0]) { $1.weight >= $0.weight ? $1 : $0 }.value
        }
        let pointLists = terms.map(\.value.elementPoints)
        let combined = (0..<pointLists[0].count).map { index in
            Point.combine(zip(pointLists, terms).map { ($0[index], $1.weight) })
        }
        return first.replacingPoints(with: combined)
    }

    /// Same element kinds in the same order, so that the points correspond one to one.
    fileprivate func hasSameStructure(as other: Path) -> Bool {
        elements.count == other.elements.count
            && zip(elements, other.elements).allSatisfy { a, b in
                switch (a, b) {
                case (.move, .move), (.line, .line), (.quadCurve, .quadCurve), (.curve, .curve),
                    (.closeSubpath, .closeSubpath):
                    return true
                default:
                    return false
                }
            }
    }

    /// Every point of every element in order, control points before end points.
    fileprivate var elementPoints: [Point] {
        elements.flatMap { element -> [Point] in
            switch element {
            case .move(let p), .line(let p): return [p]
            case .quadCurve(let p, let c): return [c, p]
            case .curve(let p, let c1, let c2): return [c1, c2, p]
            case .closeSubpath: return []
            }
        }
    }

    fileprivate func mapPoints(with other: Path, _ transform: (Point, Point) -> Point) -> Path {
        replacingPoints(with: zip(elementPoints, other.elementPoints).map(transform))
    }

    /// This path's structure with `points` (in `elementPoints` order). Rebuilding through the
    /// public builders reproduces the elements exactly: every subpath of a `Path` already begins
    /// with a move, so the builders add nothing of their own.
    fileprivate func replacingPoints(with points: [Point]) -> Path {
        var path = Path()
        var next = points.makeIterator()
        func take() -> Point { next.next()! }
        for element in elements {
            switch element {
            case .move: path.move(to: take())
            case .line: path.addLine(to: take())
            case .quadCurve:
                let c = take()
                path.addQuadCurve(to: take(), control: c)
            case .curve:
                let c1 = take(), c2 = take()
                path.addCurve(to: take(), control1: c1, control2: c2)
            case .closeSubpath: path.closeSubpath()
            }
        }
        return path
    }
}

// MARK: - Arrays

/// Element by element (`[Double]`, `[Color]`, …). Interpolation and combination give the count
/// of `to` (the last term): where `from` is shorter its missing elements are taken from `to`,
/// and elements past `to`'s count are dropped. `distance` covers the elements both have. `add` and
/// `subtract` pad the shorter operand with the element's additive identity, so `[]` is the
/// additive identity and the inverse law holds for equal counts.
extension Array: Interpolatable where Element: Interpolatable {
    public static func interpolate(from: [Element], to: [Element], fraction: Double) -> [Element] {
        to.indices.map { i in
            i < from.count ? Element.interpolate(from: from[i], to: to[i], fraction: fraction) : to[i]
        }
    }
    public static func add(_ a: [Element], _ b: [Element]) -> [Element] {
        padded(a, b) { Element.add($0, $1) }
    }
    public static func subtract(_ a: [Element], _ b: [Element]) -> [Element] {
        padded(a, b) { Element.subtract($0, $1) }
    }
    public static var additiveIdentity: [Element] { [] }
    public static func distance(from: [Element], to: [Element]) -> Double {
        let squares = zip(from, to).reduce(0.0) {
            let d = Element.distance(from: $1.0, to: $1.1)
            return $0 + d * d
        }
        return squares.squareRoot()
    }
    public static func combine(_ terms: [(value: [Element], weight: Double)]) -> [Element] {
        precondition(!terms.isEmpty, "combine needs at least one term")
        let shape = terms[terms.count - 1].value
        return shape.indices.map { i in
            Element.combine(terms.map { ($0.value.count > i ? $0.value[i] : shape[i], $0.weight) })
        }
    }

    private static func padded(
        _ a: [Element], _ b: [Element], _ operation: (Element, Element) -> Element
    ) -> [Element] {
        (0..<Swift.max(a.count, b.count)).map { i in
            operation(i < a.count ? a[i] : Element.additiveIdentity, i < b.count ? b[i] : Element.additiveIdentity)
        }
    }
}
