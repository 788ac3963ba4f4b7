import Foundation
import Graphics
import Testing
@testable import LayerKit

/// Explicit animations of an emitter's birth rate are integrated: the births between two moments
/// are the integral of the animated rate, and the particles born keep their birth times whatever
/// happens to the animation afterwards.
@MainActor
@Suite struct EmitterBirthRateAnimationTests {
    /// An emitter in a committed context on a manual clock at media time 0 (its local time too),
    /// with the given cells.
    @MainActor
    struct Scene {
        let clock = ManualMediaClock(startingAt: 0)
        let layer = EmitterLayer()
        let context: RenderContext

        init(cells: [EmitterCell]) {
            MediaTime.clock = clock
            let root = makeLayer(100, 100)
            layer.emitterCells = cells
            root.addSublayer(layer)
            context = RenderContext(rootLayer: root)
            Transaction.flush()
        }

        /// The particles the latest snapshot shows at media time `t`.
        func shown(at t: Double) -> [Particle] {
            context.renderTree!.presentationProperties(of: layer.id, atMediaTime: t)!.emitter!.particles(atTime: t)
        }

        /// Sets the clock to `t` and flushes (finished animations are removed, changes committed).
        func advance(to t: Double) {
            clock.set(to: t)
            Transaction.flush()
        }
    }

    static func cell(birthRate: Double = 1, lifetime: Double = 10, name: String? = nil) throws -> EmitterCell {
        var c = EmitterCell()
        c.contents = try GraphicsContext(width: 4, height: 2).makeImage()
        (c.birthRate, c.lifetime, c.name) = (birthRate, lifetime, name)
        (c.velocity, c.velocityRange, c.emissionRange) = (20, 10, 2)
        return c
    }

    /// A linear animation of `keyPath` from `from` to `to` over `duration` seconds.
    static func ramp(_ keyPath: String, from: Double, to: Double, duration: Double = 1) -> BasicAnimation {
        let a = BasicAnimation(keyPath: keyPath)
        (a.fromValue, a.toValue, a.duration) = (from, to, duration)
        return a
    }

