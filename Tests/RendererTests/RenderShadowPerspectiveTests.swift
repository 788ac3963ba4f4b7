import Graphics
import LayerKit
import Testing
@testable import Renderer

/// The shadow lives in the layer's own plane: offset there by shadowOffset, then projected with
/// the layer's transform, perspective included.
///
/// A 100×100 card at (150, 100), turned 60° about y with a perspective of d = 500 in its own
/// transform, casts a sharp shadow offset 60 points along its x. A point (x, y) of the card's
/// plane, from its centre, reaches (150 + x·cos 60° / w, 100 + y / w) with w = 1 + x·sin 60° / d.
/// The shadow's far edge, x = 110, has w = 1.1905: it lands at 150 + 46.2 and spans y ±42.0. An
/// offset applied on the target through the transform's linear part (30 pixels) would put that
/// edge at 150 + 53.0, the card's right edge (w = 1.0866, at 150 + 23.0) moved over.
@MainActor
@Suite(.serialized) struct RenderShadowPerspectiveTests {
    func card(in root: Layer) -> Layer {
        let card = sublayer(root, frame: Rect(x: 100, y: 50, width: 100, height: 100))
        let (c, s, d) = (0.5, 3.0.squareRoot() / 2, 500.0)
        // The turn about y followed by the perspective, as row vectors: (x, y, 0, 1) goes to
        // (x·c, y, −x·s, 1 + x·s/d).
        card.transform = Transform3D(rows: [[c, 0, -s, s / d], [0, 1, 0, 0], [s, 0, c, -c / d], [0, 0, 0, 1]])
        card.shadowOpacity = 1
        card.shadowRadius = 0
        card.shadowOffset = Size(width: 60, height: 0)
        return card
    }

    /// Probes on the target, in pixel centres, that only the projective offset gets right.
    func expectProjectedShadow(_ image: Image, sourceLocation: SourceLocation = #_sourceLocation) {
        // Inside the shadow beside the card: at x = 150 + 40.5 the shadow's plane point is x = 94,
        // w = 1.163, so it spans y ±43.0.
        #expect(isNear(pixel(image, 190, 100), [0, 0, 0, 255]), sourceLocation: sourceLocation)
        #expect(isNear(pixel(image, 190, 140), [0, 0, 0, 255]), sourceLocation: sourceLocation)
        // 2.5 pixels past the shadow's far edge (46.2), 4.5 before the linear offset's (53.0).
        #expect(isNear(pixel(image, 198, 100), [255, 255, 255, 255]), sourceLocation: sourceLocation)
        // Below the shadow at 150 + 40.5 (its edge at 143.0), above the linear one's (148.3).
        #expect(isNear(pixel(image, 190, 145), [255, 255, 255, 255]), sourceLocation: sourceLocation)
        // The card's own left part: its left edge x = −50 has w = 0.9134, at 150 − 27.4.
        #expect(isNear(pixel(image, 126, 100), [0, 0, 255, 255]), sourceLocation: sourceLocation)
    }

    @Test(arguments: SceneRenderer.allCases) func aShadowPathsOffsetIsProjectedWithTheLayer(_ renderer: SceneRenderer) throws {
        let root = makeRoot(300, 200)
        let layer = card(in: root)
        layer.backgroundColor = .blue
        layer.shadowPath = Path(rect: Rect(x: 0, y: 0, width: 100, height: 100))
        let image = try render(root, with: renderer)
        expectProjectedShadow(image)
    }

    @Test(arguments: SceneRenderer.allCases) func aShadowOfContentsAlphaIsOffsetInTheLayersPlane(_ renderer: SceneRenderer) throws {
        let root = makeRoot(300, 200)
        let layer = card(in: root)
        layer.contents = Image(width: 10, height: 10, fill: PremultipliedPixel(.blue))
        layer.contentsGravity = .resize
        let image = try render(root, with: renderer)
        expectProjectedShadow(image)
        try renderer.check(image, named: "shadow-offset-under-perspective", cpu: (2, 0.002))
    }
}
