import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// Layer filters (seed ch. 2, "Filters Add Visual Effects"): `filters` on a layer's subtree,
/// `backgroundFilters` on what is behind a layer, and blend modes as `compositingFilter`.
@MainActor
@Suite(.serialized) struct RenderFilterTests {
    /// 8-bit sRGB components as 0...1.
    func unit(_ c: [Int]) -> [Double] { c.map { Double($0) / 255 } }

    func color(_ c: [Int]) -> Color {
        Color(red: Double(c[0]) / 255, green: Double(c[1]) / 255, blue: Double(c[2]) / 255)
    }

    /// Vertical stripes 20 points wide, red then blue, filling `layer`'s bounds.
    func addStripes(to layer: Layer) {
        let count = Int((layer.bounds.width / 20).rounded(.up))
        for i in 0..<count {
            _ = sublayer(layer, frame: Rect(x: Double(i) * 20, y: 0, width: 20, height: layer.bounds.height),
                         background: i % 2 == 0 ? .red : .blue)
        }
    }

    /// A red square blurred with σ 6: its middle stays red, the blur spreads 3σ past its edges
    /// and fades across them symmetrically; the sublayer is blurred with it.
    @Test(arguments: SceneRenderer.allCases) func gaussianBlurSpreadsTheSubtreeByThreeSigma(_ renderer: SceneRenderer) throws {
        let root = makeRoot(160, 120)
        let square = sublayer(root, frame: Rect(x: 40, y: 20, width: 80, height: 80), background: .red)
        _ = sublayer(square, frame: Rect(x: 60, y: 0, width: 20, height: 80), background: .blue)
        square.filters = [.gaussianBlur(radius: 6, name: "blur")]
        let image = try render(root, with: renderer)
        #expect(isNear(pixel(image, 60, 60), [255, 0, 0, 255]))
        #expect(isNear(pixel(image, 20, 60), [255, 255, 255, 255]))   // 3σ + 2 left of the edge
        #expect(isNear(pixel(image, 138, 60), [255, 255, 255, 255]))
        // One pixel either side of the left edge (x = 40) sums to white and red: G + B = R + W.
        let inside = pixel(image, 40, 60), outside = pixel(image, 39, 60)
        #expect(isNear([inside[1] + outside[1]], [255], 2))
        #expect(inside[1] > 40 && inside[1] < 128)
        // The blue sublayer's edge at x = 100 is soft too.
        let between = pixel(image, 100, 60)
        #expect(between[0] > 100 && between[2] > 100)
        try renderer.check(image, named: "filter-gaussian-blur", cpu: (2, 0.002))
    }

    /// inputRadius is in points: at scale 2 a blur of radius 4 has σ = 8 pixels and reaches
    /// 3σ = 24 pixels past the edge.
    @Test(arguments: SceneRenderer.allCases) func theBlurRadiusIsInPointsAtScaleTwo(_ renderer: SceneRenderer) throws {
        let root = makeRoot(80, 60)
        let square = sublayer(root, frame: Rect(x: 20, y: 10, width: 40, height: 40), background: .black)
        square.filters = [.gaussianBlur(radius: 4)]
        let image = try render(root, scale: 2, with: renderer)
        #expect(isNear(pixel(image, 80, 60), [0, 0, 0, 255], 2))
        #expect(isNear(pixel(image, 40 - 26, 60), [255, 255, 255, 255], 2))
        // Pixel 35's centre is 4.5 pixels left of the edge at x = 40: Φ(−4.5 / 8) ≈ 0.287 of black
        // (within the error of the half-resolution blur).
        #expect(isNear(pixel(image, 35, 60), [182, 182, 182, 255], 6))
    }

    /// A blur with a zero radius changes nothing, so the layer renders as without filters.
    @Test(arguments: SceneRenderer.allCases) func aZeroRadiusBlurLeavesTheLayerSharp(_ renderer: SceneRenderer) throws {
        let root = makeRoot(60, 40)
        let square = sublayer(root, frame: Rect(x: 10, y: 10, width: 20, height: 20), background: .red)
        square.filters = [.gaussianBlur(radius: 0)]
        let image = try render(root, with: renderer)
        #expect(pixel(image, 10, 10) == [255, 0, 0, 255])
        #expect(pixel(image, 9, 10) == [255, 255, 255, 255])
    }

