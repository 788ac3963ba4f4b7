import Foundation

/// How the inside of a path is decided, for filling, clipping and hit testing.
public enum FillRule: Sendable {
    /// Inside where the path winds around the point a non-zero number of times.
    case winding
    /// Inside where a ray from the point crosses the path an odd number of times.
    case evenOdd
}

/// One drawing instruction of a `Path`, the role of `CGPathElement`.
public enum PathElement: Hashable, Sendable {
    case move(to: Point)
    case line(to: Point)
    case quadCurve(to: Point, control: Point)
    case curve(to: Point, control1: Point, control2: Point)
    case closeSubpath
}

/// A resolution-independent outline, the role of `CGMutablePath`, as a value type.
///
/// Every subpath in `elements` begins with `.move(to:)`: drawing operations that need a current
/// point and have none supply one, as cairo does.
public struct Path: Hashable, Sendable {
    public private(set) var elements: [PathElement] = []
    /// Where the next segment starts: the end of the last one, or the start of the subpath just
    /// closed; nil for an empty path.
    public private(set) var currentPoint: Point?
    private var subpathStart: Point?

    public init() {}

    public init(rect: Rect) {
        addRect(rect)
    }

    public init(roundedRect rect: Rect, cornerWidth: Double, cornerHeight: Double) {
        addRoundedRect(in: rect, cornerWidth: cornerWidth, cornerHeight: cornerHeight)
    }

    public init(ellipseIn rect: Rect) {
        addEllipse(in: rect)
    }

    public var isEmpty: Bool { elements.isEmpty }

    public mutating func move(to point: Point) {
        append(.move(to: point))
    }

    /// Adds a straight segment; with no current point this only moves there.
    public mutating func addLine(to point: Point) {
        guard currentPoint != nil else {
            move(to: point)
            return
        }
        beginSegment(from: point)
        append(.line(to: point))
    }

    /// Adds a quadratic Bézier; with no current point the curve starts at `control`.
    public mutating func addQuadCurve(to point: Point, control: Point) {
        beginSegment(from: control)
        append(.quadCurve(to: point, control: control))
    }

    /// Adds a cubic Bézier; with no current point the curve starts at `control1`.
    public mutating func addCurve(to point: Point, control1: Point, control2: Point) {
        beginSegment(from: control1)
        append(.curve(to: point, control1: control1, control2: control2))
    }

    /// Closes the current subpath with a straight line to its start; does nothing when there is
    /// no open subpath.
    public mutating func closeSubpath() {
        guard currentPoint != nil, elements.last != .closeSubpath else { return }
        append(.closeSubpath)
    }

    /// Adds an arc of the circle at `center`, as cubic Béziers of at most 90° each, preceded by a line
    /// from the current point to the arc's start (or a move there when there is none).
    ///
    /// Angles are in radians from the +x axis. In this y-down space a positive angle turns from +x
    /// towards +y, so `clockwise: true` sweeps through increasing angles, which appears clockwise on
    /// screen. The sweep runs from `startAngle` to `endAngle` in the chosen direction, wrapping round
    /// when `endAngle` lies the other way; a difference of 2π or more in that direction is a full circle.
    public mutating func addArc(center: Point, radius: Double, startAngle: Double, endAngle: Double, clockwise: Bool) {
        let fullTurn = 2 * Double.pi
        var sweep = endAngle - startAngle
        if clockwise {
            if sweep < 0 { sweep = fmod(sweep, fullTurn) + fullTurn }
            sweep = min(sweep, fullTurn)
        } else {
            if sweep > 0 { sweep = fmod(sweep, fullTurn) - fullTurn }
            sweep = max(sweep, -fullTurn)
        }
        func point(at angle: Double) -> Point {
            Point(x: center.x + radius * cos(angle), y: center.y + radius * sin(angle))
        }
        let start = point(at: startAngle)
        if currentPoint == nil { move(to: start) } else { addLine(to: start) }
        guard sweep != 0, sweep.isFinite else { return }

        // The small allowance keeps an exact quarter turn, blurred by rounding, to one segment.
        let segmentCount = max(1, Int((abs(sweep) / (Double.pi / 2) - 1e-9).rounded(.up)))
        let step = sweep / Double(segmentCount)
        // The control-point distance that makes the midpoint of each segment lie on the circle.
        let handle = 4 / 3 * tan(step / 4) * radius
        var angle = startAngle
        for index in 1...segmentCount {
            let nextAngle = index == segmentCount ? startAngle + sweep : angle + step
            let from = point(at: angle), to = point(at: nextAngle)
            addCurve(
                to: to,
                control1: Point(x: from.x - handle * sin(angle), y: from.y + handle * cos(angle)),
                control2: Point(x: to.x + handle * sin(nextAngle), y: to.y - handle * cos(nextAngle)))
            angle = nextAngle
        }
    }

