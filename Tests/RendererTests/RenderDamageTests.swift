import BufferFixtures
import Buffers
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// What the damage tracker asks to redraw between frames of one target.
@MainActor
@Suite struct RenderDamageTests {
    func scene() -> (root: Layer, tile: Layer, context: RenderContext) {
        let root = makeRoot(400, 300)
        let tile = sublayer(root, frame: Rect(x: 100, y: 50, width: 40, height: 30), background: .red)
        _ = sublayer(tile, frame: Rect(x: 30, y: 20, width: 40, height: 40), background: .blue)  // overhangs the tile
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        return (root, tile, context)
    }

    @Test func theFirstFrameIsFullAndAnUnchangedFrameIsNothing() {
        let s = scene()
        var tracker = DamageTracker()
        #expect(tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300) == .full)
        #expect(tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300) == .none)
    }

    /// The renderer draws the root the tracker found rather than looking it up again.
    @Test func theTrackerKeepsTheRootOfTheTreeLastAskedAbout() {
        let s = scene()
        var tracker = DamageTracker()
        #expect(tracker.lastRoot == nil)
        _ = tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300)
        #expect(tracker.lastRoot === s.context.renderTree!.root)
        change { s.root.opacity = 0.5 }
        let before = tracker.lastRoot
        _ = tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300)
        #expect(tracker.lastRoot === s.context.renderTree!.root && tracker.lastRoot !== before)
        #expect(tracker.lastRoot?.properties.opacity == 0.5)
    }

    @Test func aChangedLayerDamagesItsSubtreeBeforeAndAfter() {
        let s = scene()
        var tracker = DamageTracker()
        _ = tracker.damage(for: s.context.renderTree!, scale: 2, width: 800, height: 600)
        change { s.tile.position.x += 10 }
        // Before: x 100…170 (the blue sublayer overhangs to 170), y 50…110; after: x 110…180.
        // At scale 2 with a pixel to spare on each side: x 199…361, y 99…221.
        #expect(tracker.damage(for: s.context.renderTree!, scale: 2, width: 800, height: 600)
            == .region(PixelRect(x: 199, y: 99, width: 162, height: 122)))
    }

    @Test func commitsSkippedBetweenFramesAddTheirChanges() {
        let s = scene()
        let other = sublayer(s.root, frame: Rect(x: 300, y: 200, width: 20, height: 10), background: .green)
        var tracker = DamageTracker()
        Transaction.flush()
        _ = tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300)
        change { s.tile.opacity = 0.5 }
        change { other.opacity = 0.5 }
        // The tile's subtree (x 100…170, y 50…110) and the other layer (x 300…320, y 200…210),
        // with a pixel to spare.
        #expect(tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 99, y: 49, width: 222, height: 162)))
    }

    /// A window closing leaves its container as it was: only the window's pixels are redrawn,
    /// and the same when it comes back.
    @Test func aRemovedOrAddedSublayerDamagesOnlyItsOwnPixels() {
        let root = makeRoot(640, 480)
        let windows = sublayer(root, frame: Rect(x: 0, y: 0, width: 640, height: 480), background: .white)
        let window = sublayer(windows, frame: Rect(x: 100, y: 80, width: 64, height: 64), background: .red)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        var tracker = DamageTracker()
        _ = tracker.damage(for: context.renderTree!, scale: 1, width: 640, height: 480)
        // x 100…164, y 80…144, with a pixel to spare.
        change { window.removeFromSuperlayer() }
        #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 640, height: 480)
            == .region(PixelRect(x: 99, y: 79, width: 66, height: 66)))
        change { windows.addSublayer(window) }
        #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 640, height: 480)
            == .region(PixelRect(x: 99, y: 79, width: 66, height: 66)))
        // A change of the container's own values still redraws all it covers.
        change { windows.opacity = 0.5 }
        #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 640, height: 480) == .full)
    }

    /// A shadow without a path is the silhouette of the layer and its sublayers: a sublayer that
    /// leaves changes it, and the layer's whole subtree is redrawn, as for a change of its own.
    @Test func aSublayerLeavingALayerWhoseShadowFollowsItsSublayersRedrawsTheShadow() {
        let root = makeRoot(400, 300)
        let card = sublayer(root, frame: Rect(x: 100, y: 50, width: 100, height: 100))
        card.shadowOpacity = 0.5
        card.shadowOffset = Size(width: 0, height: 10)
        let badge = sublayer(card, frame: Rect(x: 10, y: 10, width: 20, height: 20), background: .red)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        var tracker = DamageTracker()
        _ = tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
        change { card.backgroundColor = .blue }
        let ownChange = tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
        change { badge.removeFromSuperlayer() }
        #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300) == ownChange)
        guard case .region(let box) = ownChange else { Issue.record("\(ownChange)"); return }
        // More than the badge (x 110…130, y 60…80): the card's shadow reaches below the card.
        #expect(box.y + Int32(box.height) > 160)
    }

    /// A layer moving two levels below a card whose shadow has no path changes the card's
    /// shadow where the layer's shadow was and goes, and a sublayer added there adds its shadow:
    /// each change's box and that box moved by the shadow's offset, grown by its blur, are
    /// redrawn; not the whole card.
    @Test func aChangeBelowASublayerRedrawsTheShadowItsAncestorCastsOfIt() {
        let s = silhouetteScene()
        var tracker = DamageTracker()
        _ = tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300)
        change { s.badge.position.x += 20 }
        // The badge: x 120…160, y 70…90. Its shadow: 10 lower, grown by the blur's reach (3σ of
        // the default radius 3, and a pixel): x 110…170, y 70…110. A pixel to spare.
        #expect(tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 109, y: 69, width: 62, height: 42)))
        // A dot at x 150…160, y 100…110; its shadow x 140…170, y 100…130.
        change { _ = sublayer(s.panel, frame: Rect(x: 40, y: 40, width: 10, height: 10), background: .blue) }
        #expect(tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 139, y: 99, width: 32, height: 32)))
    }

    @Test func aGapLongerThanTheChangeHistoryOrANewSizeRedrawsEverything() {
        let s = scene()
        var tracker = DamageTracker()
        _ = tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300)
        for step in 0...RenderContext.changeHistoryLength { change { s.tile.opacity = 0.5 + 0.01 * Double(step) } }
        #expect(tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300) == .full)
        change { s.tile.opacity = 1 }
        #expect(tracker.damage(for: s.context.renderTree!, scale: 1, width: 200, height: 300) == .full)
    }

    @Test func contentsUpdatedInARectangleDamageOnlyThatRectangle() throws {
        let root = makeRoot(400, 300)
        let surface = sublayer(root, frame: Rect(x: 100, y: 50, width: 200, height: 100))
        let shown = showRedImage(in: surface, root: root)
        let first = shown.image, context = shown.context
        var tracker = shown.tracker
        // Pixels 10…19 × 20…24 of the 100×50 image, shown at twice their size from (100, 50): with
        // a texel to spare, x 118…142, y 88…102; with a pixel to spare, x 117…143, y 87…103.
        let second = try Image(updating: first, in: ImageRect(x: 10, y: 20, width: 10, height: 5)) { _, _ in }
        change { surface.contents = second }
        #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 117, y: 87, width: 26, height: 16)))
        // Anything else changed with the contents: the whole layer.
        let third = try Image(updating: second, in: ImageRect(x: 0, y: 0, width: 1, height: 1)) { _, _ in }
        change {
            surface.contents = third
            surface.opacity = 0.9
        }
        #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 99, y: 49, width: 202, height: 102)))
        // Unrelated new contents: the whole layer too.
        let fourth = Image(width: 100, height: 50, fill: .clear)
        change { surface.contents = fourth }
        #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 99, y: 49, width: 202, height: 102)))
        // A shadow without a path is the contents' silhouette: it changes with them. The same
        // pixels as first and their shadow, 10 lower and grown by the blur's reach (3σ of the
        // default radius 3, and a pixel): x 108…152, y 88…122; a pixel to spare.
        change {
            surface.shadowOpacity = 0.5
            surface.shadowOffset = Size(width: 0, height: 10)
        }
        _ = tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
        let fifth = try Image(updating: fourth, in: ImageRect(x: 10, y: 20, width: 10, height: 5)) { _, _ in }
        change { surface.contents = fifth }
        #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 107, y: 87, width: 46, height: 36)))
    }

    /// What lies above a layer whose contents alone change is kept from frame to frame: a move
    /// of the layers above it is seen, and its next contents are damaged where they are now.
    @Test func contentsUpdatedAfterTheirContainerMovedDamageWhereTheyAreNow() throws {
        let root = makeRoot(400, 300)
        let container = sublayer(root, frame: Rect(x: 50, y: 40, width: 300, height: 200))
        let surface = sublayer(container, frame: Rect(x: 50, y: 10, width: 200, height: 100))
        let shown = showRedImage(in: surface, root: root)
        var image = shown.image
        let context = shown.context
        var tracker = shown.tracker
        func update() throws -> Damage {
            image = try Image(updating: image, in: ImageRect(x: 10, y: 20, width: 10, height: 5)) { _, _ in }
            change { surface.contents = image }
            return tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
        }
        // The surface lies at (100, 50), its pixels twice their size: as in
        // contentsUpdatedInARectangleDamageOnlyThatRectangle, x 117…143, y 87…103, frame after frame.
        #expect(try update() == .region(PixelRect(x: 117, y: 87, width: 26, height: 16)))
        #expect(try update() == .region(PixelRect(x: 117, y: 87, width: 26, height: 16)))
        // The container moves 20 right: its subtree before and after, x 50…370, y 40…240.
        change { container.position.x += 20 }
        #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 49, y: 39, width: 322, height: 202)))
        #expect(try update() == .region(PixelRect(x: 137, y: 87, width: 26, height: 16)))
        // Moved and updated in one commit: both, x 70…370 (the container's move) and the change.
        image = try Image(updating: image, in: ImageRect(x: 10, y: 20, width: 10, height: 5)) { _, _ in }
        change {
            container.position.y += 10
            surface.contents = image
        }
        #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 69, y: 39, width: 302, height: 212)))
        #expect(try update() == .region(PixelRect(x: 137, y: 97, width: 26, height: 16)))
    }

    /// The tracker keeps what lies above a few layers at most: with more whose contents change
    /// each frame, every one is still damaged where it is now.
    @Test func contentsOfMoreLayersThanTheTrackerKeepsDamageWhereTheyAreNow() throws {
        let root = makeRoot(400, 300)
        let container = sublayer(root, frame: Rect(x: 0, y: 0, width: 300, height: 100))
        // 20 layers of 10×10 pixels shown at their size, in a row from (10, 10).
        let surfaces = (0..<20).map { i in sublayer(container, frame: Rect(x: 10 + 10 * Double(i), y: 10, width: 10, height: 10)) }
        var images = surfaces.map { surface in
            let image = Image(width: 10, height: 10, pixelFormat: .xrgb8888, fill: PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
            surface.contents = image
            return image
        }
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        var tracker = DamageTracker()
        _ = tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
        // Each layer's first texel with a texel to spare: x 10i+10…10i+12, y 10…12; together
        // x 10…202, and a pixel to spare: x 9…203, y 9…13. Two frames, then the container moves
        // 5 down (x 0…300, y 0…105, with a pixel to spare, clipped at 0) and two frames 5 lower.
        for (frame, lower) in [0, 0, 5, 5 as Int32].enumerated() {
            if frame == 2 {
                change { container.position.y += 5 }
                #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
                    == .region(PixelRect(x: 0, y: 0, width: 301, height: 106)))
            }
            images = try images.map { try Image(updating: $0, in: ImageRect(x: 0, y: 0, width: 1, height: 1)) { _, _ in } }
            change { for (surface, image) in zip(surfaces, images) { surface.contents = image } }
            #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
                == .region(PixelRect(x: 9, y: 9 + lower, width: 194, height: 4)))
        }
        // Then each alone, whether the tracker still keeps what lies above it or not: its own
        // texel, x 10i+9…10i+13, y 14…18.
        for (i, surface) in surfaces.enumerated() {
            images[i] = try Image(updating: images[i], in: ImageRect(x: 0, y: 0, width: 1, height: 1)) { _, _ in }
            change { surface.contents = images[i] }
            #expect(tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
                == .region(PixelRect(x: 9 + 10 * Int32(i), y: 14, width: 4, height: 4)))
        }
    }

    /// A client's next buffer of the same size lands where the last did, one of another size
    /// where the gravity puts it: each is damaged in its changed texels, mirrored by the layer's
    /// transform and at the output's scale, whichever size came before.
    @Test func aClientsNextBuffersAreDamagedWhereTheirSizeLandsThem() throws {
        let root = makeRoot(400, 300)
        let surface = ExternalContentsLayer()
        surface.frame = Rect(x: 100, y: 50, width: 200, height: 100)
        surface.contentsGravity = .center
        surface.transform = Transform3D(scaleX: -1, y: 1)
        root.addSublayer(surface)
        let texture = ClientSurfaceTexture(owner: nil)
        var shown: ClientBufferContents?
        // Each buffer changed in texels 7…14 × 3…6.
        func commit(_ width: Int, _ height: Int) throws {
            let buffer = try #require(LentMemory(width: width, height: height, format: .xrgb8888))
            let next = ClientBufferContents(
                buffer: buffer, dmabuf: nil, damage: ImageRect(x: 7, y: 3, width: 8, height: 4), surface: texture, replacing: shown)
            shown = next
            change { surface.externalContents = next }
        }
        try commit(64, 32)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        var tracker = DamageTracker()
        #expect(tracker.damage(for: context.renderTree!, scale: 2, width: 800, height: 600) == .full)
        // 64×32 centred in the 200×100 bounds lie at x 68…132, y 34…66; with a texel to spare the
        // change is x 74…84, y 36…42 there, mirrored about x 100 and placed at (100, 50): x 216…226,
        // y 86…92; twice that, and a pixel to spare: x 431…453, y 171…185.
        let large = Damage.region(PixelRect(x: 431, y: 171, width: 22, height: 14))
        // 32×16 lie at x 84…116, y 42…58: the change x 90…100, y 44…50, at x 200…210, y 94…100;
        // x 399…421, y 187…201.
        let small = Damage.region(PixelRect(x: 399, y: 187, width: 22, height: 14))
        for (width, height, expected) in [(64, 32, large), (64, 32, large), (32, 16, small), (32, 16, small), (64, 32, large)] {
            try commit(width, height)
            #expect(tracker.damage(for: context.renderTree!, scale: 2, width: 800, height: 600) == expected)
            #expect(tracker.changedContentsAlone)
        }
    }

    /// The tracker says whether a tree changed nothing but layers' contents since the one before
    /// (new contents, or contents gone), and whether it may show backdrops.
    @Test func theTrackerSaysWhetherOnlyContentsChangedAndWhetherBackdropsMayShow() {
        let s = scene()
        var tracker = DamageTracker()
        func track() -> (contentsAlone: Bool, backdrops: Bool) {
            _ = tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300)
            return (tracker.changedContentsAlone, tracker.mayShowBackdrops)
        }
        #expect(track() == (false, false))
        #expect(track() == (true, false))
        change { s.tile.contents = Image(width: 4, height: 4, fill: .clear) }
        #expect(track() == (true, false))
        change { s.tile.contents = nil }
        #expect(track() == (true, false))
        change { s.tile.position.x += 10 }
        #expect(track() == (false, false))
        change { s.tile.backgroundFilters = [.gaussianBlur(radius: 2)] }
        #expect(track() == (false, true))
        change { s.tile.backgroundFilters = [] }
        #expect(track() == (false, false))
        // An animation may give a layer filters; a tree that animates is never changed in contents alone.
        let fade = BasicAnimation(keyPath: "opacity")
        (fade.fromValue, fade.toValue, fade.duration) = (0.0, 1.0, 10)
        s.tile.add(fade, forKey: "fade")
        Transaction.flush()
        #expect(track() == (false, true))
        #expect(track() == (false, true))
    }

    @Test func animatedLayersAreDamagedWhenTheSampleTimeMoves() {
        let s = scene()
        let fade = BasicAnimation(keyPath: "opacity")
        (fade.fromValue, fade.toValue, fade.duration) = (0.0, 1.0, 10)
        s.tile.add(fade, forKey: "fade")
        Transaction.flush()
        var tracker = DamageTracker()
        _ = tracker.damage(for: s.context.renderTree!.sampled(atMediaTime: 1), scale: 1, width: 400, height: 300)
        #expect(tracker.damage(for: s.context.renderTree!.sampled(atMediaTime: 1), scale: 1, width: 400, height: 300) == .none)
        #expect(tracker.damage(for: s.context.renderTree!.sampled(atMediaTime: 2), scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 99, y: 49, width: 72, height: 62)))
    }

    @Test func anEmittersParticlesAreDamagedWhereverTheyFly() throws {
        let s = scene()
        let emitter = EmitterLayer()
        emitter.frame = Rect(x: 100, y: 100, width: 20, height: 20)
        emitter.emitterPosition = Point(x: 10, y: 10)
        var cell = EmitterCell()
        (cell.contents, cell.birthRate, cell.lifetime, cell.velocity) = (try GraphicsContext(width: 4, height: 4).makeImage(), 1, 10, 100)
        emitter.emitterCells = [cell]
        s.root.addSublayer(emitter)
        Transaction.flush()
        var tracker = DamageTracker()
        _ = tracker.damage(for: s.context.renderTree!.sampled(atMediaTime: 1), scale: 1, width: 400, height: 300)
        // Particles at x 210 and 110 of the root, then at 310, 210 and 110, each within 2.83 points
        // of its centre (half the image's diagonal) and a point more: x from the emitter's 100 to
        // 313.83, y over its 100…120.
        #expect(tracker.damage(for: s.context.renderTree!.sampled(atMediaTime: 2), scale: 1, width: 400, height: 300)
            == .region(PixelRect(x: 99, y: 99, width: 216, height: 22)))
    }
}

