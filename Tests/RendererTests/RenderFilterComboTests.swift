import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// `backgroundFilters` on a layer that itself renders into an intermediate (for its `filters`,
/// a blending compositingFilter, a mask or group opacity): the backdrop is what is behind the
/// layer in the pass it is composited into, not the empty intermediate.
@MainActor
@Suite(.serialized) struct RenderFilterComboTests {
    /// Red on the left half of `root`, blue on the right.
    func addHalves(to root: Layer) {
        let w = root.bounds.width / 2, h = root.bounds.height
        _ = sublayer(root, frame: Rect(x: 0, y: 0, width: w, height: h), background: .red)
        _ = sublayer(root, frame: Rect(x: w, y: 0, width: w, height: h), background: .blue)
    }

    /// Red from blue, half the green plus 0.1, blue from red (RenderFilterTests' matrix).
    let swap: [Double] = [0, 0, 1, 0, 0, 0, 0.5, 0, 0, 0.1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0]

    /// A frosted panel whose own filters are a colour matrix, over red and blue halves: the
    /// backdrop is blurred (σ 4 across the halves' edge at x = 100) but not colour-matrixed, and
    /// the panel's sublayer is colour-matrixed. Outside the rounded bounds the halves stay sharp.
    @Test(arguments: SceneRenderer.allCases) func aFrostedLayerWithAColourMatrixBlursItsBackdropAndColoursOnlyItsOwnContent(_ renderer: SceneRenderer) throws {
        let root = makeRoot(200, 100)
        addHalves(to: root)
        let panel = sublayer(root, frame: Rect(x: 20, y: 10, width: 160, height: 80))
        panel.cornerRadius = 16
        panel.backgroundFilters = [.gaussianBlur(radius: 4)]
        panel.filters = [.colorMatrix(swap)]
        _ = sublayer(panel, frame: Rect(x: 20, y: 20, width: 20, height: 40), background: color([51, 102, 153]))
        let image = try render(root, with: renderer)
        // Three σ and more from the edge the blur of a flat half is that half, untouched by the matrix.
        #expect(isNear(pixel(image, 70, 50), [255, 0, 0, 255]))
        #expect(isNear(pixel(image, 160, 50), [0, 0, 255, 255]))
        // Pixels 99 and 100 lie half a pixel either side of the edge: Φ(±0.5 / 4) of red, summing
        // to one; green stays 0 (the matrix would add 0.1).
        let left = pixel(image, 99, 50), right = pixel(image, 100, 50)
        #expect(isNear([left[0] + right[0], left[2] + right[2]], [255, 255], 2))
        #expect(left[0] > 135 && left[0] < 150)
        #expect(left[1] == 0 && right[1] == 0)
        // The sublayer (51, 102, 153) through the matrix: (153, 76.5, 51).
        #expect(isNear(pixel(image, 50, 50), [153, 77, 51, 255]))
        // Outside the rounded corner, and outside the panel: sharp.
        #expect(pixel(image, 21, 11) == [255, 0, 0, 255])
        #expect(pixel(image, 100, 5) == [0, 0, 255, 255])
        try renderer.check(image, named: "filter-background-blur-under-color-matrix", cpu: (2, 0.002))
    }

    /// The layer's own blur (σ 3) spreads its green sublayer, not the backdrop: the grey backdrop
    /// (saturation 0) is flat two pixels inside the panel's left edge, where a blurred edge would
    /// be a quarter red.
    @Test(arguments: SceneRenderer.allCases) func aLayersOwnBlurLeavesItsBackdropSharpEdged(_ renderer: SceneRenderer) throws {
        let root = makeRoot(200, 100)
        addHalves(to: root)
        let panel = sublayer(root, frame: Rect(x: 20, y: 20, width: 60, height: 60))
        panel.backgroundFilters = [.saturation(0)]
        panel.filters = [.gaussianBlur(radius: 3)]
        _ = sublayer(panel, frame: Rect(x: 40, y: 0, width: 20, height: 60), background: .green)
        let image = try render(root, with: renderer)
        let grey = Int((0.2126 * 255).rounded())
        #expect(isNear(pixel(image, 22, 50), [grey, grey, grey, 255]))
        #expect(pixel(image, 18, 50) == [255, 0, 0, 255])
        // The sublayer's edge at x = 60 is soft: green fades into the grey over it.
        let edge = pixel(image, 59, 50)
        #expect(edge[1] > 100 && edge[1] < 200)
    }

