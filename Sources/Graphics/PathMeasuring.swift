import Foundation

/// Length measurement and trimming, for partial strokes (CAShapeLayer's strokeStart and strokeEnd).
///
/// Lengths of lines are exact; curves are integrated numerically (adaptive Simpson's rule on the
/// speed |B′(t)|, to about 1e-9 of their length), and a curve is cut by de Casteljau subdivision at
/// the parameter whose arc length is wanted.
extension Path {
    /// The total length of the path: every segment, the closing line of each closed subpath included.
    public var length: Double {
        segments.reduce(0) { $0 + $1.length }
    }

    /// The part of the path between the fractions `start` and `end` of its length, measured along
    /// all subpaths in order (clamped to 0…1). Each run of the result begins with a move; a closed
    /// subpath kept whole stays closed, so its corners join. Empty when `start` is not below `end`.
    public func trimmed(from start: Double, to end: Double) -> Path {
        let start = min(max(start, 0), 1), end = min(max(end, 0), 1)
        if start <= 0 && end >= 1 { return self }
        var result = Path()
        guard start < end else { return result }
        let segments = self.segments
        let total = segments.reduce(0) { $0 + $1.length }
        guard total > 0 else { return result }
        let (s0, s1) = (start * total, end * total)
        var travelled = 0.0
        // The subpath and the end of the last piece emitted, to continue a run without a move.
        var lastPiece: (subpath: Int, end: Point)?
        for segment in segments {
            let (a, b) = (travelled, travelled + segment.length)
            travelled = b
            guard b > s0, a < s1, segment.length > 0 else { continue }
            let t0 = a >= s0 ? 0 : segment.parameter(atLength: s0 - a)
            let t1 = b <= s1 ? 1 : segment.parameter(atLength: s1 - a)
            let piece = segment.part(from: t0, to: t1)
            if lastPiece?.subpath != segment.subpath || lastPiece?.end != piece.start {
                result.move(to: piece.start)
            }
            if segment.isClosing && t1 == 1 && segment.subpathIsWhole(from: s0, startingAt: a, in: segments) {
                result.closeSubpath()
            } else {
                piece.append(to: &result)
            }
            lastPiece = (segment.subpath, piece.end)
        }
        return result
    }

    /// The drawn segments in order, with the closing line of each closed subpath.
    var segments: [PathSegment] {
        var segments: [PathSegment] = []
        var current = Point.zero, subpathStart = Point.zero
        var subpath = -1
        var firstOfSubpath = 0
        for element in elements {
            switch element {
            case .move(let p):
                current = p
                subpathStart = p
                subpath += 1
                firstOfSubpath = segments.count
            case .line(let p):
                segments.append(PathSegment(points: [current, p], subpath: subpath, firstOfSubpath: firstOfSubpath))
                current = p
            case .quadCurve(let p, let c):
                // The cubic that traces the quadratic exactly.
                let c1 = Point(x: current.x + 2 / 3 * (c.x - current.x), y: current.y + 2 / 3 * (c.y - current.y))
                let c2 = Point(x: p.x + 2 / 3 * (c.x - p.x), y: p.y + 2 / 3 * (c.y - p.y))
                segments.append(PathSegment(points: [current, c1, c2, p], subpath: subpath, firstOfSubpath: firstOfSubpath))
                current = p
            case .curve(let p, let c1, let c2):
                segments.append(PathSegment(points: [current, c1, c2, p], subpath: subpath, firstOfSubpath: firstOfSubpath))
                current = p
            case .closeSubpath:
                var closing = PathSegment(points: [current, subpathStart], subpath: subpath, firstOfSubpath: firstOfSubpath)
                closing.isClosing = true
                segments.append(closing)
                current = subpathStart
            }
        }
        return segments
    }
}

/// One line (two points) or cubic Bézier (four) of a path.
struct PathSegment {
    var points: [Point]
    var subpath: Int
    /// The index of its subpath's first segment.
    var firstOfSubpath: Int
    /// The line that `closeSubpath` draws back to the subpath's start.
    var isClosing = false
    let length: Double

    init(points: [Point], subpath: Int, firstOfSubpath: Int) {
        self.points = points
        self.subpath = subpath
        self.firstOfSubpath = firstOfSubpath
        length = PathSegment.length(of: points, upTo: 1)
    }

    var start: Point { points[0] }
    var end: Point { points[points.count - 1] }

    /// Whether the trimmed range, which starts at `s0` along the path, holds this closing
    /// segment's whole subpath (which starts `a` minus the subpath's length before it).
    func subpathIsWhole(from s0: Double, startingAt a: Double, in segments: [PathSegment]) -> Bool {
        let before = segments[firstOfSubpath...].prefix { !($0.isClosing && $0.subpath == subpath) }
        let subpathStart = a - before.reduce(0) { $0 + $1.length }
        return s0 <= subpathStart
    }