/// Partial redraws on the GPU give the same pixels as full ones, and idle frames do no work.
@MainActor
@Suite(.serialized) struct RenderPartialRedrawTests {
    @Test func aDamagedRegionRedrawMatchesAFullRedraw() throws {
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        let root = makeRoot(200, 150)
        let tile = sublayer(root, frame: Rect(x: 20, y: 20, width: 50, height: 40), background: .red)
        tile.cornerRadius = 8
        let other = sublayer(root, frame: Rect(x: 110, y: 60, width: 60, height: 60), background: .blue)
        other.borderWidth = 3
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        _ = try renderer.render(context.renderTree!, width: 200, height: 150)
        #expect(renderer.lastFrameStatistics.damage == .full)

        Transaction.begin()
        Transaction.disableActions = true
        tile.position.x += 15
        tile.backgroundColor = .green
        Transaction.commit()
        let partial = try renderer.render(context.renderTree!, width: 200, height: 150)
        #expect(renderer.lastFrameStatistics.damage == .region(x: 19, y: 19, width: 67, height: 42))

        let idle = try renderer.render(context.renderTree!, width: 200, height: 150)
        #expect(renderer.lastFrameStatistics == FrameStatistics(damage: .none) && idle === partial)

        renderer.invalidatePreviousFrame()
        let full = try renderer.render(context.renderTree!, width: 200, height: 150)
        #expect(partial.maximumChannelDifference(from: full) == 0)
        #expect(renderer.takeValidationMessages() == [])
    }

