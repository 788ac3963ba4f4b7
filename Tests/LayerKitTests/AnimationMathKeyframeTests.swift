import Foundation
import Testing
@testable import LayerKit

@Suite struct AnimationMathKeyframeTests {
    // MARK: Values

    @Test func linearInterpolatesWithinEachSegment() {
        let s = KeyframeSampler(values: [0.0, 10, 30])
        #expect(s.keyTimes == [0, 0.5, 1])
        #expect(s.value(at: 0) == 0 && s.value(at: 1) == 30)
        #expect(isClose(s.value(at: 0.25), 5) && isClose(s.value(at: 0.5), 10) && isClose(s.value(at: 0.75), 20))
        // Outside 0…1 the end values hold.
        #expect(s.value(at: -0.5) == 0 && s.value(at: 1.5) == 30)
    }

    @Test func keyTimesAndTimingFunctionsShapeEachSegment() {
        let s = KeyframeSampler(
            values: [0.0, 10, 20], keyTimes: [0, 0.2, 1], timingFunctions: [.linear, .easeIn])
        #expect(isClose(s.value(at: 0.1), 5))
        #expect(isClose(s.value(at: 0.2), 10))
        let local = (0.6 - 0.2) / 0.8
        #expect(isClose(s.value(at: 0.6), 10 + 10 * MediaTimingFunction.easeIn.value(atTime: local)))
        #expect(s.value(at: 0.6) < 15)
        // Missing timing functions are linear.
        let short = KeyframeSampler(values: [0.0, 10, 20], timingFunctions: [.easeIn])
        #expect(isClose(short.value(at: 0.75), 15))
    }

    @Test func keyTimesAfterZeroHoldTheFirstValue() {
        let s = KeyframeSampler(values: [1.0, 2, 3], keyTimes: [0.2, 0.6, 0.6])
        #expect(s.value(at: 0.1) == 1)
        #expect(isClose(s.value(at: 0.4), 1.5))
        // Equal key times step at once to the later value.
        #expect(s.value(at: 0.6) == 3 && s.value(at: 0.9) == 3)
    }

    @Test func malformedKeyTimesAreEvenlySpaced() {
        for keyTimes in [[0, 0.7], [0, 0.8, 0.5], [0, 0.5, 1.2], [-0.1, 0.5, 1]] as [[Double]] {
            let s = KeyframeSampler(values: [0.0, 1, 2], keyTimes: keyTimes)
            #expect(s.keyTimes == [0, 0.5, 1])
        }
    }

    @Test func discreteHoldsEachValue() {
        // The documented form: one more key time than values.
        let s = KeyframeSampler(
            values: ["a", "b", "c"].map(Label.init), keyTimes: [0, 0.1, 0.5, 1], calculationMode: .discrete)
        #expect(s.value(at: 0).text == "a" && s.value(at: 0.09).text == "a")
        #expect(s.value(at: 0.1).text == "b" && s.value(at: 0.49).text == "b")
        #expect(s.value(at: 0.5).text == "c" && s.value(at: 1).text == "c")
        // One key time per value: the last value holds to the end.
        let perValue = KeyframeSampler(values: [1.0, 2, 3], keyTimes: [0, 0.25, 0.5], calculationMode: .discrete)
        #expect(perValue.value(at: 0.3) == 2 && perValue.value(at: 0.9) == 3)
        // Without key times each value gets an equal share.
        let even = KeyframeSampler(values: [1.0, 2, 3, 4], calculationMode: .discrete)
        #expect(even.keyTimes == [0, 0.25, 0.5, 0.75, 1])
        #expect(even.value(at: 0.24) == 1 && even.value(at: 0.25) == 2)
        #expect(even.value(at: 0.8) == 4 && even.value(at: 1) == 4)
    }

    @Test func pacedMovesAtConstantSpeed() {
        let s = KeyframeSampler(values: [0.0, 1, 10], keyTimes: [0, 0.9, 1], timingFunctions: [.easeIn, .easeIn],
                                calculationMode: .paced)
        #expect(s.keyTimes == [0, 0.1, 1])
        #expect(isClose(s.value(at: 0.1), 1))
        for p in stride(from: 0.0, through: 1, by: 0.05) {
            #expect(isClose(s.value(at: p), 10 * p, 1e-12))
        }
        let points = KeyframeSampler(
            values: [Point.zero, Point(x: 30, y: 0), Point(x: 30, y: 10)], calculationMode: .paced)
        #expect(isClose(points.value(at: 0.5), Point(x: 20, y: 0)))
        // Nothing to travel: even spacing.
        #expect(KeyframeSampler(values: [2.0, 2, 2], calculationMode: .paced).keyTimes == [0, 0.5, 1])
    }

