import SystemCalls
import WaylandProtocols

/// The seat's keyboard: focus, pressed keys, keymap and modifier state.
struct KeyboardState {
    /// Strong, not weak (docs/architecture.md: a weak reference would give the surface, which
    /// every frame retains, a side table): let go of when focus moves or the surface is destroyed
    /// (`SeatGlobal.keyboardFocusDestroyed`).
    var focus: Surface?
    /// Keys down, in the order they went down (evdev codes).
    var keys: [UInt32] = []
    /// The seat's own keymap, the physical keyboards'.
    var seatKeymap: SeatKeymap
    /// The keymap clients were sent last: the seat's, or a virtual keyboard's while it types; nil
    /// until one of them is needed.
    var keymap: Keymap?
    var state: KeyState?
    /// The modifiers as last computed (and sent to the focus).
    var modifiers = KeyboardModifiers()
    var repeatRate: Int32 = 25
    var repeatDelay: Int32 = 600

    init(layout: String?) {
        seatKeymap = .uncompiled(layout: layout)
    }
}

/// The seat's keymap is compiled when something first needs it (a wl_keyboard, a physical key, an
/// input method's grab, a shortcut's keysyms), not when the seat is made: xkbcommon takes longer
/// for it than the rest of the compositor's start-up, and a kiosk whose app binds no keyboard
/// may never need it.
enum SeatKeymap {
    case uncompiled(layout: String?)
    case compiled(Keymap)
    /// Compiling it failed (the handler was told): keyboards get no_keymap.
    case unavailable

    var compiled: Keymap? {
        guard case .compiled(let keymap) = self else { return nil }
        return keymap
    }
}

extension SeatGlobal {
    /// Compiles the keymap for these RMLVO names (nil: xkbcommon's defaults) and sends it to every
    /// keyboard; the keys still down are applied to the new modifier state.
    public func setKeymap(rules: String? = nil, model: String? = nil, layout: String? = nil, variant: String? = nil,
                          options: String? = nil) throws(KeymapError) {
        let keymap = try Keymap(rules: rules, model: model, layout: layout, variant: variant, options: options)
        keyboard.seatKeymap = .compiled(keymap)
        activate(keymap)
    }

    /// The seat's keymap, compiled now when nothing needed it before; it becomes the one keys
    /// are interpreted with when none is yet. Nil when it does not compile.
    func compiledSeatKeymap() -> Keymap? {
        switch keyboard.seatKeymap {
        case .compiled(let keymap):
            return keymap
        case .unavailable:
            return nil
        case .uncompiled(let layout):
            let keymap: Keymap
            do {
                keymap = try Keymap(layout: layout)
            } catch {
                keyboard.seatKeymap = .unavailable
                handler?.keymapUnavailable(self, error: error)
                return nil
            }
            keyboard.seatKeymap = .compiled(keymap)
            if keyboard.keymap == nil {
                // No keyboard was sent a keymap yet and no key went down: the state a seat starts with.
                keyboard.keymap = keymap
                keyboard.state = KeyState(keymap: keymap)
            }
            return keymap
        }
    }

    /// Makes `keymap` the one keys are interpreted with and sends it to every keyboard, unless it
    /// already is; the keys still down are applied to the new modifier state.
    private func activate(_ keymap: Keymap) {
        guard keyboard.keymap !== keymap else { return }
        keyboard.keymap = keymap
        keyboard.state = KeyState(keymap: keymap)
        for key in keyboard.keys { keyboard.state?.update(key: key, pressed: true) }
        for resource in allKeyboards() { resource.sendKeymap(keymap) }
        if keymap === keyboard.seatKeymap.compiled { activeKeyboardGrab?.sendKeymap(keymap) }
        updateModifiers()
    }

    /// Key repeat for clients (wl_keyboard.repeat_info, version 4): `rate` keys a second (0: no
    /// repeat) after `delay` milliseconds.
    public func setKeyRepeat(rate: Int32, delay: Int32) {
        keyboard.repeatRate = rate
        keyboard.repeatDelay = delay
        for resource in allKeyboards() { resource.sendRepeatInfo(rate: rate, delay: delay) }
        activeKeyboardGrab?.send(.repeatInfo(rate: rate, delay: delay))
    }

