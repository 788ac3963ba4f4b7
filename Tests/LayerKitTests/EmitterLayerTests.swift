import Foundation
import Graphics
import Testing
@testable import LayerKit

@MainActor
@Suite struct EmitterLayerTests {
    /// A cell with an image (cells without one emit nothing) and the given rate and lifetime.
    func cell(birthRate: Double, lifetime: Double) throws -> EmitterCell {
        var c = EmitterCell()
        c.contents = try GraphicsContext(width: 4, height: 2).makeImage()
        (c.birthRate, c.lifetime) = (birthRate, lifetime)
        return c
    }

    @Test func defaultsAreCoreAnimations() {
        let layer = EmitterLayer()
        #expect([layer.birthRate, layer.lifetime, layer.velocity, layer.scale, layer.spin] == [1, 1, 1, 1, 1])
        #expect(layer.seed == 0 && layer.emitterCells.isEmpty)
        #expect(layer.emitterPosition == .zero && layer.emitterSize == .zero)
        #expect(layer.emitterShape == .point && layer.emitterMode == .volume && layer.renderMode == .unordered)
        let c = EmitterCell()
        #expect(c.birthRate == 0 && c.lifetime == 0 && c.scale == 1 && c.color == .white && c.isEnabled)
        #expect(EmitterLayer(layer: layer).properties.emitter != nil)
    }

    @Test func theCountAtATimeFollowsTheBirthRateAndLifetime() throws {
        var e = EmitterProperties()
        e.emitterCells = [try cell(birthRate: 10, lifetime: 2)]
        // Born at 0, 0.1, …, 1.0: eleven, all alive.
        #expect(e.particles(atTime: 1.05).count == 11)
        // Born at 3.1 … 5.0: the ones from before 3.05 have lived their two seconds.
        #expect(e.particles(atTime: 5.05).map(\.index) == Array(31...50))
        #expect(e.particles(atTime: -1).isEmpty)
        e.birthRate = 2
        #expect(e.particles(atTime: 5.02).count == 40)
        e.birthRate = 1
        e.lifetime = 0.5
        #expect(e.particles(atTime: 5.02).count == 10)
        e.emitterCells[0].isEnabled = false
        #expect(e.particles(atTime: 5.02).isEmpty)
        e.emitterCells[0].isEnabled = true
        e.emitterCells[0].contents = nil
        #expect(e.particles(atTime: 5.02).isEmpty)
    }

    @Test func withoutRangesAParticleMovesByItsVelocityAndAcceleration() throws {
        var e = EmitterProperties()
        e.emitterPosition = Point(x: 50, y: 50)
        var c = try cell(birthRate: 10, lifetime: 5)
        (c.velocity, c.emissionLongitude, c.yAcceleration) = (20, 0, 10)
        (c.spin, c.scaleSpeed, c.alphaSpeed, c.redSpeed) = (2, 0.5, -0.5, -2)
        e.emitterCells = [c]
        let first = try #require(e.particles(atTime: 1.05).first)
        #expect(first.index == 0 && first.birthTime == 0 && isClose(first.age, 1.05))
        #expect(isClose(first.position, Point(x: 50 + 20 * 1.05, y: 50 + 10 * 1.05 * 1.05 / 2)))
        #expect(isClose(first.angle, 2.1) && isClose(first.scale, 1.525))
        #expect(isClose(first.color.alpha, 1 - 0.525) && first.color.red == 0 && first.color.green == 1)
        // Emitted straight down (y grows downwards) at half the speed through the layer's multiplier.
        e.emitterCells[0].emissionLongitude = Double.pi / 2
        e.velocity = 0.5
        let down = try #require(e.particles(atTime: 1.05).first)
        #expect(isClose(down.position, Point(x: 50, y: 50 + 10 * 1.05 + 10 * 1.05 * 1.05 / 2), 1e-9))
    }

    @Test func theRandomValuesAreSplitMix64OfTheSeedCellAndParticle() {
        // SplitMix64's first output from state 0 is 0xE220A8397B1DCDAF.
        var zero = ParticleRandom(seed: 0, cell: 0, particle: 0)
        #expect(zero.next() == Double(UInt64(0xE220_A839_7B1D_CDAF) >> 11) / Double(1 << 53))
        var a = ParticleRandom(seed: 7, cell: 1, particle: 3), b = ParticleRandom(seed: 7, cell: 1, particle: 3)
        #expect((0..<8).map { _ in a.next() } == (0..<8).map { _ in b.next() })
    }

