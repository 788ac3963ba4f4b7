import LayerKit

/// A pointer event as a responder receives it. The dispatcher makes these from the compositor's
/// motion and button input: `dragged` is motion while a button is down, `entered`/`exited` follow
/// the view under the pointer.
public struct PointerEvent {
    public enum Kind: Hashable, Sendable {
        case down, up, moved, dragged, entered, exited
    }

    /// Linux evdev button codes (linux/input-event-codes.h), which libinput and wl_pointer use.
    public static let leftButton: UInt32 = 0x110
    public static let rightButton: UInt32 = 0x111
    public static let middleButton: UInt32 = 0x112

    public var kind: Kind
    /// Where the pointer is, in the root view's bounds space (output-space points).
    public var position: Point
    /// The button that went down or up (an evdev code); nil for motion, entered and exited.
    public var button: UInt32?
    /// The buttons held after this event.
    public var pressedButtons: Set<UInt32>
    /// Seconds on the compositor's input clock.
    public var timestamp: Double
    /// The on-screen geometry the event was routed through, so that `location(in:)` agrees with
    /// the hit test that chose the view.
    var shown: ShownTree?

    public init(kind: Kind, position: Point, button: UInt32? = nil, pressedButtons: Set<UInt32> = [], timestamp: Double) {
        self.kind = kind
        self.position = position
        self.button = button
        self.pressedButtons = pressedButtons
        self.timestamp = timestamp
    }

    /// The position in `view`'s bounds space, through the geometry on screen (see `View.hitTest`).
    public func location(in view: View) -> Point {
        (shown ?? ShownTree(root: view.topmostView)).convert(position, toShownSpaceOf: view)
    }
}

/// Scrolling (wl_pointer.axis): deltas in points, positive to the right and down.
public struct ScrollEvent {
    public var position: Point
    public var deltaX: Double
    public var deltaY: Double
    public var timestamp: Double
    var shown: ShownTree?

    public init(position: Point, deltaX: Double, deltaY: Double, timestamp: Double) {
        self.position = position
        self.deltaX = deltaX
        self.deltaY = deltaY
        self.timestamp = timestamp
    }

    public func location(in view: View) -> Point {
        (shown ?? ShownTree(root: view.topmostView)).convert(position, toShownSpaceOf: view)
    }
}

/// One finger's event. `id` is the touch slot (libinput's seat slot), unique while the finger is down.
public struct TouchEvent {
    public enum Phase: Hashable, Sendable {
        case began, moved, ended, cancelled
    }

    public var id: Int32
    public var phase: Phase
    /// In the root view's bounds space; for `ended` and `cancelled`, the last position reported.
    public var position: Point
    public var timestamp: Double
    var shown: ShownTree?

    public init(id: Int32, phase: Phase, position: Point, timestamp: Double) {
        self.id = id
        self.phase = phase
        self.position = position
        self.timestamp = timestamp
    }

    public func location(in view: View) -> Point {
        (shown ?? ShownTree(root: view.topmostView)).convert(position, toShownSpaceOf: view)
    }
}

/// A key press or release: the evdev key code (KEY_A is 30), and the text it types when a keymap
/// (xkbcommon, in the Input module) produced some.
public struct KeyEvent: Hashable, Sendable {
    public var keyCode: UInt32
    public var isPressed: Bool
    public var text: String?
    public var timestamp: Double

    public init(keyCode: UInt32, isPressed: Bool, text: String? = nil, timestamp: Double) {
        self.keyCode = keyCode
        self.isPressed = isPressed
        self.text = text
        self.timestamp = timestamp
    }
}