    /// A colour matrix on a flat colour: red from blue, half the green plus 0.1, blue from red.
    @Test(arguments: SceneRenderer.allCases) func colorMatrixOnAFlatColourGivesTheMatrixValue(_ renderer: SceneRenderer) throws {
        let root = makeRoot(60, 40)
        let square = sublayer(root, frame: Rect(x: 10, y: 10, width: 40, height: 20), background: color([51, 102, 153]))
        square.filters = [.colorMatrix([0, 0, 1, 0, 0, 0, 0.5, 0, 0, 0.1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0])]
        let image = try render(root, with: renderer)
        // (0.6, 0.2 + 0.1, 0.2) in 8 bits: 153, 76.5, 51.
        #expect(isNear(pixel(image, 30, 20), [153, 77, 51, 255]))
        #expect(pixel(image, 5, 5) == [255, 255, 255, 255])
    }

    /// Saturation 0 turns a colour into its Rec. 709 luma; brightness adds; contrast scales
    /// about one half. Each on its own square; the golden shows them beside the original.
    @Test(arguments: SceneRenderer.allCases) func colorControlsSaturationBrightnessAndContrast(_ renderer: SceneRenderer) throws {
        let root = makeRoot(200, 50)
        let original = color([200, 100, 50])
        let filters: [[Filter]] = [[], [.saturation(0)], [.brightness(0.2)], [.contrast(2)]]
        for (i, list) in filters.enumerated() {
            let square = sublayer(root, frame: Rect(x: 5 + Double(i) * 50, y: 5, width: 40, height: 40), background: original)
            square.filters = list
        }
        let image = try render(root, with: renderer)
        let c = unit([200, 100, 50])
        let luma = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
        let grey = Int((luma * 255).rounded())
        #expect(isNear(pixel(image, 25, 25), [200, 100, 50, 255]))
        #expect(isNear(pixel(image, 75, 25), [grey, grey, grey, 255]))
        #expect(isNear(pixel(image, 125, 25), [251, 151, 101, 255]))
        // 2x − 0.5: 200 → 272.5 (clamped to 255), 100 → 72.5, 50 → 0 (clamped).
        #expect(isNear(pixel(image, 175, 25), [255, 73, 0, 255]))
        try renderer.check(image, named: "filter-color-controls", cpu: (2, 0.002))
    }

    /// The W3C formula of a separable blend mode for one component (cb behind, cs the layer).
    func separable(_ kind: Filter.Kind, _ cb: Double, _ cs: Double) -> Double {
        func hardLight(_ cb: Double, _ cs: Double) -> Double {
            cs <= 0.5 ? cb * 2 * cs : cb + (2 * cs - 1) - cb * (2 * cs - 1)
        }
        switch kind {
        case .multiplyBlendMode: return cb * cs
        case .screenBlendMode: return cb + cs - cb * cs
        case .overlayBlendMode: return hardLight(cs, cb)
        case .darkenBlendMode: return min(cb, cs)
        case .lightenBlendMode: return max(cb, cs)
        case .colorDodgeBlendMode: return cb == 0 ? 0 : cs >= 1 ? 1 : min(1, cb / (1 - cs))
        case .colorBurnBlendMode: return cb >= 1 ? 1 : cs <= 0 ? 0 : 1 - min(1, (1 - cb) / cs)
        case .softLightBlendMode:
            if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
            let d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : cb.squareRoot()
            return cb + (2 * cs - 1) * (d - cb)
        case .hardLightBlendMode: return hardLight(cb, cs)
        case .differenceBlendMode: return abs(cb - cs)
        case .exclusionBlendMode: return cb + cs - 2 * cb * cs
        default: fatalError("not separable")
        }
    }

    /// Each separable blend mode of an opaque colour over an opaque colour gives the formula's
    /// value within one step; the golden shows all fifteen modes over a backdrop of stripes.
    @Test(arguments: SceneRenderer.allCases) func separableBlendModesOfTwoFlatColoursGiveTheFormulasValue(_ renderer: SceneRenderer) throws {
        let backdrop = [204, 102, 51], source = [128, 64, 230]
        let modes = Filter.Kind.allCases.filter(\.isBlendMode)
        let root = makeRoot(Double(modes.count) * 20, 20)
        root.backgroundColor = color(backdrop)
        for (i, mode) in modes.enumerated() {
            let square = sublayer(root, frame: Rect(x: Double(i) * 20, y: 0, width: 20, height: 20), background: color(source))
            square.compositingFilter = .blendMode(mode)
        }
        let image = try render(root, with: renderer)
        let (cb, cs) = (unit(backdrop), unit(source))
        for (i, mode) in modes.enumerated() where mode.blendModeIndex! <= 10 {
            let expected = (0..<3).map { Int((separable(mode, cb[$0], cs[$0]) * 255).rounded()) } + [255]
            #expect(isNear(pixel(image, i * 20 + 10, 10), expected), "\(mode)")
        }
    }

