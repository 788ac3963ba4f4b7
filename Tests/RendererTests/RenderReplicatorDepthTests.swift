import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// ReplicatorLayer.preservesDepth: the instances' planes drawn back to front by depth.
@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct RenderReplicatorDepthTests {
    /// Six 40×60 cards on a ring of radius 60 turning about y, seen through the replicator's
    /// perspective (eye 300 points away), on a black 160×120 root. Instance 0 faces the viewer
    /// in yellow; instance 3, behind it on the ring, is (0.4, 1, 0.6).
    func ring(preservesDepth: Bool) -> Layer {
        let root = makeRoot(160, 120)
        root.backgroundColor = .black
        let replicator = ReplicatorLayer()
        replicator.frame = Rect(x: 30, y: 20, width: 100, height: 80)
        var perspective = Transform3D.identity
        perspective.m34 = -1.0 / 300
        replicator.sublayerTransform = perspective
        replicator.instanceCount = 6
        replicator.instanceTransform = Transform3D(rotationAngle: Double.pi / 3, x: 0, y: 1, z: 0)
        replicator.instanceColor = Color(red: 1, green: 1, blue: 0)
        (replicator.instanceRedOffset, replicator.instanceBlueOffset) = (-0.2, 0.2)
        replicator.preservesDepth = preservesDepth
        root.addSublayer(replicator)
        let card = sublayer(replicator, frame: Rect(x: 30, y: 10, width: 40, height: 60), background: .white)
        card.zPosition = 60
        return root
    }

    @Test func theFrontInstanceCoversTheOneBehindItOnlyWhenDepthIsPreserved() throws {
        let kept = try render(ring(preservesDepth: true))
        let flat = try render(ring(preservesDepth: false))
        // The ring's centre line: the front card (z 60, drawn 1.25 times its size) and the back
        // one (z −60) both cover it.
        #expect(isNear(pixel(kept, 80, 60), [255, 255, 0, 255]))
        #expect(isNear(pixel(flat, 80, 60), [102, 255, 153, 255]))
        // Outside the back card's smaller projection (33 points wide), only the front card.
        #expect(isNear(pixel(kept, 100, 60), [255, 255, 0, 255]))
        #expect(isNear(pixel(flat, 100, 60), [255, 255, 0, 255]))
        try golden.check(kept, named: "replicator-layer-ring-preserves-depth")
        try golden.check(flat, named: "replicator-layer-ring-flattened")
    }

    /// `render(in:)` sorts the instances the same way. Their perspective outlines differ, as for
    /// the seed's perspective card: here about 1.8% of this small image, where the back card
    /// drawn in the wrong order would change its whole 33×50 projection, over 8%.
    @Test(arguments: [true, false])
    func renderInContextAgreesWithTheRenderer(preservesDepth: Bool) throws {
        try RenderInContextAgreementTests().expectAgreement(
            named: "replicator-ring-\(preservesDepth)", scale: 1, maximumDifferingShare: 0.025
        ) { ring(preservesDepth: preservesDepth) }
    }
}
