import Foundation
import Graphics
import Testing
@testable import LayerKit

/// EmitterCell.emitterCells: every particle of a cell emits its sub-cells.
@MainActor
@Suite struct EmitterSubcellTests {
    func cell(birthRate: Double, lifetime: Double, image: Bool = true) throws -> EmitterCell {
        var c = EmitterCell()
        if image { c.contents = try GraphicsContext(width: 2, height: 2).makeImage() }
        (c.birthRate, c.lifetime) = (birthRate, lifetime)
        return c
    }

    /// One rocket a second living `rocketLife` seconds, moving right at 10 points/s, each
    /// emitting ten sparks a second that live `sparkLife` seconds.
    func rockets(rocketLife: Double, sparkLife: Double) throws -> EmitterProperties {
        var e = EmitterProperties()
        var rocket = try cell(birthRate: 1, lifetime: rocketLife)
        rocket.velocity = 10
        rocket.emitterCells = [try cell(birthRate: 10, lifetime: sparkLife)]
        e.emitterCells = [rocket]
        return e
    }

    @Test func sparksAreBornAtTheirRateOverEachRocketsLife() throws {
        let e = try rockets(rocketLife: 2, sparkLife: 0.5)
        let sparks = e.particles(atTime: 1.05).filter { $0.cellPath == [0, 0] }
        // Rocket 0's sparks born at 0.6 … 1.0 are under half a second old; rocket 1 has made one.
        #expect(sparks.map(\.parentIndex) == [0, 0, 0, 0, 0, 1])
        #expect(sparks.map(\.index) == [6, 7, 8, 9, 10, 0])
        #expect(sparks.map(\.birthTime).enumerated().allSatisfy { isClose($1, [0.6, 0.7, 0.8, 0.9, 1, 1][$0]) })
        // The rockets first, then the sparks.
        #expect(e.particles(atTime: 1.05).map(\.cellPath) == [[0], [0]] + Array(repeating: [0, 0], count: 6))
    }

    @Test func sparksOutliveTheirRocket() throws {
        let e = try rockets(rocketLife: 1, sparkLife: 2)
        let sparks = e.particles(atTime: 2.5).filter { $0.cellPath == [0, 0] }
        // Rocket 0 (dead since 1 s) made ten sparks, at 0 … 0.9; those from 0.6 on are alive.
        // Rocket 1 (dead since 2 s): all ten alive. Rocket 2: 2.0 … 2.5, six.
        #expect(sparks.filter { $0.parentIndex == 0 }.map(\.index) == [6, 7, 8, 9])
        #expect(sparks.filter { $0.parentIndex == 1 }.map(\.index) == Array(0...9))
        #expect(sparks.filter { $0.parentIndex == 2 }.map(\.index) == Array(0...5))
        #expect(e.particles(atTime: 2.5).filter { $0.cellPath == [0] }.map(\.index) == [2])
    }

    @Test func aSparkStartsWhereItsRocketWasAtItsBirth() throws {
        var e = try rockets(rocketLife: 3, sparkLife: 3)
        e.seed = 11
        (e.emitterCells[0].velocityRange, e.emitterCells[0].emissionRange, e.emitterCells[0].yAcceleration) = (8, 2, 5)
        e.emitterPosition = Point(x: 30, y: 40)
        let sparks = e.particles(atTime: 2.95).filter { $0.cellPath == [0, 0] }
        #expect(sparks.count == 30 + 20 + 10)
        for spark in sparks {
            // The sparks do not move, so they stay where their rocket was when they were born.
            let rocket = try #require(
                e.particles(atTime: spark.birthTime).first { $0.cellPath == [0] && $0.index == spark.parentIndex })
            #expect(spark.position == rocket.position, "spark \(spark.index) of rocket \(rocket.index)")
        }
        // Each rocket's first spark is born with it at the emitter; the rockets spread, so their
        // later sparks start in different places.
        #expect(sparks.filter { $0.index == 0 }.map(\.position) == [e.emitterPosition, e.emitterPosition, e.emitterPosition])
        #expect(Set(sparks.filter { $0.index > 0 }.map { "\($0.position)" }).count == 57)
    }

    @Test func aSparksDirectionTurnsWithItsRocket() throws {
        var e = EmitterProperties()
        var rocket = try cell(birthRate: 1, lifetime: 5)
        rocket.spin = Double.pi / 2
        var spark = try cell(birthRate: 1, lifetime: 5)
        (spark.velocity, spark.emissionLongitude) = (10, 0)
        rocket.emitterCells = [spark]
        e.emitterCells = [rocket]
        // Rocket 0 has turned a quarter turn by 1 s, so its spark 1 flies along +y.
        let flying = try #require(e.particles(atTime: 1.5).first { $0.cellPath == [0, 0] && $0.parentIndex == 0 && $0.index == 1 })
        #expect(isClose(flying.position, Point(x: 0, y: 5)))
    }

    @Test func aRocketWithoutAnImageIsUnseenButStillEmits() throws {
        var e = try rockets(rocketLife: 2, sparkLife: 0.5)
        e.emitterCells[0].contents = nil
        #expect(e.particles(atTime: 1.05).map(\.cellPath) == Array(repeating: [0, 0], count: 6))
        e.emitterCells[0].emitterCells[0].isEnabled = false
        #expect(e.particles(atTime: 1.05).isEmpty)
    }

    @Test func subParticlesAreTheSameOnEveryComputationAndFollowTheSeed() throws {
        func fireworks(seed: UInt32) throws -> EmitterProperties {
            var e = try rockets(rocketLife: 2, sparkLife: 1.5)
            e.seed = seed
            (e.emitterCells[0].velocityRange, e.emitterCells[0].emissionRange) = (6, 1)
            (e.emitterCells[0].emitterCells[0].velocity, e.emitterCells[0].emitterCells[0].emissionRange) = (20, 2 * Double.pi)
            var ember = try cell(birthRate: 4, lifetime: 0.5)
            ember.velocityRange = 5
            e.emitterCells[0].emitterCells[0].emitterCells = [ember]
            return e
        }
        let a = try fireworks(seed: 3), b = try fireworks(seed: 3)
        let late = a.particles(atTime: 3.3)
        // Computed directly, after other moments, or from another value: the same particles.
        _ = b.particles(atTime: 1)
        #expect(b.particles(atTime: 3.3) == late)
        #expect(a.particles(atTime: 3.3) == late)
        #expect(late.contains { $0.cellPath == [0, 0, 0] })
        let otherSeed = try fireworks(seed: 4).particles(atTime: 3.3)
        #expect(otherSeed.count == late.count)
        #expect(otherSeed.map(\.position) != late.map(\.position))
    }
}
