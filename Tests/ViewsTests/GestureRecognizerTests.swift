import Testing
import LayerKit
@testable import Views

/// A root with one recording view at 100…300 × 100…300 carrying `recognizers`.
@MainActor
func gestureScene(_ recognizers: GestureRecognizer...) -> (EventDispatcher, RecordingView, EventLog) {
    let (root, dispatcher) = makeRoot()
    let log = EventLog()
    let view = RecordingView("view", frame: Rect(x: 100, y: 100, width: 200, height: 200), log: log)
    root.addSubview(view)
    for recognizer in recognizers { view.addGestureRecognizer(recognizer) }
    return (dispatcher, view, log)
}

/// Records the states a recognizer's actions saw.
@MainActor
func recordStates(of recognizer: GestureRecognizer, into log: EventLog, as name: String) {
    recognizer.addAction { log.entries.append("\(name) \($0.state)") }
}

@MainActor
@Suite struct TapTests {
    @Test func aTapIsRecognizedAndCancelsTheViewsTouch() {
        let tap = TapGestureRecognizer()
        let (dispatcher, _, log) = gestureScene(tap)
        recordStates(of: tap, into: log, as: "tap")
        dispatcher.touchDown(id: 0, at: Point(x: 150, y: 150), time: 0)
        dispatcher.touchMotion(id: 0, to: Point(x: 156, y: 158), time: 0.05)  // exactly 10 points away
        dispatcher.touchUp(id: 0, time: 0.1)
        #expect(tap.state == .recognized)
        // Arbitration comes first (the view's touch is cancelled), then the action runs.
        #expect(log.entries == ["view touch 0 began", "view touch 0 moved", "view touch 0 cancelled", "tap ended"])
        #expect(isClose(tap.location(in: nil), Point(x: 156, y: 158)))
    }

    @Test func movingMoreThanTenPointsFailsATap() {
        let tap = TapGestureRecognizer()
        let (dispatcher, _, log) = gestureScene(tap)
        dispatcher.touchDown(id: 0, at: Point(x: 150, y: 150), time: 0)
        dispatcher.touchMotion(id: 0, to: Point(x: 160.01, y: 150), time: 0.05)
        dispatcher.touchUp(id: 0, time: 0.1)
        #expect(tap.state == .failed)
        #expect(log.entries.last == "view touch 0 ended")  // nothing recognized, so the view keeps its touch
    }

    @Test func holdingLongerThanHalfASecondFailsATapWithoutAnyEvent() {
        let tap = TapGestureRecognizer()
        let (dispatcher, _, _) = gestureScene(tap)
        dispatcher.touchDown(id: 0, at: Point(x: 150, y: 150), time: 10)
        dispatcher.advance(to: 10.5)
        #expect(tap.state == .possible)
        dispatcher.advance(to: 10.51)
        #expect(tap.state == .failed)
        // The next sequence starts again from possible.
        dispatcher.touchUp(id: 0, time: 10.6)
        dispatcher.touchDown(id: 1, at: Point(x: 150, y: 150), time: 11)
        dispatcher.touchUp(id: 1, time: 11.1)
        #expect(tap.state == .recognized)
    }

    @Test func aDoubleTapNeedsTheSecondTapWithinThreeTenthsOfASecond() {
        let double = TapGestureRecognizer()
        double.numberOfTapsRequired = 2
        let (dispatcher, _, _) = gestureScene(double)
        dispatcher.touchDown(id: 0, at: Point(x: 150, y: 150), time: 0)
        dispatcher.touchUp(id: 0, time: 0.1)
        dispatcher.touchDown(id: 1, at: Point(x: 160, y: 150), time: 0.39)  // 0.29 s after the lift
        #expect(double.state == .possible)
        dispatcher.touchUp(id: 1, time: 0.45)
        #expect(double.state == .recognized)

        dispatcher.touchDown(id: 2, at: Point(x: 150, y: 150), time: 5)
        dispatcher.touchUp(id: 2, time: 5.1)
        dispatcher.advance(to: 5.41)
        #expect(double.state == .failed)
    }

