import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// EmitterLayer: the particles of the sampled moment, drawn as instances of their cells' images.
@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct RenderEmitterLayerTests {
    func square(_ side: Int) throws -> Image {
        let context = try GraphicsContext(width: side, height: side)
        context.setFillColor(.white)
        context.fill(Rect(x: 0, y: 0, width: Double(side), height: Double(side)))
        return context.makeImage()
    }

    func disc(_ side: Int) throws -> Image {
        let context = try GraphicsContext(width: side, height: side)
        context.setFillColor(.white)
        context.fillEllipse(in: Rect(x: 0, y: 0, width: Double(side), height: Double(side)))
        return context.makeImage()
    }

    /// A black root of `width`×`height` with an emitter filling it, rendered at media time `t`
    /// (the emitter's local time, since nothing above it shifts time).
    func render(_ emitter: EmitterLayer, _ width: Double, _ height: Double, at t: Double) throws -> Image {
        let root = makeRoot(width, height)
        root.backgroundColor = .black
        emitter.frame = root.bounds
        root.addSublayer(emitter)
        let renderer = try validatingRenderer.get()
        let image = try renderer.render(try commit(root).sampled(atMediaTime: t), width: Int(width), height: Int(height))
        #expect(renderer.takeValidationMessages() == [])
        return image
    }

    @Test func particlesAreDrawnWhereTheSimulationPutsThem() throws {
        let emitter = EmitterLayer()
        emitter.emitterPosition = Point(x: 20, y: 20)
        var cell = EmitterCell()
        (cell.contents, cell.birthRate, cell.lifetime, cell.velocity) = (try square(4), 1, 10, 20)
        cell.color = .red
        emitter.emitterCells = [cell]
        // At 1.5 s: particle 0 at x 50, particle 1 at x 30, nothing left at the emitter.
        let image = try render(emitter, 80, 40, at: 1.5)
        #expect(isNear(pixel(image, 50, 20), [255, 0, 0, 255]))
        #expect(isNear(pixel(image, 30, 20), [255, 0, 0, 255]))
        #expect(isNear(pixel(image, 20, 20), [0, 0, 0, 255]))
        #expect(isNear(pixel(image, 40, 20), [0, 0, 0, 255]))
        #expect(isNear(pixel(image, 53, 20), [0, 0, 0, 255]))  // the image is 4 points wide
        // Both particles in one instanced draw (the root's background is the clear colour).
        let calls = try validatingRenderer.get().lastFrameStatistics.drawCount
        #expect(calls == 1)
    }

    @Test func additiveParticlesAddTheirColours() throws {
        let emitter = EmitterLayer()
        emitter.emitterPosition = Point(x: 10, y: 10)
        var cell = EmitterCell()
        (cell.contents, cell.birthRate, cell.lifetime) = (try square(8), 2, 10)
        cell.color = Color(red: 0.4, green: 0.2, blue: 0)
        emitter.emitterCells = [cell]
        // Two particles (born at 0 and 0.5 s) on the same spot.
        #expect(isNear(pixel(try render(emitter, 20, 20, at: 0.9), 10, 10), [102, 51, 0, 255]))
        emitter.renderMode = .additive
        #expect(isNear(pixel(try render(emitter, 20, 20, at: 0.9), 10, 10), [204, 102, 0, 255]))
    }

    @Test func aSeededFountainAtTwoSeconds() throws {
        let emitter = EmitterLayer()
        emitter.emitterPosition = Point(x: 80, y: 110)
        emitter.emitterSize = Size(width: 40, height: 0)
        emitter.emitterShape = .line
        emitter.seed = 2024
        var spark = EmitterCell()
        (spark.contents, spark.birthRate, spark.lifetime, spark.lifetimeRange) = (try disc(8), 40, 1.8, 0.6)
        (spark.velocity, spark.velocityRange, spark.emissionLongitude, spark.emissionRange) = (90, 30, -Double.pi / 2, 0.8)
        (spark.yAcceleration, spark.scale, spark.scaleRange, spark.scaleSpeed) = (60, 0.8, 0.4, -0.3)
        (spark.spin, spark.spinRange) = (1, 2)
        spark.color = Color(red: 1, green: 0.6, blue: 0.2)
        (spark.greenRange, spark.alphaSpeed) = (0.3, -0.4)
        var ember = spark
        (ember.birthRate, ember.velocity, ember.color, ember.contents) = (10, 50, Color(red: 0.3, green: 0.5, blue: 1), try square(6))
        emitter.emitterCells = [spark, ember]
        let image = try render(emitter, 160, 120, at: 2)
        // Rising at most 105 points/s against 60 points/s², nothing climbs more than 92 points, nor
        // drifts more than 55 sideways: the top corners stay dark.
        #expect(isNear(pixel(image, 2, 2), [0, 0, 0, 255]))
        #expect(isNear(pixel(image, 157, 2), [0, 0, 0, 255]))
        try golden.check(image, named: "emitter-layer-fountain")
    }
}

/// EmitterCell.emitterCells, drawn: rockets trailing sparks.
@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct RenderEmitterSubcellTests {
    @Test func seededRocketsTrailingSparks() throws {
        let helpers = RenderEmitterLayerTests()
        let emitter = EmitterLayer()
        emitter.emitterPosition = Point(x: 80, y: 115)
        emitter.seed = 9
        emitter.renderMode = .additive
        var rocket = EmitterCell()
        (rocket.contents, rocket.birthRate, rocket.lifetime) = (try helpers.disc(6), 1.5, 1.6)
        (rocket.velocity, rocket.velocityRange, rocket.emissionLongitude, rocket.emissionRange) = (95, 15, -Double.pi / 2, 0.7)
        rocket.yAcceleration = 35
        var spark = EmitterCell()
        (spark.contents, spark.birthRate, spark.lifetime, spark.lifetimeRange) = (try helpers.disc(3), 40, 0.8, 0.3)
        (spark.velocity, spark.velocityRange, spark.emissionRange, spark.yAcceleration) = (20, 10, 2 * Double.pi, 30)
        spark.color = Color(red: 1, green: 0.55, blue: 0.15)
        spark.alphaSpeed = -1
        rocket.emitterCells = [spark]
        emitter.emitterCells = [rocket]
        let image = try helpers.render(emitter, 160, 120, at: 2.3)
        let particles = try #require(emitter.properties.emitter).particles(atTime: 2.3)
        let rockets = particles.filter { $0.cellPath == [0] }
        #expect(rockets.count == 2)  // born at 4/3 and 2 s; the one of 2/3 s has lived its 1.6 s
        #expect(particles.count - rockets.count > 60)
        // A rocket is white, and additive sparks cannot darken it.
        for r in rockets where r.position.x > 3 && r.position.x < 157 && r.position.y > 3 && r.position.y < 117 {
            #expect(isNear(pixel(image, Int(r.position.x), Int(r.position.y)), [255, 255, 255, 255], 2), "rocket \(r.index)")
        }
        #expect(isNear(pixel(image, 2, 2), [0, 0, 0, 255]))
        try golden.check(image, named: "emitter-layer-rockets-with-sparks")
    }
}
