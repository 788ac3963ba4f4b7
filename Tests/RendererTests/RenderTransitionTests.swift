import Graphics
import LayerKit
import Testing
@testable import Renderer

/// Transitions drawn (CATransition's types and subtypes, and the fade of `isHidden`), at fixed
/// times of the deterministic clock. The cells are 40×30 layers whose previous state is blue
/// with a white 8×8 marker at (4, 11) and whose current state is orange with a black marker at
/// (28, 11), so that which state shows, and where it has moved, reads off single pixels.
@MainActor
@Suite(.serialized) struct RenderTransitionTests {
    static let white = [255, 255, 255, 255], blue = [0, 0, 255, 255], orange = [255, 128, 0, 255]
    static let black = [0, 0, 0, 255]

    /// A scene of one cell per subtype (rows at y = 10, 60, 110, 160), committed in its previous
    /// state, then changed to its current state with `configure`'s transition on every cell.
    @MainActor
    struct Scene {
        let clock = ManualMediaClock(startingAt: 100)
        let root: Layer
        let context: RenderContext
        let renderer: SceneRenderer

        init(
            subtypes: [TransitionSubtype], masksToBounds: Bool = true, width: Double = 60, renderer: SceneRenderer = .vulkan,
            configure: (Transition) -> Void
        ) {
            self.renderer = renderer
            MediaTime.clock = clock
            root = makeRoot(width, 10 + Double(subtypes.count) * 50)
            var cells: [(Layer, Layer)] = []
            for row in subtypes.indices {
                let cell = sublayer(root, frame: Rect(x: 10, y: 10 + Double(row) * 50, width: 40, height: 30), background: .blue)
                cell.masksToBounds = masksToBounds
                cells.append((cell, sublayer(cell, frame: Rect(x: 4, y: 11, width: 8, height: 8), background: .white)))
            }
            context = RenderContext(rootLayer: root)
            Transaction.flush()
            Transaction.begin()
            Transaction.disableActions = true
            for ((cell, marker), subtype) in zip(cells, subtypes) {
                cell.backgroundColor = Color(red: 1, green: 0.5, blue: 0)
                marker.frame = Rect(x: 28, y: 11, width: 8, height: 8)
                marker.backgroundColor = .black
                let transition = Transition()
                transition.subtype = subtype
                transition.duration = 1
                configure(transition)
                cell.add(transition, forKey: "transition")
            }
            Transaction.commit()
            Transaction.flush()
        }

        /// The frame at media time `t`.
        func frame(at t: Double, sourceLocation: SourceLocation = #_sourceLocation) throws -> Image {
            try render(
                try #require(context.renderTree).sampled(atMediaTime: t), width: Int(root.bounds.width), height: Int(root.bounds.height),
                with: renderer, sourceLocation: sourceLocation)
        }

        /// The frames at a quarter, half and three quarters of the transition, side by side.
        func sequence() throws -> Image {
            let frames = try [100.25, 100.5, 100.75].map { try frame(at: $0) }
            let strip = try GraphicsContext(width: frames[0].width * frames.count, height: frames[0].height)
            for (i, frame) in frames.enumerated() {
                strip.draw(frame, in: Rect(x: Double(i * frame.width), y: 0, width: Double(frame.width), height: Double(frame.height)))
            }
            return strip.makeImage()
        }
    }

    static let allSubtypes: [TransitionSubtype] = [.fromLeft, .fromRight, .fromTop, .fromBottom]

    /// Checks probes of the half-way frame: (row, x, y in the cell, colour).
    func expect(_ scene: Scene, at t: Double = 100.5, _ probes: [(Int, Int, Int, [Int])], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let image = try scene.frame(at: t)
        for (row, x, y, color) in probes {
            let found = pixel(image, 10 + x, 10 + row * 50 + y)
            #expect(isNear(found, color, 2), "row \(row) at (\(x), \(y)): \(found)", sourceLocation: sourceLocation)
        }
    }

