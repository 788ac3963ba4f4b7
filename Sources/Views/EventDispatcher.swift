import LayerKit

/// Routes one output's input to the views under its root, as the compositor reads it from
/// libinput: positions in the root view's bounds space (output points), evdev codes, and
/// timestamps in seconds on one input clock. Each call first lets time pass (`advance(to:)`).
///
/// Routing rules:
/// - Hit testing uses what is on screen (see `View.hitTest(_:)`), taken once per event.
/// - Pointer: motion goes to the view under the pointer (`pointerMoved`); a press captures the
///   pointer for the view it hit until every button is up, so drags and the release go there
///   (`pointerDragged`, `pointerUp`) wherever the pointer is. Hover (`hoveredView`) follows the view
///   under the pointer with `pointerExited` to the old view before `pointerEntered` to the new one,
///   and stays on the capturing view during a capture, as wl_pointer focus does during an implicit
///   grab; the compositor maps it to wl_pointer leave/enter. Scrolling goes to the capturing view,
///   else the view under the pointer.
/// - Touch: each touch id is captured by the view its `touchDown` hit, and first offered to the
///   gesture recognizers of that view and its superviews (see `GestureRecognizer`).
/// - Keys go to the first responder, else to the root; unhandled events climb the responder chain.
///
/// Bad input loses nothing and changes nothing: a release of a button that is not down, a second
/// down for a touch id already down, or motion or lift of an unknown touch id is ignored.
public final class EventDispatcher {
    public let root: RootView
    public private(set) var pointerPosition = Point.zero
    public private(set) var pressedButtons: Set<UInt32> = []
    /// The view under the pointer as the last event left it (the capturing view during a capture).
    public private(set) weak var hoveredView: View?
    /// The view that has the pointer while a button is down.
    public private(set) var pointerCaptureView: View?
    /// The responder that gets key events; nil sends them to the root.
    public private(set) weak var firstResponder: Responder?
    /// The latest time the dispatcher has been told about.
    public private(set) var currentTime = -Double.infinity

    private struct ActiveTouch {
        var view: View?
        var recognizers: [GestureRecognizer]
        var position: Point
        var deliversToView = true
        var viewBegan = false
    }

    private var touches: [Int32: ActiveTouch] = [:]
    /// Recognizers in a sequence: they follow touches, or wait for time or for another recognizer.
    private var involved: [GestureRecognizer] = []

    public init(root: RootView) {
        self.root = root
    }

    /// The ids of the touches down now.
    public var activeTouchIDs: [Int32] { touches.keys.sorted() }

    /// The view that captured touch `id`.
    public func view(capturingTouch id: Int32) -> View? {
        touches[id]?.view
    }

    // MARK: - Time

    /// Lets recognizers act on time alone (a long press begins, a double tap's wait ends). The
    /// compositor calls it from its loop, with the same clock as the events' timestamps.
    public func advance(to time: Double) {
        currentTime = max(currentTime, time)
        for recognizer in involved where !recognizer.state.isFinal {
            recognizer.advance(to: time)
        }
        // Not on an empty list: removing from the shared empty array allocates one, every loop turn.
        if !involved.isEmpty { involved.removeAll { $0.state.isFinal && $0.touchIDs.isEmpty } }
    }

    /// Whether `advance(to:)` may do anything but keep the time: a touch is down, or a recognizer
    /// still follows one or waits (for time or another recognizer). Only `touchDown` makes it true.
    public var waitsOnTime: Bool { !touches.isEmpty || !involved.isEmpty }

    // MARK: - Pointer

    public func movePointer(to position: Point, at time: Double) {
        advance(to: time)
        pointerPosition = position
        let shown = ShownTree(root: root)
        if let captor = pointerCaptureView {
            captor.pointerDragged(pointerEvent(.dragged, shown: shown, time: time))
            return
        }
        let hit = shown.hitTest(root, at: position)
        updateHover(to: hit, shown: shown, time: time)
        hit?.pointerMoved(pointerEvent(.moved, shown: shown, time: time))
    }