    /// Luminosity keeps the backdrop's hue and saturation with the layer's luminosity: a grey
    /// layer over a colour shifts the colour by the difference of luminosities (no clipping here).
    @Test(arguments: SceneRenderer.allCases) func luminosityBlendShiftsTheBackdropToTheLayersLuminosity(_ renderer: SceneRenderer) throws {
        let root = makeRoot(20, 20)
        root.backgroundColor = color([150, 100, 80])
        let square = sublayer(root, frame: root.bounds, background: color([140, 140, 140]))
        square.compositingFilter = .blendMode(.luminosityBlendMode)
        let image = try render(root, with: renderer)
        let cb = unit([150, 100, 80])
        let d = 140.0 / 255 - (0.3 * cb[0] + 0.59 * cb[1] + 0.11 * cb[2])
        let expected = cb.map { Int((($0 + d) * 255).rounded()) } + [255]
        #expect(isNear(pixel(image, 10, 10), expected))
    }

    /// Every blend mode over a striped backdrop, each layer a gradient from opaque yellow to a
    /// half-transparent green; around the layers the stripes are unchanged.
    @Test func blendModesOverStripes() throws {
        let modes = Filter.Kind.allCases.filter(\.isBlendMode)
        let root = makeRoot(Double(modes.count) * 20, 60)
        addStripes(to: root)
        for (i, mode) in modes.enumerated() {
            let square = sublayer(root, frame: Rect(x: Double(i) * 20 + 4, y: 10, width: 12, height: 40))
            let gradient = GradientLayer()
            gradient.frame = square.bounds
            gradient.colors = [Color(red: 1, green: 0.8, blue: 0.2), Color(red: 0.1, green: 0.9, blue: 0.6, alpha: 0.5)]
            square.addSublayer(gradient)
            square.compositingFilter = .blendMode(mode)
        }
        let image = try render(root)
        #expect(pixel(image, 1, 30) == [255, 0, 0, 255])   // outside the blended layers
        // Multiply with an opaque yellowish top over red: (255 × 1, 0, 0).
        #expect(isNear(pixel(image, 10, 11), [255, 0, 0, 255], 6))
        try golden.check(image, named: "filter-blend-modes")
    }

    /// The frosted overlay: a rounded panel blurs the stripes behind it (σ 20 evens them out to
    /// purple), while the stripes outside it, and in its cut-off corners, stay sharp. The panel's
    /// own translucent white lies over the blur.
    @Test(arguments: SceneRenderer.allCases) func backgroundBlurFrostsWhatIsBehindTheLayerWithinItsShape(_ renderer: SceneRenderer) throws {
        let root = makeRoot(240, 160)
        addStripes(to: root)
        let panel = sublayer(root, frame: Rect(x: 40, y: 20, width: 160, height: 120))
        panel.cornerRadius = 24
        panel.backgroundFilters = [.gaussianBlur(radius: 20, name: "frost")]
        let plain = try render(root, with: renderer)
        #expect(isNear(pixel(plain, 120, 80), [128, 0, 128, 255], 3))
        #expect(pixel(plain, 30, 80) == [0, 0, 255, 255])       // outside: sharp blue
        #expect(pixel(plain, 41, 21) == [255, 0, 0, 255])       // in the rounded-off corner: sharp red
        panel.backgroundColor = Color(white: 1, alpha: 0.5)
        let frosted = try render(root, with: renderer)
        #expect(isNear(pixel(frosted, 120, 80), [191, 128, 191, 255], 3))
        // cairo's anti-aliased rounded corners (see SceneRenderer).
        try renderer.check(frosted, named: "filter-background-blur", cpu: (16, 0.002))
    }

