internal import CLinux
internal import CXKBCommon
import Glibc
public import SystemCalls

/// A keymap xkbcommon could not make.
public enum KeymapError: Error, Equatable, CustomStringConvertible {
    /// No keymap compiles from these RMLVO names (an unknown layout, variant, model or option).
    case unknownNames(rules: String?, model: String?, layout: String?, variant: String?, options: String?)
    /// xkbcommon could not start (no memory, or no XKB data where it looks).
    case contextUnavailable
    /// The keymap could not be put in a sealed memory file for clients.
    case memoryFile(SystemCallError)
    /// A client's keymap text does not compile.
    case invalidText

    public var description: String {
        switch self {
        case let .unknownNames(rules, model, layout, variant, options):
            let names = [("layout", layout), ("variant", variant), ("model", model), ("options", options), ("rules", rules)]
                .compactMap { name, value in value.map { "\(name) \"\($0)\"" } }
            return "xkbcommon has no keymap for " + (names.isEmpty ? "the default names" : names.joined(separator: ", "))
        case .contextUnavailable:
            return "xkbcommon could not create a context"
        case .memoryFile(let error):
            return "the keymap could not be shared: \(error)"
        case .invalidText:
            return "the keymap text does not compile"
        }
    }
}

/// The modifier state wl_keyboard.modifiers carries: xkb modifier masks and the effective layout.
public struct KeyboardModifiers: Hashable, Sendable {
    public var depressed: UInt32
    public var latched: UInt32
    public var locked: UInt32
    public var group: UInt32

    public init(depressed: UInt32 = 0, latched: UInt32 = 0, locked: UInt32 = 0, group: UInt32 = 0) {
        self.depressed = depressed
        self.latched = latched
        self.locked = locked
        self.group = group
    }
}

/// A named modifier, for the compositor's shortcuts (xkb's modifier names).
public enum KeyboardModifier: String, Sendable, CaseIterable {
    case shift = "Shift"
    case capsLock = "Lock"
    case control = "Control"
    case alt = "Mod1"
    case numLock = "Mod2"
    case logo = "Mod4"
}

/// An XKB keysym (the symbol a key produces, e.g. "A" or "Return").
public struct Keysym: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The keysym named `name` ("Return", "a", "F1"); nil when xkbcommon knows no such name.
    public init?(named name: String) {
        let value = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS)
        guard value != 0 else { return nil }
        rawValue = value
    }

    public var name: String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard xkb_keysym_get_name(rawValue, &buffer, buffer.count) > 0 else { return String(rawValue) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { name }

    /// The character the keysym types (`a`, `Z`, `€`), nil for keys that type none (Shift, F1).
    public var character: Character? {
        let scalar = xkb_keysym_to_utf32(rawValue)
        guard scalar >= 0x20, scalar != 0x7F, let unicode = Unicode.Scalar(scalar) else { return nil }
        return Character(unicode)
    }
}

/// A compiled xkb keymap and its text in a sealed memory file, shared read-only with every client.
final class Keymap {
    let raw: OpaquePointer
    /// A sealed memfd holding the keymap text and its NUL (libwayland duplicates it per event).
    let file: Int32
    let size: UInt32

    /// Compiles the keymap for RMLVO names; nil names take xkbcommon's (and XKB_DEFAULT_*) defaults.
    convenience init(rules: String? = nil, model: String? = nil, layout: String? = nil, variant: String? = nil,
                     options: String? = nil) throws(KeymapError) {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { throw .contextUnavailable }
        defer { xkb_context_unref(context) }
        let strings = [rules, model, layout, variant, options].map { $0.flatMap { strdup($0) } }
        defer { strings.forEach { free($0) } }
        var names = xkb_rule_names(rules: strings[0], model: strings[1], layout: strings[2],
                                   variant: strings[3], options: strings[4])
        guard let keymap = xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS) else {
            throw .unknownNames(rules: rules, model: model, layout: layout, variant: variant, options: options)
        }
        try self.init(compiled: keymap)
    }

    /// Compiles xkb_v1 keymap text (a virtual keyboard's); clients get it as xkbcommon writes it
    /// back, never the bytes the sender gave.
    convenience init(text: [UInt8]) throws(KeymapError) {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { throw .contextUnavailable }
        defer { xkb_context_unref(context) }
        // The text may or may not end with its NUL; xkbcommon wants the length without it.
        let length = text.firstIndex(of: 0) ?? text.count
        let compiled = text.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.flatMap { base in
                base.withMemoryRebound(to: CChar.self, capacity: length) {
                    xkb_keymap_new_from_buffer(context, $0, length, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS)
                }
            }
        }
        guard let compiled else { throw .invalidText }
        try self.init(compiled: compiled)
    }

    /// Takes `keymap` (released on failure) and shares its text in a sealed memory file.
    private init(compiled keymap: OpaquePointer) throws(KeymapError) {
        guard let text = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) else {
            xkb_keymap_unref(keymap)
            throw .memoryFile(SystemCallError("xkb_keymap_get_as_string", errno: .noMemory))
        }
        defer { free(text) }
        let length = strlen(text) + 1
        do {
            file = try makeSealedMemoryFile(name: "vitrine-keymap", bytes: UnsafeRawBufferPointer(start: text, count: length))
        } catch {
            xkb_keymap_unref(keymap)
            throw .memoryFile(error)
        }
        raw = keymap
        size = UInt32(length)
    }

    deinit {
        xkb_keymap_unref(raw)
        close(file)
    }
}

/// The xkb state of one keymap: which keys are down and what that makes of the modifiers.
final class KeyState {
    private let raw: OpaquePointer

    init?(keymap: Keymap) {
        guard let state = xkb_state_new(keymap.raw) else { return nil }
        raw = state
    }

    deinit {
        xkb_state_unref(raw)
    }

    /// Sets the modifier and layout state outright (a virtual keyboard's modifiers request).
    func update(_ modifiers: KeyboardModifiers) {
        xkb_state_update_mask(raw, modifiers.depressed, modifiers.latched, modifiers.locked, 0, 0, modifiers.group)
    }

    /// Applies an evdev key press or release (xkb keycodes are evdev + 8).
    func update(key: UInt32, pressed: Bool) {
        xkb_state_update_key(raw, key + 8, pressed ? XKB_KEY_DOWN : XKB_KEY_UP)
    }

    var modifiers: KeyboardModifiers {
        KeyboardModifiers(
            depressed: xkb_state_serialize_mods(raw, XKB_STATE_MODS_DEPRESSED),
            latched: xkb_state_serialize_mods(raw, XKB_STATE_MODS_LATCHED),
            locked: xkb_state_serialize_mods(raw, XKB_STATE_MODS_LOCKED),
            group: xkb_state_serialize_layout(raw, XKB_STATE_LAYOUT_EFFECTIVE))
    }

    func isActive(_ modifier: KeyboardModifier) -> Bool {
        xkb_state_mod_name_is_active(raw, modifier.rawValue, XKB_STATE_MODS_EFFECTIVE) == 1
    }

    /// The keysyms evdev `key` produces in this state.
    func keysyms(forKey key: UInt32) -> [Keysym] {
        var symbols: UnsafePointer<xkb_keysym_t>?
        let count = xkb_state_key_get_syms(raw, key + 8, &symbols)
        guard count > 0, let symbols else { return [] }
        return (0..<Int(count)).map { Keysym(rawValue: symbols[$0]) }
    }
}