    public func pressButton(_ button: UInt32, at time: Double) {
        advance(to: time)
        guard !pressedButtons.contains(button) else { return }
        let shown = ShownTree(root: root)
        if pressedButtons.isEmpty {
            pointerCaptureView = shown.hitTest(root, at: pointerPosition)
            updateHover(to: pointerCaptureView, shown: shown, time: time)
        }
        pressedButtons.insert(button)
        pointerCaptureView?.pointerDown(pointerEvent(.down, button: button, shown: shown, time: time))
    }

    public func releaseButton(_ button: UInt32, at time: Double) {
        advance(to: time)
        guard pressedButtons.remove(button) != nil else { return }
        let shown = ShownTree(root: root)
        pointerCaptureView?.pointerUp(pointerEvent(.up, button: button, shown: shown, time: time))
        guard pressedButtons.isEmpty else { return }
        pointerCaptureView = nil
        updateHover(to: shown.hitTest(root, at: pointerPosition), shown: shown, time: time)
    }

    /// Picks the hovered view again with the pointer where it is, for when the views moved under
    /// a still pointer (the compositor calls it after a frame that moved things).
    public func updatePointerFocus(at time: Double) {
        advance(to: time)
        guard pointerCaptureView == nil else { return }
        let shown = ShownTree(root: root)
        updateHover(to: shown.hitTest(root, at: pointerPosition), shown: shown, time: time)
    }

    public func scroll(deltaX: Double, deltaY: Double, at time: Double) {
        advance(to: time)
        let shown = ShownTree(root: root)
        var event = ScrollEvent(position: pointerPosition, deltaX: deltaX, deltaY: deltaY, timestamp: time)
        event.shown = shown
        (pointerCaptureView ?? shown.hitTest(root, at: pointerPosition))?.scrolled(event)
    }

    private func updateHover(to view: View?, shown: ShownTree, time: Double) {
        guard view !== hoveredView else { return }
        let old = hoveredView
        hoveredView = view
        old?.pointerExited(pointerEvent(.exited, shown: shown, time: time))
        view?.pointerEntered(pointerEvent(.entered, shown: shown, time: time))
    }

    private func pointerEvent(_ kind: PointerEvent.Kind, button: UInt32? = nil, shown: ShownTree, time: Double) -> PointerEvent {
        var event = PointerEvent(kind: kind, position: pointerPosition, button: button, pressedButtons: pressedButtons, timestamp: time)
        event.shown = shown
        return event
    }

    // MARK: - Keyboard

    /// Gives `responder` the keyboard focus if it accepts it and the current one resigns; nil
    /// sends keys to the root. Returns whether `responder` is the first responder afterwards.
    @discardableResult
    public func makeFirstResponder(_ responder: Responder?) -> Bool {
        if responder === firstResponder { return true }
        if let responder, !responder.acceptsFirstResponder { return false }
        if let current = firstResponder, !current.resignFirstResponder() { return false }
        firstResponder = nil
        guard let responder, responder.becomeFirstResponder() else { return responder == nil }
        firstResponder = responder
        return true
    }

    public func key(_ keyCode: UInt32, isPressed: Bool, text: String? = nil, at time: Double) {
        advance(to: time)
        if let view = firstResponder as? View, !view.isDescendant(of: root) {
            // A focused view that left this root loses the focus.
            firstResponder = nil
        }
        let target = firstResponder ?? root
        let event = KeyEvent(keyCode: keyCode, isPressed: isPressed, text: text, timestamp: time)
        if isPressed { target.keyDown(event) } else { target.keyUp(event) }
    }

    // MARK: - Touch

