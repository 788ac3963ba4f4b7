import Foundation
import Testing

import Graphics

func expectClose(_ a: Point, _ b: Point, tolerance: Double = 1e-9, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
        abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance, "\(a) is not within \(tolerance) of \(b)",
        sourceLocation: sourceLocation)
}

func expectClose(_ a: Rect, _ b: Rect, tolerance: Double = 1e-9, sourceLocation: SourceLocation = #_sourceLocation) {
    let close =
        abs(a.minX - b.minX) <= tolerance && abs(a.minY - b.minY) <= tolerance
        && abs(a.maxX - b.maxX) <= tolerance && abs(a.maxY - b.maxY) <= tolerance
    #expect(close, "\(a) is not within \(tolerance) of \(b)", sourceLocation: sourceLocation)
}

/// The end point of every element that has one.
func endPoints(_ path: Path) -> [Point] {
    path.elements.compactMap {
        switch $0 {
        case .move(let p), .line(let p), .quadCurve(let p, _), .curve(let p, _, _): p
        case .closeSubpath: nil
        }
    }
}

@Suite struct PathTests {
    @Test func emptyPath() {
        let path = Path()
        #expect(path.isEmpty)
        #expect(path.currentPoint == nil)
        #expect(path.boundingBox.isNull)
        #expect(path.boundingBoxOfPath.isNull)
        #expect(!path.contains(.zero))
    }

