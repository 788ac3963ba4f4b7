import Testing
import LayerKit
@testable import Views

@MainActor
@Suite struct PointerRoutingTests {
    /// A root with views a (0…100) and b (200…300) side by side.
    func scene() -> (RootView, EventDispatcher, RecordingView, RecordingView, EventLog) {
        let (root, dispatcher) = makeRoot()
        let log = EventLog()
        let a = RecordingView("a", frame: Rect(x: 0, y: 0, width: 100, height: 100), log: log)
        let b = RecordingView("b", frame: Rect(x: 200, y: 0, width: 100, height: 100), log: log)
        root.addSubview(a)
        root.addSubview(b)
        return (root, dispatcher, a, b, log)
    }

    @Test func aPressCapturesThePointerSoDragsAndTheReleaseGoToThePressedView() {
        let (_, dispatcher, a, b, log) = scene()
        dispatcher.movePointer(to: Point(x: 50, y: 50), at: 0)
        dispatcher.pressButton(PointerEvent.leftButton, at: 0.1)
        dispatcher.movePointer(to: Point(x: 250, y: 50), at: 0.2)
        dispatcher.pressButton(PointerEvent.rightButton, at: 0.25)
        dispatcher.releaseButton(PointerEvent.leftButton, at: 0.3)
        #expect(dispatcher.pointerCaptureView === a)  // the right button is still down
        dispatcher.releaseButton(PointerEvent.rightButton, at: 0.4)
        #expect(log.entries == [
            "a entered", "a moved", "a down", "a dragged", "a down", "a up", "a up",
            "a exited", "b entered",
        ])
        #expect(a.locations[2] == Point(x: 250, y: 50))  // the drag, in a's space
        #expect(b.locations.isEmpty)
        #expect(dispatcher.pointerCaptureView == nil && dispatcher.hoveredView === b)
    }

    @Test func hoverSendsExitedToTheOldViewBeforeEnteredToTheNewOne() {
        let (root, dispatcher, a, b, log) = scene()
        dispatcher.movePointer(to: Point(x: 50, y: 50), at: 0)
        dispatcher.movePointer(to: Point(x: 60, y: 50), at: 0.1)
        dispatcher.movePointer(to: Point(x: 250, y: 50), at: 0.2)
        dispatcher.movePointer(to: Point(x: 150, y: 50), at: 0.3)
        #expect(log.entries == [
            "a entered", "a moved", "a moved", "a exited", "b entered", "b moved", "b exited",
        ])
        #expect(dispatcher.hoveredView === root)
        _ = a
        // The views move under a still pointer: the focus follows when the compositor asks.
        b.frame = Rect(x: 100, y: 0, width: 100, height: 100)
        dispatcher.updatePointerFocus(at: 0.4)
        #expect(log.entries.last == "b entered" && dispatcher.hoveredView === b)
    }

    @Test func unhandledEventsClimbTheResponderChainToTheRootsNext() {
        let (root, dispatcher) = makeRoot()
        let log = EventLog()
        let shell = RecordingShell(log: log)
        root.next = shell
        let container = View(frame: Rect(x: 0, y: 0, width: 200, height: 200))
        let leaf = View(frame: Rect(x: 10, y: 10, width: 50, height: 50))
        root.addSubview(container)
        container.addSubview(leaf)
        #expect(leaf.next === container && container.next === root && root.next === shell)

        dispatcher.movePointer(to: Point(x: 20, y: 20), at: 0)
        dispatcher.pressButton(PointerEvent.leftButton, at: 0)
        dispatcher.scroll(deltaX: 0, deltaY: 15, at: 0.1)
        dispatcher.touchDown(id: 3, at: Point(x: 30, y: 30), time: 0.2)
        #expect(log.entries == ["shell down", "shell scrolled", "shell touch 3 began"])
        withExtendedLifetime(shell) {}
    }

    @Test func aHandlerThatPassesOnReachesTheSuperviewNext() {
        let log = EventLog()
        let (root, dispatcher) = makeRoot()
        let outer = RecordingView("outer", frame: Rect(x: 0, y: 0, width: 200, height: 200), log: log)
        let inner = RecordingView("inner", frame: Rect(x: 50, y: 50, width: 50, height: 50), log: log)
        inner.passesOn = true
        root.addSubview(outer)
        outer.addSubview(inner)
        dispatcher.movePointer(to: Point(x: 60, y: 70), at: 0)
        dispatcher.pressButton(PointerEvent.leftButton, at: 0)
        #expect(log.entries == ["inner entered", "inner moved", "inner down", "outer down"])
        #expect(inner.locations.last == Point(x: 10, y: 20) && outer.locations.last == Point(x: 60, y: 70))
    }

    @Test func scrollingGoesToTheViewUnderThePointerWithItsDeltas() {
        let (_, dispatcher, _, b, log) = scene()
        dispatcher.movePointer(to: Point(x: 210, y: 20), at: 0)
        dispatcher.scroll(deltaX: 0, deltaY: -30, at: 0.1)
        #expect(log.entries.last == "b scrolled -30.0" && b.locations.last == Point(x: 10, y: 20))
    }

    @Test func aReleaseOfAButtonThatIsNotDownIsIgnored() {
        let (_, dispatcher, _, _, log) = scene()
        dispatcher.movePointer(to: Point(x: 50, y: 50), at: 0)
        dispatcher.releaseButton(PointerEvent.leftButton, at: 0.1)
        #expect(log.entries == ["a entered", "a moved"])
        #expect(dispatcher.pressedButtons.isEmpty)
    }
}

