import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// TransformLayer: its sublayers share one 3D space and are drawn back to front by depth.
@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct RenderTransformLayerTests {
    static let faceColors: [Color] = [
        .red, .green, .blue, Color(red: 1, green: 1, blue: 0), Color(red: 0, green: 1, blue: 1), Color(red: 1, green: 0, blue: 1),
    ]
    /// Each face's turn: front, back, and the four sides; each then moves 30 points along the normal
    /// its turn gives it. The back comes right after the front, so drawing in sublayer order would
    /// put it over the front.
    static let faceTurns: [Transform3D] = [
        .identity, Transform3D(rotationAngle: Double.pi, x: 0, y: 1, z: 0),
        Transform3D(rotationAngle: Double.pi / 2, x: 0, y: 1, z: 0), Transform3D(rotationAngle: -Double.pi / 2, x: 0, y: 1, z: 0),
        Transform3D(rotationAngle: Double.pi / 2, x: 1, y: 0, z: 0), Transform3D(rotationAngle: -Double.pi / 2, x: 1, y: 0, z: 0),
    ]

    /// A 60-point cube of six coloured faces in a transform layer at the centre of a 120×120 black
    /// root, turned by `turn`, seen through the root's perspective (eye 400 points away).
    func cube(turn: Transform3D) -> (root: Layer, cube: TransformLayer) {
        let root = makeRoot(120, 120)
        root.backgroundColor = .black
        // The perspective's eye looks down the root's centre, where the cube is.
        (root.anchorPoint, root.position) = (Point(x: 0.5, y: 0.5), Point(x: 60, y: 60))
        var perspective = Transform3D.identity
        perspective.m34 = -1.0 / 400
        root.sublayerTransform = perspective
        let cube = TransformLayer()
        cube.frame = Rect(x: 30, y: 30, width: 60, height: 60)
        cube.transform = turn
        root.addSublayer(cube)
        for (color, faceTurn) in zip(Self.faceColors, Self.faceTurns) {
            let face = sublayer(cube, frame: Rect(x: 0, y: 0, width: 60, height: 60), background: color)
            let normal = (faceTurn.m31, faceTurn.m32, faceTurn.m33)
            face.transform = faceTurn.concatenating(Transform3D(translationX: 30 * normal.0, y: 30 * normal.1, z: 30 * normal.2))
        }
        return (root, cube)
    }

    /// The colour of the face whose outward normal points most towards the viewer under `turn`:
    /// the one the ray through the cube's centre meets first.
    func nearestFaceColor(_ turn: Transform3D) -> [Int] {
        let towardsViewer = Self.faceTurns.map { face in
            face.m31 * turn.m13 + face.m32 * turn.m23 + face.m33 * turn.m33
        }
        let nearest = towardsViewer.indices.max { towardsViewer[$0] < towardsViewer[$1] }!
        let c = Self.faceColors[nearest]
        return [Int(c.red * 255), Int(c.green * 255), Int(c.blue * 255), 255]
    }

    @Test func aCubeOfSixLayersShowsItsNearFaces() throws {
        let turn = Transform3D(rotationAngle: Double.pi / 6, x: 1, y: 0, z: 0)
            .concatenating(Transform3D(rotationAngle: Double.pi / 5, x: 0, y: 1, z: 0))
        let (root, _) = cube(turn: turn)
        let image = try render(root)
        #expect(isNear(pixel(image, 60, 60), nearestFaceColor(turn)))
        try golden.check(image, named: "transform-layer-cube")
    }

    @Test func theNearFaceWinsFromEveryAngle() throws {
        let turns: [(Double, Double)] = [(0.2, 0.3), (0.2, 2.9), (1.3, 0.4), (-1.2, 0.3), (0.3, 1.2), (0.25, -1.3), (2.8, 0.1), (-0.7, 4.0)]
        var seen = Set<[Int]>()
        for (aboutX, aboutY) in turns {
            let turn = Transform3D(rotationAngle: aboutX, x: 1, y: 0, z: 0)
                .concatenating(Transform3D(rotationAngle: aboutY, x: 0, y: 1, z: 0))
            let (root, _) = cube(turn: turn)
            let image = try render(root)
            let expected = nearestFaceColor(turn)
            seen.insert(expected)
            #expect(isNear(pixel(image, 60, 60), expected), "turned \(aboutX) about x and \(aboutY) about y")
        }
        #expect(seen.count == 6)  // every face is the near one at least once
        // Unturned, only the front shows, all over the cube's projection.
        let image = try render(cube(turn: .identity).root)
        #expect(isNear(pixel(image, 40, 40), [255, 0, 0, 255]))
        #expect(isNear(pixel(image, 60, 60), [255, 0, 0, 255]))
    }

    @Test func theTransformLayersOwnAppearanceIsIgnoredAndItsOpacityReachesEachSublayer() throws {
        let root = makeRoot(60, 40)
        root.backgroundColor = .black
        let t = TransformLayer()
        t.frame = Rect(x: 0, y: 0, width: 60, height: 40)
        (t.backgroundColor, t.borderColor, t.borderWidth) = (.white, .white, 4)
        (t.shadowOpacity, t.masksToBounds, t.opacity) = (1, true, 0.5)
        t.contents = try quadrantImage()
        root.addSublayer(t)
        _ = sublayer(t, frame: Rect(x: 0, y: 0, width: 40, height: 40), background: .red)
        // Reaches past the transform layer's bounds, which clip nothing.
        _ = sublayer(t, frame: Rect(x: 20, y: 0, width: 50, height: 40), background: .blue)
        let encoder = SceneEncoder(tree: try commit(root), scale: 1, targetSize: (60, 40))
        // The root, then the two sublayers: no pass for a group, nothing of the transform layer.
        #expect(encoder.passes.count == 1)
        #expect(encoder.draws.count == 3)
        let n = SceneEncoder.floatsPerInstance
        for draw in encoder.draws.dropFirst() {
            #expect(encoder.floats[Int(draw.instance) * n + 68] == 0.5)
        }
        let image = try render(root)
        // Each at half opacity over black, the blue one over the red one where they overlap.
        #expect(isNear(pixel(image, 10, 20), [128, 0, 0, 255]))
        #expect(isNear(pixel(image, 30, 20), [64, 0, 128, 255]))
        #expect(isNear(pixel(image, 50, 20), [0, 0, 128, 255]))
        #expect(isNear(pixel(image, 2, 2), [128, 0, 0, 255]))
    }

    @Test func aLayerThatIsNotDoubleSidedIsNotDrawnFromBehind() throws {
        let root = makeRoot(40, 40)
        root.backgroundColor = .black
        let front = sublayer(root, frame: Rect(x: 0, y: 0, width: 20, height: 40), background: .red)
        let back = sublayer(root, frame: Rect(x: 20, y: 0, width: 20, height: 40), background: .green)
        for layer in [front, back] { layer.isDoubleSided = false }
        front.transform = Transform3D(rotationAngle: 0.3, x: 0, y: 1, z: 0)
        back.transform = Transform3D(rotationAngle: Double.pi - 0.3, x: 0, y: 1, z: 0)
        let image = try render(root)
        #expect(isNear(pixel(image, 10, 20), [255, 0, 0, 255]))
        #expect(isNear(pixel(image, 30, 20), [0, 0, 0, 255]))
        back.isDoubleSided = true
        #expect(isNear(pixel(try render(root), 30, 20), [0, 255, 0, 255]))
    }
}
