import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// Effects that render a subtree offscreen first: group opacity (ca-semantics A6), masks (A3, with
/// masksToBounds A2) and shadows of composited alpha or of a shadowPath (A5).
@MainActor
@Suite(.serialized) struct RenderOffscreenTests {
    /// Vertical stripes 20 points wide, red then blue, filling `layer`'s bounds.
    func addStripes(to layer: Layer) {
        let count = Int((layer.bounds.width / 20).rounded(.up))
        for i in 0..<count {
            _ = sublayer(layer, frame: Rect(x: Double(i) * 20, y: 0, width: 20, height: layer.bounds.height),
                         background: i % 2 == 0 ? .red : .blue)
        }
    }

    /// Two overlapping opaque squares in a 50%-opacity parent: as a group (left) the overlap is the
    /// top square's colour at 50%, like the rest of it; with allowsGroupOpacity off (right) the
    /// bottom square shows through the top one.
    @Test(arguments: SceneRenderer.allCases) func groupOpacity(_ renderer: SceneRenderer) throws {
        let root = makeRoot(200, 100)
        for (i, grouped) in [true, false].enumerated() {
            let parent = sublayer(root, frame: Rect(x: 10 + Double(i) * 100, y: 10, width: 90, height: 80))
            parent.opacity = 0.5
            parent.allowsGroupOpacity = grouped
            _ = sublayer(parent, frame: Rect(x: 0, y: 0, width: 50, height: 50), background: .red)
            _ = sublayer(parent, frame: Rect(x: 30, y: 20, width: 50, height: 50), background: .blue)
        }
        let image = try render(root, with: renderer)
        // Group: red alone, blue alone and the overlap, each at 50% over white.
        #expect(isNear(pixel(image, 20, 20), [255, 128, 128, 255]))
        #expect(isNear(pixel(image, 80, 70), [128, 128, 255, 255]))
        #expect(isNear(pixel(image, 50, 45), [128, 128, 255, 255]))
        // Per layer: the overlap is blue at 50% over red at 50% over white.
        #expect(isNear(pixel(image, 180, 70), [128, 128, 255, 255]))
        #expect(isNear(pixel(image, 150, 45), [128, 64, 191, 255]))
        try renderer.check(image, named: "offscreen-group-opacity", cpu: (2, 0.002))
    }

    /// At scale 2, a group reaching past a rounded masksToBounds parent: the group's image is
    /// clipped by the parent's rounded bounds when composited, and still hides the overlap.
    @Test(arguments: SceneRenderer.allCases) func groupInsideARoundedClipAtScaleTwo(_ renderer: SceneRenderer) throws {
        let root = makeRoot(100, 100)
        let parent = sublayer(root, frame: Rect(x: 10, y: 10, width: 80, height: 80), background: Color(white: 0.6))
        parent.cornerRadius = 20
        parent.masksToBounds = true
        let group = sublayer(parent, frame: Rect(x: -10, y: -10, width: 100, height: 100))
        group.opacity = 0.5
        _ = sublayer(group, frame: Rect(x: 0, y: 0, width: 60, height: 100), background: .red)
        _ = sublayer(group, frame: Rect(x: 40, y: 0, width: 60, height: 100), background: .blue)
        let image = try render(root, scale: 2, with: renderer)
        #expect(isNear(pixel(image, 24, 24), [255, 255, 255, 255]))   // outside the rounded corner
        #expect(isNear(pixel(image, 100, 100), [77, 77, 204, 255]))   // the overlap: blue at 50% over grey
        #expect(isNear(pixel(image, 160, 120), [77, 77, 204, 255]))   // blue alone
        #expect(isNear(pixel(image, 40, 120), [204, 77, 77, 255]))    // red alone
        #expect(isNear(pixel(image, 184, 100), [255, 255, 255, 255])) // past the parent: clipped
    }