    @Test func updatedContentsUploadAndRedrawOnlyTheirChangeAndMatchAFullRedraw() throws {
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        let root = makeRoot(160, 120)
        let surface = sublayer(root, frame: Rect(x: 20, y: 10, width: 128, height: 96))
        let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
        var image = Image(width: 64, height: 48, pixelFormat: .xrgb8888, fill: red)
        surface.contents = image
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        _ = try renderer.render(context.renderTree!, width: 160, height: 120)
        // Two updates in a row, each of a small block, as a client redrawing a cursor would.
        for (step, rect) in [ImageRect(x: 4, y: 4, width: 8, height: 6), ImageRect(x: 40, y: 30, width: 3, height: 3)].enumerated() {
            image = try Image(updating: image, in: rect) { origin, stride in
                for row in 0..<rect.height {
                    (origin + row * stride).initializeMemory(as: UInt32.self, repeating: step == 0 ? 0xFF00_FF00 : 0xFF00_00FF, count: rect.width)
                }
            }
            Transaction.begin()
            Transaction.disableActions = true
            surface.contents = image
            Transaction.commit()
            _ = try renderer.render(context.renderTree!, width: 160, height: 120)
        }
        // The last update: image pixels 39…43 × 29…33 (a texel to spare) at twice their size from
        // (20, 10) is x 98…108, y 68…78; a pixel to spare on each side.
        #expect(renderer.lastFrameStatistics.damage == .region(x: 97, y: 67, width: 12, height: 12))
        let partial = try renderer.render(context.renderTree!, width: 160, height: 120)
        #expect(partial.pixel(x: 20 + 9, y: 10 + 9) == PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255))
        #expect(partial.pixel(x: 20 + 83, y: 10 + 63) == PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255))
        #expect(partial.pixel(x: 20 + 60, y: 10 + 60) == red)
        renderer.invalidatePreviousFrame()
        let full = try renderer.render(context.renderTree!, width: 160, height: 120)
        #expect(partial.maximumChannelDifference(from: full) == 0)
        #expect(renderer.takeValidationMessages() == [])
    }
}

