import BoardConfig
import Compositor
import Graphics
import LayerKit
import OnScreenKeyboard
import Signals
import WaylandServer

/// The compositor's input method: the on-screen keyboard over the primary output's windows (under
/// the kiosk overlay), shown while the focused client has a text input enabled, typing into it.
/// It follows the windows to a new primary output, placed again for its size and scale, and waits
/// for the next output while there is none.
///
/// Characters go to the client as text-input commit strings; backspace deletes the character
/// before the cursor through delete_surrounding_text where the client reports the text around the
/// cursor, and is a real KEY_BACKSPACE otherwise; return is a real KEY_ENTER (a field's
/// activation is a key event to toolkits). While shown, the windows move up just enough for the
/// field's cursor rectangle to stay above the keyboard. It stays hidden while a keyboard to type
/// on is plugged in, when the board says so, and while a client input method (zwp_input_method_v2,
/// such as squeekboard) serves the seat.
public final class OnScreenKeyboardController: TextInputHandler {
    public let view: OnScreenKeyboardView
    private let compositor: Compositor
    private let hidesWhenKeyboardAttached: Bool
    /// The enabled text input it types into.
    public private(set) weak var textInput: TextInput?
    /// The purpose and hints the keyboard was last shown for: a commit that changes neither
    /// leaves its page and shift as they are.
    private var shownFor: (purpose: ContentPurpose, hidesText: Bool)?
    private var placedIn = (size: Size.zero, scale: 0.0)
    /// The keyboard's hold on the primary output changing and on client input methods coming and going.
    private var listeners: [SignalListener] = []
    /// Called after each character, deletion or key the keyboard sent to the client (flushed with
    /// the loop iteration that follows): for measuring tap-to-commit latency.
    public var onDelivered: ((KeyboardOutput) -> Void)?

    /// evdev key codes.
    static let keyBackspace: UInt32 = 14
    static let keyEnter: UInt32 = 28

    /// Makes the keyboard for `settings` and becomes `compositor`'s text-input handler.
    public init(compositor: Compositor, settings: OnScreenKeyboardSettings) {
        self.compositor = compositor
        hidesWhenKeyboardAttached = settings.hidesWhenKeyboardAttached
        view = OnScreenKeyboardView(configuration: Self.configuration(for: settings))
        compositor.addViewAboveWindows(view)
        placeIfNeeded()
        view.onOutput = { [unowned self] output in deliver(output) }
        compositor.textInputManager.handler = self
        compositor.typingKeyboardAttachmentChanged = { [unowned self] _ in update() }
        listeners = [
            compositor.primaryOutputChanged.listen { [unowned self] in primaryOutputChanged() },
            compositor.inputMethodChanged.listen { [unowned self] in update() },
        ]
    }

    /// The keyboard's configuration for the board's settings: its layouts, height and colours.
    public static func configuration(for settings: OnScreenKeyboardSettings) -> OnScreenKeyboardConfiguration {
        let layouts = settings.layouts.compactMap(KeyboardLayout.named)
        var configuration = OnScreenKeyboardConfiguration(layouts: layouts.isEmpty ? [.us] : layouts)
        if let share = settings.heightShare {
            configuration.landscapeHeightShare = share
            configuration.portraitHeightShare = share
        }
        let colors: [(RGBColor?, WritableKeyPath<KeyboardTheme, Color>)] = [
            (settings.background, \.background), (settings.keyColor, \.key), (settings.specialKeyColor, \.specialKey),
            (settings.textColor, \.text), (settings.pressedColor, \.pressed),
        ]
        for case let (rgb?, path) in colors {
            configuration.theme[keyPath: path] = Color(
                red: Double(rgb.red) / 255, green: Double(rgb.green) / 255, blue: Double(rgb.blue) / 255, alpha: 1)
        }
        return configuration
    }

    /// Once per loop iteration, `now` in seconds of CLOCK_MONOTONIC (the input events' clock):
    /// backspace repeats, and a new size or scale of the output.
    public func tick(now: Double) {
        placeIfNeeded()
        view.tick(now: now)
    }

    /// When `tick(now:)` next has a backspace repeat to send (seconds); nil: none. A new size or
    /// scale of the output comes with an event, which runs a loop iteration anyway.
    public var nextTickTime: Double? { view.nextTickTime }

