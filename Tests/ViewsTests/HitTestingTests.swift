import Foundation
import Testing
import LayerKit
@testable import Views

@MainActor
@Suite struct HitTestingTests {
    @Test func aViewRotated90DegreesAndScaledByHalfIsHitWithExactLocalCoordinates() throws {
        let (root, dispatcher) = makeRoot()
        let log = EventLog()
        // Bounds 200 × 100 about the centre (200, 200): on screen 50 wide and 100 tall, x 175…225, y 150…250.
        let turned = RecordingView("turned", frame: Rect(x: 100, y: 150, width: 200, height: 100), log: log)
        turned.transform = AffineTransform2D(rotationAngle: .pi / 2).scaledBy(x: 0.5, y: 0.5)
        let corner = RecordingView("corner", frame: Rect(x: 0, y: 0, width: 50, height: 50), log: log)
        root.addSubview(turned)
        turned.addSubview(corner)

        // Screen = centre + R90(0.5 · (local − (100, 50))), so (220, 160) is local (20, 10).
        #expect(root.hitTest(Point(x: 220, y: 160)) === corner)
        #expect(root.hitTest(Point(x: 180, y: 240)) === turned)  // local (180, 90)
        #expect(root.hitTest(Point(x: 230, y: 160)) === root)  // right of the turned view
        dispatcher.movePointer(to: Point(x: 220, y: 160), at: 0)
        dispatcher.pressButton(PointerEvent.leftButton, at: 0)
        #expect(log.entries == ["corner entered", "corner moved", "corner down"])
        #expect(isClose(corner.locations[0], Point(x: 20, y: 10)))
        #expect(isClose(corner.locations[1], Point(x: 20, y: 10)))
        dispatcher.movePointer(to: Point(x: 180, y: 240), at: 0.1)
        #expect(isClose(corner.locations[2], Point(x: 180, y: 90)))  // captured: still reported in corner's space
    }

    @Test func aViewTurned60DegreesAboutTheYAxisIsHitThroughTheFlattenedTransform() {
        let (root, dispatcher) = makeRoot()
        let log = EventLog()
        let card = RecordingView("card", frame: Rect(x: 150, y: 150, width: 100, height: 100), log: log)
        // Without perspective the flattened turn scales x by cos 60° = 0.5: on screen x 175…225.
        card.layer.transform = Transform3D(rotationAngle: .pi / 3, x: 0, y: 1, z: 0)
        root.addSubview(card)
        #expect(root.hitTest(Point(x: 226, y: 200)) === root)
        dispatcher.touchDown(id: 0, at: Point(x: 210, y: 180), time: 0)
        #expect(log.entries == ["card touch 0 began"])
        #expect(isClose(card.locations[0], Point(x: 70, y: 30)))
    }

    @Test func masksToBoundsWithACornerRadiusCutsTheCornersOutOfTheHitArea() {
        let (root, _) = makeRoot()
        let card = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        card.layer.cornerRadius = 20
        card.layer.masksToBounds = true
        let content = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        root.addSubview(card)
        card.addSubview(content)

        // The corner's circle is centred at (20, 20) with radius 20: (6, 6) is 19.8 away, (5, 5) is 21.2.
        #expect(root.hitTest(Point(x: 6, y: 6)) === content)
        #expect(root.hitTest(Point(x: 5, y: 5)) === root)
        #expect(root.hitTest(Point(x: 95, y: 95)) === root)
        #expect(root.hitTest(Point(x: 50, y: 1)) === content)
        card.layer.masksToBounds = false
        #expect(root.hitTest(Point(x: 5, y: 5)) === content)  // cornerRadius alone clips nothing
    }

    @Test func hiddenAndNonInteractiveViewsAreSkippedWithTheirSubviews() {
        let (root, _) = makeRoot()
        let below = View(frame: Rect(x: 0, y: 0, width: 200, height: 200))
        let above = View(frame: Rect(x: 0, y: 0, width: 200, height: 200))
        let inner = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        root.addSubview(below)
        root.addSubview(above)
        above.addSubview(inner)

        #expect(root.hitTest(Point(x: 50, y: 50)) === inner)
        above.isUserInteractionEnabled = false
        #expect(root.hitTest(Point(x: 50, y: 50)) === below)
        above.isUserInteractionEnabled = true
        above.isHidden = true
        #expect(root.hitTest(Point(x: 50, y: 50)) === below)
        above.isHidden = false
        above.layer.opacity = 0.005
        #expect(root.hitTest(Point(x: 50, y: 50)) === below)
    }

