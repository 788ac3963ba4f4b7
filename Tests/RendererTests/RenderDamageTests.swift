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

    func change(_ body: () -> Void) {
        Transaction.begin()
        Transaction.disableActions = true
        body()
        Transaction.commit()
    }

    @Test func theFirstFrameIsFullAndAnUnchangedFrameIsNothing() {
        let s = scene()
        var tracker = DamageTracker()
        #expect(tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300) == .full)
        #expect(tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300) == .none)
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

    @Test func skippedCommitsAndNewSizesRedrawEverything() {
        let s = scene()
        var tracker = DamageTracker()
        _ = tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300)
        change { s.tile.opacity = 0.5 }
        change { s.tile.opacity = 0.6 }
        #expect(tracker.damage(for: s.context.renderTree!, scale: 1, width: 400, height: 300) == .full)
        #expect(tracker.damage(for: s.context.renderTree!, scale: 1, width: 200, height: 300) == .full)
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
}
