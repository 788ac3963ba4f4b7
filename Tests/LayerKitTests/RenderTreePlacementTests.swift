import Testing
@testable import LayerKit

/// A tree drawn elsewhere and at another size (a mirrored display): only the root's placement changes.
@MainActor
@Suite struct RenderTreePlacementTests {
    @Test func placingTheRootMapsItsBoundsByTheTransformAloneAndSharesTheRest() throws {
        let root = makeLayer(100, 50, at: Point(x: 300, y: 300))
        root.bounds = Rect(x: 10, y: 20, width: 100, height: 50)
        root.transform = Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)
        // The child's top-left corner is root point (35, 40).
        let child = makeLayer(10, 10, at: Point(x: 40, y: 45))
        root.addSublayer(child)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let tree = try #require(context.renderTree)

        let placed = tree.placingRoot(by: Transform3D(AffineTransform2D(scaleX: 2, y: 2).concatenating(AffineTransform2D(translationX: 5, y: 7))))
        let corner = try #require(placed.transformToRoot(of: child.id)?.apply(x: 0, y: 0))
        #expect(abs(corner.x - 75) < 1e-9 && abs(corner.y - 87) < 1e-9)
        let origin = try #require(placed.transformToRoot(of: root.id)?.apply(x: 10, y: 20))
        #expect(abs(origin.x - 25) < 1e-9 && abs(origin.y - 47) < 1e-9)
        #expect(placed[child.id] === tree[child.id])
        #expect(placed.changedLayerIDs.contains(root.id))
        // The tree it came from keeps the root where the layer put it: (35, 40) is (−25, −5) from
        // the bounds' centre, turned a quarter to (5, −25) about the position: (305, 275).
        let unplaced = try #require(tree.transformToRoot(of: child.id)?.apply(x: 0, y: 0))
        #expect(abs(unplaced.x - 305) < 1e-9 && abs(unplaced.y - 275) < 1e-9)
    }
}