    // MARK: - TextInputHandler

    public func textInputEnabled(_ textInput: TextInput) {
        self.textInput = textInput
        shownFor = nil
        update()
    }

    public func textInputStateChanged(_ textInput: TextInput) {
        guard textInput === self.textInput else { return }
        update()
    }

    public func textInputDisabled(_ textInput: TextInput) {
        guard textInput === self.textInput else { return }
        self.textInput = nil
        update()
    }

    // MARK: -

    /// Onto the new primary output's views, directly above its windows (none: off every output).
    private func primaryOutputChanged() {
        view.removeFromSuperview()
        compositor.addViewAboveWindows(view)
        placedIn = (.zero, 0)
        placeIfNeeded()
    }

    private func placeIfNeeded() {
        guard let root = compositor.primaryRootView, root.bounds.size != placedIn.size || root.scaleFactor != placedIn.scale else { return }
        placedIn = (root.bounds.size, root.scaleFactor)
        view.place(in: root.bounds, scale: root.scaleFactor)
        updateWindowShift()
    }

    /// Shows the keyboard for the enabled text input's field, or hides it.
    private func update() {
        guard let textInput, textInput.isEnabled, compositor.seat.inputMethod == nil,
              !(hidesWhenKeyboardAttached && compositor.isTypingKeyboardAttached) else {
            shownFor = nil
            view.hide(animated: true)
            updateWindowShift()
            return
        }
        let hints = textInput.state.contentHints
        let field = (purpose: ContentPurpose(textInput.state.contentPurpose),
                     hidesText: !hints.isDisjoint(with: [.hiddenText, .sensitiveData]))
        if shownFor.map({ $0 != field }) ?? true {
            shownFor = field
            view.show(for: field.purpose, hidesText: field.hidesText, animated: true)
        }
        updateWindowShift()
    }

    /// How far the windows must move up for the cursor rectangle to clear the keyboard: the
    /// rectangle's bottom to the keyboard's top, where both are once the slides end.
    public var neededWindowShift: Double {
        guard view.isShown, let textInput, let surface = textInput.surface, let cursor = textInput.state.cursorRectangle,
              let rect = compositor.outputRect(
                Rect(x: Double(cursor.x), y: Double(cursor.y), width: Double(cursor.width), height: Double(cursor.height)),
                ofSurface: surface) else { return 0 }
        let keyboardTop = view.container.maxY - view.frame.height
        return min(max(0, rect.maxY - keyboardTop), view.frame.height)
    }

    private func updateWindowShift() {
        compositor.setWindowShift(neededWindowShift, duration: view.configuration.slideDuration)
    }

    private func deliver(_ output: KeyboardOutput) {
        guard let textInput, textInput.isEnabled else { return }
        switch output {
        case .insert(let text):
            textInput.send(commitString: text)
        case .deleteBackward:
            if let length = Self.previousCharacterLength(in: textInput.state.surroundingText) {
                textInput.send(deleteBefore: UInt32(length))
            } else {
                compositor.typeKey(Self.keyBackspace)
            }
        case .return:
            compositor.typeKey(Self.keyEnter)
        }
        onDelivered?(output)
    }

    /// The UTF-8 length of the character before the cursor; nil when the client reports no text,
    /// or a selection (a backspace key deletes the selection as the client sees fit), or the
    /// cursor is at the start.
    static func previousCharacterLength(in surrounding: SurroundingText?) -> Int? {
        guard let surrounding, surrounding.cursor == surrounding.anchor, surrounding.cursor > 0 else { return nil }
        let before = String(decoding: surrounding.text.utf8.prefix(surrounding.cursor), as: UTF8.self)
        return before.last.map { String($0).utf8.count }
    }
}

extension ContentPurpose {
    /// The keyboard's name for a text-input content purpose.
    init(_ purpose: TextContentPurpose) {
        self = switch purpose {
        case .normal: .normal
        case .alpha: .alpha
        case .digits: .digits
        case .number: .number
        case .phone: .phone
        case .url: .url
        case .email: .email
        case .name: .name
        case .password: .password
        case .pin: .pin
        case .date: .date
        case .time: .time
        case .dateTime: .dateTime
        case .terminal: .terminal
        }
    }
}
