import Foundation
import Testing
@testable import LayerKit

/// ReplicatorLayer.preservesDepth: the instances' planes share the replicator's 3D space.
@MainActor
@Suite struct ReplicatorDepthTests {
    /// A 100×100 replicator holding one 20×20 `card` centred on its anchor point, committed.
    func replicator(_ configure: (ReplicatorLayer, Layer) -> Void) throws -> (RenderTree, ReplicatorLayer) {
        let root = makeLayer(200, 200)
        let replicator = ReplicatorLayer()
        replicator.frame = Rect(x: 50, y: 50, width: 100, height: 100)
        replicator.preservesDepth = true
        root.addSublayer(replicator)
        let card = Layer()
        card.frame = Rect(x: 40, y: 40, width: 20, height: 20)
        replicator.addSublayer(card)
        configure(replicator, card)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        return (try #require(context.renderTree), replicator)
    }

    @Test func instancesMovedAwayAreDrawnFarthestFirst() throws {
        let (tree, replicator) = try self.replicator { replicator, _ in
            replicator.instanceCount = 4
            replicator.instanceTransform = Transform3D(translationX: 0, y: 0, z: -10)
        }
        let planes = tree.depthSortedInstances(of: try #require(tree[replicator.id]))
        #expect(planes.map(\.instance) == [3, 2, 1, 0])
        #expect(planes.map(\.plane.depth) == [-30, -20, -10, 0])
        // Each plane is the card's own transform, then its instance's, in the replicator's space.
        let corners = planes.map { $0.plane.transform.apply(x: 0, y: 0)! }
        #expect(corners.map(\.x) == [40, 40, 40, 40] && corners.map(\.y) == [40, 40, 40, 40])
        #expect(corners.map(\.z) == [-30, -20, -10, 0])
    }

    @Test func aRingTurnedAboutYIsSortedByTheZOfEachInstance() throws {
        let (tree, replicator) = try self.replicator { replicator, card in
            replicator.instanceCount = 4
            replicator.instanceTransform = Transform3D(rotationAngle: Double.pi / 3, x: 0, y: 1, z: 0)
            card.zPosition = 30
        }
        let planes = tree.depthSortedInstances(of: try #require(tree[replicator.id]))
        // Instance k's card centre, turned k × 60° about the anchor's y axis: z = 30 cos(kπ/3)
        // (30, 15, −15, −30) and x = 50 + 30 sin(kπ/3).
        #expect(planes.map(\.instance) == [3, 2, 1, 0])
        let depths = planes.map(\.plane.depth)
        #expect(zip(depths, [-30.0, -15, 15, 30]).allSatisfy { isClose($0, $1) }, "\(depths)")
        let centres = planes.map { $0.plane.transform.apply(x: 10, y: 10)!.x }
        let sine = 30 * (3.0).squareRoot() / 2
        #expect(zip(centres, [50, 50 + sine, 50 + sine, 50]).allSatisfy { isClose($0, $1) }, "\(centres)")
    }

    @Test func transformLayersInAnInstanceAreOpenedIntoTheirSublayersPlanes() throws {
        let (tree, replicator) = try self.replicator { replicator, card in
            replicator.instanceCount = 2
            replicator.instanceTransform = Transform3D(translationX: 0, y: 0, z: 15)
            card.removeFromSuperlayer()
            let box = TransformLayer()
            box.frame = Rect(x: 0, y: 0, width: 100, height: 100)
            replicator.addSublayer(box)
            for z in [10.0, -10.0] {
                let face = Layer()
                face.frame = Rect(x: 40, y: 40, width: 20, height: 20)
                face.zPosition = z
                box.addSublayer(face)
            }
        }
        let planes = tree.depthSortedInstances(of: try #require(tree[replicator.id]))
        // Instance 1's back face (z 5) lies between instance 0's faces (−10 and 10).
        #expect(planes.map(\.plane.depth) == [-10, 5, 10, 25])
        #expect(planes.map(\.instance) == [0, 1, 0, 1])
    }

    @Test func delayedInstancesArePlacedFromTheirEarlierSample() throws {
        MediaTime.clock = ManualMediaClock(startingAt: 10)
        let root = makeLayer(200, 200)
        let replicator = ReplicatorLayer()
        replicator.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        (replicator.preservesDepth, replicator.instanceCount, replicator.instanceDelay) = (true, 2, 0.5)
        root.addSublayer(replicator)
        let card = Layer()
        card.frame = Rect(x: 40, y: 40, width: 20, height: 20)
        replicator.addSublayer(card)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let rise = BasicAnimation(keyPath: "zPosition")
        (rise.fromValue, rise.toValue, rise.duration) = (0.0, 40.0, 2)
        card.add(rise, forKey: "rise")
        Transaction.flush()
        let sample = try #require(context.renderTree).sampled(atMediaTime: 11)
        let planes = sample.depthSortedInstances(of: try #require(sample[replicator.id]))
        // At 1 s the card is at z 20; instance 1 shows it half a second earlier, at z 10.
        #expect(planes.map(\.instance) == [1, 0])
        #expect(planes.map(\.plane.depth) == [10, 20])
    }
}
