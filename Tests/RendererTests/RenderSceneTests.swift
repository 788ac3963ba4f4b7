import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// An image of four coloured quadrants (red, green / blue, yellow), so orientation and placement
/// of contents show at a glance.
func quadrantImage(width: Int = 24, height: Int = 16) throws -> Image {
    let context = try GraphicsContext(width: width, height: height)
    let w = Double(width) / 2, h = Double(height) / 2
    for (i, color) in [Color.red, .green, .blue, Color(red: 1, green: 1, blue: 0)].enumerated() {
        context.setFillColor(color)
        context.fill(Rect(x: Double(i % 2) * w, y: Double(i / 2) * h, width: w, height: h))
    }
    return context.makeImage()
}

func pixel(_ image: Image, _ x: Int, _ y: Int) -> [Int] {
    let p = image.pixel(x: x, y: y)
    return [Int(p.red), Int(p.green), Int(p.blue), Int(p.alpha)]
}

func isNear(_ a: [Int], _ b: [Int], _ tolerance: Int = 1) -> Bool {
    zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
}

/// A root layer of `width`×`height` points at the origin with a white background.
@MainActor
func makeRoot(_ width: Double, _ height: Double) -> Layer {
    let root = Layer()
    root.bounds = Rect(x: 0, y: 0, width: width, height: height)
    root.anchorPoint = .zero
    root.backgroundColor = .white
    return root
}

@MainActor
func commit(_ root: Layer) throws -> RenderTree {
    let context = RenderContext(rootLayer: root)
    Transaction.begin()
    Transaction.disableActions = true
    Transaction.commit()
    Transaction.flush()
    return try #require(context.renderTree)
}

@MainActor
func sublayer(_ root: Layer, frame: Rect, background: Color? = nil) -> Layer {
    let l = Layer()
    l.frame = frame
    l.backgroundColor = background
    root.addSublayer(l)
    return l
}

/// One renderer for the scene tests, with the validation layer on.
@MainActor
let validatingRenderer = Result { try Renderer(options: VulkanOptions(enableValidation: true)) }

/// Commits `root` and renders it at `scale`, expecting no validation message.
@MainActor
func render(_ root: Layer, scale: Double = 1, sourceLocation: SourceLocation = #_sourceLocation) throws -> Image {
    let renderer = try validatingRenderer.get()
    let tree = try commit(root)
    let width = Int(root.bounds.width * scale), height = Int(root.bounds.height * scale)
    let image = try renderer.render(tree, width: width, height: height, scale: scale)
    #expect(renderer.takeValidationMessages() == [], sourceLocation: sourceLocation)
    return image
}

@MainActor
@Suite(.serialized) struct RenderSceneTests {

    /// Figure 2-3: background colour behind, border on top, inside the bounds.
    @Test func backgroundAndBorder() throws {
        let root = try SeedScene.backgroundAndBorder.make()
        let image = try render(root)
        #expect(isNear(pixel(image, 100, 80), [0, 128, 255, 255]))  // the centre: background
        #expect(isNear(pixel(image, 42, 80), [0, 0, 0, 255]))       // 2 points in: border
        #expect(isNear(pixel(image, 46, 80), [0, 128, 255, 255]))   // 6 points in: background again
        #expect(isNear(pixel(image, 38, 80), [255, 255, 255, 255])) // outside: the root's white
        try golden.check(image, named: "figure-2-3-background-and-border")
    }

    /// Figure 2-4: cornerRadius rounds the background and border; contents are not clipped
    /// without masksToBounds, and are with it.
    @Test func cornerRadius() throws {
        let root = try SeedScene.cornerRadius.make()
        let rendered = try render(root)
        #expect(isNear(pixel(rendered, 22, 22), [255, 0, 0, 255]))      // unclipped contents fill the corner
        #expect(isNear(pixel(rendered, 182, 22), [255, 255, 255, 255])) // clipped: the root shows
        #expect(isNear(pixel(rendered, 250, 90), [255, 255, 0, 255]))  // inside the masked one (yellow quadrant)
        try golden.check(rendered, named: "figure-2-4-corner-radius")
    }

