import Foundation
import Testing
@testable import LayerKit

@MainActor
@Suite struct ReplicatorLayerTests {
    @Test func defaultsAreCoreAnimations() {
        let layer = ReplicatorLayer()
        #expect(layer.instanceCount == 1)
        #expect(layer.instanceTransform == .identity)
        #expect(layer.instanceDelay == 0)
        #expect(layer.instanceColor == .white)
        #expect([layer.instanceRedOffset, layer.instanceGreenOffset, layer.instanceBlueOffset, layer.instanceAlphaOffset] == [0, 0, 0, 0])
        #expect(layer.preservesDepth == false)
        #expect(ReplicatorLayer.defaultValue(forKey: "instanceCount") as? Int == 1)
        layer.setValue(5, forKey: "instanceCount")
        #expect(layer.instanceCount == 5)
    }

    @Test func instanceKGetsTheTransformKTimes() {
        var r = ReplicatorProperties()
        r.instanceTransform = Transform3D(translationX: 10, y: -4)
        #expect(r.transform(ofInstance: 0) == .identity)
        #expect(r.transform(ofInstance: 3) == Transform3D(translationX: 30, y: -12))
        r.instanceTransform = Transform3D(rotationAngle: Double.pi / 6, x: 0, y: 0, z: 1)
        #expect(isClose(r.transform(ofInstance: 3), Transform3D(rotationAngle: Double.pi / 2, x: 0, y: 0, z: 1)))
    }

    @Test func instanceColoursAddTheOffsetsOncePerInstanceAndClamp() {
        var r = ReplicatorProperties()
        r.instanceColor = Color(red: 1, green: 0.5, blue: 0)
        (r.instanceRedOffset, r.instanceBlueOffset, r.instanceAlphaOffset) = (-0.25, 0.75, -0.4)
        #expect(r.color(ofInstance: 0) == Color(red: 1, green: 0.5, blue: 0))
        let second = r.color(ofInstance: 2)
        #expect((second.red, second.green, second.blue) == (0.5, 0.5, 1))
        #expect(isClose(second.alpha, 0.2))
        #expect(r.color(ofInstance: 5).alpha == 0)
    }

    @Test func instancesTurnAboutTheReplicatorsAnchorPoint() {
        // A dot above the centre of a 100×100 replicator, turned a quarter per instance.
        var replicator = LayerProperties()
        replicator.bounds = Rect(x: 0, y: 0, width: 100, height: 100)
        replicator.replicator = ReplicatorProperties()
        replicator.replicator!.instanceCount = 4
        replicator.replicator!.instanceTransform = Transform3D(rotationAngle: Double.pi / 2, x: 0, y: 0, z: 1)
        var dot = LayerProperties()
        dot.bounds = Rect(x: 0, y: 0, width: 10, height: 10)
        dot.position = Point(x: 50, y: 10)
        let spaces = replicator.instanceSublayerSpaces
        #expect(spaces.count == 4)
        let centres = spaces.map { dot.transformToSuperlayer($0).apply(x: 5, y: 5).map { Point(x: $0.x, y: $0.y) }! }
        let expected = [Point(x: 50, y: 10), Point(x: 90, y: 50), Point(x: 50, y: 90), Point(x: 10, y: 50)]
        for (centre, wanted) in zip(centres, expected) { #expect(isClose(centre, wanted), "\(centre)") }
    }

    @Test func instanceTransformComesBeforeTheSublayerTransform() {
        var replicator = LayerProperties()
        replicator.bounds = Rect(x: 0, y: 0, width: 100, height: 100)
        replicator.sublayerTransform = Transform3D(scaleX: 2, y: 2)
        var dot = LayerProperties()
        dot.bounds = Rect(x: 0, y: 0, width: 10, height: 10)
        dot.position = Point(x: 50, y: 50)
        // Translated 10 first, then scaled 2 about the centre: 20 right of the centre.
        let space = replicator.sublayerSpace(instanceTransform: Transform3D(translationX: 10, y: 0))
        let centre = dot.transformToSuperlayer(space).apply(x: 5, y: 5)!
        #expect(isClose(Point(x: centre.x, y: centre.y), Point(x: 70, y: 50)))
    }

    @Test func delayedInstancesSampleTheSublayersAnimationsEarlier() {
        MediaTime.clock = ManualMediaClock(startingAt: 100)
        let root = makeLayer(200, 200)
        let replicator = ReplicatorLayer()
        replicator.bounds = Rect(x: 0, y: 0, width: 100, height: 100)
        replicator.instanceDelay = 0.25
        let dot = makeLayer(10, 10)
        replicator.addSublayer(dot)
        root.addSublayer(replicator)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let fade = BasicAnimation(keyPath: "opacity")
        (fade.fromValue, fade.toValue, fade.duration) = (0.0, 1.0, 1)
        dot.add(fade, forKey: "fade")
        let spin = BasicAnimation(keyPath: "opacity")
        (spin.fromValue, spin.toValue, spin.duration) = (1.0, 0.5, 1)
        replicator.add(spin, forKey: "spin")
        Transaction.flush()
        let sample = context.renderTree!.sampled(atMediaTime: 100.75)
        #expect(sample[dot.id]?.properties.opacity == 0.75)
        let delayed = sample.sampled(sublayersOf: replicator.id, delayedBy: 0.5)
        #expect(delayed[dot.id]?.properties.opacity == 0.25)
        // The replicator's own animation is not delayed.
        #expect(delayed[replicator.id]?.properties.opacity == 0.625)
        #expect(context.renderTree!.sampled(sublayersOf: replicator.id, delayedBy: 0.5)[dot.id]?.properties.opacity == 1)
    }

    @Test func instanceChangesAnimateImplicitlyOnReplicatorsOnly() {
        let layer = ReplicatorLayer()
        for key in ["instanceTransform", "instanceDelay", "instanceColor", "instanceRedOffset", "instanceAlphaOffset"] {
            #expect(layer.action(forKey: key) is BasicAnimation, "\(key)")
        }
        #expect(layer.action(forKey: "instanceCount") == nil)
        #expect(Layer().action(forKey: "instanceColor") == nil)
    }
}
