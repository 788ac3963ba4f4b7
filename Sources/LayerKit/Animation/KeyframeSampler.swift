import Foundation

/// How a keyframe animation fills the time between keyframes (CAAnimationCalculationMode).
public enum CalculationMode: String, Hashable, Sendable {
    /// Straight interpolation between neighbouring keyframes, at the key times.
    case linear
    /// No interpolation: each keyframe holds until the next key time.
    case discrete
    /// Key times chosen so the value changes at constant speed; keyTimes and timingFunctions are ignored.
    case paced
    /// A Kochanek–Bartels spline through the keyframes, at the key times.
    case cubic
    /// The spline of `cubic` with the key times of `paced`.
    case cubicPaced
}

/// Whether a layer following a path turns with it (CAAnimationRotationMode).
public enum RotationMode: String, Hashable, Sendable {
    /// The layer's x axis follows the path's tangent.
    case auto
    /// As `auto`, turned a further half turn.
    case autoReverse
}

/// Samples a keyframe animation's values (CAKeyframeAnimation without a path) at a progress in
/// 0…1 of its simple duration, after the animation's own timing function.
///
/// Key times must lie in 0…1, never decrease, and come one per value (for `discrete`, one more
/// than the values, value `i` holding from `keyTimes[i]` to `keyTimes[i + 1]`; one per value is
/// also accepted, the last value then holding to the end). Missing or malformed key times are
/// replaced by evenly spaced ones. Before the first key time the first value holds, after the last
/// the last, so a progress outside 0…1 is clamped. `timingFunctions[i]` paces segment `i`; missing
/// entries are linear.
public struct KeyframeSampler<Value: Interpolatable>: Sendable {
    public let values: [Value]
    /// The key times in use: those given when valid, else evenly spaced or (paced modes) spaced by
    /// `Value.distance`.
    public let keyTimes: [Double]
    public let calculationMode: CalculationMode
    private let timingFunctions: [MediaTimingFunction]
    private let tension: [Double]
    private let continuity: [Double]
    private let bias: [Double]

    /// `values` must not be empty. Tension, continuity and bias (one per value, each normally in
    /// −1…1, missing entries 0) shape the `cubic` modes' curve; all zero is a Catmull-Rom spline.
    public init(
        values: [Value], keyTimes: [Double]? = nil, timingFunctions: [MediaTimingFunction]? = nil,
        calculationMode: CalculationMode = .linear, tensionValues: [Double]? = nil,
        continuityValues: [Double]? = nil, biasValues: [Double]? = nil
    ) {
        precondition(!values.isEmpty, "a keyframe animation needs at least one value")
        self.values = values
        self.calculationMode = calculationMode
        let n = values.count
        switch calculationMode {
        case .discrete:
            if let keyTimes, Self.isValid(keyTimes), keyTimes.count == n + 1 || keyTimes.count == n {
                self.keyTimes = keyTimes
            } else {
                self.keyTimes = (0...n).map { Double($0) / Double(n) }
            }
        case .linear, .cubic:
            if let keyTimes, Self.isValid(keyTimes), keyTimes.count == n {
                self.keyTimes = keyTimes
            } else {
                self.keyTimes = Self.evenlySpaced(n)
            }
        case .paced, .cubicPaced:
            self.keyTimes = Self.pacedKeyTimes(values)
        }
        let ignoresTiming = calculationMode == .paced || calculationMode == .cubicPaced
        self.timingFunctions = ignoresTiming ? [] : (timingFunctions ?? [])
        func perKeyframe(_ given: [Double]?) -> [Double] {
            (0..<n).map { i in given.flatMap { i < $0.count ? $0[i] : nil } ?? 0 }
        }
        tension = perKeyframe(tensionValues)
        continuity = perKeyframe(continuityValues)
        bias = perKeyframe(biasValues)
    }

    /// The value at `progress`.
    public func value(at progress: Double) -> Value {
        let n = values.count
        guard n > 1 else { return values[0] }
        let p = progress.isNaN ? 0 : progress
        if calculationMode == .discrete {
            // The last key time at or before p picks the value; equal key times step at once.
            guard p >= keyTimes[0] else { return values[0] }
            return values[min(keyTimes.lastIndex(atOrBefore: p), n - 1)]
        }
        if p < keyTimes[0] { return values[0] }
        if p >= keyTimes[n - 1] { return values[n - 1] }
        let k = keyTimes.lastIndex(atOrBefore: p)
        let local = (p - keyTimes[k]) / (keyTimes[k + 1] - keyTimes[k])
        let s = k < timingFunctions.count ? timingFunctions[k].value(atTime: local) : local
        switch calculationMode {
        case .cubic, .cubicPaced:
            return Value.combine(cubicTerms(segment: k, s: s))
        case .linear, .paced, .discrete:
            return Value.interpolate(from: values[k], to: values[k + 1], fraction: s)
        }
    }