    @Test func singleValueIsConstant() {
        for mode in [CalculationMode.linear, .discrete, .paced, .cubic, .cubicPaced] {
            let s = KeyframeSampler(values: [7.0], calculationMode: mode)
            #expect(s.value(at: 0) == 7 && s.value(at: 0.5) == 7 && s.value(at: 1) == 7)
        }
    }

    @Test func catmullRomPassesThroughTheKeyframes() {
        let values = [0.0, 1, 4, 9, 3]
        let s = KeyframeSampler(values: values, calculationMode: .cubic)
        for (i, v) in values.enumerated() {
            #expect(isClose(s.value(at: Double(i) / 4), v, 1e-12))
        }
        // Catmull-Rom's midpoint of segment 1: (−p0 + 9p1 + 9p2 − p3) / 16.
        let midpoint: Double = (-0.0 + 9 * 1 + 9 * 4 - 9) / 16
        #expect(isClose(s.value(at: 0.375), midpoint, 1e-12))
        // The full Catmull-Rom polynomial at a quarter of segment 2.
        let (p0, p1, p2, p3, t) = (1.0, 4.0, 9.0, 3.0, 0.25)
        let expected = 0.5 * (2 * p1 + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t * t
            + (-p0 + 3 * p1 - 3 * p2 + p3) * t * t * t)
        #expect(isClose(s.value(at: 0.5 + 0.25 * 0.25), expected, 1e-12))
    }

    @Test func cubicEndsRepeatTheEndKeyframes() {
        let s = KeyframeSampler(values: [0.0, 1, 4], calculationMode: .cubic)
        // First segment with p₋₁ = p₀: tangents (1 − 0)/2 at 0 and (4 − 0)/2 at 1.
        let t = 0.5
        let h10 = t * t * t - 2 * t * t + t, h01 = -2 * t * t * t + 3 * t * t, h11 = t * t * t - t * t
        #expect(isClose(s.value(at: 0.25), h10 * 0.5 + h01 * 1 + h11 * 2, 1e-12))
    }

    @Test func tensionContinuityAndBiasShapeTheCurve() {
        let values = [0.0, 1, 4, 9]
        let t = 0.5
        let h00 = 2 * t * t * t - 3 * t * t + 1, h10 = t * t * t - 2 * t * t + t
        let h01 = -2 * t * t * t + 3 * t * t, h11 = t * t * t - t * t
        // Tension 1 flattens every tangent: a smoothstep between keyframes.
        let tight = KeyframeSampler(values: values, calculationMode: .cubic, tensionValues: [1, 1, 1, 1])
        #expect(isClose(tight.value(at: 0.5), h00 * 1 + h01 * 4, 1e-12))
        // Bias 1 takes each tangent from the incoming side only (doubled).
        let biased = KeyframeSampler(values: values, calculationMode: .cubic, biasValues: [1, 1, 1, 1])
        #expect(isClose(biased.value(at: 0.5), h00 * 1 + h10 * 1 + h01 * 4 + h11 * 3, 1e-12))
        // Continuity −1 uses the incoming side for the outgoing tangent and vice versa.
        let corner = KeyframeSampler(values: values, calculationMode: .cubic, continuityValues: [0, -1, -1, 0])
        #expect(isClose(corner.value(at: 0.5), h00 * 1 + h10 * 1 + h01 * 4 + h11 * 5, 1e-12))
    }

    @Test func cubicWithUnevenKeyTimesScalesTheTangents() {
        let s = KeyframeSampler(values: [0.0, 1, 2, 3], keyTimes: [0, 0.1, 0.2, 1], calculationMode: .cubic)
        for p in [0.0, 0.1, 0.2, 1] {
            #expect(isClose(s.value(at: p), p == 1 ? 3 : p * 10, 1e-12))
        }
        // Keyframe 2's tangents stay proportional to the time on each side: the value moves on
        // smoothly rather than as a Catmull-Rom on uneven spacing would.
        let before = (s.value(at: 0.2) - s.value(at: 0.2 - 1e-6)) / 1e-6
        let after = (s.value(at: 0.2 + 1e-6) - s.value(at: 0.2)) / 1e-6
        #expect(isClose(before, after, 1e-3))
    }