    @Test func aSingleTapThatRequiresTheDoubleTapToFailWaitsForIt() {
        let single = TapGestureRecognizer()
        let double = TapGestureRecognizer()
        double.numberOfTapsRequired = 2
        single.require(toFail: double)
        let (dispatcher, _, log) = gestureScene(single, double)
        recordStates(of: single, into: log, as: "single")
        recordStates(of: double, into: log, as: "double")

        dispatcher.touchDown(id: 0, at: Point(x: 150, y: 150), time: 0)
        dispatcher.touchUp(id: 0, time: 0.1)
        #expect(single.state == .possible && double.state == .possible)
        dispatcher.advance(to: 0.41)
        #expect(double.state == .failed && single.state == .recognized)
        #expect(log.entries.filter { !$0.hasPrefix("view") } == ["single ended"])

        log.entries = []
        dispatcher.touchDown(id: 1, at: Point(x: 150, y: 150), time: 2)
        dispatcher.touchUp(id: 1, time: 2.1)
        dispatcher.touchDown(id: 2, at: Point(x: 150, y: 150), time: 2.2)
        dispatcher.touchUp(id: 2, time: 2.3)
        #expect(double.state == .recognized && single.state == .failed)
        #expect(log.entries.filter { !$0.hasPrefix("view") } == ["double ended"])
    }
}

@MainActor
@Suite struct LongPressTests {
    @Test func aLongPressBeginsAfterHalfASecondWithNoEventThenChangesAndEnds() {
        let press = LongPressGestureRecognizer()
        let (dispatcher, _, log) = gestureScene(press)
        recordStates(of: press, into: log, as: "press")
        dispatcher.touchDown(id: 0, at: Point(x: 150, y: 150), time: 1)
        dispatcher.advance(to: 1.49)
        #expect(press.state == .possible)
        dispatcher.advance(to: 1.5)
        #expect(press.state == .began)
        dispatcher.touchMotion(id: 0, to: Point(x: 190, y: 150), time: 1.6)
        dispatcher.touchUp(id: 0, time: 1.7)
        #expect(press.state == .ended)
        #expect(log.entries == [
            "view touch 0 began", "view touch 0 cancelled", "press began", "press changed", "press ended",
        ])
    }

    @Test func movingMoreThanTenPointsOrLiftingEarlyFailsALongPress() {
        let press = LongPressGestureRecognizer()
        let (dispatcher, _, _) = gestureScene(press)
        dispatcher.touchDown(id: 0, at: Point(x: 150, y: 150), time: 0)
        dispatcher.touchMotion(id: 0, to: Point(x: 150, y: 160), time: 0.1)  // exactly 10
        #expect(press.state == .possible)
        dispatcher.touchMotion(id: 0, to: Point(x: 150, y: 160.5), time: 0.2)
        #expect(press.state == .failed)
        dispatcher.advance(to: 0.6)
        #expect(press.state == .failed)
        dispatcher.touchUp(id: 0, time: 0.7)

        dispatcher.touchDown(id: 1, at: Point(x: 150, y: 150), time: 1)
        dispatcher.touchUp(id: 1, time: 1.3)
        #expect(press.state == .failed)
    }
}

@MainActor
@Suite struct PanTests {
    @Test func aPanBeginsPastEightPointsAndReportsTranslationAndVelocity() {
        let pan = PanGestureRecognizer()
        let (dispatcher, view, log) = gestureScene(pan)
        recordStates(of: pan, into: log, as: "pan")
        dispatcher.touchDown(id: 0, at: Point(x: 150, y: 150), time: 0)
        dispatcher.touchMotion(id: 0, to: Point(x: 158, y: 150), time: 0.02)  // exactly the slop
        #expect(pan.state == .possible)
        dispatcher.touchMotion(id: 0, to: Point(x: 158.01, y: 150), time: 0.04)
        #expect(pan.state == .began)
        dispatcher.touchMotion(id: 0, to: Point(x: 170, y: 140), time: 0.08)
        #expect(pan.state == .changed)
        #expect(isClose(pan.translation, Point(x: 20, y: -10)))
        // Samples within 0.1 s of the newest: from (150, 150) at 0 to (170, 140) at 0.08.
        #expect(isClose(pan.velocity, Point(x: 250, y: -125)))
        dispatcher.touchMotion(id: 0, to: Point(x: 190, y: 140), time: 0.16)
        // Only the samples at 0.08 and 0.16 are within 0.1 s of the newest.
        #expect(isClose(pan.velocity, Point(x: 250, y: 0)))
        dispatcher.touchUp(id: 0, time: 0.5)  // a stop before the lift: no fling
        #expect(pan.state == .ended && pan.velocity == .zero)
        #expect(isClose(pan.translation, Point(x: 40, y: -10)))
        #expect(log.entries.filter { $0.hasPrefix("pan") } == ["pan began", "pan changed", "pan changed", "pan ended"])
        #expect(log.entries.contains("view touch 0 cancelled"))
        #expect(!log.entries.contains("view touch 0 ended"))
        view.transform = AffineTransform2D(scaleX: 2, y: 2)
        #expect(isClose(pan.translation(in: view), Point(x: 20, y: -5)))
    }