    public var keyRepeatRate: Int32 { keyboard.repeatRate }
    public var keyRepeatDelay: Int32 { keyboard.repeatDelay }

    /// The surface with keyboard focus.
    public var keyboardFocus: Surface? {
        guard let focus = keyboard.focus, focus.isAlive else { return nil }
        return focus
    }

    /// Keys down (evdev codes), as `keyboardKey` reported them.
    public var pressedKeys: [UInt32] { keyboard.keys }

    /// The modifier state after the keys reported so far.
    public var keyboardModifiers: KeyboardModifiers { keyboard.modifiers }

    /// Whether `modifier` is in effect (depressed, latched or locked), for shortcuts. None is
    /// before a keymap is in use: no key went down.
    public func isModifierActive(_ modifier: KeyboardModifier) -> Bool {
        keyboard.state?.isActive(modifier) ?? false
    }

    /// The keysyms evdev `key` produces with the current modifiers, for shortcuts.
    public func keysyms(forKey key: UInt32) -> [Keysym] {
        if keyboard.keymap == nil { _ = compiledSeatKeymap() }
        return keyboard.state?.keysyms(forKey: key) ?? []
    }

    /// Moves keyboard focus to `surface`: leave to the previous focus; the selections to the new
    /// client when the client changes; then enter with `pressedKeys` (nil: the keys the seat knows
    /// are down) and the modifiers. Entering the focused surface again does nothing.
    public func keyboardEnter(_ surface: Surface, pressedKeys: [UInt32]? = nil) {
        let previous = keyboardFocus
        guard previous !== surface else { return }
        if let previous { sendKeyboardLeave(previous) }
        keyboard.focus = surface
        if previous?.client !== surface.client {
            sendSelection(to: surface.client)
            sendPrimarySelection(to: surface.client)
        }
        let target = seatClient(for: surface.client)
        let keys = pressedKeys ?? keyboard.keys
        let serial = display.nextSerial()
        target.record(serial)
        for resource in target.keyboards { resource.sendEnter(serial: serial, surface: surface, keys: keys) }
        sendModifiers(to: target)
        moveTextInputFocus(to: surface)
    }

    /// Takes keyboard focus away.
    public func keyboardLeave() {
        guard let previous = keyboardFocus else { return }
        sendKeyboardLeave(previous)
        keyboard.focus = nil
        moveTextInputFocus(to: nil)
    }

    /// A key (evdev code, e.g. KEY_A 30) went down or up; returns the key event's serial. Updates the
    /// modifier state and sends modifiers after the key when they changed. The key goes to the
    /// input method's keyboard grab while there is one, else to the keyboard focus.
    @discardableResult
    public func keyboardKey(time: UInt32, key: UInt32, pressed: Bool) -> UInt32 {
        if let seatKeymap = compiledSeatKeymap() { activate(seatKeymap) }
        return deliverKey(time: time, key: key, pressed: pressed, to: activeKeyboardGrab)
    }

    /// A virtual keyboard's key, interpreted with its `keymap` (sent to the clients first when
    /// another one was in use).
    @discardableResult
    func keyboardKey(time: UInt32, key: UInt32, pressed: Bool, keymap: Keymap) -> UInt32 {
        activate(keymap)
        return deliverKey(time: time, key: key, pressed: pressed)
    }

    /// A virtual keyboard's modifier and layout state, in its `keymap`.
    func keyboardModifiers(_ modifiers: KeyboardModifiers, keymap: Keymap) {
        activate(keymap)
        keyboard.state?.update(modifiers)
        updateModifiers()
    }

    private func deliverKey(time: UInt32, key: UInt32, pressed: Bool, to grab: InputMethodKeyboardGrab? = nil) -> UInt32 {
        let serial = display.nextSerial()
        let wasDown = keyboard.keys.contains(key)
        if pressed && !wasDown {
            keyboard.keys.append(key)
            keyboard.state?.update(key: key, pressed: true)
        } else if !pressed && wasDown {
            keyboard.keys.removeAll { $0 == key }
            keyboard.state?.update(key: key, pressed: false)
        }
        if let grab {
            seatClient(for: grab.client).record(serial)
            grab.send(.key(serial: serial, time: time, key: key, state: pressed ? .pressed : .released))
        } else if let focus = keyboardFocus {
            let target = seatClient(for: focus.client)
            target.record(serial)
            for resource in target.keyboards {
                resource.send(.key(serial: serial, time: time, key: key, state: pressed ? .pressed : .released))
            }
        }
        updateModifiers(to: grab)
        return serial
    }