    /// Behind a wide blur that does not cover all that is behind it (the panel leaves the left
    /// 60 points), the scene is redrawn at a reduced resolution: a clipped sublayer (its
    /// rounded masksToBounds parent's clip scaled with it) and a shadow's intermediate still land
    /// where they are at full resolution, so a flat clipped area blurs to itself and the hard
    /// shadow, 20 points right of its white layer, darkens the blur there.
    @Test(arguments: SceneRenderer.allCases) func aReducedRedrawBehindAWideBlurKeepsClipsAndShadowsInPlace(_ renderer: SceneRenderer) throws {
        let root = makeRoot(400, 200)
        let clipper = sublayer(root, frame: Rect(x: 20, y: 20, width: 160, height: 160))
        clipper.cornerRadius = 30
        clipper.masksToBounds = true
        _ = sublayer(clipper, frame: Rect(x: -50, y: -50, width: 300, height: 300), background: .green)
        let shadowed = sublayer(root, frame: Rect(x: 300, y: 60, width: 40, height: 80))
        _ = sublayer(shadowed, frame: shadowed.bounds, background: .white)
        shadowed.shadowOpacity = 1
        shadowed.shadowRadius = 0
        shadowed.shadowOffset = Size(width: 20, height: 0)
        let panel = sublayer(root, frame: Rect(x: 60, y: 0, width: 340, height: 200))
        panel.backgroundFilters = [.gaussianBlur(radius: 12)]
        let image = try render(root, with: renderer)
        #expect(isNear(pixel(image, 100, 100), [0, 255, 0, 255], 2))
        #expect(pixel(image, 22, 22) == [255, 255, 255, 255])   // left of the panel: a sharp rounded corner
        #expect(pixel(image, 40, 100) == [0, 255, 0, 255])
        #expect(isNear(pixel(image, 240, 100), [255, 255, 255, 255], 2))
        // The shadow alone covers x 340…360: blurred along x, 59% of the kernel is black at 352.
        let inShadow = pixel(image, 352, 100)
        #expect(inShadow[0] > 80 && inShadow[0] < 130)
        try renderer.check(image, named: "filter-background-blur-reduced", cpu: (2, 0.002))
    }

    /// Blurring a flat backdrop changes nothing, up to the panel's edges and the target's.
    @Test(arguments: SceneRenderer.allCases) func backgroundBlurOfAFlatColourIsThatColour(_ renderer: SceneRenderer) throws {
        let root = makeRoot(100, 80)
        root.backgroundColor = Color(red: 0.2, green: 0.6, blue: 0.4)
        let panel = sublayer(root, frame: Rect(x: 0, y: 10, width: 100, height: 60))
        panel.backgroundFilters = [.gaussianBlur(radius: 10)]
        let image = try render(root, with: renderer)
        for x in [0, 50, 99] {
            #expect(isNear(pixel(image, x, 10), [51, 153, 102, 255]))
            #expect(isNear(pixel(image, x, 69), [51, 153, 102, 255]))
        }
    }

    /// A colour filter in backgroundFilters: the backdrop turns grey inside the panel only.
    @Test(arguments: SceneRenderer.allCases) func backgroundSaturationGreysTheBackdropInsideTheLayer(_ renderer: SceneRenderer) throws {
        let root = makeRoot(80, 40)
        addStripes(to: root)
        let panel = sublayer(root, frame: Rect(x: 10, y: 10, width: 60, height: 20))
        panel.backgroundFilters = [.saturation(0)]
        let image = try render(root, with: renderer)
        let red = Int((0.2126 * 255).rounded()), blue = Int((0.0722 * 255).rounded())
        #expect(isNear(pixel(image, 15, 20), [red, red, red, 255]))
        #expect(isNear(pixel(image, 25, 20), [blue, blue, blue, 255]))
        #expect(pixel(image, 15, 5) == [255, 0, 0, 255])
    }

    /// Setting the radius through its key path after assignment changes what renders.
    @Test(arguments: SceneRenderer.allCases) func theBlurRadiusSetByKeyPathRenders(_ renderer: SceneRenderer) throws {
        let root = makeRoot(100, 60)
        let square = sublayer(root, frame: Rect(x: 30, y: 10, width: 40, height: 40), background: .black)
        square.filters = [.gaussianBlur(radius: 0, name: "blur")]
        #expect(pixel(try render(root, with: renderer), 28, 30) == [255, 255, 255, 255])
        square.setValue(4.0, forKeyPath: "filters.blur.inputRadius")
        #expect(pixel(try render(root, with: renderer), 28, 30)[0] < 230)
    }
}

/// Damage with filters: a blur spreads a change, and a backdrop blur redraws when what is behind
/// it changes.
@MainActor
@Suite struct RenderFilterDamageTests {
    /// The damage of a 10×10 dot at (40, 40) changing colour in a 100×100 layer at (100, 100)
    /// with `filters`, on a 400×300 output.
    func damageOfADotChanging(under filters: [Filter]) -> Damage {
        let root = makeRoot(400, 300)
        let filtered = sublayer(root, frame: Rect(x: 100, y: 100, width: 100, height: 100))
        filtered.filters = filters
        let dot = sublayer(filtered, frame: Rect(x: 40, y: 40, width: 10, height: 10), background: .red)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        var tracker = DamageTracker()
        _ = tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
        change { dot.backgroundColor = .blue }
        return tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
    }