    @Test func liftingBeforeTheSlopFailsAPanAndTheViewKeepsItsTouch() {
        let pan = PanGestureRecognizer()
        let (dispatcher, _, log) = gestureScene(pan)
        dispatcher.touchDown(id: 0, at: Point(x: 150, y: 150), time: 0)
        dispatcher.touchMotion(id: 0, to: Point(x: 155, y: 155), time: 0.02)
        dispatcher.touchUp(id: 0, time: 0.04)
        #expect(pan.state == .failed)
        #expect(log.entries == ["view touch 0 began", "view touch 0 moved", "view touch 0 ended"])
    }

    @Test func aPanThatDoesNotCancelTouchesLetsTheViewFollowTheFinger() {
        let pan = PanGestureRecognizer()
        pan.cancelsTouchesInView = false
        let (dispatcher, _, log) = gestureScene(pan)
        dispatcher.touchDown(id: 0, at: Point(x: 150, y: 150), time: 0)
        dispatcher.touchMotion(id: 0, to: Point(x: 170, y: 150), time: 0.02)
        dispatcher.touchUp(id: 0, time: 0.04)
        #expect(pan.state == .ended)
        #expect(log.entries == ["view touch 0 began", "view touch 0 moved", "view touch 0 ended"])
    }

    @Test func aPanThatBeginsFailsATapOnTheSameTouch() {
        let pan = PanGestureRecognizer()
        let tap = TapGestureRecognizer()
        let (dispatcher, _, _) = gestureScene(pan, tap)
        dispatcher.touchDown(id: 0, at: Point(x: 150, y: 150), time: 0)
        dispatcher.touchMotion(id: 0, to: Point(x: 159, y: 150), time: 0.02)  // 9: past the pan's slop, within the tap's
        #expect(pan.state == .began && tap.state == .failed)
    }

    @Test func cancellingTheTouchCancelsAPanInProgress() {
        let pan = PanGestureRecognizer()
        let (dispatcher, _, log) = gestureScene(pan)
        recordStates(of: pan, into: log, as: "pan")
        dispatcher.touchDown(id: 0, at: Point(x: 150, y: 150), time: 0)
        dispatcher.touchMotion(id: 0, to: Point(x: 170, y: 150), time: 0.02)
        dispatcher.cancelTouches(time: 0.03)
        #expect(pan.state == .cancelled)
        #expect(log.entries.suffix(1) == ["pan cancelled"])
    }
}

@MainActor
@Suite struct SwipeTests {
    func swipe(from start: Point, to end: Point, in duration: Double, direction: SwipeGestureRecognizer.Direction = .right) -> GestureRecognizer.State {
        let swipe = SwipeGestureRecognizer()
        swipe.direction = direction
        let (dispatcher, _, _) = gestureScene(swipe)
        dispatcher.touchDown(id: 0, at: start, time: 1)
        dispatcher.touchMotion(id: 0, to: end, time: 1 + duration)
        dispatcher.touchUp(id: 0, time: 1 + duration)
        return swipe.state
    }

    @Test func aSwipeNeedsFiftyPointsAtTwoHundredPointsPerSecondAlongItsDirection() {
        #expect(swipe(from: Point(x: 110, y: 150), to: Point(x: 160, y: 150), in: 0.25) == .recognized)
        #expect(swipe(from: Point(x: 110, y: 150), to: Point(x: 159.9, y: 150), in: 0.2) == .failed)  // too short
        #expect(swipe(from: Point(x: 110, y: 150), to: Point(x: 160, y: 150), in: 0.26) == .failed)  // too slow
        #expect(swipe(from: Point(x: 110, y: 150), to: Point(x: 170, y: 180), in: 0.1) == .recognized)  // 30 across 60: the limit
        #expect(swipe(from: Point(x: 110, y: 150), to: Point(x: 170, y: 180.5), in: 0.1) == .failed)
        #expect(swipe(from: Point(x: 200, y: 150), to: Point(x: 140, y: 150), in: 0.1) == .failed)  // left, not allowed
        #expect(swipe(from: Point(x: 200, y: 150), to: Point(x: 140, y: 150), in: 0.1, direction: [.left, .up]) == .recognized)
        #expect(swipe(from: Point(x: 150, y: 250), to: Point(x: 150, y: 180), in: 0.1, direction: [.left, .up]) == .recognized)
    }
}
