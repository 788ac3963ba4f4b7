import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// ReplicatorLayer's instances, drawn by the encoder from the one subtree.
@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct RenderReplicatorLayerTests {
    /// A black root with a replicator of `frame` holding one white `dot`.
    func scene(_ width: Double, _ height: Double, replicator frame: Rect, dot: Rect) -> (Layer, ReplicatorLayer, Layer) {
        let root = makeRoot(width, height)
        root.backgroundColor = .black
        let replicator = ReplicatorLayer()
        replicator.frame = frame
        root.addSublayer(replicator)
        let dotLayer = sublayer(replicator, frame: dot, background: .white)
        return (root, replicator, dotLayer)
    }

    @Test(arguments: SceneRenderer.allCases) func aSpinnerOfEightTurnedAndRecolouredInstances(_ renderer: SceneRenderer) throws {
        let (root, replicator, dot) = scene(120, 120, replicator: Rect(x: 10, y: 10, width: 100, height: 100), dot: Rect(x: 45, y: 5, width: 10, height: 10))
        dot.cornerRadius = 5
        replicator.instanceCount = 8
        replicator.instanceTransform = Transform3D(rotationAngle: 2 * Double.pi / 8, x: 0, y: 0, z: 1)
        replicator.instanceColor = .red
        replicator.instanceGreenOffset = 0.125
        replicator.instanceAlphaOffset = -0.1
        let image = try render(root, with: renderer)
        // Instance 0 above the centre: red. Instance 2, a quarter turn on (right of the centre):
        // (1, 0.25, 0) at alpha 0.8 over black. Instance 4 below: (1, 0.5, 0) at alpha 0.6.
        #expect(isNear(pixel(image, 60, 20), [255, 0, 0, 255]))
        #expect(isNear(pixel(image, 100, 60), [204, 51, 0, 255]))
        #expect(isNear(pixel(image, 60, 100), [153, 77, 0, 255]))
        #expect(isNear(pixel(image, 60, 60), [0, 0, 0, 255]))  // the centre stays empty
        try renderer.check(image, named: "replicator-layer-spinner", cpu: (16, 0.002))
    }

    @Test func instanceKIsEncodedWithTheKthTransformAndColour() throws {
        let (root, replicator, _) = scene(120, 120, replicator: Rect(x: 10, y: 10, width: 100, height: 100), dot: Rect(x: 45, y: 5, width: 10, height: 10))
        replicator.instanceCount = 3
        replicator.instanceTransform = Transform3D(rotationAngle: Double.pi / 2, x: 0, y: 0, z: 1)
        replicator.instanceColor = Color(red: 1, green: 0.5, blue: 0.25)
        replicator.instanceRedOffset = -0.25
        replicator.instanceAlphaOffset = -0.25
        let encoder = SceneEncoder(tree: try commit(root), scale: 1, targetSize: (120, 120))
        // The root's background, then the one dot three times.
        let dots = Array(encoder.draws.dropFirst())
        #expect(dots.count == 3)
        let n = SceneEncoder.floatsPerInstance
        let centres = [Point(x: 60, y: 20), Point(x: 100, y: 60), Point(x: 60, y: 100)]
        for (k, draw) in dots.enumerated() {
            let f = encoder.floats[Int(draw.instance) * n..<(Int(draw.instance) + 1) * n].map { Double($0) }
            let transform = Transform3D(rows: (0..<4).map { row in (0..<4).map { f[row * 4 + $0] } })
            let centre = try #require(transform.apply(x: 5, y: 5))
            #expect(abs(centre.x - centres[k].x) < 1e-4 && abs(centre.y - centres[k].y) < 1e-4, "instance \(k): \(centre)")
            // params.x is the opacity (the colour's alpha), tint.rgb the colour's red, green and blue.
            #expect(f[68] == 1 - 0.25 * Double(k), "instance \(k)")
            #expect(Array(f[76..<79]) == [1 - 0.25 * Double(k), 0.5, 0.25], "instance \(k)")
        }
    }

    @Test(arguments: SceneRenderer.allCases) func delayedInstancesShowEarlierMomentsOfTheAnimation(_ renderer: SceneRenderer) throws {
        MediaTime.clock = ManualMediaClock(startingAt: 100)
        let (root, replicator, dot) = scene(130, 40, replicator: Rect(x: 0, y: 0, width: 130, height: 40), dot: Rect(x: 10, y: 10, width: 20, height: 20))
        replicator.instanceCount = 3
        replicator.instanceTransform = Transform3D(translationX: 40, y: 0)
        replicator.instanceDelay = 0.25
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let fade = BasicAnimation(keyPath: "opacity")
        (fade.fromValue, fade.toValue, fade.duration) = (0.0, 1.0, 1)
        dot.add(fade, forKey: "fade")
        Transaction.flush()
        let renderer = try validatingRenderer.get()
        let image = try renderer.render(try #require(context.renderTree).sampled(atMediaTime: 100.75), width: 130, height: 40)
        #expect(renderer.takeValidationMessages() == [])
        // Opacity 0.75, 0.5 and 0.25 of white over black.
        #expect(isNear(pixel(image, 20, 20), [191, 191, 191, 255]))
        #expect(isNear(pixel(image, 60, 20), [128, 128, 128, 255]))
        #expect(isNear(pixel(image, 100, 20), [64, 64, 64, 255]))
    }

    @Test(arguments: SceneRenderer.allCases) func aGroupInsideAnInstanceIsTintedOnce(_ renderer: SceneRenderer) throws {
        let (root, replicator, dot) = scene(40, 40, replicator: Rect(x: 0, y: 0, width: 40, height: 40), dot: Rect(x: 0, y: 0, width: 40, height: 40))
        replicator.instanceColor = Color(red: 0.5, green: 1, blue: 1)
        dot.opacity = 0.5
        _ = sublayer(dot, frame: Rect(x: 20, y: 20, width: 20, height: 20), background: .white)
        let image = try render(root, with: renderer)
        // Half-transparent white, its red halved once: (0.25, 0.5, 0.5) over black.
        #expect(isNear(pixel(image, 10, 10), [64, 128, 128, 255]))
        #expect(isNear(pixel(image, 30, 30), [64, 128, 128, 255]))
    }

    /// The instance colour tints images too (the shader multiplies every colour it writes by it):
    /// a white image through instances (1, 0.5, 0.25) and (0.5, 0.5, 0.25), the second at half
    /// alpha.
    @Test(arguments: SceneRenderer.allCases) func instancesTintTheirImages(_ renderer: SceneRenderer) throws {
        let (root, replicator, dot) = scene(40, 20, replicator: Rect(x: 0, y: 0, width: 40, height: 20), dot: Rect(x: 0, y: 0, width: 20, height: 20))
        let context = try GraphicsContext(width: 4, height: 4)
        context.setFillColor(.white)
        context.fill(Rect(x: 0, y: 0, width: 4, height: 4))
        (dot.backgroundColor, dot.contents) = (nil, context.makeImage())
        replicator.instanceCount = 2
        replicator.instanceTransform = Transform3D(translationX: 20, y: 0)
        replicator.instanceColor = Color(red: 1, green: 0.5, blue: 0.25)
        replicator.instanceRedOffset = -0.5
        replicator.instanceAlphaOffset = -0.5
        let image = try render(root, with: renderer)
        #expect(isNear(pixel(image, 10, 10), [255, 128, 64, 255]))
        #expect(isNear(pixel(image, 30, 10), [64, 64, 32, 255]))
    }

    @Test(arguments: SceneRenderer.allCases) func nestedReplicatorsMakeAGridAndMultiplyTheirColours(_ renderer: SceneRenderer) throws {
        let (root, rows, _) = scene(40, 40, replicator: Rect(x: 0, y: 0, width: 40, height: 40), dot: .zero)
        rows.sublayers = []
        let columns = ReplicatorLayer()
        columns.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        rows.addSublayer(columns)
        _ = sublayer(columns, frame: Rect(x: 0, y: 0, width: 10, height: 10), background: .white)
        rows.instanceCount = 2
        rows.instanceTransform = Transform3D(translationX: 0, y: 20)
        rows.instanceGreenOffset = -0.5
        columns.instanceCount = 2
        columns.instanceTransform = Transform3D(translationX: 20, y: 0)
        columns.instanceRedOffset = -0.5
        let image = try render(root, with: renderer)
        #expect(isNear(pixel(image, 5, 5), [255, 255, 255, 255]))
        #expect(isNear(pixel(image, 25, 5), [128, 255, 255, 255]))
        #expect(isNear(pixel(image, 5, 25), [255, 128, 255, 255]))
        #expect(isNear(pixel(image, 25, 25), [128, 128, 255, 255]))
        #expect(isNear(pixel(image, 15, 15), [0, 0, 0, 255]))
    }

    @Test(arguments: SceneRenderer.allCases) func anInstanceCountOfZeroDrawsNoSublayers(_ renderer: SceneRenderer) throws {
        let (root, replicator, _) = scene(40, 40, replicator: Rect(x: 0, y: 0, width: 40, height: 40), dot: Rect(x: 0, y: 0, width: 40, height: 40))
        replicator.instanceCount = 0
        let image = try render(root, with: renderer)
        #expect(isNear(pixel(image, 20, 20), [0, 0, 0, 255]))
    }

    @Test func damageOfAnAnimatedSublayerCoversEveryInstance() throws {
        MediaTime.clock = ManualMediaClock(startingAt: 100)
        let (root, replicator, dot) = scene(400, 300, replicator: Rect(x: 0, y: 0, width: 100, height: 100), dot: Rect(x: 0, y: 0, width: 10, height: 10))
        replicator.instanceCount = 3
        replicator.instanceTransform = Transform3D(translationX: 150, y: 0)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let fade = BasicAnimation(keyPath: "opacity")
        (fade.fromValue, fade.toValue, fade.duration) = (0.0, 1.0, 10)
        dot.add(fade, forKey: "fade")
        Transaction.flush()
        var tracker = DamageTracker()
        let tree = try #require(context.renderTree)
        _ = tracker.damage(for: tree.sampled(atMediaTime: 101), scale: 1, width: 400, height: 300)
        // The third instance ends at 300 + 10.
        #expect(tracker.damage(for: tree.sampled(atMediaTime: 102), scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 0, y: 0, width: 311, height: 101)))
        // With a delay, instances show other moments: the whole frame.
        Transaction.begin()
        Transaction.disableActions = true
        replicator.instanceDelay = 0.1
        Transaction.commit()
        _ = tracker.damage(for: try #require(context.renderTree).sampled(atMediaTime: 103), scale: 1, width: 400, height: 300)
        #expect(tracker.damage(for: try #require(context.renderTree).sampled(atMediaTime: 104), scale: 1, width: 400, height: 300) == .full)
    }
}