    @Test func aChangeUnderABlurDamagesItsBoxGrownByTheBlursReach() {
        // The dot covers x, y 140…150; the blur reaches 3σ + 1 = 16 further, and a pixel to spare.
        #expect(damageOfADotChanging(under: [.gaussianBlur(radius: 5)])
            == .region(PixelRect(x: 123, y: 123, width: 44, height: 44)))
    }

    /// A distortion may show a change anywhere in its circle: a dot changing under a bump of
    /// radius 60 about (50, 50) of a layer at (100, 100) damages the circle's box, 90…210 (and a
    /// pixel to spare), though the dot covers only 140…150.
    @Test func aChangeUnderADistortionDamagesItsCircle() {
        #expect(damageOfADotChanging(under: [.bumpDistortion(center: Point(x: 50, y: 50), radius: 60, scale: 0.5)])
            == .region(PixelRect(x: 89, y: 89, width: 122, height: 122)))
    }

    @Test func aChangeBehindABackdropBlurWithinItsReachRedrawsTheWholeLayer() {
        let root = makeRoot(400, 300)
        let behind = sublayer(root, frame: Rect(x: 10, y: 10, width: 20, height: 20), background: .red)
        let far = sublayer(root, frame: Rect(x: 350, y: 250, width: 20, height: 20), background: .red)
        let panel = sublayer(root, frame: Rect(x: 50, y: 40, width: 200, height: 100))
        panel.backgroundFilters = [.gaussianBlur(radius: 10)]
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        var tracker = DamageTracker()
        _ = tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
        // x 10…30 is 20 pixels left of the panel, within its blur's 31.
        change { behind.backgroundColor = .blue }
        #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 9, y: 9, width: 242, height: 132)))
        // Far from the panel, only the layer itself.
        change { far.backgroundColor = .blue }
        #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 349, y: 249, width: 22, height: 22)))
    }

    /// A frosted panel redrawn alone (its colour changed) blurs what is behind it, not a layer
    /// above it within the blur's reach (red, left of the panel): the partial redraw equals a
    /// full render, where the blur reads nothing red.
    @Test(arguments: SceneRenderer.allCases)
    func aPartialRedrawOfAFrostedPanelBlursNothingAboveIt(_ sceneRenderer: SceneRenderer) throws {
        let root = makeRoot(200, 120)
        let panel = sublayer(root, frame: Rect(x: 60, y: 20, width: 100, height: 80), background: Color(white: 1, alpha: 0.5))
        panel.backgroundFilters = [.gaussianBlur(radius: 8)]
        _ = sublayer(root, frame: Rect(x: 40, y: 40, width: 15, height: 40), background: .red)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let renderer = try sceneRenderer.makeRenderer()
        _ = try renderer.render(context.renderTree!, width: 200, height: 120, scale: 1, clearColor: .clear)
        change { panel.backgroundColor = Color(white: 0.9, alpha: 0.5) }
        let partial = try renderer.render(context.renderTree!, width: 200, height: 120, scale: 1, clearColor: .clear)
        guard case .region = renderer.lastFrameStatistics.damage else {
            Issue.record("expected a partial redraw, got \(renderer.lastFrameStatistics.damage)")
            return
        }
        // Pure grey-white inside the panel's left edge: no red blurred in.
        let inside = pixel(partial, 62, 60)
        #expect(inside[0] == inside[1] && inside[1] == inside[2], "\(inside)")
        renderer.invalidatePreviousFrame()
        let full = try renderer.render(context.renderTree!, width: 200, height: 120, scale: 1, clearColor: .clear)
        for y in stride(from: 0, to: 120, by: 2) {
            for x in stride(from: 0, to: 200, by: 2) {
                #expect(isNear(pixel(partial, x, y), pixel(full, x, y)), "at \(x), \(y)")
            }
        }
    }

    /// The partial redraw of a change behind a frosted panel equals a full render of the scene.
    @Test(arguments: SceneRenderer.allCases) func aPartialRedrawBehindABackdropBlurMatchesAFullRender(_ sceneRenderer: SceneRenderer) throws {
        let root = makeRoot(200, 120)
        let behind = sublayer(root, frame: Rect(x: 10, y: 40, width: 20, height: 40), background: .red)
        let panel = sublayer(root, frame: Rect(x: 40, y: 20, width: 120, height: 80))
        panel.backgroundFilters = [.gaussianBlur(radius: 8)]
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
        for y in stride(from: 0, to: 120, by: 3) {
            for x in stride(from: 0, to: 200, by: 3) {
                #expect(isNear(pixel(partial, x, y), pixel(full, x, y)), "at \(x), \(y)")
            }
        }
    }
}