    /// The Kochanek–Bartels curve on segment `k` at local parameter `s`, as weights on the
    /// keyframes around it. A Hermite segment `h00·p_k + h10·m_k + h01·p_{k+1} + h11·m_{k+1}`
    /// whose tangents are differences of neighbouring keyframes expands to weights on
    /// `p_{k−1} … p_{k+2}` that sum to 1. The ends repeat the end keyframes, and each tangent is
    /// scaled by the lengths of the neighbouring intervals (Kochanek and Bartels' adjustment for
    /// unequal key time spacing), which is 1 for even spacing.
    private func cubicTerms(segment k: Int, s: Double) -> [(value: Value, weight: Double)] {
        let n = values.count
        let s2 = s * s, s3 = s2 * s
        let h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2
        func span(_ j: Int) -> Double {
            let j = min(max(j, 0), n - 2)
            return keyTimes[j + 1] - keyTimes[j]
        }
        func adjustment(_ own: Double, _ other: Double) -> Double {
            own + other > 0 ? 2 * own / (own + other) : 1
        }
        // Outgoing tangent at k: a·(p_k − p_{k−1}) + b·(p_{k+1} − p_k).
        let (t0, c0, b0) = (tension[k], continuity[k], bias[k])
        let out = adjustment(span(k), span(k - 1))
        let a = out * (1 - t0) * (1 + b0) * (1 - c0) / 2
        let b = out * (1 - t0) * (1 - b0) * (1 + c0) / 2
        // Incoming tangent at k + 1: c·(p_{k+1} − p_k) + e·(p_{k+2} − p_{k+1}).
        let (t1, c1, b1) = (tension[k + 1], continuity[k + 1], bias[k + 1])
        let into = adjustment(span(k), span(k + 1))
        let c = into * (1 - t1) * (1 + b1) * (1 + c1) / 2
        let e = into * (1 - t1) * (1 - b1) * (1 - c1) / 2

        var before = -h10 * a
        var from = h00 + h10 * a - h10 * b - h11 * c
        var to = h01 + h10 * b + h11 * c - h11 * e
        var after = h11 * e
        // Repeated end keyframes fold into their neighbours.
        if k == 0 { (from, before) = (from + before, 0) }
        if k + 2 == n { (to, after) = (to + after, 0) }
        // The segment's start comes first and its end last, for combine's `from` and `to` roles.
        var terms = [(value: values[k], weight: from)]
        if before != 0 { terms.append((values[k - 1], before)) }
        if after != 0 { terms.append((values[k + 2], after)) }
        terms.append((values[k + 1], to))
        return terms
    }

    private static func isValid(_ keyTimes: [Double]) -> Bool {
        keyTimes.allSatisfy { $0 >= 0 && $0 <= 1 } && zip(keyTimes, keyTimes.dropFirst()).allSatisfy { $0 <= $1 }
    }

    private static func evenlySpaced(_ count: Int) -> [Double] {
        count == 1 ? [0] : (0..<count).map { Double($0) / Double(count - 1) }
    }

    /// Key times proportional to the distance travelled, so the value moves at constant speed.
    private static func pacedKeyTimes(_ values: [Value]) -> [Double] {
        var travelled = [0.0]
        for (a, b) in zip(values, values.dropFirst()) {
            travelled.append(travelled[travelled.count - 1] + Value.distance(from: a, to: b))
        }
        let total = travelled[travelled.count - 1]
        guard total > 0, total.isFinite else { return evenlySpaced(values.count) }
        return travelled.map { $0 / total }
    }
}

extension Array where Element == Double {
    /// The largest index whose element is at most `t`, in a non-decreasing array whose first
    /// element is at most `t` (binary search).
    fileprivate func lastIndex(atOrBefore t: Double) -> Int {
        var low = 0, high = count
        while high - low > 1 {
            let mid = (low + high) / 2
            if self[mid] <= t { low = mid } else { high = mid }
        }
        return low
    }
}