@MainActor
@Suite struct KeyboardFocusTests {
    @Test func keysGoToTheFirstResponderThenClimbTheChain() {
        let (root, dispatcher) = makeRoot()
        let log = EventLog()
        let shell = RecordingShell(log: log)  // `next` is weak: the shell owns its root, not the reverse
        root.next = shell
        let field = RecordingView("field", frame: Rect(x: 0, y: 0, width: 100, height: 30), log: log)
        let label = RecordingView("label", frame: Rect(x: 0, y: 40, width: 100, height: 30), log: log)
        root.addSubview(field)
        root.addSubview(label)

        dispatcher.key(30, isPressed: true, text: "a", at: 0)  // no first responder: the root, then the shell
        #expect(dispatcher.makeFirstResponder(label) == false)  // does not accept
        field.acceptsFocus = true
        #expect(dispatcher.makeFirstResponder(field))
        dispatcher.key(30, isPressed: true, text: "a", at: 1)
        dispatcher.key(30, isPressed: false, at: 1.1)
        field.passesOn = true
        dispatcher.key(48, isPressed: true, text: "b", at: 2)
        #expect(log.entries == [
            "shell key 30 down", "field key 30 down a", "field key 30 up", "field key 48 down b", "shell key 48 down",
        ])
        withExtendedLifetime(shell) {}
    }

    @Test func aResponderThatRefusesToResignKeepsTheFocus() {
        let (root, dispatcher) = makeRoot()
        let log = EventLog()
        let first = RecordingView("first", frame: Rect(x: 0, y: 0, width: 10, height: 10), log: log)
        let second = RecordingView("second", frame: Rect(x: 0, y: 0, width: 10, height: 10), log: log)
        first.acceptsFocus = true
        second.acceptsFocus = true
        root.addSubview(first)
        root.addSubview(second)
        dispatcher.makeFirstResponder(first)
        first.refusesToResign = true
        #expect(dispatcher.makeFirstResponder(second) == false && dispatcher.firstResponder === first)
        first.refusesToResign = false
        #expect(dispatcher.makeFirstResponder(second) && dispatcher.firstResponder === second)
        // A focused view that leaves the root loses the focus; keys go to the root again.
        second.removeFromSuperview()
        dispatcher.key(1, isPressed: true, at: 0)
        #expect(dispatcher.firstResponder == nil && log.entries.isEmpty)
    }
}

@MainActor
@Suite struct TouchRoutingTests {
    @Test func eachTouchIsCapturedByTheViewItWentDownOn() {
        let (root, dispatcher) = makeRoot()
        let log = EventLog()
        let a = RecordingView("a", frame: Rect(x: 0, y: 0, width: 100, height: 100), log: log)
        let b = RecordingView("b", frame: Rect(x: 200, y: 0, width: 100, height: 100), log: log)
        root.addSubview(a)
        root.addSubview(b)
        dispatcher.touchDown(id: 0, at: Point(x: 10, y: 10), time: 0)
        dispatcher.touchDown(id: 1, at: Point(x: 210, y: 10), time: 0.01)
        dispatcher.touchMotion(id: 0, to: Point(x: 250, y: 20), time: 0.02)  // over b
        dispatcher.touchMotion(id: 1, to: Point(x: 50, y: 20), time: 0.03)  // over a
        dispatcher.touchUp(id: 1, time: 0.04)
        dispatcher.touchUp(id: 0, time: 0.05)
        #expect(log.entries == [
            "a touch 0 began", "b touch 1 began", "a touch 0 moved", "b touch 1 moved", "b touch 1 ended", "a touch 0 ended",
        ])
        #expect(a.locations == [Point(x: 10, y: 10), Point(x: 250, y: 20)])
        #expect(b.locations == [Point(x: 10, y: 10), Point(x: -150, y: 20)])
        #expect(dispatcher.activeTouchIDs.isEmpty)
    }

    @Test func cancellingTouchesTellsEveryViewThatHasOne() {
        let (root, dispatcher) = makeRoot()
        let log = EventLog()
        let a = RecordingView("a", frame: Rect(x: 0, y: 0, width: 100, height: 100), log: log)
        root.addSubview(a)
        dispatcher.touchDown(id: 4, at: Point(x: 10, y: 10), time: 0)
        dispatcher.touchDown(id: 4, at: Point(x: 20, y: 10), time: 0.01)  // a second down for the same id is ignored
        dispatcher.touchDown(id: 7, at: Point(x: 20, y: 20), time: 0.02)
        dispatcher.cancelTouches(time: 0.1)
        dispatcher.touchMotion(id: 4, to: Point(x: 30, y: 30), time: 0.2)  // gone: ignored
        #expect(log.entries == ["a touch 4 began", "a touch 7 began", "a touch 4 cancelled", "a touch 7 cancelled"])
    }
}