    /// Figures 2-1 and 2-2: all twelve gravities of a 24×16 image in 60×60 layers.
    @Test func contentsGravity() throws {
        let root = try SeedScene.contentsGravity.make()
        let rendered = try render(root)
        // center (index 0): the image's top-left red quadrant starts at (10 + 18, 10 + 22).
        #expect(isNear(pixel(rendered, 29, 33), [255, 0, 0, 255]))
        #expect(isNear(pixel(rendered, 27, 33), [217, 217, 217, 255]))
        // topLeft (index 5, second row): red at the layer's top-left corner.
        #expect(isNear(pixel(rendered, 90 + 1, 90 + 1), [255, 0, 0, 255]))
        try golden.check(rendered, named: "figure-2-1-contents-gravity")
    }

    /// Figure 2-5: a shadow offset down and right, blurred by a Gaussian of σ = shadowRadius.
    @Test func shadow() throws {
        let root = try SeedScene.shadow.make()
        let rendered = try render(root)
        #expect(isNear(pixel(rendered, 100, 100), [255, 153, 0, 255]))  // the layer covers its shadow
        let underShadow = pixel(rendered, 155, 100)  // 5 points right of the layer, well inside the shadow's offset rect
        #expect(underShadow[0] < 200 && underShadow[0] > 40)
        #expect(isNear(pixel(rendered, 195, 100), [255, 255, 255, 255]))  // far outside: no shadow
        try golden.check(rendered, named: "figure-2-5-shadow")
    }

    /// Figure 4-3: a masksToBounds layer with rounded corners clips its sublayers to the rounded shape.
    @Test func clippingSublayersToRoundedCorners() throws {
        let root = try SeedScene.clippingSublayersToRoundedCorners.make()
        let rendered = try render(root)
        #expect(isNear(pixel(rendered, 23, 23), [255, 255, 255, 255]))  // outside the rounded corner
        #expect(isNear(pixel(rendered, 70, 70), [255, 0, 0, 255]))
        #expect(isNear(pixel(rendered, 195, 150), [0, 0, 255, 255]))
        #expect(isNear(pixel(rendered, 205, 150), [255, 255, 255, 255])) // past the parent's edge: clipped
        try golden.check(rendered, named: "figure-4-3-rounded-clipping")
    }

    /// Figures 1-5 and 1-6: rotation turns a layer about its anchor point.
    @Test func anchorPointAndRotation() throws {
        let root = try SeedScene.anchorPointAndRotation.make()
        let rendered = try render(root)
        #expect(isNear(pixel(rendered, 100, 100), [0, 153, 0, 255]))  // the centre stays put
        #expect(isNear(pixel(rendered, 185, 50), [204, 0, 102, 255])) // just inside the corner that stays put
        try golden.check(rendered, named: "figure-1-6-rotation-about-anchor")
    }

    /// A card turned 60° about y under a perspective sublayerTransform (m34 = −1/500).
    @Test func perspectiveCardFlip() throws {
        let root = try SeedScene.perspectiveCardFlip.make()
        let rendered = try render(root)
        #expect(isNear(pixel(rendered, 150, 100), [26, 77, 230, 255]))  // the centre is still the card
        #expect(isNear(pixel(rendered, 100, 100), [255, 255, 255, 255])) // the narrowed card no longer reaches here
        try golden.check(rendered, named: "perspective-card-flip")
    }

    /// Nine-part stretching with contentsCenter: corners keep their size, the middle stretches.
    @Test func ninePartContents() throws {
        let root = try SeedScene.ninePartContents.make()
        let rendered = try render(root)
        #expect(isNear(pixel(rendered, 22, 22), [255, 0, 0, 255]))      // top-left corner: red, unscaled
        #expect(isNear(pixel(rendered, 177, 97), [255, 255, 0, 255]))   // bottom-right corner: yellow
        try golden.check(rendered, named: "nine-part-contents")
    }

    /// Rendering at scale 2: twice the pixels, edges on device pixels, contents chosen by contentsScale.
    @Test func scaleTwoOutput() throws {
        let root = try SeedScene.scaleTwoOutput.make()
        let rendered = try render(root, scale: 2)
        #expect(rendered.width == 200 && rendered.height == 160)
        #expect(isNear(pixel(rendered, 21, 40), [0, 0, 255, 255]))   // x = 10.5 pt is pixel 21 exactly
        #expect(isNear(pixel(rendered, 20, 40), [255, 255, 255, 255]))
        #expect(isNear(pixel(rendered, 121, 41), [255, 0, 0, 255]))  // the 2× image maps pixel for pixel
        try golden.check(rendered, named: "scale-2-output")
    }
}