    static func allClose(_ a: [Double], _ b: [Double], _ tolerance: Double = 1e-9) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { isClose($0, $1, tolerance) }
    }

    @Test func aLinearRampFromZeroToAHundredOverASecondBearsFifty() throws {
        let scene = Scene(cells: [try Self.cell()])
        scene.layer.birthRate = 100
        scene.layer.add(Self.ramp("birthRate", from: 0, to: 100), forKey: "ramp")
        Transaction.flush()
        // 50 t² births by t: particle i at √(i/50) s, the fiftieth just at 1 s.
        let ramp: [Double] = scene.shown(at: 0.999).map(\.birthTime)
        let roots: [Double] = (0..<50).map { (Double($0) / 50).squareRoot() }
        #expect(ramp.count == 50)
        #expect(Self.allClose(ramp, roots))
        // Then the model's 100 a second.
        let after: [Double] = Array(scene.shown(at: 1.495).map(\.birthTime).suffix(50))
        let hundredASecond: [Double] = (0..<50).map { 1 + Double($0) / 100 }
        #expect(Self.allClose(after, hundredASecond))
        // The rate the presentation shows is sampled as any animated value.
        let shown = try #require(scene.context.renderTree?.presentationProperties(of: scene.layer.id, atMediaTime: 0.25))
        #expect(shown.emitter?.birthRate == 25)
    }

    @Test func aCellsRateAnimatedByKeyPathIsIntegratedAndLeavesTheOtherCells() throws {
        let scene = Scene(cells: [try Self.cell(birthRate: 0, name: "spark"), try Self.cell(birthRate: 10)])
        scene.layer.add(Self.ramp("emitterCells.spark.birthRate", from: 0, to: 40, duration: 0.5), forKey: "spark")
        Transaction.flush()
        // 80 t a second: 40 t² births, particle i at √(i/40) s; none after the ramp (the model's 0).
        func births(at t: Double, of cell: Int) -> [Double] {
            scene.shown(at: t).filter { $0.cellIndex == cell }.map(\.birthTime)
        }
        let roots: [Double] = (0..<10).map { (Double($0) / 40).squareRoot() }
        let tenths: [Double] = (0..<5).map { Double($0) / 10 }
        #expect(Self.allClose(births(at: 0.49, of: 0), roots))
        #expect(births(at: 3, of: 0).count == 10)
        #expect(Self.allClose(births(at: 0.49, of: 1), tenths))
        let shown = scene.context.renderTree?.presentationProperties(of: scene.layer.id, atMediaTime: 0.25)
        #expect(shown?.emitter?.emitterCells.map(\.birthRate) == [20, 10])
    }

    @Test func particlesAliveBeforeTheAnimationKeepTheirPlacesAcrossItsEnd() throws {
        let scene = Scene(cells: [try Self.cell(birthRate: 10)])
        scene.layer.seed = 3
        scene.advance(to: 2)
        let before = scene.shown(at: 2.5).filter { $0.birthTime < 2 }
        scene.layer.add(Self.ramp("birthRate", from: 1, to: 3), forKey: "ramp")
        Transaction.flush()
        let during = scene.shown(at: 3.45)
        // The 20 of the first two seconds as they were; 10 → 30 a second gives 20 more by 3 s, then 10 a second.
        #expect(Array(scene.shown(at: 2.5).prefix(20)) == before)
        #expect(during.map(\.index) == Array(0...44))
        #expect(isClose(during[40].birthTime, 3))
        // The flush at 3.45 removes the finished animation: the same particles, in the same places.
        scene.advance(to: 3.45)
        #expect(scene.layer.animationKeys().isEmpty)
        #expect(scene.shown(at: 3.45) == during)
        #expect(scene.shown(at: 4.05).map(\.index) == Array(0...50))
    }

    @Test func aCellsModelRateChangedDuringALayerRampScalesTheRestOfIt() throws {
        let scene = Scene(cells: [try Self.cell()])
        scene.layer.birthRate = 100
        scene.layer.add(Self.ramp("birthRate", from: 0, to: 100), forKey: "ramp")
        Transaction.flush()
        let half = scene.shown(at: 0.5)
        scene.clock.set(to: 0.5)
        scene.layer.emitterCells[0].birthRate = 2
        Transaction.flush()
        // 12.5 by 0.5 s, then 2 × 100 t a second: 87.3 by 0.999 s; after the ramp 2 × 100 a second.
        #expect(Array(scene.shown(at: 0.5).prefix(13)) == Array(half.prefix(13)))
        #expect(scene.shown(at: 0.999).count == 88)
        #expect(scene.shown(at: 1.1).count == 108)
    }

    @Test func anAnimationRemovedMidwayKeepsItsBirthsAndHandsOverToTheModel() throws {
        let scene = Scene(cells: [try Self.cell()])
        scene.layer.birthRate = 100
        scene.layer.add(Self.ramp("birthRate", from: 0, to: 100), forKey: "ramp")
        Transaction.flush()
        let half = scene.shown(at: 0.5)
        scene.clock.set(to: 0.5)
        scene.layer.removeAnimation(forKey: "ramp")
        Transaction.flush()
        // 12.5 births by 0.5 s; then 100 a second, the next half a birth (5 ms) on.
        #expect(scene.shown(at: 0.5) == half)
        let after: [Double] = scene.shown(at: 0.6).map(\.birthTime)
        let roots: [Double] = (0..<13).map { (Double($0) / 50).squareRoot() }
        let hundredASecond: [Double] = (0..<10).map { 0.505 + Double($0) / 100 }
        #expect(after.count == 23)
        #expect(Self.allClose(Array(after.prefix(13)), roots))
        #expect(Self.allClose(Array(after.suffix(10)), hundredASecond))
    }

    @Test func eachRepeatBearsTheRampsBirthsAgain() throws {
        let scene = Scene(cells: [try Self.cell()])
        scene.layer.birthRate = 0
        let ramp = Self.ramp("birthRate", from: 0, to: 100)
        ramp.repeatCount = 3
        scene.layer.add(ramp, forKey: "ramp")
        Transaction.flush()
        let third: [Double] = Array(scene.shown(at: 2.5).map(\.birthTime).suffix(13))
        let roots: [Double] = (0..<13).map { 2 + (Double($0) / 50).squareRoot() }
        // Where the rate starts from 0, a count off by 1e-14 moves a birth by √(1e-14 / 50).
        #expect(Self.allClose(third, roots, 1e-7))
        #expect(scene.shown(at: 2.5).count == 113)
        // 150 in all, the last just before 3 s, and none after (the model's rate is 0).
        scene.advance(to: 3.5)
        #expect(scene.shown(at: 5).count == 150)
    }

    @Test func anAutoreversingRampBearsItsWayUpAndDown() throws {
        let scene = Scene(cells: [try Self.cell()])
        scene.layer.birthRate = 0
        let ramp = Self.ramp("birthRate", from: 0, to: 100.5, duration: 0.5)
        (ramp.autoreverses, ramp.repeatCount) = (true, 2)
        scene.layer.add(ramp, forKey: "ramp")
        Transaction.flush()
        // 25.125 up, then 100.5 − 201 (t − 0.5) a second: 43.97 by 0.75 s; 50.25 a cycle, 100.5 in
        // all (not a whole number, so the last birth is not at the very end).
        #expect(scene.shown(at: 0.75).count == 44)
        #expect(scene.shown(at: 1.75).count == 95)
        scene.advance(to: 2.5)
        #expect(scene.shown(at: 3).map(\.index) == Array(0...100))
    }

    @Test func aLayerAndACellAnimatedTogetherMultiplyTheirRates() throws {
        let scene = Scene(cells: [try Self.cell(birthRate: 0, name: "spark")])
        let twice = Self.ramp("birthRate", from: 2, to: 2, duration: 2)
        scene.layer.add(twice, forKey: "twice")
        Transaction.flush()
        scene.clock.set(to: 0.5)
        scene.layer.add(Self.ramp("emitterCells.spark.birthRate", from: 0, to: 40, duration: 0.5), forKey: "spark")
        Transaction.flush()
        // 2 × 80 (t − 0.5) a second from 0.5 s: 80 (t − 0.5)² births, then none (the model's 0).
        let roots: [Double] = (0..<20).map { 0.5 + (Double($0) / 80).squareRoot() }
        #expect(Self.allClose(scene.shown(at: 0.999).map(\.birthTime), roots, 1e-7))
        #expect(scene.shown(at: 1.5).count == 20)
    }

    @Test func endlessRepeatsBearFiftyEveryCycle() throws {
        let scene = Scene(cells: [try Self.cell(lifetime: 1)])
        scene.layer.birthRate = 0
        let ramp = Self.ramp("birthRate", from: 0, to: 100)
        ramp.repeatCount = .infinity
        scene.layer.add(ramp, forKey: "ramp")
        Transaction.flush()
        // 5003.125 births by 100.25 s; those born in the last second still live.
        let alive = scene.shown(at: 100.25)
        #expect(alive.map(\.index) == Array(4954...5003))
        #expect(isClose(alive.last!.birthTime, 100 + (3.0 / 50).squareRoot(), 1e-8))
    }

    @Test func aForwardsFillHoldsTheLastRateUntilRemoved() throws {
        let scene = Scene(cells: [try Self.cell()])
        scene.layer.birthRate = 0
        let ramp = Self.ramp("birthRate", from: 0, to: 100)
        (ramp.fillMode, ramp.isRemovedOnCompletion) = (.forwards, false)
        scene.layer.add(ramp, forKey: "ramp")
        Transaction.flush()
        scene.advance(to: 1.5)
        // 50 by 1 s, then the held 100 a second.
        #expect(scene.shown(at: 1.455).count == 96)
        scene.clock.set(to: 2.005)
        scene.layer.removeAnimation(forKey: "ramp")
        Transaction.flush()
        #expect(scene.shown(at: 3).count == 151)
    }

    @Test func aBackwardsFillBearsTheFirstRateUntilALaterStart() throws {
        let scene = Scene(cells: [try Self.cell()])
        scene.layer.birthRate = 0
        let ramp = Self.ramp("birthRate", from: 50, to: 100)
        (ramp.beginTime, ramp.fillMode) = (1, .backwards)
        scene.layer.add(ramp, forKey: "ramp")
        Transaction.flush()
        // 50 a second from the commit, then 50 → 100 over a second: 81.25 births by 1.5 s.
        let waiting: [Double] = scene.shown(at: 0.995).map(\.birthTime)
        #expect(Self.allClose(waiting, (0..<50).map { Double($0) / 50 }))
        #expect(scene.shown(at: 1.5).map(\.index) == Array(0...81))
        // Without the fill nothing is born before the start (the model's rate is 0).
        let unfilled = Scene(cells: [try Self.cell()])
        unfilled.layer.birthRate = 0
        ramp.fillMode = .removed
        unfilled.layer.add(ramp, forKey: "ramp")
        Transaction.flush()
        #expect(unfilled.shown(at: 0.995).isEmpty && unfilled.shown(at: 1.5).map(\.index) == Array(0...31))
    }

    @Test func theSameAnimationAtTheSameTimesGivesTheSameParticles() throws {
        let cell = try Self.cell(birthRate: 10)
        func run(to rate: Double) throws -> EmitterProperties? {
            let scene = Scene(cells: [cell])
            scene.layer.seed = 7
            scene.advance(to: 0.3)
            scene.layer.add(Self.ramp("birthRate", from: 1, to: rate, duration: 0.7), forKey: "ramp")
            Transaction.flush()
            return scene.context.renderTree?.presentationProperties(of: scene.layer.id, atMediaTime: 2)?.emitter
        }
        let a = try #require(try run(to: 4)), b = try #require(try run(to: 4)), other = try #require(try run(to: 5))
        #expect(a == b && a.particles(atTime: 2) == b.particles(atTime: 2))
        #expect(a.particles(atTime: 2).map(\.birthTime) != other.particles(atTime: 2).map(\.birthTime))
    }
}