    @Test func subviewsAreSearchedFrontToBackByZPositionThenOrder() {
        let (root, _) = makeRoot()
        let first = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let second = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        root.addSubview(first)
        root.addSubview(second)
        #expect(root.hitTest(Point(x: 10, y: 10)) === second)
        first.layer.zPosition = 1
        #expect(root.hitTest(Point(x: 10, y: 10)) === first)
        root.insertSubview(second, at: 0)
        #expect(root.subviews.map { ObjectIdentifier($0) } == [ObjectIdentifier(second), ObjectIdentifier(first)])
        #expect(root.layer.sublayers.map(\.id) == [second.layer.id, first.layer.id])
    }

    @Test func anOverriddenPointInsideShapesTheHitArea() {
        final class LeftHalf: View {
            override func point(inside point: Point) -> Bool { point.x < bounds.width / 2 && super.point(inside: point) }
        }
        let (root, _) = makeRoot()
        let surface = LeftHalf(frame: Rect(x: 100, y: 100, width: 100, height: 100))
        root.addSubview(surface)
        #expect(root.hitTest(Point(x: 149, y: 150)) === surface)
        #expect(root.hitTest(Point(x: 150, y: 150)) === root)
    }

    @Test func aHostedSurfaceTurnedAndScaledGetsSurfaceLocalTouchesInsideItsInputRegion() {
        /// The compositor's shape of a client surface: a layer-hosting view whose input region is
        /// the surface's top 40 points.
        final class SurfaceView: RecordingView {
            override func point(inside point: Point) -> Bool {
                Rect(x: 0, y: 0, width: 200, height: 40).contains(point)
            }
        }
        let (root, dispatcher) = makeRoot()
        let log = EventLog()
        let buffer = Layer()
        buffer.frame = Rect(x: 100, y: 150, width: 200, height: 100)
        let surface = SurfaceView("surface", frame: .zero, log: log)
        surface.layer = buffer
        surface.frame = Rect(x: 100, y: 150, width: 200, height: 100)
        surface.transform = AffineTransform2D(rotationAngle: .pi / 2).scaledBy(x: 0.5, y: 0.5)
        root.addSubview(surface)

        dispatcher.touchDown(id: 0, at: Point(x: 220, y: 160), time: 0)  // surface-local (20, 10)
        dispatcher.touchDown(id: 1, at: Point(x: 180, y: 240), time: 0)  // (180, 90): outside the region
        #expect(log.entries == ["surface touch 0 began"])
        #expect(isClose(surface.locations[0], Point(x: 20, y: 10)))
        #expect(dispatcher.view(capturingTouch: 1) === root)
    }

    @Test func anAnimatingViewIsHitWhereItIsSeenNotWhereTheModelIs() throws {
        let clock = ManualMediaClock(startingAt: 100)
        MediaTime.clock = clock
        let (root, dispatcher) = makeRoot()
        let log = EventLog()
        let mover = RecordingView("mover", frame: Rect(x: 0, y: 0, width: 100, height: 100), log: log)
        root.addSubview(mover)
        let context = RenderContext(rootLayer: root.layer)
        Transaction.flush()
        let slide = BasicAnimation(keyPath: "position")
        (slide.fromValue, slide.toValue, slide.duration, slide.timingFunction) =
            (Point(x: 50, y: 50), Point(x: 250, y: 50), 1, .linear)
        mover.layer.add(slide, forKey: "slide")
        Transaction.flush()
        clock.set(to: 100.5)

        // Half way, the view is seen at x 100…200 while the model stays at 0…100.
        #expect(root.hitTest(Point(x: 150, y: 50)) === mover)
        #expect(root.hitTest(Point(x: 20, y: 50)) === root)
        dispatcher.movePointer(to: Point(x: 110, y: 30), at: 0)
        #expect(log.entries == ["mover entered", "mover moved"])
        #expect(isClose(mover.locations[0], Point(x: 10, y: 30)))
        clock.set(to: 101.5)  // the animation is over: the model is what is seen
        #expect(root.hitTest(Point(x: 20, y: 50)) === mover)
        // A view added after the last commit is not on screen yet, so it is not hit.
        let late = View(frame: Rect(x: 300, y: 300, width: 50, height: 50))
        root.addSubview(late)
        #expect(root.hitTest(Point(x: 310, y: 310)) === root)
        Transaction.flush()
        #expect(root.hitTest(Point(x: 310, y: 310)) === late)
        context.invalidate()
        MediaTime.clock = MonotonicMediaClock()
    }
}