    /// fade: every pixel is previous × 0.5 + current × 0.5 half-way: blue and orange give
    /// (127.5, 64, 127.5); the white marker over orange (255, 191.5, 127.5); the black one over
    /// blue (0, 0, 127.5).
    @Test(arguments: SceneRenderer.allCases) func fadeDissolvesThePreviousStateIntoTheCurrentOne(_ renderer: SceneRenderer) throws {
        let scene = Scene(subtypes: [.fromLeft], renderer: renderer) { $0.type = .fade }
        try expect(scene, [(0, 20, 5, [128, 64, 128, 255]), (0, 8, 15, [255, 191, 128, 255]), (0, 32, 15, [0, 0, 128, 255])])
        try expect(scene, at: 100.25, [(0, 20, 5, [64, 32, 191, 255])])
        try renderer.check(try scene.sequence(), named: "transition-fade", cpu: (2, 0.002))
    }

    /// moveIn half-way: the current state, moved half its size back towards the side it comes
    /// from, covers that half; the previous state stays where it was. From the left the black
    /// marker is at 8…16 and the blue shows from x = 20 on; from the top the marker shows at
    /// y 0…4 (11 − 15).
    @Test(arguments: SceneRenderer.allCases) func moveInSlidesTheCurrentStateOverThePreviousOne(_ renderer: SceneRenderer) throws {
        let scene = Scene(subtypes: Self.allSubtypes, renderer: renderer) { $0.type = .moveIn }
        try expect(scene, [
            (0, 10, 15, Self.black), (0, 6, 15, Self.orange), (0, 30, 15, Self.blue), (0, 22, 5, Self.blue),
            (1, 30, 15, Self.orange), (1, 10, 15, Self.white), (1, 18, 5, Self.blue),
            (2, 30, 2, Self.black), (2, 20, 10, Self.orange), (2, 8, 17, Self.white), (2, 8, 20, Self.blue),
            (3, 30, 27, Self.black), (3, 20, 27, Self.orange), (3, 8, 14, Self.white), (3, 20, 12, Self.blue),
        ])
        try renderer.check(try scene.sequence(), named: "transition-move-in", cpu: (2, 0.002))
    }

    /// push half-way: the previous state moves on by half its size as the current one enters: from
    /// the left the white marker is at 24…32 and the black one at 8…16.
    @Test(arguments: SceneRenderer.allCases) func pushMovesBothStates(_ renderer: SceneRenderer) throws {
        let scene = Scene(subtypes: Self.allSubtypes, renderer: renderer) { $0.type = .push }
        try expect(scene, [
            (0, 10, 15, Self.black), (0, 26, 15, Self.white), (0, 35, 15, Self.blue), (0, 18, 5, Self.orange),
            (1, 10, 15, Self.blue), (1, 30, 15, Self.orange), (1, 22, 15, Self.orange),
            (2, 30, 2, Self.black), (2, 8, 28, Self.white), (2, 20, 20, Self.blue),
            (3, 8, 1, Self.white), (3, 30, 28, Self.black), (3, 20, 10, Self.blue), (3, 20, 20, Self.orange),
        ])
        try renderer.check(try scene.sequence(), named: "transition-push", cpu: (2, 0.002))
    }

    /// reveal half-way: the previous state slides away on top, the current one stays: from the
    /// left the white marker is at 24…32 over orange, and the black marker (28…36) is still
    /// covered.
    @Test(arguments: SceneRenderer.allCases) func revealSlidesThePreviousStateAwayOverTheCurrentOne(_ renderer: SceneRenderer) throws {
        let scene = Scene(subtypes: Self.allSubtypes, renderer: renderer) { $0.type = .reveal }
        try expect(scene, [
            (0, 30, 15, Self.white), (0, 10, 15, Self.orange), (0, 34, 15, Self.blue),
            (1, 30, 15, Self.black), (1, 10, 15, Self.blue), (1, 25, 5, Self.orange),
            (2, 8, 28, Self.white), (2, 30, 10, Self.orange), (2, 20, 20, Self.blue),
            (3, 30, 10, Self.blue), (3, 20, 20, Self.orange),
        ])
        try renderer.check(try scene.sequence(), named: "transition-reveal", cpu: (2, 0.002))
    }