/// A change deep inside a layer whose shadow is its sublayers' silhouette, drawn by each renderer.
@MainActor
@Suite(.serialized) struct RenderSilhouetteShadowDamageTests {
    /// A red badge two levels below a card whose shadow has no path moves 20 points right: the
    /// frame redraws the badge and the card's shadow of it where it was and goes (x 109…171,
    /// y 69…111 as `DamageTracker` works it out), and shows what a full redraw shows: no shadow
    /// left under the badge's old place, one under its new place.
    @Test(.enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment), arguments: SceneRenderer.allCases)
    func aChangeBelowASublayerRedrawsItsAncestorsShadow(_ sceneRenderer: SceneRenderer) throws {
        let renderer = try sceneRenderer.makeRenderer()
        let (_, _, badge, context) = silhouetteScene()
        let before = try renderer.render(context.renderTree!, width: 400, height: 300, scale: 1, clearColor: .clear)
        // Below the badge (x 120…140, y 70…90) its shadow shows, 10 lower: at pixel centre y 95.5,
        // 4.5 above the shadow's lower edge, a Gaussian of σ 3 covers Φ(1.5) = 0.933 of it, so
        // black at 0.5 × 0.933 over white leaves 255 × 0.533 = 136.
        let shadow = [136, 136, 136, 255]
        #expect(pixel(before, 130, 95) == shadow)

        change { badge.position.x += 20 }
        let partial = try renderer.render(context.renderTree!, width: 400, height: 300, scale: 1, clearColor: .clear)
        #expect(renderer.lastFrameStatistics.damage == .region(x: 109, y: 69, width: 62, height: 42))
        // The shadow's blur reaches 9 pixels: none at x 130, 10 left of the badge now.
        #expect(pixel(partial, 130, 95) == [255, 255, 255, 255])
        #expect(pixel(partial, 150, 95) == shadow)
        renderer.invalidatePreviousFrame()
        let full = try renderer.render(context.renderTree!, width: 400, height: 300, scale: 1, clearColor: .clear)
        #expect(partial.maximumChannelDifference(from: full) == 0)
    }
}