    /// A 50% group inside a 50% group: the inner greens overlap each other without showing it,
    /// then fade with the outer group's red as one image.
    @Test(arguments: SceneRenderer.allCases) func nestedGroups(_ renderer: SceneRenderer) throws {
        let root = makeRoot(200, 120)
        let outer = sublayer(root, frame: Rect(x: 10, y: 10, width: 180, height: 100))
        outer.opacity = 0.5
        _ = sublayer(outer, frame: Rect(x: 0, y: 0, width: 80, height: 100), background: .red)
        let inner = sublayer(outer, frame: Rect(x: 40, y: 10, width: 120, height: 80))
        inner.opacity = 0.5
        _ = sublayer(inner, frame: Rect(x: 0, y: 0, width: 70, height: 80), background: .green)
        _ = sublayer(inner, frame: Rect(x: 50, y: 0, width: 70, height: 80), background: .green)
        let image = try render(root, with: renderer)
        // Outer group at opacity 1: green at 50% over red is (128, 128, 0); halved over white.
        #expect(isNear(pixel(image, 70, 60), [191, 191, 128, 255]))
        // Green at 50% over nothing is (0, 128, 0, 128); halved over white, overlapping or not.
        #expect(isNear(pixel(image, 110, 60), [191, 255, 191, 255]))
        #expect(isNear(pixel(image, 150, 60), [191, 255, 191, 255]))
        #expect(isNear(pixel(image, 30, 60), [255, 128, 128, 255]))   // red alone at 50%
        #expect(isNear(pixel(image, 180, 15), [255, 255, 255, 255]))   // nothing drawn there
        try renderer.check(image, named: "offscreen-nested-groups", cpu: (2, 0.002))
    }

    /// A striped layer masked by a round layer (cornerRadius half its side): stripes inside the
    /// circle, the root's white outside it.
    @Test(arguments: SceneRenderer.allCases) func maskLayer(_ renderer: SceneRenderer) throws {
        let root = makeRoot(200, 200)
        let striped = sublayer(root, frame: Rect(x: 40, y: 40, width: 120, height: 120))
        addStripes(to: striped)
        let mask = Layer()
        mask.frame = Rect(x: 0, y: 0, width: 120, height: 120)
        mask.cornerRadius = 60
        mask.backgroundColor = .black
        striped.mask = mask
        let image = try render(root, with: renderer)
        #expect(isNear(pixel(image, 100, 100), [0, 0, 255, 255]))     // the centre: stripe 3, blue
        #expect(isNear(pixel(image, 100, 43), [0, 0, 255, 255]))      // near the top of the circle
        #expect(isNear(pixel(image, 43, 100), [255, 0, 0, 255]))      // near its left: stripe 0, red
        #expect(isNear(pixel(image, 45, 45), [255, 255, 255, 255]))   // a corner of the bounds: masked
        #expect(isNear(pixel(image, 155, 155), [255, 255, 255, 255]))
        try renderer.check(image, named: "offscreen-mask-layer", cpu: (32, 0.002))
    }

    /// A mask (the left half, opaque, the rest at 50%) on a masksToBounds layer with rounded
    /// corners: both apply, multiplied, to the contents and to a sublayer reaching past the bounds.
    @Test(arguments: SceneRenderer.allCases) func maskAndMasksToBounds(_ renderer: SceneRenderer) throws {
        let root = makeRoot(200, 200)
        let layer = sublayer(root, frame: Rect(x: 40, y: 40, width: 120, height: 120), background: .blue)
        layer.cornerRadius = 30
        layer.masksToBounds = true
        _ = sublayer(layer, frame: Rect(x: -30, y: 50, width: 180, height: 20), background: Color(red: 1, green: 1, blue: 0))
        let mask = Layer()
        mask.frame = Rect(x: 0, y: 0, width: 120, height: 120)
        mask.backgroundColor = Color(white: 0, alpha: 0.5)
        let left = Layer()
        left.frame = Rect(x: 0, y: 0, width: 60, height: 120)
        left.backgroundColor = .black
        mask.addSublayer(left)
        layer.mask = mask
        let image = try render(root, with: renderer)
        #expect(isNear(pixel(image, 70, 130), [0, 0, 255, 255]))       // left half: all of it
        #expect(isNear(pixel(image, 130, 130), [128, 128, 255, 255]))  // right half: half of it
        #expect(isNear(pixel(image, 43, 43), [255, 255, 255, 255]))    // outside the rounded corner
        #expect(isNear(pixel(image, 60, 100), [255, 255, 0, 255]))     // the sublayer inside, left
        #expect(isNear(pixel(image, 140, 100), [255, 255, 128, 255]))  // the sublayer inside, right
        #expect(isNear(pixel(image, 30, 100), [255, 255, 255, 255]))   // the sublayer past the bounds
        #expect(isNear(pixel(image, 170, 100), [255, 255, 255, 255]))
        try renderer.check(image, named: "offscreen-mask-and-masks-to-bounds", cpu: (16, 0.002))
    }

