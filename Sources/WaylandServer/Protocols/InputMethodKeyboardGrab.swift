import SystemCalls
import WaylandProtocols

extension SeatGlobal {
    /// The keyboard grab physical keys go to instead of the keyboard focus: the seat's input
    /// method's, while it holds one.
    var activeKeyboardGrab: InputMethodKeyboardGrab? {
        guard let grab = inputMethod?.keyboardGrab, grab.isGrabbing else { return nil }
        return grab
    }

    /// `grab` starts: it gets the seat's keymap, key repeat and modifiers; physical keys follow.
    func startKeyboardGrab(_ grab: InputMethodKeyboardGrab) {
        grab.isGrabbing = true
        if let keymap = compiledSeatKeymap() { grab.sendKeymap(keymap) }
        grab.send(.repeatInfo(rate: keyboard.repeatRate, delay: keyboard.repeatDelay))
        grab.sendModifiers(serial: display.nextSerial(), keyboard.modifiers)
    }
}

/// zwp_input_method_keyboard_grab_v2: an input method's hold on the seat's physical keyboard (to
/// compose text from keys, as CJK input methods do). While it lasts, physical keys and their
/// modifiers go to it, in the seat's keymap, instead of to the focused client; keys typed through
/// virtual keyboards (the input method's own forwarding among them) still reach the focus.
public final class InputMethodKeyboardGrab: Resource, RequestHandler {
    private weak var inputMethod: InputMethod?
    /// Whether keys come to it: from its start until it or its input method ends.
    var isGrabbing = false
    /// The keymap last sent, so that it is not sent again for every key.
    private weak var sentKeymap: Keymap?

    init(client: Client, version: UInt32, id: UInt32, inputMethod: InputMethod) {
        self.inputMethod = inputMethod
        super.init(InputMethodKeyboardGrab.self, client: client, version: version, id: id)
    }

    func sendKeymap(_ keymap: Keymap) {
        guard sentKeymap !== keymap else { return }
        sentKeymap = keymap
        send(.keymap(format: .xkbV1, fd: FileDescriptor(rawValue: keymap.file), size: keymap.size))
    }

    func sendModifiers(serial: UInt32, _ modifiers: KeyboardModifiers) {
        send(.modifiers(serial: serial, modsDepressed: modifiers.depressed, modsLatched: modifiers.latched,
                        modsLocked: modifiers.locked, group: modifiers.group))
    }

    /// No more keys come (its input method went away; the client may still release it).
    func end() {
        isGrabbing = false
    }

    func handle(_ request: Request) {
        switch request {
        case .release: destroy()
        }
    }

    override func destroyed() {
        end()
        inputMethod?.released(self)
    }
}