/// A card whose shadow has no path (the silhouette of what it draws), holding a panel that holds a
/// red badge: at x 120…140, y 70…90 of a white 400×300 root.
@MainActor
func silhouetteScene() -> (root: Layer, panel: Layer, badge: Layer, context: RenderContext) {
    let root = makeRoot(400, 300)
    let card = sublayer(root, frame: Rect(x: 100, y: 50, width: 100, height: 100))
    card.shadowOpacity = 0.5
    card.shadowOffset = Size(width: 0, height: 10)
    let panel = sublayer(card, frame: Rect(x: 10, y: 10, width: 60, height: 60))
    let badge = sublayer(panel, frame: Rect(x: 10, y: 10, width: 20, height: 20), background: .red)
    let context = RenderContext(rootLayer: root)
    Transaction.flush()
    return (root, panel, badge, context)
}

/// Shows a 100×50 opaque red image in `surface` and commits `root`: the image, the context, and
/// a tracker that has seen the first 400×300 frame.
private func showRedImage(in surface: Layer, root: Layer) -> (image: Image, context: RenderContext, tracker: DamageTracker) {
    let image = Image(width: 100, height: 50, pixelFormat: .xrgb8888, fill: PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
    surface.contents = image
    let context = RenderContext(rootLayer: root)
    Transaction.flush()
    var tracker = DamageTracker()
    _ = tracker.damage(for: context.renderTree!, scale: 1, width: 400, height: 300)
    return (image, context, tracker)
}