    /// Group opacity 0.5 over a backdrop greyed by saturation 0: the grey is part of the group,
    /// so where the panel shows only its backdrop, half grey (54) and half red; where its opaque
    /// green sublayer lies, half green and half red.
    @Test(arguments: SceneRenderer.allCases) func groupOpacityFadesTheBackdropWithTheLayer(_ renderer: SceneRenderer) throws {
        let root = makeRoot(200, 100)
        addHalves(to: root)
        let panel = sublayer(root, frame: Rect(x: 10, y: 10, width: 80, height: 80))
        panel.backgroundFilters = [.saturation(0)]
        panel.opacity = 0.5
        _ = sublayer(panel, frame: Rect(x: 40, y: 0, width: 40, height: 80), background: .green)
        let image = try render(root, with: renderer)
        #expect(isNear(pixel(image, 30, 50), [155, 27, 27, 255]))
        #expect(isNear(pixel(image, 70, 50), [128, 128, 0, 255]))
        #expect(pixel(image, 5, 50) == [255, 0, 0, 255])
    }

    /// A full-screen overlay at group opacity 0.5: all that is behind it moves into its backdrop's
    /// intermediate (drawn once), and both halves show half their grey over half themselves.
    @Test(arguments: SceneRenderer.allCases) func aFullScreenOverlayAtGroupOpacityFadesItsBackdropOverBothHalves(_ renderer: SceneRenderer) throws {
        let root = makeRoot(100, 60)
        addHalves(to: root)
        let overlay = sublayer(root, frame: root.bounds)
        overlay.backgroundFilters = [.saturation(0)]
        overlay.opacity = 0.5
        _ = sublayer(overlay, frame: Rect(x: 0, y: 50, width: 100, height: 10), background: .green)
        let image = try render(root, with: renderer)
        // Red's luma is 54 of 255, blue's 18.
        #expect(isNear(pixel(image, 20, 20), [155, 27, 27, 255]))
        #expect(isNear(pixel(image, 80, 20), [9, 9, 137, 255]))
        #expect(isNear(pixel(image, 20, 55), [128, 128, 0, 255]))
        if renderer == .vulkan {
            let encoder = SceneEncoder(tree: try commit(root), scale: 1, targetSize: (100, 60))
            #expect(encoder.passes.filter(\.clearsToTargetColor).count == 1)
        }
    }

    /// A mask over the panel's left half cuts the backdrop as it cuts the rest of the layer: the
    /// left half shows the grey backdrop, the right half what is behind, unfiltered.
    @Test(arguments: SceneRenderer.allCases) func aMaskCutsTheBackdropWithTheLayer(_ renderer: SceneRenderer) throws {
        let root = makeRoot(200, 100)
        addHalves(to: root)
        let panel = sublayer(root, frame: Rect(x: 10, y: 10, width: 80, height: 80))
        panel.backgroundFilters = [.saturation(0)]
        let mask = Layer()
        mask.frame = Rect(x: 0, y: 0, width: 40, height: 80)
        mask.backgroundColor = .black
        panel.mask = mask
        let image = try render(root, with: renderer)
        let grey = Int((0.2126 * 255).rounded())
        #expect(isNear(pixel(image, 30, 50), [grey, grey, grey, 255]))
        #expect(pixel(image, 70, 50) == [255, 0, 0, 255])
    }