    @Test func aSeedPinsEveryParticleAndRangesStayWithinHalfTheirWidth() throws {
        var e = EmitterProperties()
        e.emitterPosition = Point(x: 100, y: 100)
        var c = try cell(birthRate: 50, lifetime: 3)
        (c.lifetimeRange, c.velocity, c.velocityRange, c.emissionRange) = (2, 40, 20, Double.pi / 2)
        (c.scaleRange, c.spinRange, c.redRange) = (0.5, 1, 0.4)
        c.color = Color(red: 0.5, green: 0.5, blue: 0.5)
        e.emitterCells = [c]
        e.seed = 42
        let particles = e.particles(atTime: 2.5)
        #expect(particles == e.particles(atTime: 2.5))
        var other = e
        other.seed = 43
        #expect(particles.map(\.position) != other.particles(atTime: 2.5).map(\.position))
        for p in particles {
            // Speed 30…50 in a quarter turn about +x.
            let dx = p.position.x - 100, dy = p.position.y - 100
            let distance = (dx * dx + dy * dy).squareRoot()
            #expect(distance >= 30 * p.age - 1e-9 && distance <= 50 * p.age + 1e-9)
            #expect(p.age == 0 || abs(atan2(dy, dx)) <= Double.pi / 4 + 1e-9)
            #expect(p.age < 4 && p.scale >= 0.75 && p.scale <= 1.25 && abs(p.angle) <= 0.5 * p.age + 1e-9)
            #expect(p.color.red >= 0.3 && p.color.red <= 0.7 && p.color.green == 0.5)
        }
        // Lifetimes of 2…4 s: of the 126 born by 2.5 s, those older than their lifetime are gone.
        #expect(particles.count < 126 && particles.count > 100)
    }

    @Test func particlesStartOnTheEmittersShape() throws {
        var e = EmitterProperties()
        e.emitterPosition = Point(x: 50, y: 40)
        e.emitterSize = Size(width: 60, height: 20)
        e.emitterCells = [try cell(birthRate: 100, lifetime: 10)]
        func starts(_ shape: EmitterShape, _ mode: EmitterMode) -> [Point] {
            e.emitterShape = shape
            e.emitterMode = mode
            return e.particles(atTime: 1).map(\.position)
        }
        #expect(starts(.point, .volume).allSatisfy { $0 == Point(x: 50, y: 40) })
        let line = starts(.line, .volume)
        #expect(line.allSatisfy { $0.y == 40 && $0.x >= 20 && $0.x <= 80 })
        #expect(line.contains { $0.x < 35 } && line.contains { $0.x > 65 })
        let area = starts(.rectangle, .surface)
        #expect(area.allSatisfy { $0.x >= 20 && $0.x <= 80 && $0.y >= 30 && $0.y <= 50 })
        #expect(area.contains { abs($0.y - 40) < 5 && abs($0.x - 50) < 15 })
        for p in starts(.rectangle, .outline) {
            let onEdge = (abs(p.x - 20) < 1e-9 || abs(p.x - 80) < 1e-9) && p.y >= 30 && p.y <= 50
                || (abs(p.y - 30) < 1e-9 || abs(p.y - 50) < 1e-9) && p.x >= 20 && p.x <= 80
            #expect(onEdge, "\(p)")
        }
        #expect(starts(.circle, .outline).allSatisfy { isClose(hypot($0.x - 50, $0.y - 40), 30, 1e-9) })
        let disc = starts(.circle, .surface)
        #expect(disc.allSatisfy { hypot($0.x - 50, $0.y - 40) <= 30 + 1e-9 } && disc.contains { hypot($0.x - 50, $0.y - 40) < 15 })
    }

    @Test func renderModesOrderTheParticles() throws {
        var e = EmitterProperties()
        e.emitterCells = [try cell(birthRate: 1, lifetime: 10), try cell(birthRate: 2, lifetime: 10)]
        let key = { (p: Particle) in "\(p.cellIndex):\(p.index)" }
        #expect(e.particles(atTime: 1.2).map(key) == ["0:0", "0:1", "1:0", "1:1", "1:2"])
        e.renderMode = .oldestFirst
        #expect(e.particles(atTime: 1.2).map(key) == ["0:0", "1:0", "1:1", "0:1", "1:2"])
        // Newest first; particles born together keep the unordered order.
        e.renderMode = .oldestLast
        #expect(e.particles(atTime: 1.2).map(key) == ["0:1", "1:2", "1:1", "0:0", "1:0"])
    }