    @Test func cubicPacedSpacesByDistance() {
        let s = KeyframeSampler(values: [0.0, 1, 10], keyTimes: [0, 0.9, 1], calculationMode: .cubicPaced)
        #expect(s.keyTimes == [0, 0.1, 1])
        #expect(isClose(s.value(at: 0.1), 1, 1e-12))
        #expect(s.value(at: 0.05) > 0 && s.value(at: 0.05) < 1)
    }

    @Test func cubicWorksForVectorsAndTransforms() {
        let points = [Point(x: 0, y: 0), Point(x: 10, y: 5), Point(x: 20, y: 0), Point(x: 30, y: 5)]
        let s = KeyframeSampler(values: points, calculationMode: .cubic)
        let x = KeyframeSampler(values: points.map(\.x), calculationMode: .cubic)
        let y = KeyframeSampler(values: points.map(\.y), calculationMode: .cubic)
        for p in stride(from: 0.0, through: 1, by: 0.1) {
            #expect(isClose(s.value(at: p), Point(x: x.value(at: p), y: y.value(at: p)), 1e-12))
        }
        // Turns about one axis by equal steps stay at constant speed.
        let turns = KeyframeSampler(
            values: [0.0, 0.5, 1.0, 1.5].map { Transform3D(rotationAngle: $0, x: 0, y: 0, z: 1) },
            calculationMode: .cubic)
        #expect(isClose(turns.value(at: 0.5), Transform3D(rotationAngle: 0.75, x: 0, y: 0, z: 1)))
        let colors = KeyframeSampler(values: [Color.black, .white, .black], calculationMode: .cubic)
        #expect(isClose(colors.value(at: 0.5).red, 1) && colors.value(at: 0.25).colorSpace == .sRGB)
    }

    // MARK: Paths

    private var lShape: Path {
        var p = Path()
        p.move(to: .zero)
        p.addLine(to: Point(x: 30, y: 0))
        p.addLine(to: Point(x: 30, y: 10))
        return p
    }

    @Test func pacedPathProgressFollowsArcLength() {
        let k = PathKeyframes(path: lShape)
        #expect(k.length == 40)
        #expect(isClose(k.point(at: 0.5, calculationMode: .paced), Point(x: 20, y: 0)))
        #expect(isClose(k.point(at: 0.875, calculationMode: .paced), Point(x: 30, y: 5)))
        #expect(isClose(k.point(at: 0.5, calculationMode: .cubicPaced), Point(x: 20, y: 0)))
        #expect(k.point(at: 0, calculationMode: .paced) == .zero)
        #expect(k.point(at: 1, calculationMode: .paced) == Point(x: 30, y: 10))
    }

    @Test func linearPathGivesEachSegmentAnEqualShare() {
        let k = PathKeyframes(path: lShape)
        #expect(isClose(k.point(at: 0.25), Point(x: 15, y: 0)))
        #expect(isClose(k.point(at: 0.5), Point(x: 30, y: 0)))
        #expect(isClose(k.point(at: 0.75), Point(x: 30, y: 5)))
        #expect(k.point(at: -1) == .zero && k.point(at: 2) == Point(x: 30, y: 10))
        #expect(k.keyframePoints == [.zero, Point(x: 30, y: 0), Point(x: 30, y: 10)])
    }

    @Test func discretePathJumpsBetweenKeyframePoints() {
        let k = PathKeyframes(path: lShape)
        #expect(k.point(at: 0.3, calculationMode: .discrete) == .zero)
        #expect(k.point(at: 0.5, calculationMode: .discrete) == Point(x: 30, y: 0))
        #expect(k.point(at: 1, calculationMode: .discrete) == Point(x: 30, y: 10))
        #expect(isClose(k.tangentAngle(at: 0.5, calculationMode: .discrete), 0))
        #expect(isClose(k.tangentAngle(at: 0.9, calculationMode: .discrete), .pi / 2))
    }

    @Test func tangentAnglesFollowTheDirectionOfTravel() {
        let k = PathKeyframes(path: lShape)
        #expect(isClose(k.tangentAngle(at: 0.2, calculationMode: .paced), 0))
        // Down the screen (+y) is a quarter turn clockwise.
        #expect(isClose(k.tangentAngle(at: 0.9, calculationMode: .paced), .pi / 2))
        var back = Path()
        back.move(to: Point(x: 10, y: 10))
        back.addLine(to: Point(x: 0, y: 0))
        #expect(isClose(PathKeyframes(path: back).tangentAngle(at: 0.5), -3 * .pi / 4))
    }

