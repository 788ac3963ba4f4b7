import Foundation
import Testing

import Graphics

@Suite struct PathMeasuringTests {
    let square = Path(rect: Rect(x: 0, y: 0, width: 100, height: 100))

    @Test func lengthOfASquareCountsItsClosingSide() {
        #expect(square.length == 400)
        var open = Path()
        open.move(to: .zero)
        open.addLine(to: Point(x: 30, y: 40))
        open.move(to: Point(x: 100, y: 100))
        open.addLine(to: Point(x: 100, y: 110))
        #expect(open.length == 60)
    }

    @Test func aQuarterToAHalfOfASquareIsExactlyItsSecondSide() {
        let part = square.trimmed(from: 0.25, to: 0.5)
        #expect(part.elements == [.move(to: Point(x: 100, y: 0)), .line(to: Point(x: 100, y: 100))])
    }

    @Test func trimmingCutsInsideSegmentsAndKeepsTheRunConnected() {
        let part = square.trimmed(from: 0.125, to: 0.875)
        #expect(part.elements == [
            .move(to: Point(x: 50, y: 0)), .line(to: Point(x: 100, y: 0)), .line(to: Point(x: 100, y: 100)),
            .line(to: Point(x: 0, y: 100)), .line(to: Point(x: 0, y: 50)),
        ])
        // Into the closing side: it becomes an open line.
        #expect(square.trimmed(from: 0.75, to: 1).elements == [.move(to: Point(x: 0, y: 100)), .line(to: Point(x: 0, y: 0))])
    }

    @Test func theWholeRangeIsThePathAndAnEmptyRangeNothing() {
        #expect(square.trimmed(from: 0, to: 1) == square)
        #expect(square.trimmed(from: -1, to: 2) == square)
        #expect(square.trimmed(from: 0.5, to: 0.5).isEmpty)
        #expect(square.trimmed(from: 0.7, to: 0.2).isEmpty)
    }

    @Test func aSubpathKeptWholeStaysClosed() {
        var two = square
        two.addRect(Rect(x: 200, y: 0, width: 100, height: 100))
        // The first square whole, then a quarter of the second (its top side).
        let part = two.trimmed(from: 0, to: 0.625)
        #expect(part.elements == [
            .move(to: .zero), .line(to: Point(x: 100, y: 0)), .line(to: Point(x: 100, y: 100)),
            .line(to: Point(x: 0, y: 100)), .closeSubpath,
            .move(to: Point(x: 200, y: 0)), .line(to: Point(x: 300, y: 0)),
        ])
    }

    @Test func curveLengthIsIntegrated() {
        // A cubic that is a straight line with evenly spaced control points: length exactly 30.
        var straight = Path()
        straight.move(to: .zero)
        straight.addCurve(to: Point(x: 30, y: 0), control1: Point(x: 10, y: 0), control2: Point(x: 20, y: 0))
        #expect(abs(straight.length - 30) < 1e-9)
        // A circle of radius 50 from four cubics: 2π·50 within the approximation's 0.03 %.
        let circle = Path(ellipseIn: Rect(x: 0, y: 0, width: 100, height: 100))
        #expect(abs(circle.length - 100 * Double.pi) < 100 * Double.pi * 3e-4)
    }

    @Test func aHalfOfACircleEndsOppositeItsStart() {
        let circle = Path(ellipseIn: Rect(x: 0, y: 0, width: 100, height: 100))
        let half = circle.trimmed(from: 0, to: 0.5)
        // It starts at (100, 50) and runs clockwise on screen through the bottom to (0, 50).
        #expect(half.elements.first == .move(to: Point(x: 100, y: 50)))
        expectClose(half.currentPoint!, Point(x: 0, y: 50), tolerance: 1e-9)
        // A third of the way: a cut inside the second quarter, on the circle (within the
        // cubics' 0.03 %) and as long as a third of the whole.
        let third = circle.trimmed(from: 0, to: 1.0 / 3)
        let end = third.currentPoint!
        #expect(abs(((end.x - 50) * (end.x - 50) + (end.y - 50) * (end.y - 50)).squareRoot() - 50) < 50 * 3e-4)
        #expect(abs(third.length - circle.length / 3) < 1e-7)
    }

    @Test func quadraticCurvesAreMeasuredAsTheirCubic() {
        var quad = Path()
        quad.move(to: .zero)
        quad.addQuadCurve(to: Point(x: 40, y: 0), control: Point(x: 20, y: 0))
        #expect(abs(quad.length - 40) < 1e-9)
        let part = quad.trimmed(from: 0.25, to: 0.75)
        expectClose(part.currentPoint!, Point(x: 30, y: 0), tolerance: 1e-7)
        guard case .move(let start) = part.elements.first else {
            Issue.record("the part does not begin with a move")
            return
        }
        expectClose(start, Point(x: 10, y: 0), tolerance: 1e-7)
    }
}