    @Test func emitterValuesAreReachedByKeyAndAnimate() throws {
        let layer = EmitterLayer()
        #expect(EmitterLayer.defaultValue(forKey: "birthRate") as? Double == 1)
        #expect(EmitterLayer.defaultValue(forKey: "emitterShape") as? EmitterShape == .point)
        layer.setValue(Point(x: 3, y: 4), forKey: "emitterPosition")
        layer.setValue(UInt32(9), forKey: "seed")
        #expect(layer.emitterPosition == Point(x: 3, y: 4) && layer.value(forKey: "seed") as? UInt32 == 9)

        MediaTime.clock = ManualMediaClock(startingAt: 10)
        let root = makeLayer(100, 100)
        root.addSublayer(layer)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        // Implicitly, over the default quarter second; but a birth rate applies at once (its
        // births are kept from the moment of the change).
        layer.lifetime = 3
        layer.birthRate = 3
        #expect(layer.animation(forKey: "lifetime") != nil)
        #expect(layer.animation(forKey: "birthRate") == nil)
        Transaction.flush()
        let move = BasicAnimation(keyPath: "emitterPosition.x")
        (move.fromValue, move.toValue, move.duration) = (0.0, 40.0, 1)
        layer.add(move, forKey: "move")
        Transaction.flush()
        let shown = try #require(context.renderTree?.presentationProperties(of: layer.id, atMediaTime: 10.5)?.emitter)
        #expect(isClose(shown.emitterPosition.x, 20) && shown.emitterPosition.y == 4)
        #expect(shown.birthRate == 3 && shown.lifetime == 3)
    }

    @Test func anEmitterIsSampledEveryFrame() throws {
        let root = makeLayer(100, 100)
        let emitter = EmitterLayer()
        root.addSublayer(emitter)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let tree = try #require(context.renderTree)
        #expect(tree.animatedLayerIDs == [emitter.id])
    }

    /// An emitter layer with one cell, on `clock` (its local time is the clock's).
    func emitter(_ cell: EmitterCell, clock: ManualMediaClock) -> EmitterLayer {
        MediaTime.clock = clock
        let layer = EmitterLayer()
        layer.emitterCells = [cell]
        return layer
    }

    @Test func particlesAliveBeforeARateChangeKeepTheirBirthTimesPositionsAndColours() throws {
        var c = try cell(birthRate: 4, lifetime: 10)
        (c.velocity, c.velocityRange, c.emissionRange, c.redRange, c.redSpeed) = (10, 4, 1, 0.5, -0.1)
        let clock = ManualMediaClock(startingAt: 1.5)
        let layer = emitter(c, clock: clock)
        layer.seed = 5
        let unchanged = try #require(layer.properties.emitter)
        layer.birthRate = 3
        let changed = try #require(layer.properties.emitter)
        let before = { (e: EmitterProperties) in e.particles(atTime: 4).filter { $0.index < 6 } }
        #expect(before(changed).map(\.birthTime) == [0, 0.25, 0.5, 0.75, 1, 1.25])
        #expect(before(changed) == before(unchanged))
        #expect(changed.particles(atTime: 4).count == 6 + 30 + 1)
    }

    @Test func aZeroBirthRateStopsNewBirthsWhileTheLivingFinish() throws {
        // Local time 1.5 at media time 10: the change is kept at the layer's time, not media time.
        let layer = emitter(try cell(birthRate: 4, lifetime: 1), clock: ManualMediaClock(startingAt: 10))
        layer.beginTime = 8.5
        layer.birthRate = 0
        let e = try #require(layer.properties.emitter)
        #expect(e.birthRateHistory == [BirthRateSegment(start: 0, end: 1.5, birthsBefore: [0], rates: [4])])
        // Born at 0.75, 1 and 1.25; the one born at 0.5 has lived its second.
        #expect(e.particles(atTime: 1.5).map(\.index) == [3, 4, 5])
        #expect(e.particles(atTime: 1.75).map(\.index) == [4, 5])
        #expect(e.particles(atTime: 2).map(\.index) == [5] && e.particles(atTime: 2).first?.age == 0.75)
        #expect(e.particles(atTime: 2.25).isEmpty && e.particles(atTime: 10).isEmpty)
    }

    @Test func aDoubledBirthRateDoublesOnlyTheBirthsAfterTheChange() throws {
        let layer = emitter(try cell(birthRate: 4, lifetime: 10), clock: ManualMediaClock(startingAt: 1.5))
        layer.birthRate = 2
        let e = try #require(layer.properties.emitter)
        let quarters = [0, 0.25, 0.5, 0.75, 1, 1.25]
        let eighths = [1.5, 1.625, 1.75, 1.875, 2, 2.125, 2.25, 2.375, 2.5]
        #expect(e.particles(atTime: 2.5).map(\.birthTime) == quarters + eighths)
        #expect(e.particles(atTime: 2.5).map(\.index) == Array(0...14))
    }

