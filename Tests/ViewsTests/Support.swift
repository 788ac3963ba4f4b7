import Testing
import LayerKit
@testable import Views

func isClose(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
    abs(a - b) <= tolerance
}

func isClose(_ a: Point, _ b: Point, _ tolerance: Double = 1e-9) -> Bool {
    isClose(a.x, b.x, tolerance) && isClose(a.y, b.y, tolerance)
}

func isClose(_ a: Point?, _ b: Point, _ tolerance: Double = 1e-9) -> Bool {
    a.map { isClose($0, b, tolerance) } ?? false
}

/// A shared, ordered record of what the recording responders received.
final class EventLog {
    var entries: [String] = []
}

/// A view that records every event it handles, with the position in its own space; it handles
/// them all, so nothing climbs past it unless `passesOn` is set.
class RecordingView: View {
    let name: String
    let log: EventLog
    var passesOn = false
    var acceptsFocus = false
    var refusesToResign = false
    var locations: [Point] = []

    init(_ name: String, frame: Rect, log: EventLog) {
        self.name = name
        self.log = log
        super.init()
        self.frame = frame
    }

    override var acceptsFirstResponder: Bool { acceptsFocus }
    override func resignFirstResponder() -> Bool { !refusesToResign }

    private func record(_ what: String, _ location: Point? = nil) {
        log.entries.append("\(name) \(what)")
        if let location { locations.append(location) }
    }

    override func pointerDown(_ event: PointerEvent) {
        record("down", event.location(in: self))
        if passesOn { super.pointerDown(event) }
    }
    override func pointerDragged(_ event: PointerEvent) { record("dragged", event.location(in: self)) }
    override func pointerMoved(_ event: PointerEvent) { record("moved", event.location(in: self)) }
    override func pointerUp(_ event: PointerEvent) { record("up", event.location(in: self)) }
    override func pointerEntered(_ event: PointerEvent) { record("entered") }
    override func pointerExited(_ event: PointerEvent) { record("exited") }
    override func scrolled(_ event: ScrollEvent) { record("scrolled \(event.deltaY)", event.location(in: self)) }
    override func touchBegan(_ touch: TouchEvent) { record("touch \(touch.id) began", touch.location(in: self)) }
    override func touchMoved(_ touch: TouchEvent) { record("touch \(touch.id) moved", touch.location(in: self)) }
    override func touchEnded(_ touch: TouchEvent) { record("touch \(touch.id) ended") }
    override func touchCancelled(_ touch: TouchEvent) { record("touch \(touch.id) cancelled") }
    override func keyDown(_ event: KeyEvent) {
        record("key \(event.keyCode) down \(event.text ?? "")")
        if passesOn { super.keyDown(event) }
    }
    override func keyUp(_ event: KeyEvent) {
        record("key \(event.keyCode) up")
        if passesOn { super.keyUp(event) }
    }
}

/// The shell at the end of the responder chain.
final class RecordingShell: Responder {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    override func pointerDown(_ event: PointerEvent) { log.entries.append("shell down") }
    override func scrolled(_ event: ScrollEvent) { log.entries.append("shell scrolled") }
    override func touchBegan(_ touch: TouchEvent) { log.entries.append("shell touch \(touch.id) began") }
    override func keyDown(_ event: KeyEvent) { log.entries.append("shell key \(event.keyCode) down") }
}

/// A 400 × 400 root at scale 1 with its dispatcher.
@MainActor
func makeRoot(scale: Double = 1) -> (RootView, EventDispatcher) {
    let root = RootView(frame: Rect(x: 0, y: 0, width: 400, height: 400), scaleFactor: scale)
    return (root, EventDispatcher(root: root))
}