    /// Adds a closed subpath going min-min, max-min, max-max, min-max (clockwise on screen), as CG does.
    public mutating func addRect(_ rect: Rect) {
        guard !rect.isNull else { return }
        let corners = rect.corners
        move(to: corners[0])
        for corner in corners.dropFirst() { addLine(to: corner) }
        closeSubpath()
    }

    /// Adds a closed rectangle with elliptical corners, clockwise on screen from the top edge. The
    /// corner radii are clamped to 0…half of each side, so oversized radii give an ellipse-capped shape.
    public mutating func addRoundedRect(in rect: Rect, cornerWidth: Double, cornerHeight: Double) {
        guard !rect.isNull else { return }
        let rx = min(max(cornerWidth, 0), rect.width / 2)
        let ry = min(max(cornerHeight, 0), rect.height / 2)
        guard rx > 0, ry > 0 else {
            addRect(rect)
            return
        }
        let (x0, y0, x1, y1) = (rect.minX, rect.minY, rect.maxX, rect.maxY)
        move(to: Point(x: x0 + rx, y: y0))
        addLineUnlessThere(Point(x: x1 - rx, y: y0))
        addQuarterEllipse(to: Point(x: x1, y: y0 + ry), corner: Point(x: x1, y: y0))
        addLineUnlessThere(Point(x: x1, y: y1 - ry))
        addQuarterEllipse(to: Point(x: x1 - rx, y: y1), corner: Point(x: x1, y: y1))
        addLineUnlessThere(Point(x: x0 + rx, y: y1))
        addQuarterEllipse(to: Point(x: x0, y: y1 - ry), corner: Point(x: x0, y: y1))
        addLineUnlessThere(Point(x: x0, y: y0 + ry))
        addQuarterEllipse(to: Point(x: x0 + rx, y: y0), corner: Point(x: x0, y: y0))
        closeSubpath()
    }

    /// Adds a closed ellipse inscribed in `rect`: four cubic Béziers starting at (maxX, midY) and
    /// running clockwise on screen, as CG does.
    public mutating func addEllipse(in rect: Rect) {
        guard !rect.isNull else { return }
        let (x0, y0, x1, y1) = (rect.minX, rect.minY, rect.maxX, rect.maxY)
        let (cx, cy) = ((x0 + x1) / 2, (y0 + y1) / 2)
        move(to: Point(x: x1, y: cy))
        addQuarterEllipse(to: Point(x: cx, y: y1), corner: Point(x: x1, y: y1))
        addQuarterEllipse(to: Point(x: x0, y: cy), corner: Point(x: x0, y: y1))
        addQuarterEllipse(to: Point(x: cx, y: y0), corner: Point(x: x0, y: y0))
        addQuarterEllipse(to: Point(x: x1, y: cy), corner: Point(x: x1, y: y0))
        closeSubpath()
    }

    /// Appends `path`'s subpaths unchanged.
    public mutating func addPath(_ path: Path) {
        for element in path.elements { append(element) }
    }

    /// The path with every point, control points included, mapped through `t`.
    public func applying(_ t: AffineTransform2D) -> Path {
        var result = Path()
        for element in elements {
            switch element {
            case .move(let p): result.append(.move(to: p.applying(t)))
            case .line(let p): result.append(.line(to: p.applying(t)))
            case .quadCurve(let p, let c): result.append(.quadCurve(to: p.applying(t), control: c.applying(t)))
            case .curve(let p, let c1, let c2):
                result.append(.curve(to: p.applying(t), control1: c1.applying(t), control2: c2.applying(t)))
            case .closeSubpath: result.append(.closeSubpath)
            }
        }
        return result
    }

