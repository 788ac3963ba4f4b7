import Foundation
import Testing
@testable import LayerKit

@Suite struct AnimationMathTimingFunctionTests {
    /// y at x by plain bisection on the curve parameter to the last bit: slow and independent of
    /// the Newton solver under test.
    private func reference(_ f: MediaTimingFunction, _ x: Double) -> Double {
        let (p1, p2) = (f.controlPoint(at: 1), f.controlPoint(at: 2))
        func bezier(_ a: Double, _ b: Double, _ t: Double) -> Double {
            3 * (1 - t) * (1 - t) * t * a + 3 * (1 - t) * t * t * b + t * t * t
        }
        var low = 0.0, high = 1.0
        for _ in 0..<200 {
            let mid = (low + high) / 2
            if bezier(p1.x, p2.x, mid) < x { low = mid } else { high = mid }
        }
        return bezier(p1.y, p2.y, (low + high) / 2)
    }

    private let named: [MediaTimingFunction] = [.linear, .easeIn, .easeOut, .easeInEaseOut, .default]

    @Test func namedFunctionsHaveCoreAnimationsControlPoints() {
        let expected: [(MediaTimingFunction.Name, Double, Double, Double, Double)] = [
            (.linear, 0, 0, 1, 1), (.easeIn, 0.42, 0, 1, 1), (.easeOut, 0, 0, 0.58, 1),
            (.easeInEaseOut, 0.42, 0, 0.58, 1), (.default, 0.25, 0.1, 0.25, 1),
        ]
        for (name, c1x, c1y, c2x, c2y) in expected {
            let f = MediaTimingFunction(name: name)
            #expect(f == MediaTimingFunction(controlPoints: c1x, c1y, c2x, c2y))
            #expect(f.controlPoint(at: 0) == .zero && f.controlPoint(at: 3) == Point(x: 1, y: 1))
            #expect(f.controlPoint(at: 1) == Point(x: c1x, y: c1y) && f.controlPoint(at: 2) == Point(x: c2x, y: c2y))
        }
        #expect(MediaTimingFunction.default == MediaTimingFunction(name: .default))
        #expect(MediaTimingFunction.Name.easeInEaseOut.rawValue == "easeInEaseOut")
        #expect(MediaTimingFunction.Name(rawValue: "default") == .default)
    }

    @Test func customControlPointsAreKept() {
        let f = MediaTimingFunction(controlPoints: 1.5, -0.25, -0.5, 2)
        #expect(f.controlPoint(at: 1) == Point(x: 1.5, y: -0.25) && f.controlPoint(at: 2) == Point(x: -0.5, y: 2))
    }

    @Test func endpointsAreExact() {
        for f in named + [MediaTimingFunction(controlPoints: 0.3, -0.6, 0.7, 1.8)] {
            #expect(f.value(atTime: 0) == 0 && f.value(atTime: 1) == 1)
            #expect(f.value(atTime: -2) == 0 && f.value(atTime: 3) == 1)
        }
    }

    @Test func linearIsTheIdentity() {
        for i in 0...100 {
            let x = Double(i) / 100
            #expect(isClose(MediaTimingFunction.linear.value(atTime: x), x, 1e-12))
        }
    }

    @Test func easeInEaseOutIsSymmetric() {
        for i in 0...200 {
            let x = Double(i) / 200
            let f = MediaTimingFunction.easeInEaseOut
            #expect(isClose(f.value(atTime: x) + f.value(atTime: 1 - x), 1, 1e-12))
        }
    }

    @Test func defaultMatchesCSSEaseAtTheHalfway() {
        // 0.80240338758485699 to 40 digits (mpmath root of x(t) = 0.5); the often-quoted
        // 0.8024033877399112 comes from a solver stopped at about 10⁻¹⁰.
        let reference = reference(.default, 0.5)
        #expect(isClose(reference, 0.802403387584857, 1e-15))
        #expect(isClose(MediaTimingFunction.default.value(atTime: 0.5), reference, 1e-14))
        #expect(isClose(MediaTimingFunction.default.value(atTime: 0.5), 0.8024033877399112, 1e-9))
    }

    @Test func everyFunctionMatchesTheBisectionReference() {
        let overshoot = MediaTimingFunction(controlPoints: 0.3, -0.6, 0.7, 1.8)
        let flatStart = MediaTimingFunction(controlPoints: 0, 0.9, 1, 0.1)
        for f in named + [overshoot, flatStart] {
            // Inner points only: where x(t) is flat at an end (flatStart) bisection cannot pin t
            // to better than √ε, and the endpoints are exact anyway.
            for i in 1..<1000 {
                let x = Double(i) / 1000
                #expect(isClose(f.value(atTime: x), reference(f, x), 1e-9), "\(f) at \(x)")
            }
        }
        #expect(overshoot.value(atTime: 0.1) < 0 && overshoot.value(atTime: 0.9) > 1)
    }

    @Test func easingCurvesRiseMonotonically() {
        for f in named {
            var previous = 0.0
            for i in 1...500 {
                let y = f.value(atTime: Double(i) / 500)
                #expect(y >= previous)
                previous = y
            }
        }
        #expect(MediaTimingFunction.easeIn.value(atTime: 0.25) < 0.25)
        #expect(MediaTimingFunction.easeOut.value(atTime: 0.25) > 0.25)
    }

    @Test func controlXOutsideTheUnitRangeIsClampedForEvaluation() {
        let wild = MediaTimingFunction(controlPoints: -1, 0, 2, 1)
        let clamped = MediaTimingFunction(controlPoints: 0, 0, 1, 1)
        for x in stride(from: 0.0, through: 1, by: 0.05) {
            #expect(isClose(wild.value(atTime: x), clamped.value(atTime: x), 1e-12))
        }
    }
}
