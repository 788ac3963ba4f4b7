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

/// Commits `root` and renders it at `scale` with `renderer`, expecting no validation message
/// from Vulkan.
@MainActor
func render(
    _ root: Layer, scale: Double = 1, with sceneRenderer: SceneRenderer = .vulkan, sourceLocation: SourceLocation = #_sourceLocation
) throws -> Image {
    if sceneRenderer == .cpu { return try renderOnCPU(root, scale: scale) }
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
    @Test(arguments: SceneRenderer.allCases) func backgroundAndBorder(_ renderer: SceneRenderer) throws {
        let root = try SeedScene.backgroundAndBorder.make()
        let image = try render(root, with: renderer)
        #expect(isNear(pixel(image, 100, 80), [0, 128, 255, 255]))  // the centre: background
        #expect(isNear(pixel(image, 42, 80), [0, 0, 0, 255]))       // 2 points in: border
        #expect(isNear(pixel(image, 46, 80), [0, 128, 255, 255]))   // 6 points in: background again
        #expect(isNear(pixel(image, 38, 80), [255, 255, 255, 255])) // outside: the root's white
        try renderer.check(image, named: "figure-2-3-background-and-border", cpu: (2, 0.002))
    }

    /// Figure 2-4: cornerRadius rounds the background and border; contents are not clipped
    /// without masksToBounds, and are with it.
    /// A translucent layer's background and contents are one colour before its opacity applies,
    /// as the shader blends them in one draw: opaque contents hide the background, translucent
    /// contents show it at full strength, then the whole fades. Both renderers give the same
    /// pixels, within 1 of 255 (their rounding).
    @Test func aTranslucentLayersBackgroundAndContentsFadeAsOneOnBothRenderers() throws {
        let root = makeRoot(40, 20)
        let layer = sublayer(root, frame: Rect(x: 0, y: 0, width: 40, height: 20), background: .green)
        // 20×20 at the layer's left: opaque blue, then blue at alpha 0.5 (0.502 premultiplied).
        let context = try GraphicsContext(width: 20, height: 20)
        context.setFillColor(.blue)
        context.fill(Rect(x: 0, y: 0, width: 10, height: 20))
        context.setFillColor(Color(red: 0, green: 0, blue: 1, alpha: 0.5))
        context.fill(Rect(x: 10, y: 0, width: 10, height: 20))
        layer.contents = context.makeImage()
        layer.contentsGravity = .left
        layer.opacity = 0.5
        let vulkan = try render(root, with: .vulkan)
        let cpu = try render(root, with: .cpu)
        for image in [vulkan, cpu] {
            // Blue at half opacity over white.
            #expect(isNear(pixel(image, 5, 10), [128, 128, 255, 255]))
            // Blue 0.502 over green: (0, 0.498, 0.502), at half opacity over white.
            #expect(isNear(pixel(image, 15, 10), [128, 191, 192, 255]))
            // The background alone: green at half opacity over white.
            #expect(isNear(pixel(image, 30, 10), [128, 255, 128, 255]))
        }
        var largest = 0
        for y in 0..<20 {
            for x in 0..<40 { largest = max(largest, zip(pixel(vulkan, x, y), pixel(cpu, x, y)).map { abs($0 - $1) }.max()!) }
        }
        #expect(largest <= 1)
    }

    @Test(arguments: SceneRenderer.allCases) func cornerRadius(_ renderer: SceneRenderer) throws {
        let root = try SeedScene.cornerRadius.make()
        let rendered = try render(root, with: renderer)
        #expect(isNear(pixel(rendered, 22, 22), [255, 0, 0, 255]))      // unclipped contents fill the corner
        #expect(isNear(pixel(rendered, 182, 22), [255, 255, 255, 255])) // clipped: the root shows
        #expect(isNear(pixel(rendered, 250, 90), [255, 255, 0, 255]))  // inside the masked one (yellow quadrant)
        try renderer.check(rendered, named: "figure-2-4-corner-radius", cpu: (16, 0.002))
    }

    /// Figures 2-1 and 2-2: all twelve gravities of a 24×16 image (red, green / blue, yellow
    /// quadrants of 12×8) in 60×60 layers on light grey, placed by the table of ca-semantics C1
    /// (`top` is the visual top): each quadrant's centre shows its colour, and a point just
    /// outside the image shows the layer's grey, or for resizeAspectFill, which overflows
    /// unclipped, the image beyond the layer.
    @Test(arguments: SceneRenderer.allCases) func contentsGravity(_ renderer: SceneRenderer) throws {
        let root = try SeedScene.contentsGravity.make()
        let rendered = try render(root, with: renderer)
        let grey = [217, 217, 217, 255], white = [255, 255, 255, 255]
        let (red, green, blue, yellow) = ([255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 0, 255])
        // Where the image lands in the layer, and a point (in the layer) just outside it.
        let placements: [ContentsGravity: (image: Rect, outside: (Double, Double, [Int]))] = [
            .center: (Rect(x: 18, y: 22, width: 24, height: 16), (16, 30, grey)),
            .top: (Rect(x: 18, y: 0, width: 24, height: 16), (30, 18, grey)),
            .bottom: (Rect(x: 18, y: 44, width: 24, height: 16), (30, 42, grey)),
            .left: (Rect(x: 0, y: 22, width: 24, height: 16), (26, 30, grey)),
            .right: (Rect(x: 36, y: 22, width: 24, height: 16), (34, 30, grey)),
            .topLeft: (Rect(x: 0, y: 0, width: 24, height: 16), (26, 8, grey)),
            .topRight: (Rect(x: 36, y: 0, width: 24, height: 16), (34, 8, grey)),
            .bottomLeft: (Rect(x: 0, y: 44, width: 24, height: 16), (26, 52, grey)),
            .bottomRight: (Rect(x: 36, y: 44, width: 24, height: 16), (34, 52, grey)),
            .resize: (Rect(x: 0, y: 0, width: 60, height: 60), (-2, 30, white)),
            // s = min(60/24, 60/16) = 2.5: 60×40, centred vertically.
            .resizeAspect: (Rect(x: 0, y: 10, width: 60, height: 40), (30, 8, grey)),
            // s = max(…) = 3.75: 90×60, centred horizontally, 15 points past each side.
            .resizeAspectFill: (Rect(x: -15, y: 0, width: 90, height: 60), (-10, 10, red)),
        ]
        #expect(placements.count == ContentsGravity.allCases.count)
        for (i, gravity) in ContentsGravity.allCases.enumerated() {
            let origin = (x: 10 + Double(i % 4) * 80, y: 10 + Double(i / 4) * 80)
            let (image, outside) = try #require(placements[gravity])
            for (u, v, color) in [(0.25, 0.25, red), (0.75, 0.25, green), (0.25, 0.75, blue), (0.75, 0.75, yellow)] {
                let x = Int(origin.x + image.minX + u * image.width), y = Int(origin.y + image.minY + v * image.height)
                #expect(isNear(pixel(rendered, x, y), color), "\(gravity) at (\(u), \(v))")
            }
            #expect(isNear(pixel(rendered, Int(origin.x + outside.0), Int(origin.y + outside.1)), outside.2), "\(gravity) outside")
        }
        try renderer.check(rendered, named: "figure-2-1-contents-gravity", cpu: (3, 0.002))
    }

    /// Figure 2-5: a shadow offset (10, 10) from a 100×100 layer at (50, 50), blurred by a
    /// Gaussian of σ = shadowRadius = 5 points (ca-semantics), opacity 0.8. Away from its corners
    /// the shadow's coverage at distance d inside its edge x = 160 is Φ(d/σ): pixel 155's centre
    /// (d = 4.5) has Φ(0.9) = 0.8159, alpha 0.6527 over white = 88.6; pixel 164's (d = −4.5)
    /// Φ(−0.9) = 0.1841, 217.4. A σ 4% off moves either by more than the tolerance.
    @Test(arguments: SceneRenderer.allCases) func shadow(_ renderer: SceneRenderer) throws {
        let root = try SeedScene.shadow.make()
        let rendered = try render(root, with: renderer)
        #expect(isNear(pixel(rendered, 100, 100), [255, 153, 0, 255]))  // the layer covers its shadow
        #expect(isNear(pixel(rendered, 155, 100), [89, 89, 89, 255], 2))
        #expect(isNear(pixel(rendered, 164, 100), [217, 217, 217, 255], 2))
        #expect(isNear(pixel(rendered, 100, 155), [89, 89, 89, 255], 2))  // the same below
        #expect(isNear(pixel(rendered, 100, 164), [217, 217, 217, 255], 2))
        #expect(isNear(pixel(rendered, 176, 100), [255, 255, 255, 255]))  // 3σ past the edge: nothing
        try renderer.check(rendered, named: "figure-2-5-shadow", cpu: (16, 0.002))
    }

    /// Seed ch. 2, "Adding Shadows to Layers": with masksToBounds the shadow is clipped at the
    /// layer's edges; where the layer is transparent, the part of the shadow beneath it shows, the
    /// part outside does not. The blue half (0…40 × 0…80) casts (20…60 × 20…100) with σ 0: beneath
    /// the transparent right half that is 40…60 × 20…80, black; below the layer nothing. Inside an
    /// equal layer that casts the shadow, the clipping layer's shadow shows outside too.
    @Test(arguments: SceneRenderer.allCases) func masksToBoundsClipsTheShadowAtTheLayersEdges(_ renderer: SceneRenderer) throws {
        let root = try SeedScene.shadowUnderMasksToBounds.make()
        let rendered = try render(root, with: renderer)
        let (white, black, blue) = ([255, 255, 255, 255], [0, 0, 0, 255], [0, 0, 255, 255])
        // The clipping layer at (20, 20).
        #expect(isNear(pixel(rendered, 20 + 10, 20 + 30), blue))
        #expect(isNear(pixel(rendered, 20 + 50, 20 + 50), black))   // beneath the layer
        #expect(isNear(pixel(rendered, 20 + 50, 20 + 78), black))
        #expect(isNear(pixel(rendered, 20 + 50, 20 + 10), white))   // above the shadow's top
        #expect(isNear(pixel(rendered, 20 + 70, 20 + 50), white))   // right of its right edge
        #expect(isNear(pixel(rendered, 20 + 50, 20 + 81), white))   // outside the layer: clipped
        #expect(isNear(pixel(rendered, 20 + 50, 20 + 95), white))
        // The two-layer way at (140, 20): the same shadow, not clipped.
        #expect(isNear(pixel(rendered, 140 + 50, 20 + 50), black))
        #expect(isNear(pixel(rendered, 140 + 50, 20 + 95), black))
        #expect(isNear(pixel(rendered, 140 + 30, 20 + 95), black))
        #expect(isNear(pixel(rendered, 140 + 10, 20 + 95), white))
        // The rounded, blurred one at (260, 20): nothing outside the bounds, a shadow beneath the
        // half-transparent background (darker than its white at 0.5 over white alone).
        #expect(isNear(pixel(rendered, 260 + 50, 20 + 90), white))
        #expect(isNear(pixel(rendered, 260 + 90, 20 + 50), white))
        #expect(pixel(rendered, 260 + 50, 20 + 50)[0] < 140)
        try renderer.check(rendered, named: "figure-2-5-shadow-under-masks-to-bounds", cpu: (2, 0.002))
    }

    /// contentsRect (ca-semantics C3) picks a unit subrectangle of the 24×16 quadrant image:
    /// its middle half shows the four quadrants in the four quarters of a 40×40 layer; the
    /// top-right quadrant alone has a logical size of 12×8 for `center` gravity; a rectangle
    /// reaching past the image extends its edge pixels, so (0.25, 0, 1, 1) shows the red and blue
    /// quarter columns over 10 points, then green and yellow to the right edge.
    @Test(arguments: SceneRenderer.allCases) func contentsRectSelectsAPartOfTheImageAndExtendsItsEdges(_ renderer: SceneRenderer) throws {
        let root = makeRoot(170, 60)
        let image = try quadrantImage()
        let rects = [
            Rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5), Rect(x: 0.5, y: 0, width: 0.5, height: 0.5),
            Rect(x: 0.25, y: 0, width: 1, height: 1),
        ]
        for (i, rect) in rects.enumerated() {
            let layer = sublayer(root, frame: Rect(x: 10 + Double(i) * 55, y: 10, width: 40, height: 40), background: Color(white: 0.85))
            layer.contents = image
            layer.contentsRect = rect
            layer.contentsGravity = i == 1 ? .center : .resize
        }
        let rendered = try render(root, with: renderer)
        #expect(isNear(pixel(rendered, 20, 20), [255, 0, 0, 255]) && isNear(pixel(rendered, 40, 20), [0, 255, 0, 255]))
        #expect(isNear(pixel(rendered, 20, 40), [0, 0, 255, 255]) && isNear(pixel(rendered, 40, 40), [255, 255, 0, 255]))
        // Centre gravity: 12×8 at (65 + 14, 10 + 16), all green; grey around it.
        #expect(isNear(pixel(rendered, 85, 30), [0, 255, 0, 255]) && isNear(pixel(rendered, 79, 26), [0, 255, 0, 255]))
        #expect(isNear(pixel(rendered, 77, 30), [217, 217, 217, 255]) && isNear(pixel(rendered, 85, 24), [217, 217, 217, 255]))
        // u = 0.25 + x/40: below 0.5 for the first 10 points, past 1 (the last column) after 30.
        #expect(isNear(pixel(rendered, 125, 15), [255, 0, 0, 255]) && isNear(pixel(rendered, 125, 45), [0, 0, 255, 255]))
        #expect(isNear(pixel(rendered, 145, 15), [0, 255, 0, 255]) && isNear(pixel(rendered, 158, 15), [0, 255, 0, 255]))
        #expect(isNear(pixel(rendered, 158, 45), [255, 255, 0, 255]))
        try renderer.check(rendered, named: "contents-rect", cpu: (3, 0.002))
    }

    /// A cornerRadius larger than half the shorter side is clamped to it (ca-semantics): 50 on a
    /// 100×40 layer rounds with 20, a stadium, for the background and for masksToBounds alike.
    /// Unclamped, the corner arcs would reach in from the ends to x = 50.
    @Test(arguments: SceneRenderer.allCases) func cornerRadiusIsClampedToHalfTheShorterSide(_ renderer: SceneRenderer) throws {
        let root = makeRoot(240, 60)
        let background = sublayer(root, frame: Rect(x: 10, y: 10, width: 100, height: 40), background: .blue)
        background.cornerRadius = 50
        let clipping = sublayer(root, frame: Rect(x: 130, y: 10, width: 100, height: 40))
        clipping.cornerRadius = 50
        clipping.masksToBounds = true
        _ = sublayer(clipping, frame: Rect(x: -10, y: -10, width: 120, height: 60), background: .red)
        #expect(background.properties.cornerRadii == (20, 20, 20, 20))
        let rendered = try render(root, with: renderer)
        for (x0, color) in [(10, [0, 0, 255, 255]), (130, [255, 0, 0, 255])] {
            // (3, 20) and (14, 6) lie within 20 of the arc's centre (20, 20); (5, 5) does not.
            #expect(isNear(pixel(rendered, x0 + 3, 10 + 20), color))
            #expect(isNear(pixel(rendered, x0 + 14, 10 + 6), color))
            #expect(isNear(pixel(rendered, x0 + 96, 10 + 20), color))
            // (5.5, 5.5) lies 20.5 from it: the distance field leaves the pixel white, cairo covers
            // the 4% of it that lies within 20 (10 of 255).
            #expect(isNear(pixel(rendered, x0 + 5, 10 + 5), [255, 255, 255, 255], 10))
            #expect(isNear(pixel(rendered, x0 + 95, 10 + 35), [255, 255, 255, 255]))
            #expect(isNear(pixel(rendered, x0 + 50, 10 + 1), color))  // the straight top edge
        }
        try renderer.check(rendered, named: "corner-radius-clamped", cpu: (8, 0.003))
    }

    /// Figure 4-3: a masksToBounds layer with rounded corners clips its sublayers to the rounded shape.
    @Test(arguments: SceneRenderer.allCases) func clippingSublayersToRoundedCorners(_ renderer: SceneRenderer) throws {
        let root = try SeedScene.clippingSublayersToRoundedCorners.make()
        let rendered = try render(root, with: renderer)
        #expect(isNear(pixel(rendered, 23, 23), [255, 255, 255, 255]))  // outside the rounded corner
        #expect(isNear(pixel(rendered, 70, 70), [255, 0, 0, 255]))
        #expect(isNear(pixel(rendered, 195, 150), [0, 0, 255, 255]))
        #expect(isNear(pixel(rendered, 205, 150), [255, 255, 255, 255])) // past the parent's edge: clipped
        try renderer.check(rendered, named: "figure-4-3-rounded-clipping", cpu: (16, 0.002))
    }

    /// Figures 1-5 and 1-6: rotation turns a layer about its anchor point.
    @Test(arguments: SceneRenderer.allCases) func anchorPointAndRotation(_ renderer: SceneRenderer) throws {
        let root = try SeedScene.anchorPointAndRotation.make()
        let rendered = try render(root, with: renderer)
        #expect(isNear(pixel(rendered, 100, 100), [0, 153, 0, 255]))  // the centre stays put
        #expect(isNear(pixel(rendered, 185, 50), [204, 0, 102, 255])) // just inside the corner that stays put
        try renderer.check(rendered, named: "figure-1-6-rotation-about-anchor", cpu: (16, 0.002))
    }

    /// A card turned 60° about y under a perspective sublayerTransform (m34 = −1/500).
    @Test(arguments: SceneRenderer.allCases) func perspectiveCardFlip(_ renderer: SceneRenderer) throws {
        let root = try SeedScene.perspectiveCardFlip.make()
        let rendered = try render(root, with: renderer)
        #expect(isNear(pixel(rendered, 150, 100), [26, 77, 230, 255]))  // the centre is still the card
        #expect(isNear(pixel(rendered, 100, 100), [255, 255, 255, 255])) // the narrowed card no longer reaches here
        try renderer.check(rendered, named: "perspective-card-flip", cpu: (64, 0.001))
    }

    /// Nine-part stretching with contentsCenter: corners keep their size, the middle stretches.
    @Test(arguments: SceneRenderer.allCases) func ninePartContents(_ renderer: SceneRenderer) throws {
        let root = try SeedScene.ninePartContents.make()
        let rendered = try render(root, with: renderer)
        #expect(isNear(pixel(rendered, 22, 22), [255, 0, 0, 255]))      // top-left corner: red, unscaled
        #expect(isNear(pixel(rendered, 177, 97), [255, 255, 0, 255]))   // bottom-right corner: yellow
        try renderer.check(rendered, named: "nine-part-contents", cpu: (3, 0.002))
    }

    /// Rendering at scale 2: twice the pixels, edges on device pixels, contents chosen by contentsScale.
    @Test(arguments: SceneRenderer.allCases) func scaleTwoOutput(_ renderer: SceneRenderer) throws {
        let root = try SeedScene.scaleTwoOutput.make()
        let rendered = try render(root, scale: 2, with: renderer)
        #expect(rendered.width == 200 && rendered.height == 160)
        #expect(isNear(pixel(rendered, 21, 40), [0, 0, 255, 255]))   // x = 10.5 pt is pixel 21 exactly
        #expect(isNear(pixel(rendered, 20, 40), [255, 255, 255, 255]))
        #expect(isNear(pixel(rendered, 121, 41), [255, 0, 0, 255]))  // the 2× image maps pixel for pixel
        try renderer.check(rendered, named: "scale-2-output", cpu: (16, 0.002))
    }
}