    /// The smallest rectangle holding every point of the path, control points included
    /// (`CGPathGetBoundingBox`); `Rect.null` for an empty path.
    public var boundingBox: Rect {
        var points: [Point] = []
        for element in elements {
            switch element {
            case .move(let p), .line(let p): points.append(p)
            case .quadCurve(let p, let c): points += [c, p]
            case .curve(let p, let c1, let c2): points += [c1, c2, p]
            case .closeSubpath: break
            }
        }
        return Rect(boundingPoints: points)
    }

    /// The smallest rectangle holding the path's end points and curves, without the control points
    /// (`CGPathGetPathBoundingBox`): curve extrema are found where the derivative vanishes.
    public var boundingBoxOfPath: Rect {
        var points: [Point] = []
        var current = Point.zero, start = Point.zero
        for element in elements {
            switch element {
            case .move(let p):
                points.append(p)
                current = p
                start = p
            case .line(let p):
                points.append(p)
                current = p
            case .quadCurve(let p, let c):
                points.append(p)
                let ts = Path.quadExtrema(current.x, c.x, p.x) + Path.quadExtrema(current.y, c.y, p.y)
                points += ts.map { Path.quadPoint(current, c, p, $0) }
                current = p
            case .curve(let p, let c1, let c2):
                points.append(p)
                let ts = Path.cubicExtrema(current.x, c1.x, c2.x, p.x) + Path.cubicExtrema(current.y, c1.y, c2.y, p.y)
                points += ts.map { Path.cubicPoint(current, c1, c2, p, $0) }
                current = p
            case .closeSubpath:
                current = start
            }
        }
        return Rect(boundingPoints: points)
    }

    /// Whether `point` is inside the path as filled with `rule`; open subpaths count as closed. Curves
    /// are flattened to segments within 0.05 of the true curve.
    public func contains(_ point: Point, using rule: FillRule = .winding) -> Bool {
        var winding = 0
        for polygon in flattened(tolerance: 0.05) {
            guard var a = polygon.last else { continue }
            for b in polygon {
                let side = (b.x - a.x) * (point.y - a.y) - (point.x - a.x) * (b.y - a.y)
                if a.y <= point.y {
                    if b.y > point.y && side > 0 { winding += 1 }
                } else if b.y <= point.y && side < 0 {
                    winding -= 1
                }
                a = b
            }
        }
        switch rule {
        case .winding: return winding != 0
        case .evenOdd: return winding % 2 != 0
        }
    }

    /// Each subpath as a polygon of points, curves replaced by chords within `tolerance`.
    func flattened(tolerance: Double) -> [[Point]] {
        var polygons: [[Point]] = []
        var polygon: [Point] = []
        var current = Point.zero
        for element in elements {
            switch element {
            case .move(let p):
                if !polygon.isEmpty { polygons.append(polygon) }
                polygon = [p]
                current = p
            case .line(let p):
                polygon.append(p)
                current = p
            case .quadCurve(let p, let c):
                // A quadratic deviates from n uniform chords by at most |p0 − 2c + p| / (4n²).
                let d = Path.length(current.x - 2 * c.x + p.x, current.y - 2 * c.y + p.y)
                let n = Path.segmentCount(chordErrorBound: d / 4, tolerance: tolerance)
                for i in 1...n { polygon.append(Path.quadPoint(current, c, p, Double(i) / Double(n))) }
                current = p
            case .curve(let p, let c1, let c2):
                // A cubic deviates from n uniform chords by at most 3·max|second differences| / (4n²).
                let d1 = Path.length(current.x - 2 * c1.x + c2.x, current.y - 2 * c1.y + c2.y)
                let d2 = Path.length(c1.x - 2 * c2.x + p.x, c1.y - 2 * c2.y + p.y)
                let n = Path.segmentCount(chordErrorBound: 3 * max(d1, d2) / 4, tolerance: tolerance)
                for i in 1...n { polygon.append(Path.cubicPoint(current, c1, c2, p, Double(i) / Double(n))) }
                current = p
            case .closeSubpath:
                current = polygon.first ?? current
                if !polygon.isEmpty { polygons.append(polygon) }
                polygon = []
            }
        }
        if !polygon.isEmpty { polygons.append(polygon) }
        return polygons
    }