    /// The point at parameter `t`.
    func point(at t: Double) -> Point {
        let p = points
        if p.count == 2 { return Point(x: p[0].x + (p[1].x - p[0].x) * t, y: p[0].y + (p[1].y - p[0].y) * t) }
        let u = 1 - t
        let (a, b, c, d) = (u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t)
        return Point(
            x: a * p[0].x + b * p[1].x + c * p[2].x + d * p[3].x, y: a * p[0].y + b * p[1].y + c * p[2].y + d * p[3].y)
    }

    /// The parameter at which the arc length from the start is `s`.
    func parameter(atLength s: Double) -> Double {
        guard length > 0 else { return 0 }
        if points.count == 2 { return min(max(s / length, 0), 1) }
        // Bisection on the monotonic arc length, refined by Newton steps where they stay inside.
        var low = 0.0, high = 1.0
        var t = s / length
        for _ in 0..<60 {
            let f = PathSegment.length(of: points, upTo: t) - s
            if abs(f) <= 1e-12 * max(length, 1) { break }
            if f > 0 { high = t } else { low = t }
            let speed = PathSegment.speed(points, t)
            let newton = speed > 0 ? t - f / speed : .nan
            t = newton > low && newton < high ? newton : (low + high) / 2
        }
        return t
    }

    /// The part between parameters `t0` and `t1`.
    func part(from t0: Double, to t1: Double) -> PathSegment {
        if points.count == 2 {
            return PathSegment(points: [point(at: t0), point(at: t1)], subpath: subpath, firstOfSubpath: firstOfSubpath)
        }
        // Cut at t1, then the first part at t0 / t1 of its parameter range.
        let head = t1 >= 1 ? points : PathSegment.split(points, at: t1).0
        let piece = t0 <= 0 ? head : PathSegment.split(head, at: t1 > 0 ? t0 / t1 : 0).1
        return PathSegment(points: piece, subpath: subpath, firstOfSubpath: firstOfSubpath)
    }

    /// Adds the segment (not its start) to `path`.
    func append(to path: inout Path) {
        if points.count == 2 {
            path.addLine(to: points[1])
        } else {
            path.addCurve(to: points[3], control1: points[1], control2: points[2])
        }
    }

    /// De Casteljau's subdivision of a cubic at `t`.
    static func split(_ p: [Point], at t: Double) -> ([Point], [Point]) {
        func lerp(_ a: Point, _ b: Point) -> Point { Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t) }
        let (p01, p12, p23) = (lerp(p[0], p[1]), lerp(p[1], p[2]), lerp(p[2], p[3]))
        let (p012, p123) = (lerp(p01, p12), lerp(p12, p23))
        let mid = lerp(p012, p123)
        return ([p[0], p01, p012, mid], [mid, p123, p23, p[3]])
    }

    /// |B′(t)| of a cubic.
    static func speed(_ p: [Point], _ t: Double) -> Double {
        let u = 1 - t
        let dx = 3 * u * u * (p[1].x - p[0].x) + 6 * u * t * (p[2].x - p[1].x) + 3 * t * t * (p[3].x - p[2].x)
        let dy = 3 * u * u * (p[1].y - p[0].y) + 6 * u * t * (p[2].y - p[1].y) + 3 * t * t * (p[3].y - p[2].y)
        return (dx * dx + dy * dy).squareRoot()
    }

    /// The arc length from parameter 0 to `t`: exact for lines, adaptive Simpson for cubics.
    static func length(of p: [Point], upTo t: Double) -> Double {
        if p.count == 2 {
            let dx = p[1].x - p[0].x, dy = p[1].y - p[0].y
            return (dx * dx + dy * dy).squareRoot() * t
        }
        guard t > 0 else { return 0 }
        func simpson(_ a: Double, _ b: Double, _ fa: Double, _ fm: Double, _ fb: Double) -> Double {
            (b - a) / 6 * (fa + 4 * fm + fb)
        }
        func adaptive(_ a: Double, _ b: Double, _ fa: Double, _ fm: Double, _ fb: Double, _ whole: Double, _ depth: Int) -> Double {
            let m = (a + b) / 2
            let (lm, rm) = (speed(p, (a + m) / 2), speed(p, (m + b) / 2))
            let left = simpson(a, m, fa, lm, fm), right = simpson(m, b, fm, rm, fb)
            if depth <= 0 || (depth < 26 && abs(left + right - whole) <= 1e-10 * 15) {
                return left + right + (left + right - whole) / 15
            }
            return adaptive(a, m, fa, lm, fm, left, depth - 1) + adaptive(m, b, fm, rm, fb, right, depth - 1)
        }
        let (fa, fm, fb) = (speed(p, 0), speed(p, t / 2), speed(p, t))
        return adaptive(0, t, fa, fm, fb, simpson(0, t, fa, fm, fb), 30)
    }
}