    /// The client's new wl_keyboard gets the keymap, repeat info, and the focus it already has.
    func added(_ resource: KeyboardResource) {
        let target = seatClient(for: resource.client)
        target.keyboards.append(resource)
        if keyboard.keymap == nil { _ = compiledSeatKeymap() }
        resource.sendKeymap(keyboard.keymap)
        resource.sendRepeatInfo(rate: keyboard.repeatRate, delay: keyboard.repeatDelay)
        guard let focus = keyboardFocus, focus.client === resource.client else { return }
        let serial = display.nextSerial()
        target.record(serial)
        resource.sendEnter(serial: serial, surface: focus, keys: keyboard.keys)
        let modifiersSerial = display.nextSerial()
        target.record(modifiersSerial)
        resource.sendModifiers(serial: modifiersSerial, keyboard.modifiers)
    }

    /// Sends changed modifiers to `grab`, or without one to the keyboard focus.
    private func updateModifiers(to grab: InputMethodKeyboardGrab? = nil) {
        guard let modifiers = keyboard.state?.modifiers, modifiers != keyboard.modifiers else { return }
        keyboard.modifiers = modifiers
        if let grab {
            grab.sendModifiers(serial: display.nextSerial(), modifiers)
        } else if let focus = keyboardFocus {
            sendModifiers(to: seatClient(for: focus.client))
        }
    }

    private func sendModifiers(to target: SeatClient) {
        let serial = display.nextSerial()
        target.record(serial)
        for resource in target.keyboards { resource.sendModifiers(serial: serial, keyboard.modifiers) }
    }

    private func sendKeyboardLeave(_ surface: Surface) {
        let serial = display.nextSerial()
        let target = seatClient(for: surface.client)
        target.record(serial)
        for resource in target.keyboards { resource.send(.leave(serial: serial, surface: surface)) }
    }

    private func allKeyboards() -> [KeyboardResource] {
        display.connectedClients.flatMap { existingSeatClient(for: $0)?.keyboards ?? [] }
    }
}

/// One client's wl_keyboard.
final class KeyboardResource: Resource, RequestHandler {
    private weak var seat: SeatGlobal?

    init(client: Client, version: UInt32, id: UInt32, seat: SeatGlobal?) {
        self.seat = seat
        super.init(KeyboardResource.self, client: client, version: version, id: id)
    }

    /// The keymap as xkb_v1 text in a sealed file, or no_keymap (with an empty file) without one.
    func sendKeymap(_ keymap: Keymap?) {
        if let keymap {
            send(.keymap(format: .xkbV1, fd: FileDescriptor(rawValue: keymap.file), size: keymap.size))
            return
        }
        guard let empty = try? FileDescriptor.open("/dev/null", .readOnly, options: .closeOnExec) else { return }
        send(.keymap(format: .noKeymap, fd: empty, size: 0))
        try? empty.close()
    }

    func sendRepeatInfo(rate: Int32, delay: Int32) {
        send(.repeatInfo(rate: rate, delay: delay))
    }

    func sendEnter(serial: UInt32, surface: Surface, keys: [UInt32]) {
        let bytes = keys.flatMap { key in withUnsafeBytes(of: key) { Array($0) } }
        send(.enter(serial: serial, surface: surface, keys: bytes))
    }

    func sendModifiers(serial: UInt32, _ modifiers: KeyboardModifiers) {
        send(.modifiers(serial: serial, modsDepressed: modifiers.depressed, modsLatched: modifiers.latched,
                        modsLocked: modifiers.locked, group: modifiers.group))
    }

    func handle(_ request: Request) {
        switch request {
        case .release: destroy()
        }
    }

    override func destroyed() {
        seat?.existingSeatClient(for: client)?.keyboards.removeAll { $0 === self }
    }
}