    // MARK: - Building blocks

    /// 4/3·(√2 − 1): the handle length, relative to the radius, of a cubic quarter circle.
    static let circleHandleRatio = 4 / 3 * (2.0.squareRoot() - 1)

    private mutating func append(_ element: PathElement) {
        switch element {
        case .move(let p):
            currentPoint = p
            subpathStart = p
        case .line(let p), .quadCurve(let p, _), .curve(let p, _, _):
            currentPoint = p
        case .closeSubpath:
            currentPoint = subpathStart
        }
        elements.append(element)
    }

    /// Makes sure a segment can follow: moves to `fallback` when there is no current point, and
    /// reopens a subpath at the current point after a close, keeping "every subpath starts with a move".
    private mutating func beginSegment(from fallback: Point) {
        if let currentPoint {
            if elements.last == .closeSubpath { append(.move(to: currentPoint)) }
        } else {
            move(to: fallback)
        }
    }

    /// A quarter of an axis-aligned ellipse from the current point to `end`, both tangent to the
    /// sides of the bounding box that meet at `corner`.
    private mutating func addQuarterEllipse(to end: Point, corner: Point) {
        let start = currentPoint ?? end
        let k = Path.circleHandleRatio
        addCurve(
            to: end,
            control1: Point(x: start.x + k * (corner.x - start.x), y: start.y + k * (corner.y - start.y)),
            control2: Point(x: end.x + k * (corner.x - end.x), y: end.y + k * (corner.y - end.y)))
    }

    private mutating func addLineUnlessThere(_ point: Point) {
        if point != currentPoint { addLine(to: point) }
    }

    private static func length(_ dx: Double, _ dy: Double) -> Double { (dx * dx + dy * dy).squareRoot() }

    /// The number of uniform steps that keeps the chord error, `bound` for one step and `bound / n²`
    /// for n, within `tolerance`.
    private static func segmentCount(chordErrorBound bound: Double, tolerance: Double) -> Int {
        let n = (bound / tolerance).squareRoot().rounded(.up)
        // Non-finite input (infinite coordinates) still yields a finite, bounded polygon.
        return n.isFinite ? min(max(Int(n), 1), 10_000) : 1
    }

    static func quadPoint(_ p0: Point, _ c: Point, _ p1: Point, _ t: Double) -> Point {
        let u = 1 - t
        return Point(x: u * u * p0.x + 2 * u * t * c.x + t * t * p1.x, y: u * u * p0.y + 2 * u * t * c.y + t * t * p1.y)
    }

    static func cubicPoint(_ p0: Point, _ c1: Point, _ c2: Point, _ p1: Point, _ t: Double) -> Point {
        let u = 1 - t
        let (w0, w1, w2, w3) = (u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t)
        return Point(
            x: w0 * p0.x + w1 * c1.x + w2 * c2.x + w3 * p1.x,
            y: w0 * p0.y + w1 * c1.y + w2 * c2.y + w3 * p1.y)
    }

    /// The parameters in (0, 1) where one coordinate of a quadratic has zero derivative.
    static func quadExtrema(_ p0: Double, _ c: Double, _ p1: Double) -> [Double] {
        let denominator = p0 - 2 * c + p1
        guard denominator != 0 else { return [] }
        let t = (p0 - c) / denominator
        return t > 0 && t < 1 ? [t] : []
    }

    /// The parameters in (0, 1) where one coordinate of a cubic has zero derivative: the roots of
    /// a·t² + b·t + c with the derivative's coefficients, solved in the cancellation-free form.
    static func cubicExtrema(_ p0: Double, _ c1: Double, _ c2: Double, _ p1: Double) -> [Double] {
        let d0 = c1 - p0, d1 = c2 - c1, d2 = p1 - c2
        let a = d0 - 2 * d1 + d2, b = 2 * (d1 - d0), c = d0
        let discriminant = b * b - 4 * a * c
        guard discriminant >= 0 else { return [] }
        let q = -0.5 * (b + (b < 0 ? -1 : 1) * discriminant.squareRoot())
        return [q / a, c / q].filter { $0.isFinite && $0 > 0 && $0 < 1 }
    }
}