/// A path as keyframes for a position animation (CAKeyframeAnimation.path): the point moves
/// along the path's own lines and curves.
///
/// Every element but a move is a keyframe segment (a close is the line back to its subpath's
/// start); a move jumps. In `linear`, `cubic` and `discrete` modes each segment takes an equal
/// share of the time (discrete holds the segment end points: the path's start, then each
/// segment's end), and within a segment the point moves at constant speed. In `paced` and
/// `cubicPaced` modes it moves at constant speed along the whole path. Curves are measured by
/// sampling at least 32 and up to 1024 points per segment.
public struct PathKeyframes: Sendable {
    private enum Geometry: Sendable {
        case line(Point, Point)
        case quadCurve(Point, Point, Point)
        case curve(Point, Point, Point, Point)
    }

    private struct Segment: Sendable {
        let geometry: Geometry
        /// Arc length from the start at parameters `i / (count − 1)`.
        let lengths: [Double]
        var length: Double { lengths[lengths.count - 1] }
    }

    private let segments: [Segment]
    /// Where the first segment starts; for a path without segments, its first point.
    private let start: Point
    /// The arc length at the start of each segment.
    private let segmentStarts: [Double]
    /// Total arc length, excluding jumps at moves.
    public let length: Double

    public init(path: Path) {
        var segments: [Segment] = []
        var current: Point?
        var subpathStart = Point.zero
        var first: Point?
        for element in path.elements {
            switch element {
            case .move(let p):
                current = p
                subpathStart = p
                if first == nil { first = p }
            case .line(let p):
                segments.append(Self.measure(.line(current ?? p, p)))
                current = p
            case .quadCurve(let p, let c):
                segments.append(Self.measure(.quadCurve(current ?? c, c, p)))
                current = p
            case .curve(let p, let c1, let c2):
                segments.append(Self.measure(.curve(current ?? c1, c1, c2, p)))
                current = p
            case .closeSubpath:
                segments.append(Self.measure(.line(current ?? subpathStart, subpathStart)))
                current = subpathStart
            }
        }
        self.segments = segments
        start = segments.first.map { Self.point(of: $0.geometry, at: 0) } ?? first ?? .zero
        var starts: [Double] = []
        var total = 0.0
        for segment in segments {
            starts.append(total)
            total += segment.length
        }
        segmentStarts = starts
        length = total
    }

    /// The keyframe points: the path's start, then the end of every segment.
    public var keyframePoints: [Point] {
        [start] + segments.map { Self.point(of: $0.geometry, at: 1) }
    }

    /// The position at `progress` (clamped to 0…1).
    public func point(at progress: Double, calculationMode: CalculationMode = .linear) -> Point {
        guard let (index, t) = location(at: progress, calculationMode: calculationMode) else { return start }
        if calculationMode == .discrete {
            return index < 0 ? start : Self.point(of: segments[index].geometry, at: 1)
        }
        return Self.point(of: segments[index].geometry, at: t)
    }

    /// The direction of travel at `progress`, in radians from +x towards +y (clockwise on
    /// Vitrine's y-down screen), as `rotationMode` `auto` turns the layer; 0 for a path without
    /// length. `autoReverse` adds π.
    public func tangentAngle(at progress: Double, calculationMode: CalculationMode = .linear) -> Double {
        guard let (index, t) = location(at: progress, calculationMode: calculationMode) else { return 0 }
        if calculationMode == .discrete {
            return index < 0 ? direction(ofSegment: 0, at: 0) : direction(ofSegment: index, at: 1)
        }
        return direction(ofSegment: index, at: t)
    }

    /// The segment and curve parameter at `progress`; for `discrete`, the index of the segment
    /// whose end holds (−1 for the start). Nil when there are no segments.
    private func location(at progress: Double, calculationMode: CalculationMode) -> (Int, Double)? {
        guard !segments.isEmpty else { return nil }
        let p = progress.isNaN ? 0 : min(max(progress, 0), 1)
        let count = segments.count
        switch calculationMode {
        case .discrete:
            // count + 1 keyframe points, each held for an equal share.
            return (min(Int(p * Double(count + 1)), count) - 1, 1)
        case .paced where length > 0, .cubicPaced where length > 0:
            // Of segments starting at the same distance (some without length) the last one is
            // the one that holds the point.
            let target = p * length
            let index = segmentStarts.lastIndex(atOrBefore: target)
            return (index, parameter(inSegment: index, atLength: target - segmentStarts[index]))
        case .linear, .cubic, .paced, .cubicPaced:
            let scaled = p * Double(count)
            let index = min(Int(scaled), count - 1)
            let fraction = scaled - Double(index)
            return (index, parameter(inSegment: index, atLength: fraction * segments[index].length))
        }
    }