    @Test func curvesAreFollowedAlongTheirGeometry() {
        var arc = Path()
        arc.addArc(center: .zero, radius: 100, startAngle: 0, endAngle: .pi / 2, clockwise: true)
        let k = PathKeyframes(path: arc)
        #expect(isClose(k.length, 50 * .pi, 0.05))
        let mid = k.point(at: 0.5, calculationMode: .paced)
        #expect(isClose(mid, Point(x: 100 * cos(.pi / 4), y: 100 * sin(.pi / 4)), 0.05))
        #expect(isClose(k.tangentAngle(at: 0.5, calculationMode: .paced), 3 * .pi / 4, 1e-3))
        #expect(isClose(k.tangentAngle(at: 0, calculationMode: .paced), .pi / 2, 1e-3))
        // Points lie on the curve itself, not on a chord.
        for p in stride(from: 0.0, through: 1, by: 0.05) {
            let q = k.point(at: p, calculationMode: .paced)
            #expect(abs((q.x * q.x + q.y * q.y).squareRoot() - 100) < 0.03)
        }
    }

    @Test func pacedCurveSpeedIsConstant() {
        var s = Path()
        s.move(to: .zero)
        s.addCurve(to: Point(x: 100, y: 0), control1: Point(x: 0, y: 80), control2: Point(x: 90, y: 10))
        s.addQuadCurve(to: Point(x: 200, y: 0), control: Point(x: 150, y: -60))
        let k = PathKeyframes(path: s)
        var previous = k.point(at: 0, calculationMode: .paced)
        let steps = 200
        for i in 1...steps {
            let q = k.point(at: Double(i) / Double(steps), calculationMode: .paced)
            let step = k.length / Double(steps)
            #expect(isClose(Point.distance(from: previous, to: q), step, 0.01 * step))
            previous = q
        }
    }

    @Test func closedSubpathsAndMovesAreSegmentsAndJumps() {
        let square = PathKeyframes(path: Path(rect: Rect(x: 0, y: 0, width: 10, height: 10)))
        // Four edges, the last one the close back to the start.
        #expect(square.length == 40)
        #expect(isClose(square.point(at: 0.875), Point(x: 0, y: 5)))
        #expect(isClose(square.tangentAngle(at: 0.875), -.pi / 2))
        var twoParts = Path()
        twoParts.move(to: .zero)
        twoParts.addLine(to: Point(x: 10, y: 0))
        twoParts.move(to: Point(x: 100, y: 100))
        twoParts.addLine(to: Point(x: 100, y: 110))
        let k = PathKeyframes(path: twoParts)
        #expect(k.length == 20)
        #expect(isClose(k.point(at: 0.75, calculationMode: .paced), Point(x: 100, y: 105)))
        #expect(isClose(k.point(at: 0.5, calculationMode: .paced), Point(x: 100, y: 100)))
    }

    @Test func degenerateSegmentsBorrowANeighboursDirection() {
        var p = Path()
        p.move(to: .zero)
        p.addLine(to: Point(x: 0, y: 10))
        p.addLine(to: Point(x: 0, y: 10))
        var cusp = Path()
        cusp.move(to: .zero)
        cusp.addCurve(to: Point(x: 10, y: 10), control1: .zero, control2: Point(x: 10, y: 0))
        #expect(isClose(PathKeyframes(path: p).tangentAngle(at: 1), .pi / 2))
        #expect(isClose(PathKeyframes(path: cusp).tangentAngle(at: 0), 0, 1e-3))
        #expect(PathKeyframes(path: Path()).point(at: 0.5) == .zero)
        var single = Path()
        single.move(to: Point(x: 3, y: 4))
        #expect(PathKeyframes(path: single).point(at: 0.5) == Point(x: 3, y: 4))
        #expect(PathKeyframes(path: single).tangentAngle(at: 0.5) == 0)
    }

    @Test func calculationAndRotationModesUseCoreAnimationsNames() {
        #expect(CalculationMode(rawValue: "cubicPaced") == .cubicPaced)
        #expect(CalculationMode.discrete.rawValue == "discrete")
        #expect(RotationMode(rawValue: "autoReverse") == .autoReverse && RotationMode.auto.rawValue == "auto")
    }
}

/// A value that only animates discretely, to show that `discrete` never blends.
private struct Label: Interpolatable {
    var text: String
    init(_ text: String) { self.text = text }
    static func interpolate(from: Label, to: Label, fraction: Double) -> Label { fraction < 0.5 ? from : to }
    static func add(_ a: Label, _ b: Label) -> Label { Label(a.text + b.text) }
    static func subtract(_ a: Label, _ b: Label) -> Label { a }
    static var additiveIdentity: Label { Label("") }
    static func distance(from: Label, to: Label) -> Double { from == to ? 0 : 1 }
}