    /// startProgress 0.5 and endProgress 1 over one second: the push is half-way at once, and at
    /// three quarters (the current state over 0…30) half a second later.
    @Test(arguments: SceneRenderer.allCases) func startAndEndProgressShowOnlyThatPartOfTheTransition(_ renderer: SceneRenderer) throws {
        let scene = Scene(subtypes: [.fromLeft], renderer: renderer) { t in
            (t.type, t.startProgress, t.endProgress) = (.push, 0.5, 1)
        }
        try expect(scene, at: 100, [(0, 18, 5, Self.orange), (0, 22, 5, Self.blue)])
        try expect(scene, at: 100.5, [(0, 28, 5, Self.orange), (0, 32, 5, Self.blue), (0, 20, 15, Self.black)])
    }

    /// Without masksToBounds the moving states show beyond the layer's bounds (nothing clips
    /// them): half-way through a push from the left, the previous state reaches x = 60 and the
    /// current one starts at −20.
    @Test(arguments: SceneRenderer.allCases) func withoutMasksToBoundsTheStatesMovePastTheBounds(_ renderer: SceneRenderer) throws {
        let scene = Scene(subtypes: [.fromLeft], masksToBounds: false, width: 80, renderer: renderer) { $0.type = .push }
        try expect(scene, [(0, 45, 5, Self.blue), (0, 55, 5, Self.blue), (0, -5, 5, Self.orange), (0, 65, 5, Self.white)])
    }

    /// Damage between two frames of a transition covers every part where it was and is drawn:
    /// a push from the left on a 40-point-wide cell at x = 10, without masksToBounds, has its
    /// current state at −20…20 and its previous one at 20…60 (cell space) half-way, and −10…30
    /// and 30…70 at three quarters: x 10 − 20 … 10 + 70, clamped to the output, rows 10…40, a
    /// pixel to spare.
    @Test func damageCoversEachPartWhereItIsDrawn() throws {
        let scene = Scene(subtypes: [.fromLeft], masksToBounds: false, width: 100) { $0.type = .push }
        let tree = try #require(scene.context.renderTree)
        var tracker = DamageTracker()
        _ = tracker.damage(for: tree.sampled(atMediaTime: 100.5), scale: 1, width: 100, height: 60)
        #expect(tracker.damage(for: tree.sampled(atMediaTime: 100.75), scale: 1, width: 100, height: 60)
            == .region(PixelRect(x: 0, y: 9, width: 81, height: 32)))
    }

    /// The built-in action of `isHidden` is a fade (ca-semantics T2), drawn: a red layer hidden
    /// over a one-second linear transaction shows red × (1 − t) over white, then nothing; shown
    /// again, it fades back in.
    @Test(arguments: SceneRenderer.allCases) func hidingALayerFadesItOut(_ renderer: SceneRenderer) throws {
        let clock = ManualMediaClock(startingAt: 100)
        MediaTime.clock = clock
        let root = makeRoot(60, 40)
        let layer = sublayer(root, frame: Rect(x: 10, y: 10, width: 40, height: 20), background: .red)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        func hide(_ hidden: Bool) {
            Transaction.begin()
            Transaction.animationDuration = 1
            Transaction.animationTimingFunction = .linear
            layer.isHidden = hidden
            Transaction.commit()
            Transaction.flush()
        }
        func shown(at t: Double) throws -> [Int] {
            pixel(try render(try #require(context.renderTree).sampled(atMediaTime: t), width: 60, height: 40, with: renderer), 30, 20)
        }
        hide(true)
        #expect(try #require(context.renderTree).hasVisibleAnimations)
        #expect(isNear(try shown(at: 100.25), [255, 64, 64, 255], 2))
        #expect(isNear(try shown(at: 100.5), [255, 128, 128, 255], 2))
        #expect(isNear(try shown(at: 100.75), [255, 191, 191, 255], 2))
        #expect(isNear(try shown(at: 101.5), [255, 255, 255, 255], 1))
        clock.set(to: 102)
        Transaction.flush()
        hide(false)
        #expect(isNear(try shown(at: 102.25), [255, 191, 191, 255], 2))
        #expect(isNear(try shown(at: 103.5), [255, 0, 0, 255], 1))
    }
}