    @Test func aCellsRateChangedAndBackCarriesItsBirthsOnAcrossBothChanges() throws {
        let clock = ManualMediaClock(startingAt: 0.875)
        let layer = emitter(try cell(birthRate: 4, lifetime: 10), clock: clock)
        // 3.5 births by 0.875 s: at 2 per second the next is half a birth, a quarter second, away.
        layer.emitterCells[0].birthRate = 2
        clock.set(to: 1.875)
        layer.emitterCells[0].birthRate = 4
        let e = try #require(layer.properties.emitter)
        #expect(e.birthRateHistory.map(\.rates) == [[4], [2]])
        #expect(e.particles(atTime: 2.5).map(\.birthTime) == [0, 0.25, 0.5, 0.75, 1.125, 1.625, 2, 2.25, 2.5])
        // Another value of the cell leaves the rates, so nothing is recorded.
        layer.emitterCells[0].velocity = 3
        #expect(layer.properties.emitter?.birthRateHistory.count == 2)
        // A cell added later emits as though it always had, as one set before any change does.
        layer.emitterCells.append(try cell(birthRate: 2, lifetime: 10))
        let added = try #require(layer.properties.emitter).particles(atTime: 2.5).filter { $0.cellIndex == 1 }
        #expect(added.map(\.birthTime) == [0, 0.5, 1, 1.5, 2, 2.5])
        #expect(layer.properties.emitter?.birthRateHistory.map(\.rates) == [[4, 2], [2, 2]])
    }

    @Test func theRateHistoryKeepsOnlySegmentsWithLivingParticles() throws {
        let clock = ManualMediaClock(startingAt: 0)
        let layer = emitter(try cell(birthRate: 4, lifetime: 1), clock: clock)
        for k in 1...1000 {
            clock.set(to: Double(k) * 0.125)
            layer.birthRate = k.isMultiple(of: 2) ? 1 : 2
        }
        // Segments ending in the last second (125 − 0.875 … 125); the one ending at 124 has only the dead.
        let e = try #require(layer.properties.emitter)
        #expect(e.birthRateHistory.map(\.end) == (0..<8).map { 124.125 + Double($0) * 0.125 })
        // At 4 and 8 a second by turns, 1.5 births each quarter second: 6 a second, all from the kept segments.
        #expect(e.birthRateHistory.first?.birthsBefore == [6 * 124])
        // Born after 124 s: 745 at 124.1875 (half a birth on at 8 a second) … 750 at 125.
        #expect(e.particles(atTime: 125).map(\.index) == Array(745...750))
    }

    @Test func theSameRateChangesAtTheSameTimesGiveTheSameParticles() throws {
        var c = try cell(birthRate: 10, lifetime: 3)
        (c.velocity, c.velocityRange, c.emissionRange) = (20, 10, 2)
        func run(changingAt times: [Double]) -> EmitterProperties? {
            let clock = ManualMediaClock(startingAt: 0)
            let layer = emitter(c, clock: clock)
            layer.seed = 11
            for (k, t) in times.enumerated() {
                clock.set(to: t)
                layer.birthRate = [0.5, 3, 1][k % 3]
            }
            return layer.properties.emitter
        }
        let a = try #require(run(changingAt: [0.3, 1.1, 1.7, 2.2]))
        let b = try #require(run(changingAt: [0.3, 1.1, 1.7, 2.2]))
        let later = try #require(run(changingAt: [0.3, 1.1, 1.8, 2.2]))
        #expect(a == b && a.particles(atTime: 3) == b.particles(atTime: 3))
        #expect(a.particles(atTime: 3).map(\.birthTime) != later.particles(atTime: 3).map(\.birthTime))
    }

    @Test func theRenderTreeDrawsTheKeptParticles() throws {
        let clock = ManualMediaClock(startingAt: 1.5)
        MediaTime.clock = clock
        let root = makeLayer(100, 100)
        let layer = EmitterLayer()
        layer.emitterCells = [try cell(birthRate: 4, lifetime: 1)]
        root.addSublayer(layer)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        layer.birthRate = 0
        Transaction.flush()
        // After the implicit quarter second, what is shown is the model's: two still alive at 1.8 s, one at 2 s.
        for t in [1.8, 2.0] {
            let shown = try #require(context.renderTree?.presentationProperties(of: layer.id, atMediaTime: t)?.emitter)
            #expect(shown.particles(atTime: t) == layer.properties.emitter?.particles(atTime: t))
        }
        #expect(layer.properties.emitter?.particles(atTime: 1.8).map(\.index) == [4, 5])
        #expect(layer.properties.emitter?.particles(atTime: 2).map(\.index) == [5])
    }
}
