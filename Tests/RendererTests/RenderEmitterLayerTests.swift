import CPURenderer
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
    func render(_ emitter: EmitterLayer, _ width: Double, _ height: Double, at t: Double, with sceneRenderer: SceneRenderer) throws -> Image {
        let root = makeRoot(width, height)
        root.backgroundColor = .black
        emitter.frame = root.bounds
        root.addSublayer(emitter)
        let tree = try commit(root).sampled(atMediaTime: t)
        if sceneRenderer == .cpu { return try CPURenderer().render(tree, width: Int(width), height: Int(height)) }
        let renderer = try validatingRenderer.get()
        let image = try renderer.render(tree, width: Int(width), height: Int(height))
        #expect(renderer.takeValidationMessages() == [])
        return image
    }

    @Test(arguments: SceneRenderer.allCases) func particlesAreDrawnWhereTheSimulationPutsThem(_ renderer: SceneRenderer) throws {
        let emitter = EmitterLayer()
        emitter.emitterPosition = Point(x: 20, y: 20)
        var cell = EmitterCell()
        (cell.contents, cell.birthRate, cell.lifetime, cell.velocity) = (try square(4), 1, 10, 20)
        cell.color = .red
        emitter.emitterCells = [cell]
        // At 1.5 s: particle 0 at x 50, particle 1 at x 30, nothing left at the emitter.
        let image = try render(emitter, 80, 40, at: 1.5, with: renderer)
        #expect(isNear(pixel(image, 50, 20), [255, 0, 0, 255]))
        #expect(isNear(pixel(image, 30, 20), [255, 0, 0, 255]))
        #expect(isNear(pixel(image, 20, 20), [0, 0, 0, 255]))
        #expect(isNear(pixel(image, 40, 20), [0, 0, 0, 255]))
        #expect(isNear(pixel(image, 53, 20), [0, 0, 0, 255]))  // the image is 4 points wide
        // Both particles in one instanced draw (the root's background is the clear colour).
        if renderer == .vulkan { #expect(try validatingRenderer.get().lastFrameStatistics.drawCount == 1) }
    }

    @Test(arguments: SceneRenderer.allCases) func additiveParticlesAddTheirColours(_ renderer: SceneRenderer) throws {
        let emitter = EmitterLayer()
        emitter.emitterPosition = Point(x: 10, y: 10)
        var cell = EmitterCell()
        (cell.contents, cell.birthRate, cell.lifetime) = (try square(8), 2, 10)
        cell.color = Color(red: 0.4, green: 0.2, blue: 0)
        emitter.emitterCells = [cell]
        // Two particles (born at 0 and 0.5 s) on the same spot.
        #expect(isNear(pixel(try render(emitter, 20, 20, at: 0.9, with: renderer), 10, 10), [102, 51, 0, 255]))
        emitter.renderMode = .additive
        #expect(isNear(pixel(try render(emitter, 20, 20, at: 0.9, with: renderer), 10, 10), [204, 102, 0, 255]))
    }

    /// Additive particles leave the alpha below as it was (the shader writes them with alpha 0):
    /// over a transparent canvas their colour shows with alpha 0.
    @Test(arguments: SceneRenderer.allCases) func additiveParticlesKeepTheAlphaBelow(_ renderer: SceneRenderer) throws {
        let emitter = EmitterLayer()
        emitter.emitterPosition = Point(x: 10, y: 10)
        emitter.renderMode = .additive
        var cell = EmitterCell()
        (cell.contents, cell.birthRate, cell.lifetime) = (try square(8), 1, 10)
        cell.color = Color(red: 0.4, green: 0.2, blue: 0, alpha: 0.5)
        emitter.emitterCells = [cell]
        let root = makeRoot(20, 20)
        root.backgroundColor = nil
        emitter.frame = root.bounds
        root.addSublayer(emitter)
        let tree = try commit(root).sampled(atMediaTime: 0.5)
        let image = try renderer == .cpu
            ? CPURenderer().render(tree, width: 20, height: 20) : validatingRenderer.get().render(tree, width: 20, height: 20)
        // Half of (0.4, 0.2, 0) added to nothing, alpha 0.
        #expect(isNear(pixel(image, 10, 10), [51, 26, 0, 0]))
    }

    @Test(arguments: SceneRenderer.allCases) func aSeededFountainAtTwoSeconds(_ renderer: SceneRenderer) throws {
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
        let image = try render(emitter, 160, 120, at: 2, with: renderer)
        // Rising at most 105 points/s against 60 points/s², nothing climbs more than 92 points, nor
        // drifts more than 55 sideways: the top corners stay dark.
        #expect(isNear(pixel(image, 2, 2), [0, 0, 0, 255]))
        #expect(isNear(pixel(image, 157, 2), [0, 0, 0, 255]))
        // CPU: within pixman's bilinear rounding (2 of 255), but for a few pixels (0.03%) whose
        // centres lie within a 256th of a pixel of a turned particle's edge, which cairo's
        // fixed point and the GPU put on different sides.
        try renderer.check(image, named: "emitter-layer-fountain", cpu: (2, 0.002))
    }
}

/// EmitterCell.emitterCells, drawn: rockets trailing sparks.
@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct RenderEmitterSubcellTests {
    @Test(arguments: SceneRenderer.allCases) func seededRocketsTrailingSparks(_ renderer: SceneRenderer) throws {
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
        let image = try helpers.render(emitter, 160, 120, at: 2.3, with: renderer)
        let particles = try #require(emitter.properties.emitter).particles(atTime: 2.3)
        let rockets = particles.filter { $0.cellPath == [0] }
        #expect(rockets.count == 2)  // born at 4/3 and 2 s; the one of 2/3 s has lived its 1.6 s
        #expect(particles.count - rockets.count > 60)
        // A rocket is white, and additive sparks cannot darken it.
        for r in rockets where r.position.x > 3 && r.position.x < 157 && r.position.y > 3 && r.position.y < 117 {
            #expect(isNear(pixel(image, Int(r.position.x), Int(r.position.y)), [255, 255, 255, 255], 2), "rocket \(r.index)")
        }
        #expect(isNear(pixel(image, 2, 2), [0, 0, 0, 255]))
        // CPU: within pixman's bilinear rounding.
        try renderer.check(image, named: "emitter-layer-rockets-with-sparks", cpu: (2, 0))
    }
}
