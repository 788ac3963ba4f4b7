@testable import CPURenderer
import Foundation
import Graphics
import LayerKit
import Testing

/// The CPU renderer's walk places a layer that keeps to its plane, under a superlayer that maps
/// its sublayers as they are, without the 4×4 products (`RenderLayer.planarTransform(under:)`):
/// the same matrix as the products give, and none where they may differ.
@MainActor
@Suite struct CPURendererPlacementTests {
    /// Superlayer maps the walk hands on: the output's scale, a turn, a perspective card's.
    static let parents = [
        Transform3D(scaleX: 2, y: 2),
        Transform3D(translationX: 3.25, y: -7).concatenating(Transform3D(rotationAngle: 0.3, x: 0, y: 0, z: 1)),
        Transform3D(rotationAngle: 0.4, x: 1, y: 0.2, z: 0).concatenating(
            Transform3D(rows: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, -1.0 / 500], [0, 0, 0, 1]])),
    ]

    /// A committed layer with these values, and its map as the products make it.
    func placed(_ set: (Layer) -> Void) throws -> (layer: RenderLayer, products: (Transform3D) -> Transform3D) {
        let root = makeRoot(100, 100)
        let layer = sublayer(root, frame: Rect(x: 10, y: 20, width: 30, height: 40))
        set(layer)
        let committed = try #require(try commit(root)[layer.id])
        return (committed, { committed.transformToSuperlayer(in: nil).flattened.concatenating($0) })
    }

    @Test(arguments: [
        "identity", "translation", "scale", "turn", "shear", "bounds origin and anchor", "anchorPointZ and zPosition",
    ])
    func aLayerInItsPlaneIsPlacedAsTheProductsPlaceIt(_ kind: String) throws {
        let (layer, products) = try placed { l in
            switch kind {
            case "translation": l.transform = Transform3D(translationX: 5.5, y: -3, z: 9)
            case "scale": l.transform = Transform3D(scaleX: 1.5, y: -0.75, z: 3)
            case "turn": l.transform = Transform3D(rotationAngle: 1.1, x: 0, y: 0, z: 1)
            case "shear": l.transform = Transform3D(AffineTransform2D(a: 1, b: 0.2, c: -0.4, d: 1.3, tx: 7, ty: 1.5))
            case "bounds origin and anchor":
                l.bounds = Rect(x: -12.5, y: 4, width: 31, height: 17)
                l.anchorPoint = Point(x: 0.2, y: 0.9)
                l.transform = Transform3D(rotationAngle: -0.6, x: 0, y: 0, z: 1)
            case "anchorPointZ and zPosition":
                (l.anchorPointZ, l.zPosition) = (14, -6)
                l.transform = Transform3D(translationX: 1, y: 2, z: 3)
            default: break
            }
        }
        for parent in Self.parents {
            // Equal entry for entry (a zero's sign aside, which == ignores).
            #expect(parent.isFinite && layer.keepsToItsPlane)
            #expect(layer.planarTransform(under: parent) == products(parent), "\(kind) under \(parent)")
        }
    }

    /// Perspective, a turn out of the plane, and values the products would turn into NaN are
    /// left to the products.
    @Test func otherLayersAndValuesThatAreNotFiniteAreLeftToTheProducts() throws {
        let perspective = try placed { $0.transform = Transform3D(rows: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, -0.002], [0, 0, 0, 1]]) }
        #expect(!perspective.layer.keepsToItsPlane)
        let outOfPlane = try placed { $0.transform = Transform3D(rotationAngle: 0.5, x: 0, y: 1, z: 0) }
        #expect(!outOfPlane.layer.keepsToItsPlane)
        let infinite = try placed { $0.position = Point(x: .infinity, y: 3) }
        #expect(!infinite.layer.keepsToItsPlane)
        let farAnchor = try placed { $0.anchorPointZ = .nan }
        #expect(!farAnchor.layer.keepsToItsPlane)
        // 0·NaN in the products' z row: the whole translation is NaN there.
        var parent = Transform3D(scaleX: 2, y: 2)
        parent.m31 = .nan
        #expect(!parent.isFinite)
        #expect(try placed { _ in }.products(parent).m41.isNaN)
        #expect(!Transform3D(scaleX: .infinity, y: 1).isFinite)
    }
}
