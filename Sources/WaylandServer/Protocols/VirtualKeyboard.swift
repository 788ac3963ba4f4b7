import WaylandProtocols

/// zwp_virtual_keyboard_v1: a client's keyboard. Its keys and modifiers go to the seat's keyboard
/// focus as a physical keyboard's do, with its own keymap (the seat sends that keymap to the
/// clients first, and its own again when a physical key follows). Keys it leaves down are
/// released when it goes.
final class VirtualKeyboard: Resource, RequestHandler {
    /// The largest keymap read: Debian's largest layouts are under 100 KiB written out.
    static let maximumKeymapSize = 1 << 20
    /// The highest evdev key code (KEY_MAX).
    static let maximumKey: UInt32 = 0x2ff

    private weak var seat: SeatGlobal?
    private var keymap: Keymap?
    /// Keys this keyboard holds down.
    private var pressed: [UInt32] = []
    /// The time of its last key, on the client's clock: the releases when it goes carry it.
    private var lastTime: UInt32 = 0

    init(client: Client, version: UInt32, id: UInt32, seat: SeatGlobal?) {
        self.seat = seat
        super.init(VirtualKeyboard.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .keymap(let format, let fd, let size):
            guard format == .xkbV1 else {
                throw ProtocolError(ZwpVirtualKeyboardV1Error.noKeymap, "keymap format \(format.rawValue) is not xkb_v1")
            }
            guard let text = clientFileContents(fd.fileDescriptor, size: size, limit: Self.maximumKeymapSize) else {
                throw ProtocolError(ZwpVirtualKeyboardV1Error.noKeymap,
                                    "the keymap is not a regular file of \(size) bytes (at most \(Self.maximumKeymapSize))")
            }
            do {
                keymap = try Keymap(text: text)
            } catch {
                throw ProtocolError(ZwpVirtualKeyboardV1Error.noKeymap, "keymap: \(error)")
            }
        case .key(let time, let key, let state):
            let keymap = try requireKeymap("key")
            guard key <= Self.maximumKey, state <= 1 else {
                // The protocol names no error for these; code 0 is its only one.
                throw ProtocolError(ZwpVirtualKeyboardV1Error.noKeymap, "key \(key) state \(state) is not an evdev key press or release")
            }
            lastTime = time
            let isPressed = state == 1
            if isPressed, !pressed.contains(key) { pressed.append(key) } else if !isPressed { pressed.removeAll { $0 == key } }
            seat?.keyboardKey(time: time, key: key, pressed: isPressed, keymap: keymap)
        case .modifiers(let depressed, let latched, let locked, let group):
            let keymap = try requireKeymap("modifiers")
            seat?.keyboardModifiers(KeyboardModifiers(depressed: depressed, latched: latched, locked: locked, group: group), keymap: keymap)
        case .destroy: destroy()
        }
    }

    private func requireKeymap(_ request: String) throws(ProtocolError) -> Keymap {
        guard let keymap else { throw ProtocolError(ZwpVirtualKeyboardV1Error.noKeymap, "\(request) before a keymap") }
        return keymap
    }

    override func destroyed() {
        guard let keymap, let seat else { return }
        for key in pressed { seat.keyboardKey(time: lastTime, key: key, pressed: false, keymap: keymap) }
        pressed = []
    }
}
