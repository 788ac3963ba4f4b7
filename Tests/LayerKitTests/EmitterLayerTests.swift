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
        // Implicitly, over the default quarter second.
        layer.birthRate = 3
        #expect(layer.animation(forKey: "birthRate") != nil)
        Transaction.flush()
        let move = BasicAnimation(keyPath: "emitterPosition.x")
        (move.fromValue, move.toValue, move.duration) = (0.0, 40.0, 1)
        layer.add(move, forKey: "move")
        Transaction.flush()
        let shown = try #require(context.renderTree?.presentationProperties(of: layer.id, atMediaTime: 10.5)?.emitter)
        #expect(isClose(shown.emitterPosition.x, 20) && shown.emitterPosition.y == 4)
        #expect(shown.birthRate == 3)
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
}
