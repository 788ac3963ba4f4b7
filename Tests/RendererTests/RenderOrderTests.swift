import Graphics
import LayerKit
import Testing
@testable import Renderer

/// Drawing order, visibility and orientation, checked by probe pixels that follow from the
/// geometry by hand.
@MainActor
@Suite(.serialized) struct RenderOrderTests {
    @Test func zPositionDrawsAboveLaterSiblings() throws {
        let root = makeRoot(100, 100)
        let back = sublayer(root, frame: Rect(x: 20, y: 20, width: 50, height: 50), background: .red)
        _ = sublayer(root, frame: Rect(x: 40, y: 40, width: 50, height: 50), background: .blue)
        #expect(isNear(pixel(try render(root), 55, 55), [0, 0, 255, 255]))  // array order: blue on top
        back.zPosition = 1
        #expect(isNear(pixel(try render(root), 55, 55), [255, 0, 0, 255]))  // zPosition wins
    }

    @Test func hiddenLayersAndTheirSublayersAreNotDrawn() throws {
        let root = makeRoot(100, 100)
        let parent = sublayer(root, frame: Rect(x: 10, y: 10, width: 80, height: 80), background: .red)
        _ = sublayer(parent, frame: Rect(x: 10, y: 10, width: 20, height: 20), background: .blue)
        parent.isHidden = true
        let image = try render(root)
        #expect(isNear(pixel(image, 50, 50), [255, 255, 255, 255]) && isNear(pixel(image, 25, 25), [255, 255, 255, 255]))
    }

    @Test func opacityBlendsOverWhatIsBehind() throws {
        let root = makeRoot(100, 100)
        let layer = sublayer(root, frame: Rect(x: 0, y: 0, width: 100, height: 100), background: .black)
        layer.opacity = 0.25
        #expect(isNear(pixel(try render(root), 50, 50), [191, 191, 191, 255]))  // 255·0.75
    }

    @Test func aFlippedSuperlayerPlacesSublayersFromTheBottomButKeepsContentsUpright() throws {
        let root = makeRoot(100, 100)
        root.isGeometryFlipped = true
        let layer = sublayer(root, frame: Rect(x: 0, y: 0, width: 48, height: 32))
        layer.contents = try quadrantImage(width: 48, height: 32)
        let image = try render(root)
        // Frame y 0…32 measured from the bottom: rows 68…100 on screen, with red still at the top left.
        #expect(isNear(pixel(image, 5, 72), [255, 0, 0, 255]))
        #expect(isNear(pixel(image, 5, 96), [0, 0, 255, 255]))
        #expect(isNear(pixel(image, 5, 30), [255, 255, 255, 255]))
    }
}
