import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// GradientLayer drawn by the layer shader on lavapipe, and by the CPU renderer's pixman gradients.
@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct RenderGradientLayerTests {
    func gradient(_ root: Layer, frame: Rect, colors: [Color]) -> GradientLayer {
        let layer = GradientLayer()
        layer.frame = frame
        layer.colors = colors
        root.addSublayer(layer)
        return layer
    }

    /// The byte a channel value in 0…1 becomes.
    func byte(_ v: Double) -> Int { Int((v * 255).rounded()) }

    @Test(arguments: SceneRenderer.allCases) func theFourKindsOfGradient(_ renderer: SceneRenderer) throws {
        let root = makeRoot(240, 240)
        // Axial, top to bottom by default.
        _ = gradient(root, frame: Rect(x: 10, y: 10, width: 100, height: 100), colors: [.red, .blue])
        // Axial along the diagonal with a middle stop, clipped by rounded corners.
        let diagonal = gradient(
            root, frame: Rect(x: 130, y: 10, width: 100, height: 100), colors: [.black, Color(red: 1, green: 1, blue: 0), .white])
        diagonal.startPoint = .zero
        diagonal.endPoint = Point(x: 1, y: 1)
        diagonal.locations = [0, 0.25, 1]
        diagonal.cornerRadius = 30
        // Radial, from the centre to the corners of the inscribed ellipse.
        let radial = gradient(root, frame: Rect(x: 10, y: 130, width: 100, height: 100), colors: [.white, .green, .black])
        radial.type = .radial
        radial.startPoint = Point(x: 0.5, y: 0.5)
        radial.endPoint = Point(x: 1, y: 1)
        // Conic, starting to the right and turning clockwise.
        let conic = gradient(
            root, frame: Rect(x: 130, y: 130, width: 100, height: 100),
            colors: [.red, Color(red: 1, green: 1, blue: 0), .green, .blue, .red])
        conic.type = .conic
        conic.startPoint = Point(x: 0.5, y: 0.5)
        conic.endPoint = Point(x: 1, y: 0.5)
        let image = try render(root, with: renderer)

        // Axial: pixel (60, 34) has its centre 24.5 points down: t = 0.245.
        #expect(isNear(pixel(image, 60, 34), [byte(0.755), 0, byte(0.245), 255]))
        #expect(isNear(pixel(image, 15, 34), [byte(0.755), 0, byte(0.245), 255]))  // constant across the axis
        // Diagonal: the centre of (154, 34) is (24.5, 24.5) in the layer: t = 0.245 of the way to
        // the yellow stop at 0.25.
        #expect(isNear(pixel(image, 154, 34), [byte(0.98), byte(0.98), 0, 255]))
        // Its rounded corner cuts the gradient off: the root's white shows at (131, 11).
        #expect(isNear(pixel(image, 131, 11), [255, 255, 255, 255]))
        #expect(isNear(pixel(image, 229, 11), [255, 255, 255, 255]))
        // Radial: the centre of (84, 180) is 24.5 points right of the middle: t = 0.49 of the
        // way from white to green at 0.5.
        #expect(isNear(pixel(image, 84, 180), [byte(0.02), 255, byte(0.02), 255]))
        // Conic: just left of straight below the centre is a quarter turn less 0.0022, the yellow
        // stop; just right of straight above, three quarters and 0.0023, the blue one.
        #expect(isNear(pixel(image, 180, 215), [255, 255, 0, 255], 3))
        #expect(isNear(pixel(image, 180, 145), [0, 0, 255, 255], 3))
        // CPU: the gradients within 2 of 255 (pixman's 16.16 geometry, 8-bit stops); cairo's
        // anti-aliased rounded corners within 16.
        try renderer.check(image, named: "gradient-layer-kinds", cpu: (16, 0.002))
    }

    @Test(arguments: SceneRenderer.allCases) func gradientLiesOverTheBackgroundAndUnderSublayers(_ renderer: SceneRenderer) throws {
        let root = makeRoot(100, 100)
        let layer = gradient(root, frame: Rect(x: 0, y: 0, width: 100, height: 100), colors: [.red, Color(red: 0, green: 0, blue: 1, alpha: 0)])
        layer.backgroundColor = .green
        _ = sublayer(layer, frame: Rect(x: 40, y: 40, width: 20, height: 20), background: .black)
        let image = try render(root, with: renderer)
        // Row 49 (t = 0.495): premultiplied red 0.505, alpha 0.505, over opaque green.
        #expect(isNear(pixel(image, 20, 49), [byte(0.505), byte(0.495), 0, 255]))
        #expect(isNear(pixel(image, 50, 50), [0, 0, 0, 255]))
    }

    @Test func theGradientBlockFollowsTheInstances() throws {
        let root = makeRoot(100, 100)
        let layer = gradient(
            root, frame: Rect(x: 0, y: 0, width: 100, height: 100),
            colors: [.red, .green, Color(red: 0, green: 0, blue: 1, alpha: 0.5)])
        layer.locations = [0, 0.25, 1]
        layer.type = .radial
        layer.startPoint = Point(x: 0.5, y: 0.5)
        let tree = try commit(root)
        let encoder = SceneEncoder(tree: tree, scale: 1, targetSize: (100, 100))
        let draw = try #require(encoder.draws.first { $0.flags.contains(.gradient) })
        let last = (Int(draw.instance) + 1) * SceneEncoder.floatsPerInstance - 1
        let start = Int(encoder.floats[last]) * 4
        #expect(start == encoder.draws.count * SceneEncoder.floatsPerInstance)
        #expect(Array(encoder.floats[start...]) == [
            0.5, 0.5, 0.5, 1, 1, 3, 0, 0,  // geometry; radial, three stops
            1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0.5, 0.5,  // premultiplied colours
            0, 0.25, 1, 0,  // locations
        ])
    }

    /// The background and the gradient are one colour before the layer's opacity applies, as
    /// the shader blends them in one draw: the background shows through the gradient's
    /// translucency at full strength, then the whole fades.
    @Test(arguments: SceneRenderer.allCases) func opacityFadesTheGradientAndItsBackgroundAsOne(_ renderer: SceneRenderer) throws {
        let root = makeRoot(100, 100)
        let layer = gradient(root, frame: Rect(x: 0, y: 0, width: 100, height: 100), colors: [.red, Color(red: 0, green: 0, blue: 1, alpha: 0)])
        layer.backgroundColor = .green
        layer.opacity = 0.5
        let image = try render(root, with: renderer)
        // Row 49 (t = 0.495): (0.505, 0.495, 0) opaque, at half opacity over white.
        #expect(isNear(pixel(image, 20, 49), [byte(0.7525), byte(0.7475), byte(0.5), 255]))
    }

    /// Locations may lie past 0 and 1: the stops sit where they say, and only the part of the
    /// gradient between 0 and 1 shows.
    @Test(arguments: SceneRenderer.allCases) func locationsBeyondZeroAndOne(_ renderer: SceneRenderer) throws {
        let root = makeRoot(10, 100)
        let layer = gradient(root, frame: Rect(x: 0, y: 0, width: 10, height: 100), colors: [.red, .blue, .green])
        layer.locations = [-0.5, 0.5, 1.5]
        let image = try render(root, with: renderer)
        // Row 24 (t = 0.245): 0.745 of the way from red to blue; row 74 (t = 0.745): 0.245 from blue to green.
        #expect(isNear(pixel(image, 5, 24), [byte(0.255), 0, byte(0.745), 255]))
        #expect(isNear(pixel(image, 5, 74), [0, byte(0.245), byte(0.755), 255]))
    }

    /// A replicator's instance colour tints the gradient.
    @Test(arguments: SceneRenderer.allCases) func aReplicatedGradientIsTinted(_ renderer: SceneRenderer) throws {
        let root = makeRoot(40, 20)
        let replicator = ReplicatorLayer()
        replicator.frame = root.bounds
        root.addSublayer(replicator)
        let layer = gradient(replicator, frame: Rect(x: 0, y: 0, width: 20, height: 20), colors: [.white, .black])
        (layer.startPoint, layer.endPoint) = (Point(x: 0, y: 0.5), Point(x: 1, y: 0.5))
        replicator.instanceCount = 2
        replicator.instanceTransform = Transform3D(translationX: 20, y: 0)
        replicator.instanceColor = Color(red: 1, green: 0.5, blue: 1)
        replicator.instanceBlueOffset = -0.75
        let image = try render(root, with: renderer)
        // Column 4 (t = 0.225): grey 0.775, its green halved; the second instance's blue a quarter.
        #expect(isNear(pixel(image, 4, 10), [byte(0.775), byte(0.3875), byte(0.775), 255]))
        #expect(isNear(pixel(image, 24, 10), [byte(0.775), byte(0.3875), byte(0.19375), 255]))
    }

    @Test(arguments: SceneRenderer.allCases) func stopsBeyondSixteenAreDrawn(_ renderer: SceneRenderer) throws {
        // Twenty stops; the red rises by 1/19 a stop and the green alternates, so each pixel
        // row's centre (19 rows) lies halfway between two stops: green 0.5, red (row + 0.5)/19.
        let root = makeRoot(10, 19)
        _ = gradient(
            root, frame: Rect(x: 0, y: 0, width: 10, height: 19),
            colors: (0..<20).map { Color(red: Double($0) / 19, green: Double($0 % 2), blue: 0) })
        let image = try render(root, with: renderer)
        for row in [3, 15, 18] {
            #expect(isNear(pixel(image, 5, row), [byte((Double(row) + 0.5) / 19), 128, 0, 255]), "row \(row)")
        }
    }

    @Test func animatedColorsAreSampledOnTheGPU() throws {
        MediaTime.clock = ManualMediaClock(startingAt: 100)
        let root = makeRoot(40, 40)
        let layer = gradient(root, frame: Rect(x: 0, y: 0, width: 40, height: 40), colors: [.red, .red])
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let animation = BasicAnimation(keyPath: "colors")
        (animation.fromValue, animation.toValue, animation.duration) = ([Color.red, Color.red], [Color.blue, Color.blue], 2)
        layer.add(animation, forKey: "colors")
        Transaction.flush()
        let renderer = try validatingRenderer.get()
        let image = try renderer.render(try #require(context.renderTree).sampled(atMediaTime: 101.5), width: 40, height: 40)
        #expect(renderer.takeValidationMessages() == [])
        #expect(isNear(pixel(image, 20, 20), [byte(0.25), 0, byte(0.75), 255]))
    }
}