    /// The curve parameter at arc length `s` into segment `index`, from its sampled lengths.
    private func parameter(inSegment index: Int, atLength s: Double) -> Double {
        let lengths = segments[index].lengths
        let last = lengths.count - 1
        guard lengths[last] > 0 else { return min(max(s, 0), 1) }
        let s = min(max(s, 0), lengths[last])
        let j = min(lengths.lastIndex(atOrBefore: s), last - 1)
        let piece = lengths[j + 1] - lengths[j]
        let within = piece > 0 ? (s - lengths[j]) / piece : 0
        return (Double(j) + within) / Double(last)
    }

    /// The tangent's angle on segment `index` at parameter `t`. Where the derivative vanishes (a
    /// control point on an end point) a short chord gives the direction; a segment without
    /// length borrows the direction of the nearest segment before it, else after it.
    private func direction(ofSegment index: Int, at t: Double) -> Double {
        if let angle = Self.angle(of: segments[index].geometry, at: t) { return angle }
        for i in stride(from: index - 1, through: 0, by: -1) {
            if let angle = Self.angle(of: segments[i].geometry, at: 1) { return angle }
        }
        for i in index + 1..<segments.count {
            if let angle = Self.angle(of: segments[i].geometry, at: 0) { return angle }
        }
        return 0
    }

    private static func angle(of geometry: Geometry, at t: Double) -> Double? {
        var d = derivative(of: geometry, at: t)
        if d.x * d.x + d.y * d.y < 1e-18 {
            let a = point(of: geometry, at: max(t - 1e-4, 0)), b = point(of: geometry, at: min(t + 1e-4, 1))
            d = Point(x: b.x - a.x, y: b.y - a.y)
        }
        guard d.x * d.x + d.y * d.y > 0 else { return nil }
        return atan2(d.y, d.x)
    }

    private static func measure(_ geometry: Geometry) -> Segment {
        let samples: Int
        switch geometry {
        case .line(let a, let b):
            return Segment(geometry: geometry, lengths: [0, Point.distance(from: a, to: b)])
        case .quadCurve(let a, let c, let b):
            samples = sampleCount(polygon: [a, c, b])
        case .curve(let a, let c1, let c2, let b):
            samples = sampleCount(polygon: [a, c1, c2, b])
        }
        var lengths = [0.0]
        var previous = point(of: geometry, at: 0)
        for i in 1...samples {
            let next = point(of: geometry, at: Double(i) / Double(samples))
            lengths.append(lengths[i - 1] + Point.distance(from: previous, to: next))
            previous = next
        }
        return Segment(geometry: geometry, lengths: lengths)
    }

    /// About one sample per point of the control polygon's length, at least 32 and at most 1024.
    private static func sampleCount(polygon: [Point]) -> Int {
        let bound = zip(polygon, polygon.dropFirst()).reduce(0.0) { $0 + Point.distance(from: $1.0, to: $1.1) }
        return bound.isFinite ? min(max(Int(bound.rounded(.up)), 32), 1024) : 32
    }

    private static func point(of geometry: Geometry, at t: Double) -> Point {
        let u = 1 - t
        switch geometry {
        case .line(let a, let b):
            return Point(x: u * a.x + t * b.x, y: u * a.y + t * b.y)
        case .quadCurve(let a, let c, let b):
            return Point(
                x: u * u * a.x + 2 * u * t * c.x + t * t * b.x, y: u * u * a.y + 2 * u * t * c.y + t * t * b.y)
        case .curve(let a, let c1, let c2, let b):
            let (w0, w1, w2, w3) = (u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t)
            return Point(
                x: w0 * a.x + w1 * c1.x + w2 * c2.x + w3 * b.x, y: w0 * a.y + w1 * c1.y + w2 * c2.y + w3 * b.y)
        }
    }

    private static func derivative(of geometry: Geometry, at t: Double) -> Point {
        let u = 1 - t
        switch geometry {
        case .line(let a, let b):
            return Point(x: b.x - a.x, y: b.y - a.y)
        case .quadCurve(let a, let c, let b):
            return Point(
                x: 2 * u * (c.x - a.x) + 2 * t * (b.x - c.x), y: 2 * u * (c.y - a.y) + 2 * t * (b.y - c.y))
        case .curve(let a, let c1, let c2, let b):
            return Point(
                x: 3 * u * u * (c1.x - a.x) + 6 * u * t * (c2.x - c1.x) + 3 * t * t * (b.x - c2.x),
                y: 3 * u * u * (c1.y - a.y) + 6 * u * t * (c2.y - c1.y) + 3 * t * t * (b.y - c2.y))
        }
    }
}