    public func touchDown(id: Int32, at position: Point, time: Double) {
        advance(to: time)
        guard touches[id] == nil else { return }
        let shown = ShownTree(root: root)
        let hit = shown.hitTest(root, at: position)
        var recognizers: [GestureRecognizer] = []
        var view = hit
        while let v = view {
            for recognizer in v.gestureRecognizers where recognizer.isEnabled {
                if recognizer.state.isFinal && recognizer.touchIDs.isEmpty { recognizer.restart() }
                guard !recognizer.state.isFinal, recognizer.heldState == nil else { continue }
                recognizers.append(recognizer)
                recognizer.arena = self
                if !involved.contains(where: { $0 === recognizer }) { involved.append(recognizer) }
            }
            view = v.superview
        }
        touches[id] = ActiveTouch(view: hit, recognizers: recognizers, position: position)
        deliver(TouchEvent(id: id, phase: .began, position: position, timestamp: time), shown: shown)
    }

    public func touchMotion(id: Int32, to position: Point, time: Double) {
        advance(to: time)
        guard touches[id] != nil else { return }
        touches[id]?.position = position
        deliver(TouchEvent(id: id, phase: .moved, position: position, timestamp: time), shown: ShownTree(root: root))
    }

    public func touchUp(id: Int32, time: Double) {
        advance(to: time)
        guard let touch = touches[id] else { return }
        deliver(TouchEvent(id: id, phase: .ended, position: touch.position, timestamp: time), shown: ShownTree(root: root))
        touches[id] = nil
    }

    /// Cancels one touch (libinput's touch cancel): recognizers in progress are cancelled, the
    /// others fail, and the view gets `touchCancelled`.
    public func cancelTouch(id: Int32, time: Double) {
        advance(to: time)
        guard let touch = touches[id] else { return }
        deliver(TouchEvent(id: id, phase: .cancelled, position: touch.position, timestamp: time), shown: ShownTree(root: root))
        touches[id] = nil
    }

    /// Cancels every touch that is down (a device removed, an output turned off, the shell
    /// taking over the screen).
    public func cancelTouches(time: Double) {
        for id in activeTouchIDs { cancelTouch(id: id, time: time) }
    }

    private func deliver(_ touch: TouchEvent, shown: ShownTree) {
        var touch = touch
        touch.shown = shown
        guard let active = touches[touch.id] else { return }
        for recognizer in active.recognizers where recognizer.touchIDs.contains(touch.id) || touch.phase == .began {
            guard !recognizer.state.isFinal || touch.phase != .began else { continue }
            recognizer.deliver(touch)
        }
        guard let current = touches[touch.id], current.deliversToView, let view = current.view else { return }
        switch touch.phase {
        case .began:
            touches[touch.id]?.viewBegan = true
            view.touchBegan(touch)
        case .moved:
            view.touchMoved(touch)
        case .ended:
            view.touchEnded(touch)
        case .cancelled:
            view.touchCancelled(touch)
        }
    }

    // MARK: - Arbitration (called by recognizers)

    func recognizerRecognized(_ recognizer: GestureRecognizer) {
        let ids = touches.filter { $0.value.recognizers.contains { $0 === recognizer } }.keys.sorted()
        for id in ids {
            guard let touch = touches[id] else { continue }
            for other in touch.recognizers where other !== recognizer && other.state == .possible {
                other.apply(.failed)
            }
            if recognizer.cancelsTouchesInView, touch.deliversToView {
                touches[id]?.deliversToView = false
                if touch.viewBegan, let view = touch.view {
                    var event = TouchEvent(id: id, phase: .cancelled, position: touch.position, timestamp: currentTime)
                    event.shown = ShownTree(root: root)
                    view.touchCancelled(event)
                }
            }
        }
        for other in involved where other !== recognizer && other.requires(toFail: recognizer) && !other.state.isFinal {
            other.apply(.failed)
        }
    }

    func recognizerFailed(_ recognizer: GestureRecognizer) {
        for other in involved where other.heldState != nil {
            other.releaseHeldStateIfFree()
        }
    }
}