    @Test func rectPathRunsClockwiseOnScreenFromTheMinCorner() {
        let path = Path(rect: Rect(x: 4, y: 3, width: -2, height: 5))
        #expect(
            path.elements == [
                .move(to: Point(x: 2, y: 3)), .line(to: Point(x: 4, y: 3)), .line(to: Point(x: 4, y: 8)),
                .line(to: Point(x: 2, y: 8)), .closeSubpath,
            ])
        #expect(path.currentPoint == Point(x: 2, y: 3))
        #expect(path.boundingBox == Rect(x: 2, y: 3, width: 2, height: 5))
    }

    @Test func quarterCircleArcEndsExactlyAndIsBoxedByItsQuadrant() {
        var path = Path()
        path.addArc(center: Point(x: 10, y: 10), radius: 5, startAngle: 0, endAngle: .pi / 2, clockwise: true)
        #expect(path.elements.count == 2)
        guard case .move(let start) = path.elements[0], case .curve(let end, let c1, let c2) = path.elements[1] else {
            Issue.record("expected a move and one curve, got \(path.elements)")
            return
        }
        expectClose(start, Point(x: 15, y: 10))
        // Clockwise on screen from +x is towards +y: down to the bottom of the circle.
        expectClose(end, Point(x: 10, y: 15))
        let handle = 5 * 4 / 3 * (2.0.squareRoot() - 1)
        expectClose(c1, Point(x: 15, y: 10 + handle))
        expectClose(c2, Point(x: 10 + handle, y: 15))
        expectClose(path.currentPoint!, Point(x: 10, y: 15))
        expectClose(path.boundingBox, Rect(x: 10, y: 10, width: 5, height: 5))
        expectClose(path.boundingBoxOfPath, Rect(x: 10, y: 10, width: 5, height: 5))
    }

    @Test func counterclockwiseArcGoesTheOtherWayRound() {
        var path = Path()
        path.addArc(center: Point(x: 10, y: 10), radius: 5, startAngle: 0, endAngle: .pi / 2, clockwise: false)
        // 270° through the top (−π/2) and the left (−π): three segments of 90°.
        #expect(path.elements.count == 4)
        let ends = endPoints(path)
        expectClose(ends[1], Point(x: 10, y: 5))
        expectClose(ends[2], Point(x: 5, y: 10))
        expectClose(ends[3], Point(x: 10, y: 15))
        expectClose(path.boundingBoxOfPath, Rect(x: 5, y: 5, width: 10, height: 10))
    }

    @Test func fullCircleArcUsesFourSegmentsAndClosesOnItself() {
        var path = Path()
        path.addArc(center: .zero, radius: 1, startAngle: 0, endAngle: 2 * .pi, clockwise: true)
        #expect(path.elements.count == 5)
        expectClose(path.currentPoint!, Point(x: 1, y: 0))
        expectClose(path.boundingBoxOfPath, Rect(x: -1, y: -1, width: 2, height: 2))
    }

    @Test func arcSweepsWrapAroundInTheChosenDirection() {
        var path = Path()
        // From 3π/2 clockwise (increasing) to 0 is a quarter turn through 2π.
        path.addArc(center: .zero, radius: 2, startAngle: 3 * .pi / 2, endAngle: 0, clockwise: true)
        #expect(path.elements.count == 2)
        expectClose(endPoints(path)[0], Point(x: 0, y: -2))
        expectClose(endPoints(path)[1], Point(x: 2, y: 0))
    }

    @Test func arcFromACurrentPointAddsAConnectingLine() {
        var path = Path()
        path.move(to: Point(x: 0, y: 0))
        path.addArc(center: Point(x: 10, y: 0), radius: 2, startAngle: .pi, endAngle: 0, clockwise: true)
        guard case .line(let joint) = path.elements[1] else {
            Issue.record("expected a line to the arc's start, got \(path.elements)")
            return
        }
        expectClose(joint, Point(x: 8, y: 0))
        // From π increasing to 2π passes through 3π/2, the top of the circle in y-down space.
        expectClose(path.boundingBoxOfPath, Rect(x: 0, y: -2, width: 12, height: 2))
    }

    @Test func tightBoundingBoxOfAnArcExcludesItsControlPoints() {
        var path = Path()
        path.addArc(center: .zero, radius: 10, startAngle: .pi / 4, endAngle: 3 * .pi / 4, clockwise: true)
        let s = 10 / 2.0.squareRoot()
        // The bottom of the circle (π/2) is the lowest point; the control points lie below it.
        expectClose(path.boundingBoxOfPath, Rect(x: -s, y: s, width: 2 * s, height: 10 - s))
        #expect(path.boundingBox.maxY > 10 + 1e-3)
    }

    @Test func tightBoundingBoxOfCurvesUsesTheirExtrema() {
        var cubic = Path()
        cubic.move(to: .zero)
        cubic.addCurve(to: Point(x: 10, y: 0), control1: Point(x: 0, y: 10), control2: Point(x: 10, y: 10))
        #expect(cubic.boundingBox == Rect(x: 0, y: 0, width: 10, height: 10))
        // y(t) = 30·t·(1 − t), at most 7.5 at t = ½.
        expectClose(cubic.boundingBoxOfPath, Rect(x: 0, y: 0, width: 10, height: 7.5))

        var quad = Path()
        quad.move(to: .zero)
        quad.addQuadCurve(to: Point(x: 10, y: 0), control: Point(x: 5, y: -10))
        #expect(quad.boundingBox == Rect(x: 0, y: -10, width: 10, height: 10))
        expectClose(quad.boundingBoxOfPath, Rect(x: 0, y: -5, width: 10, height: 5))

        // An S-curve: x(t) = 18·t·(1 − t)·(1 − 2t) reaches ±√3 at t = ½ ∓ √3/6, inside the curve.
        var s = Path()
        s.move(to: .zero)
        s.addCurve(to: Point(x: 0, y: 3), control1: Point(x: 6, y: 1), control2: Point(x: -6, y: 2))
        let overshoot = 3.0.squareRoot()
        expectClose(s.boundingBoxOfPath, Rect(x: -overshoot, y: 0, width: 2 * overshoot, height: 3))
    }

    @Test func containsDistinguishesWindingFromEvenOdd() {
        var sameDirection = Path(rect: Rect(x: 0, y: 0, width: 20, height: 20))
        sameDirection.addRect(Rect(x: 5, y: 5, width: 10, height: 10))
        let center = Point(x: 10, y: 10), ring = Point(x: 2, y: 10), outside = Point(x: 25, y: 10)
        #expect(sameDirection.contains(center, using: .winding))
        #expect(!sameDirection.contains(center, using: .evenOdd))
        #expect(sameDirection.contains(ring, using: .winding) && sameDirection.contains(ring, using: .evenOdd))
        #expect(!sameDirection.contains(outside, using: .winding) && !sameDirection.contains(outside, using: .evenOdd))

        var oppositeDirection = Path(rect: Rect(x: 0, y: 0, width: 20, height: 20))
        oppositeDirection.move(to: Point(x: 5, y: 5))
        oppositeDirection.addLine(to: Point(x: 5, y: 15))
        oppositeDirection.addLine(to: Point(x: 15, y: 15))
        oppositeDirection.addLine(to: Point(x: 15, y: 5))
        oppositeDirection.closeSubpath()
        #expect(!oppositeDirection.contains(center))
        #expect(!oppositeDirection.contains(center, using: .evenOdd))
        #expect(oppositeDirection.contains(ring))
    }

    @Test func containsFollowsCurvesWithinTheFlatteningTolerance() {
        let circle = Path(ellipseIn: Rect(x: -10, y: -10, width: 20, height: 20))
        for angle in stride(from: 0.0, to: 2 * .pi, by: 0.1) {
            #expect(circle.contains(Point(x: 9.9 * cos(angle), y: 9.9 * sin(angle))))
            #expect(!circle.contains(Point(x: 10.1 * cos(angle), y: 10.1 * sin(angle))))
        }
        #expect(!circle.contains(Point(x: 8, y: 8)))
    }

    @Test func containsTreatsOpenSubpathsAsClosed() {
        var triangle = Path()
        triangle.move(to: .zero)
        triangle.addLine(to: Point(x: 10, y: 0))
        triangle.addLine(to: Point(x: 0, y: 10))
        #expect(triangle.contains(Point(x: 2, y: 2)))
        #expect(!triangle.contains(Point(x: 8, y: 8)))
    }

    @Test func roundedRectRadiiAreClampedToHalfOfEachSide() {
        let path = Path(roundedRect: Rect(x: 0, y: 0, width: 20, height: 10), cornerWidth: 50, cornerHeight: 50)
        // Clamped to 10 × 5 the straight edges vanish: four corner curves make an ellipse.
        #expect(path.elements.first == .move(to: Point(x: 10, y: 0)))
        #expect(path.elements.count == 6)
        #expect(!path.elements.contains { if case .line = $0 { true } else { false } })
        #expect(endPoints(path) == [
            Point(x: 10, y: 0), Point(x: 20, y: 5), Point(x: 10, y: 10), Point(x: 0, y: 5), Point(x: 10, y: 0),
        ])
        expectClose(path.boundingBoxOfPath, Rect(x: 0, y: 0, width: 20, height: 10))
        #expect(!path.contains(Point(x: 1, y: 1)))
        #expect(path.contains(Point(x: 10, y: 5)))
    }

    @Test func roundedRectWithSmallRadiiHasStraightEdgesBetweenCorners() {
        let path = Path(roundedRect: Rect(x: 0, y: 0, width: 20, height: 10), cornerWidth: 2, cornerHeight: 3)
        #expect(endPoints(path).prefix(3) == [Point(x: 2, y: 0), Point(x: 18, y: 0), Point(x: 20, y: 3)])
        #expect(path.elements.count == 10)
        #expect(path.contains(Point(x: 1, y: 5)) && !path.contains(Point(x: 0.2, y: 0.2)))
    }

    @Test func roundedRectWithZeroRadiusIsARect() {
        let rect = Rect(x: 1, y: 2, width: 3, height: 4)
        #expect(Path(roundedRect: rect, cornerWidth: 0, cornerHeight: 5) == Path(rect: rect))
    }

    @Test func ellipseStartsAtMaxXMidYAndIsClosed() {
        let path = Path(ellipseIn: Rect(x: 0, y: 0, width: 8, height: 4))
        #expect(path.elements.first == .move(to: Point(x: 8, y: 2)))
        #expect(path.elements.last == .closeSubpath)
        #expect(endPoints(path)[1] == Point(x: 4, y: 4))
        expectClose(path.boundingBoxOfPath, Rect(x: 0, y: 0, width: 8, height: 4))
    }

    @Test func applyingATranslationMovesEveryPoint() {
        var path = Path(rect: Rect(x: 0, y: 0, width: 2, height: 3))
        path.move(to: Point(x: 1, y: 1))
        path.addQuadCurve(to: Point(x: 3, y: 1), control: Point(x: 2, y: 0))
        path.addCurve(to: Point(x: 5, y: 5), control1: Point(x: 4, y: 1), control2: Point(x: 5, y: 4))
        let moved = path.applying(AffineTransform2D(translationX: 10, y: -1))

        var expected = Path(rect: Rect(x: 10, y: -1, width: 2, height: 3))
        expected.move(to: Point(x: 11, y: 0))
        expected.addQuadCurve(to: Point(x: 13, y: 0), control: Point(x: 12, y: -1))
        expected.addCurve(to: Point(x: 15, y: 4), control1: Point(x: 14, y: 0), control2: Point(x: 15, y: 3))
        #expect(moved == expected)
        #expect(moved.currentPoint == Point(x: 15, y: 4))
        #expect(moved.boundingBox == path.boundingBox.offsetBy(dx: 10, dy: -1))
    }

    @Test func segmentsAfterACloseStartANewSubpathAtTheClosedStart() {
        var path = Path()
        path.move(to: Point(x: 1, y: 1))
        path.addLine(to: Point(x: 5, y: 1))
        path.closeSubpath()
        path.closeSubpath()
        #expect(path.currentPoint == Point(x: 1, y: 1))
        path.addLine(to: Point(x: 1, y: 5))
        #expect(
            path.elements == [
                .move(to: Point(x: 1, y: 1)), .line(to: Point(x: 5, y: 1)), .closeSubpath,
                .move(to: Point(x: 1, y: 1)), .line(to: Point(x: 1, y: 5)),
            ])
    }

    @Test func segmentsWithoutACurrentPointStartWhereCairoWould() {
        var line = Path()
        line.addLine(to: Point(x: 3, y: 4))
        #expect(line.elements == [.move(to: Point(x: 3, y: 4))])

        var curve = Path()
        curve.addCurve(to: Point(x: 9, y: 9), control1: Point(x: 1, y: 2), control2: Point(x: 5, y: 5))
        #expect(curve.elements.first == .move(to: Point(x: 1, y: 2)))

        var quad = Path()
        quad.addQuadCurve(to: Point(x: 9, y: 9), control: Point(x: 1, y: 2))
        #expect(quad.elements.first == .move(to: Point(x: 1, y: 2)))

        var closed = Path()
        closed.closeSubpath()
        #expect(closed.isEmpty)
    }

    @Test func addPathAppendsElementsAndTakesTheirCurrentPoint() {
        var path = Path(rect: Rect(x: 0, y: 0, width: 1, height: 1))
        var other = Path()
        other.move(to: Point(x: 5, y: 5))
        other.addLine(to: Point(x: 6, y: 7))
        path.addPath(other)
        #expect(path.elements == Path(rect: Rect(x: 0, y: 0, width: 1, height: 1)).elements + other.elements)
        #expect(path.currentPoint == Point(x: 6, y: 7))
        path.closeSubpath()
        #expect(path.currentPoint == Point(x: 5, y: 5))
    }

    @Test func quadraticCurvesDrawLikeTheirCubicEquivalent() throws {
        var quad = Path()
        quad.move(to: Point(x: 0, y: 20))
        quad.addQuadCurve(to: Point(x: 20, y: 20), control: Point(x: 10, y: 0))
        var cubic = Path()
        cubic.move(to: Point(x: 0, y: 20))
        cubic.addCurve(
            to: Point(x: 20, y: 20), control1: Point(x: 20.0 / 3, y: 20.0 / 3), control2: Point(x: 40.0 / 3, y: 20.0 / 3))
        let a = try render { context in
            context.addPath(quad)
            context.fillPath()
        }
        let b = try render { context in
            context.addPath(cubic)
            context.fillPath()
        }
        #expect(a.maximumChannelDifference(from: b) == 0)
        #expect(pixels(of: a, where: isOpaque).count > 50)
    }
}
