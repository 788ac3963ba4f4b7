/// What the keyboard typed, for the compositor to pass to the focused text input (commit_string,
/// delete_surrounding_text, a return key event).
public enum KeyboardOutput: Hashable, Sendable {
    case insert(String)
    case deleteBackward
    case `return`
}

/// The shift key's state.
public enum ShiftState: Hashable, Sendable {
    case off
    /// Shifts the next character only.
    case once
    /// Caps lock: stays until shift is tapped again.
    case locked
}

/// The keyboard's logic without any drawing: the page on show, shift and caps lock, and
/// backspace's repeat, with time passed in (seconds on the input clock) so that it is exact.
///
/// - Shift tapped once shifts the next character; tapped again within `doubleTapInterval` locks
///   caps; tapped while shifted or locked turns it off.
/// - A page key switches letters ⇄ symbols; a one-shot shift ends there, caps lock stays.
/// - The layout key switches to the next of `layoutCount` layouts (after the last, the first),
///   on the same page, with shift and caps lock off: the new layout starts in lower case.
/// - Backspace deletes once when pressed, then after `repeatDelay` once, and `repeatRate` times a
///   second after that while it is held; `advance(to:)` and the release report the repeats due.
/// - Every other key acts when it is released (the finger may slide to another key first).
public struct KeyboardState: Hashable, Sendable {
    public private(set) var pageKind: KeyboardPageKind
    public private(set) var shift = ShiftState.off
    /// The index of the layout on show among the board's layouts.
    public private(set) var layoutIndex = 0
    public let layoutCount: Int
    public var doubleTapInterval: Double
    public var repeatDelay: Double
    public var repeatRate: Double
    /// When the last shift tap turned shift on (for the double tap).
    private var lastShiftTap: Double?
    /// When backspace went down, and how many repeats it has reported.
    private var backspaceDown: Double?
    private var repeatsReported = 0

    public init(
        pageKind: KeyboardPageKind = .letters, layoutCount: Int = 1, doubleTapInterval: Double = 0.3, repeatDelay: Double = 0.5,
        repeatRate: Double = 20
    ) {
        precondition(layoutCount > 0, "KeyboardState: there must be a layout")
        self.pageKind = pageKind
        self.layoutCount = layoutCount
        self.doubleTapInterval = doubleTapInterval
        self.repeatDelay = repeatDelay
        self.repeatRate = repeatRate
    }

    /// Whether letters show and type in upper case.
    public var isShifted: Bool { shift != .off }

    /// Whether backspace is held (repeating or waiting to).
    public var isRepeating: Bool { backspaceDown != nil }

    /// When `advance(to:)` reports the next repeat of the held backspace (the k-th repeat is due
    /// `repeatDelay + (k - 1) / repeatRate` after the press); nil while backspace is not held.
    public var nextRepeatTime: Double? {
        backspaceDown.map { $0 + repeatDelay + Double(repeatsReported) / repeatRate }
    }

    /// Shows `kind` with shift off (a new field, a new purpose); the layout chosen stays.
    public mutating func reset(to kind: KeyboardPageKind) {
        pageKind = kind
        shift = .off
        lastShiftTap = nil
        backspaceDown = nil
    }

    /// A key went down at `time`. Only backspace acts on the press.
    public mutating func press(_ action: KeyAction, at time: Double) -> [KeyboardOutput] {
        guard action == .backspace else { return [] }
        backspaceDown = time
        repeatsReported = 0
        return [.deleteBackward]
    }

    /// A key went up at `time` (the key under the finger then, which the press may not have been).
    public mutating func release(_ action: KeyAction, at time: Double) -> [KeyboardOutput] {
        switch action {
        case .backspace:
            let due = advance(to: time)
            backspaceDown = nil
            return due
        case .character(let text, let shifted):
            let typed = isShifted ? shifted : text
            if shift == .once { shift = .off }
            return [.insert(typed)]
        case .space:
            return [.insert(" ")]
        case .enter:
            return [.return]
        case .shift:
            tapShift(at: time)
            return []
        case .page(let kind):
            pageKind = kind
            if shift == .once { shift = .off }
            return []
        case .nextLayout:
            layoutIndex = (layoutIndex + 1) % layoutCount
            shift = .off
            lastShiftTap = nil
            return []
        }
    }

    /// A press ended without typing (the touch was cancelled, or left the keyboard).
    public mutating func cancel(_ action: KeyAction) {
        if action == .backspace { backspaceDown = nil }
    }

    /// The backspace repeats due by `time` and not reported yet.
    public mutating func advance(to time: Double) -> [KeyboardOutput] {
        guard let down = backspaceDown else { return [] }
        let held = time - down - repeatDelay
        // A tolerance for times that are exact multiples on paper but not in binary.
        let due = held < -1e-9 ? 0 : Int((held * repeatRate + 1e-9).rounded(.down)) + 1
        let new = max(0, due - repeatsReported)
        repeatsReported += new
        return Array(repeating: .deleteBackward, count: new)
    }

    private mutating func tapShift(at time: Double) {
        switch shift {
        case .off:
            shift = .once
            lastShiftTap = time
        case .once:
            if let last = lastShiftTap, time - last <= doubleTapInterval {
                shift = .locked
            } else {
                shift = .off
            }
            lastShiftTap = nil
        case .locked:
            shift = .off
        }
    }
}