    /// A round contents image casts a round shadow, not its square bounds'.
    @Test(arguments: SceneRenderer.allCases) func shadowOfContentsAlpha(_ renderer: SceneRenderer) throws {
        let root = makeRoot(200, 200)
        let drawing = try GraphicsContext(width: 80, height: 80)
        drawing.setFillColor(.blue)
        drawing.fillEllipse(in: Rect(x: 0, y: 0, width: 80, height: 80))
        let layer = sublayer(root, frame: Rect(x: 60, y: 60, width: 80, height: 80))
        layer.contents = drawing.makeImage()
        layer.shadowOpacity = 1
        layer.shadowOffset = Size(width: 10, height: 10)
        layer.shadowRadius = 4
        let image = try render(root, with: renderer)
        #expect(isNear(pixel(image, 100, 100), [0, 0, 255, 255]))      // the circle covers its shadow
        // 4.6 pixels (1.15σ) inside the offset circle, outside the circle itself: mostly dark.
        let inside = pixel(image, 135, 135)
        #expect(inside[0] < 80 && inside[0] == inside[2])
        // In the offset bounds but 9.5 pixels outside the offset circle: no shadow to speak of.
        #expect(pixel(image, 145, 75)[0] > 245)
        #expect(isNear(pixel(image, 63, 63), [255, 255, 255, 255]))   // a corner of the bounds: no circle
        try renderer.check(image, named: "offscreen-shadow-of-contents", cpu: (2, 0.002))
    }

    /// An explicit shadowPath (a flat ellipse reaching past the bounds) is the shadow's shape.
    @Test(arguments: SceneRenderer.allCases) func shadowPath(_ renderer: SceneRenderer) throws {
        let root = makeRoot(250, 200)
        let layer = sublayer(root, frame: Rect(x: 50, y: 50, width: 100, height: 60), background: Color(red: 1, green: 0.6, blue: 0))
        layer.shadowPath = Path(ellipseIn: Rect(x: -20, y: 40, width: 140, height: 40))
        layer.shadowOpacity = 1
        layer.shadowOffset = Size(width: 0, height: 0)
        layer.shadowRadius = 3
        let image = try render(root, with: renderer)
        #expect(isNear(pixel(image, 100, 80), [255, 153, 0, 255]))     // the layer over its shadow
        #expect(pixel(image, 100, 125)[0] < 80)    // 5 pixels inside the ellipse, below the layer
        #expect(pixel(image, 40, 110)[0] < 60)     // 10 pixels inside, left of the bounds: not clipped
        #expect(pixel(image, 100, 140)[0] > 245)   // 10 pixels below the ellipse
        #expect(isNear(pixel(image, 160, 60), [255, 255, 255, 255]))   // beside the layer, above the ellipse
        try renderer.check(image, named: "offscreen-shadow-path", cpu: (2, 0.002))
    }

    /// Intermediates are handed out distinct within a frame, reused by later frames of the same
    /// sizes, and dropped once unused for `maximumIdleFrames` frames.
    @Test func intermediatesArePooledPerSize() throws {
        try withValidatedContext { context in
            let pool = IntermediatePool(context: context, maximumIdleFrames: 2)
            let size = IntermediateSize(width: 8, height: 4)
            let first = try pool.images(for: [size, size, IntermediateSize(width: 3, height: 3)])
            #expect(first[0] !== first[1] && pool.count == 3)
            let second = try pool.images(for: [size])
            #expect(second[0] === first[0] && pool.count == 3)
            _ = try pool.images(for: [])
            #expect(pool.count == 2)  // the 3×3 image has been idle for two frames
            _ = try pool.images(for: [])
            #expect(pool.count == 0)
        }
    }
}