    /// A multiply compositingFilter blends the layer over its own backdrop: orange (255, 128, 0)
    /// times the grey (54) of the red backdrop, and the grey itself where the layer is clear.
    @Test(arguments: SceneRenderer.allCases) func aBlendModeBlendsTheLayerOverItsBackdrop(_ renderer: SceneRenderer) throws {
        let root = makeRoot(200, 100)
        addHalves(to: root)
        let panel = sublayer(root, frame: Rect(x: 10, y: 10, width: 80, height: 80))
        panel.backgroundFilters = [.saturation(0)]
        panel.compositingFilter = .blendMode(.multiplyBlendMode)
        _ = sublayer(panel, frame: Rect(x: 40, y: 0, width: 40, height: 80), background: color([255, 128, 0]))
        let image = try render(root, with: renderer)
        let grey = Int((0.2126 * 255).rounded())
        #expect(isNear(pixel(image, 30, 50), [grey, grey, grey, 255]))
        #expect(isNear(pixel(image, 70, 50), [grey, 27, 0, 255]))
    }

    func color(_ c: [Int]) -> Color {
        Color(red: Double(c[0]) / 255, green: Double(c[1]) / 255, blue: Double(c[2]) / 255)
    }
}

/// Damage of a frosted layer with its own filters: a change behind it within the backdrop
/// blur's reach redraws the layer, and the partial redraw equals a full render.
@MainActor
@Suite struct RenderFilterComboDamageTests {
    @Test func aChangeBehindAFilteredFrostedLayerRedrawsTheWholeLayer() {
        let root = makeRoot(400, 300)
        let behind = sublayer(root, frame: Rect(x: 10, y: 10, width: 20, height: 20), background: .red)
        let panel = sublayer(root, frame: Rect(x: 50, y: 40, width: 200, height: 100))
        panel.backgroundFilters = [.gaussianBlur(radius: 10)]
        panel.filters = [.saturation(0)]
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        var tracker = DamageTracker()
        _ = tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
        change { behind.backgroundColor = .blue }
        #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 9, y: 9, width: 242, height: 132)))
    }

    @Test(arguments: SceneRenderer.allCases) func aPartialRedrawBehindAFilteredFrostedLayerMatchesAFullRender(_ sceneRenderer: SceneRenderer) throws {
        let root = makeRoot(200, 120)
        let behind = sublayer(root, frame: Rect(x: 10, y: 40, width: 20, height: 40), background: .red)
        let panel = sublayer(root, frame: Rect(x: 40, y: 20, width: 120, height: 80))
        panel.backgroundFilters = [.gaussianBlur(radius: 8)]
        panel.filters = [.gaussianBlur(radius: 2)]
        _ = sublayer(panel, frame: Rect(x: 30, y: 20, width: 40, height: 40), background: .green)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let renderer = try sceneRenderer.makeRenderer()
        _ = try renderer.render(context.renderTree!, width: 200, height: 120, scale: 1, clearColor: .clear)
        change { behind.position.x += 12 }
        let partial = try renderer.render(context.renderTree!, width: 200, height: 120, scale: 1, clearColor: .clear)
        guard case .region = renderer.lastFrameStatistics.damage else {
            Issue.record("expected a partial redraw, got \(renderer.lastFrameStatistics.damage)")
            return
        }
        renderer.invalidatePreviousFrame()
        let full = try renderer.render(context.renderTree!, width: 200, height: 120, scale: 1, clearColor: .clear)
        // 3 pixels right of the moved red layer's edge, the backdrop is a third red.
        #expect(pixel(partial, 45, 60)[1] < 200)
        for y in stride(from: 0, to: 120, by: 3) {
            for x in stride(from: 0, to: 200, by: 3) {
                #expect(isNear(pixel(partial, x, y), pixel(full, x, y)), "at \(x), \(y)")
            }
        }
    }
}
