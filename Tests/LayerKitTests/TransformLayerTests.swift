import Foundation
import Testing
@testable import LayerKit

@MainActor
@Suite struct TransformLayerTests {
    /// A 100×100 root with `container` (a transform layer or a plain one) over it, centred,
    /// holding 20×20 layers at its centre with the given zPositions.
    func scene(_ container: Layer, zPositions: [Double]) -> (root: Layer, layers: [Layer]) {
        let root = makeLayer(100, 100)
        root.anchorPoint = .zero
        container.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        root.addSublayer(container)
        let layers = zPositions.enumerated().map { i, z in
            let l = makeLayer(20, 20, at: Point(x: 50, y: 50), name: "z\(i)")
            l.zPosition = z
            container.addSublayer(l)
            return l
        }
        return (root, layers)
    }

    func commitTree(_ root: Layer) throws -> RenderTree {
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        return try #require(context.renderTree)
    }

    @Test func aTransformLayerIsMarkedInItsValuesAndCopies() {
        let t = TransformLayer()
        #expect(t.properties.isTransformLayer)
        #expect(TransformLayer(layer: t).properties.isTransformLayer)
        #expect(!Layer().properties.isTransformLayer)
        #expect(!ReplicatorLayer().properties.isTransformLayer)
    }

    @Test func sublayersAreSortedByTheirDepthAfterTheTransformLayersRotation() throws {
        let t = TransformLayer()
        let (root, _) = scene(t, zPositions: [10, -10, 0])
        // Half a turn about y: the nearest layer becomes the farthest.
        t.transform = Transform3D(rotationAngle: Double.pi, x: 0, y: 1, z: 0)
        let tree = try commitTree(root)
        let tLayer = try #require(tree[t.id])
        let sorted = tree.depthSortedSublayers(of: tLayer, transform: tLayer.properties.transformToSuperlayer(tree.root?.properties.sublayerSpace))
        #expect(sorted.map { $0.layer.properties.name } == ["z0", "z2", "z1"])
        #expect(zip(sorted.map(\.depth), [-10.0, 0, 10]).allSatisfy { isClose($0, $1) })
        // A plain layer draws the same sublayers by zPosition alone, whatever its rotation.
        let plain = Layer()
        let (plainRoot, _) = scene(plain, zPositions: [10, -10, 0])
        plain.transform = t.transform
        let plainTree = try commitTree(plainRoot)
        #expect(plainTree.sortedSublayers(of: try #require(plainTree[plain.id])).map { $0.properties.name } == ["z1", "z2", "z0"])
    }

    @Test func nestedTransformLayersShareOneSpaceAndPassTheirOpacityDown() throws {
        let t = TransformLayer()
        let (root, _) = scene(t, zPositions: [10, -10, 0])
        let inner = TransformLayer()
        inner.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        inner.zPosition = 5
        inner.opacity = 0.5
        inner.backgroundColor = .red
        t.addSublayer(inner)
        for (name, z) in [("d", 0.0), ("e", -20.0), ("hidden", 30.0)] {
            let l = makeLayer(20, 20, at: Point(x: 50, y: 50), name: name)
            l.zPosition = z
            l.isHidden = name == "hidden"
            inner.addSublayer(l)
        }
        let tree = try commitTree(root)
        let tLayer = try #require(tree[t.id])
        let sorted = tree.depthSortedSublayers(of: tLayer, transform: tLayer.properties.transformToSuperlayer(tree.root?.properties.sublayerSpace))
        #expect(sorted.map { $0.layer.properties.name } == ["e", "z1", "z2", "d", "z0"])
        #expect(sorted.map(\.depth) == [-15, -10, 0, 5, 10])
        #expect(sorted.map(\.opacity) == [0.5, 1, 1, 0.5, 1])
    }

    @Test func depthIsTakenAfterTheParentsPerspective() throws {
        let t = TransformLayer()
        let (root, layers) = scene(t, zPositions: [100, -100])
        var perspective = Transform3D.identity
        perspective.m34 = -1.0 / 500
        root.sublayerTransform = perspective
        _ = layers
        let tree = try commitTree(root)
        let tLayer = try #require(tree[t.id])
        let sorted = tree.depthSortedSublayers(of: tLayer, transform: tLayer.properties.transformToSuperlayer(tree.root?.properties.sublayerSpace))
        // z / (1 − z/500): 100 → 125 and −100 → −83.33.
        #expect(sorted.map { $0.layer.properties.name } == ["z1", "z0"])
        #expect(isClose(sorted[0].depth, -100 / 1.2) && isClose(sorted[1].depth, 125))
    }

    /// A transform layer turned 60° about y holding a 40×40 layer turned back by 60°: in one 3D
    /// space the turns cancel; flattened per level they would shrink it to a quarter of its width.
    func counterRotated(_ container: Layer) -> (root: Layer, face: Layer) {
        let root = makeLayer(100, 100)
        root.anchorPoint = .zero
        container.frame = Rect(x: 30, y: 30, width: 40, height: 40)
        container.transform = Transform3D(rotationAngle: Double.pi / 3, x: 0, y: 1, z: 0)
        root.addSublayer(container)
        let face = makeLayer(40, 40, at: Point(x: 20, y: 20))
        face.transform = Transform3D(rotationAngle: -Double.pi / 3, x: 0, y: 1, z: 0)
        container.addSublayer(face)
        return (root, face)
    }

    @Test func conversionThroughATransformLayerKeepsDepth() throws {
        let (root, face) = counterRotated(TransformLayer())
        #expect(isClose(face.convert(Point(x: 0, y: 20), to: root), Point(x: 30, y: 50)))
        #expect(isClose(face.convert(Point(x: 40, y: 0), to: nil), Point(x: 70, y: 30)))
        #expect(isClose(face.convert(Point(x: 70, y: 30), from: root), Point(x: 40, y: 0)))
        let tree = try commitTree(root)
        let toRoot = try #require(tree.transformToRoot(of: face.id))
        let corner = try #require(toRoot.apply(x: 0, y: 20))
        #expect(isClose(corner.x, 30) && isClose(corner.y, 50))

        let (plainRoot, plainFace) = counterRotated(Layer())
        #expect(isClose(plainFace.convert(Point(x: 0, y: 20), to: plainRoot), Point(x: 45, y: 50)))
    }

    @Test func hitTestingPassesThroughToTheNearestSublayer() {
        let (root, face) = counterRotated(TransformLayer())
        #expect(root.hitTest(Point(x: 32, y: 50)) === face)
        let (plainRoot, _) = counterRotated(Layer())
        #expect(plainRoot.hitTest(Point(x: 32, y: 50)) === plainRoot)

        let t = TransformLayer()
        let (sceneRoot, layers) = scene(t, zPositions: [10, -10])
        t.transform = Transform3D(rotationAngle: Double.pi, x: 0, y: 1, z: 0)
        // Turned round, the layer at zPosition −10 is in front.
        #expect(sceneRoot.hitTest(Point(x: 50, y: 50)) === layers[1])
        // Inside the transform layer's bounds but on none of its sublayers: it is never hit itself.
        #expect(sceneRoot.hitTest(Point(x: 10, y: 10)) === sceneRoot)
    }
}
