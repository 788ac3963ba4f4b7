import WaylandProtocols

/// What a text field is for (zwp_text_input_v3.content_purpose): an input method picks its
/// layout from it (digits and PINs get a numeric pad).
public enum TextContentPurpose: UInt32, Hashable, Sendable, CaseIterable {
    case normal = 0
    case alpha = 1
    case digits = 2
    /// A number with decimal separator and sign.
    case number = 3
    case phone = 4
    case url = 5
    case email = 6
    /// A person's name.
    case name = 7
    case password = 8
    /// A numeric password.
    case pin = 9
    case date = 10
    case time = 11
    case dateTime = 12
    case terminal = 13
}

/// How an input method should behave in a text field (zwp_text_input_v3.content_hint).
public struct TextContentHints: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let completion = TextContentHints(rawValue: 0x1)
    public static let spellcheck = TextContentHints(rawValue: 0x2)
    /// Uppercase at the start of a sentence.
    public static let autoCapitalization = TextContentHints(rawValue: 0x4)
    public static let lowercase = TextContentHints(rawValue: 0x8)
    public static let uppercase = TextContentHints(rawValue: 0x10)
    public static let titlecase = TextContentHints(rawValue: 0x20)
    /// The characters are hidden (show no preview of typed keys).
    public static let hiddenText = TextContentHints(rawValue: 0x40)
    /// Typed text must not be stored (no learning, no history).
    public static let sensitiveData = TextContentHints(rawValue: 0x80)
    public static let latin = TextContentHints(rawValue: 0x100)
    public static let multiline = TextContentHints(rawValue: 0x200)
}

/// Why the surrounding text or cursor changed (zwp_text_input_v3.change_cause).
public enum TextChangeCause: UInt32, Hashable, Sendable {
    /// The input method's own events did it (the initial value, and the value after each commit).
    case inputMethod = 0
    /// Something else did (the user typed on a physical keyboard, the application changed it):
    /// the input method should drop its preedit.
    case other = 1
}

/// The text around the cursor of a text field. Offsets count UTF-8 bytes from the start of
/// `text` and always lie on a character boundary (the server checks them).
public struct SurroundingText: Hashable, Sendable {
    public var text: String
    public var cursor: Int
    /// The other end of the selection; equal to `cursor` when nothing is selected.
    public var anchor: Int

    public init(text: String, cursor: Int, anchor: Int) {
        self.text = text
        self.cursor = cursor
        self.anchor = anchor
    }
}

/// A text input's committed state, as the protocol's initial values when the client sent nothing.
public struct TextInputState: Hashable, Sendable {
    /// nil: the client does not report the text around the cursor.
    public var surroundingText: SurroundingText?
    public var changeCause: TextChangeCause = .inputMethod
    public var contentHints: TextContentHints = []
    public var contentPurpose: TextContentPurpose = .normal
    /// The area around the cursor in the focused surface's coordinates; nil when the client does
    /// not report it. Keep it uncovered (a keyboard that would hide it moves or shrinks the window).
    public var cursorRectangle: IntRect?

    public init() {}
}

/// Composing text for `TextInput.send`: shown at the cursor until the next `send` replaces it.
public struct TextInputPreedit: Hashable, Sendable {
    public var text: String
    /// The cursor or highlighted range inside `text`, in UTF-8 bytes; both -1 hide the cursor.
    public var cursorBegin: Int32
    public var cursorEnd: Int32

    public init(text: String, cursorBegin: Int32, cursorEnd: Int32) {
        self.text = text
        self.cursorBegin = cursorBegin
        self.cursorEnd = cursorEnd
    }
}

/// The seat's text-input focus, which follows its keyboard focus (see `moveTextInputFocus`).
struct TextInputFocusState {
    /// The keyboard focus, held as `KeyboardState.focus` is.
    var focus: Surface?
    /// Lets go of the keyboard focus when it is destroyed.
    var focusDestruction: ResourceDestructionListener?
    /// The one enabled text input of the seat.
    weak var active: TextInput?
}

extension SeatGlobal {
    /// The enabled text input of the client with keyboard focus, if any: the one the input
    /// method types into.
    public var activeTextInput: TextInput? { textInput.active }

    /// Text-input focus goes where keyboard focus goes: leave to the text inputs on the previous
    /// surface, enter to every text input of the new surface's client for this seat.
    func moveTextInputFocus(to surface: Surface?) {
        let previous = textInput.focus
        guard previous !== surface else { return }
        textInput.focus = surface
        textInput.focusDestruction = surface.map { surface in
            ResourceDestructionListener(surface) { [weak self] in self?.keyboardFocusDestroyed() }
        }
        if let previous {
            for input in textInputs(of: previous.client) where input.surface === previous { input.leave() }
        }
        if let surface {
            for input in textInputs(of: surface.client) { input.enter(surface) }
        }
    }

    /// The focused surface is going away: the seat lets go of it (it had no keyboard focus from
    /// then on anyway), and its text inputs lose focus without a leave event, which could not name
    /// the destroyed surface.
    private func keyboardFocusDestroyed() {
        guard let surface = textInput.focus else { return }
        textInput.focus = nil
        if keyboard.focus === surface { keyboard.focus = nil }
        for input in textInputs(of: surface.client) where input.surface === surface { input.loseFocus() }
    }

    /// A new text input starts focused when its client already has the focus.
    func added(_ input: TextInput) {
        seatClient(for: input.client).textInputs.append(input)
        if let focus = textInput.focus, focus.client === input.client { input.enter(focus) }
    }

    /// The seat is going away: its text inputs keep existing but never gain focus again.
    func endTextInputs() {
        let active = textInput.active
        for input in textInputs(of: nil) { input.seatEnded(wasEnabled: input === active) }
    }

    /// The text inputs of `client` for this seat, or of every client when nil.
    private func textInputs(of client: Client?) -> [TextInput] {
        guard let client else { return display.connectedClients.flatMap { textInputs(of: $0) } }
        return existingSeatClient(for: client)?.textInputs ?? []
    }
}

/// zwp_text_input_v3: one client's text entry state for one seat. Requests set pending state
/// that a commit applies atomically; while the text input has no focus they are ignored (only
/// commits are counted, for done's serial).
public final class TextInput: Resource, RequestHandler {
    /// The seat it belongs to; nil when that seat went away.
    public private(set) weak var seat: SeatGlobal?
    private weak var owner: TextInputManagerGlobal?
    /// The surface it was entered on (the seat's keyboard focus), nil without focus. Strong, not
    /// weak (docs/architecture.md: a weak reference would give the focused surface, which every
    /// frame retains, a side table): let go of on leave, and when the surface is destroyed (the
    /// seat's `keyboardFocusDestroyed` makes its text inputs lose focus).
    public private(set) var surface: Surface?
    /// The committed state while enabled; the initial state otherwise.
    public private(set) var state = TextInputState()
    /// How many commits the client made on this object: done events carry it.
    public private(set) var commitCount: UInt32 = 0
    private var pending = TextInputState()
    private var pendingEnabled = false
    /// Whether an enable came since the last commit (a commit with it starts a new field).
    private var enableRequested = false

    init(client: Client, version: UInt32, id: UInt32, seat: SeatGlobal?, owner: TextInputManagerGlobal?) {
        self.seat = seat
        self.owner = owner
        super.init(TextInput.self, client: client, version: version, id: id)
    }

    /// Whether the client enabled it and it has focus: the input method may send to it.
    public var isEnabled: Bool { seat?.textInput.active === self }

    /// Sends what the input method did, then done with the commit count: the client replaces its
    /// preedit with `preedit` (none when nil), deletes `deleteBefore` and `deleteAfter` UTF-8 bytes
    /// around the cursor, and inserts `commitString`. Returns false, sending nothing, unless enabled.
    @discardableResult
    public func send(preedit: TextInputPreedit? = nil, commitString: String? = nil,
                     deleteBefore: UInt32 = 0, deleteAfter: UInt32 = 0) -> Bool {
        guard isEnabled else { return false }
        if let preedit {
            send(.preeditString(text: preedit.text, cursorBegin: preedit.cursorBegin, cursorEnd: preedit.cursorEnd))
        }
        if let commitString { send(.commitString(text: commitString)) }
        if deleteBefore != 0 || deleteAfter != 0 { send(.deleteSurroundingText(beforeLength: deleteBefore, afterLength: deleteAfter)) }
        send(.done(serial: commitCount))
        return true
    }

    func enter(_ surface: Surface) {
        loseFocus()
        self.surface = surface
        send(.enter(surface: surface))
    }

    func leave() {
        guard let surface else { return }
        loseFocus()
        send(.leave(surface: surface))
    }

    /// Forgets the focus and all state (the client resends it after the next enter); reports the
    /// end of an enabled text input.
    func loseFocus() {
        surface = nil
        pending = TextInputState()
        pendingEnabled = false
        enableRequested = false
        disable()
    }

    /// Its seat is going away; weak references to the seat already read nil, so whether it was
    /// enabled comes from the seat.
    func seatEnded(wasEnabled: Bool) {
        loseFocus()
        if wasEnabled { owner?.handler?.textInputDisabled(self) }
    }

    private func disable() {
        state = TextInputState()
        guard isEnabled else { return }
        seat?.textInput.active = nil
        owner?.handler?.textInputDisabled(self)
        seat?.inputMethod?.deactivate(self)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy: destroy()
        case .enable:
            // Enabling starts over: earlier state requests belong to the previous field.
            guard surface != nil else { return }
            pending = TextInputState()
            pendingEnabled = true
            enableRequested = true
        case .disable:
            guard surface != nil else { return }
            pending = TextInputState()
            pendingEnabled = false
        case .setSurroundingText(let text, let cursor, let anchor):
            let surrounding = try surroundingText(text, cursor: cursor, anchor: anchor)
            if surface != nil { pending.surroundingText = surrounding }
        case .setTextChangeCause(let value):
            guard let cause = TextChangeCause(rawValue: value.rawValue) else {
                throw ProtocolError(code: invalidRequest, "set_text_change_cause: unknown cause \(value.rawValue)")
            }
            if surface != nil { pending.changeCause = cause }
        case .setContentType(let hint, let value):
            guard hint.isKnown else {
                throw ProtocolError(code: invalidRequest, "set_content_type: unknown hint bits in \(hint.rawValue)")
            }
            guard let purpose = TextContentPurpose(rawValue: value.rawValue) else {
                throw ProtocolError(code: invalidRequest, "set_content_type: unknown purpose \(value.rawValue)")
            }
            if surface != nil {
                pending.contentHints = TextContentHints(rawValue: hint.rawValue)
                pending.contentPurpose = purpose
            }
        case .setCursorRectangle(let x, let y, let width, let height):
            if surface != nil {
                pending.cursorRectangle = ClientCoordinate.rectangle(x: x, y: y, width: width, height: height)
            }
        case .commit: commit()
        }
    }

    /// set_surrounding_text's arguments, held to the XML's rules: at most 4000 bytes of text,
    /// offsets inside it on code point boundaries. Bytes that are not UTF-8 arrive replaced with
    /// U+FFFD (as every string argument does), and the offsets are checked against that text.
    private func surroundingText(_ text: String, cursor: Int32, anchor: Int32) throws(ProtocolError) -> SurroundingText {
        let bytes = Array(text.utf8)
        guard bytes.count <= 4000 else {
            throw ProtocolError(code: invalidRequest, "set_surrounding_text: \(bytes.count) bytes of text, more than 4000")
        }
        for (name, offset) in [("cursor", Int(cursor)), ("anchor", Int(anchor))] {
            guard isCodePointBoundary(offset, in: bytes) else {
                throw ProtocolError(code: invalidRequest,
                                    "set_surrounding_text: \(name) \(offset) is not a code point boundary of the \(bytes.count)-byte text")
            }
        }
        return SurroundingText(text: text, cursor: Int(cursor), anchor: Int(anchor))
    }

    private func commit() {
        commitCount &+= 1
        guard let seat, surface != nil else { return }
        let startsField = enableRequested
        enableRequested = false
        let wasEnabled = isEnabled
        // Enabling while another text input of the seat is enabled is ignored (spec).
        guard pendingEnabled, wasEnabled || seat.textInput.active == nil else {
            pendingEnabled = false
            pending.changeCause = .inputMethod
            disable()
            return
        }
        seat.textInput.active = self
        state = pending
        pending.changeCause = .inputMethod
        if !wasEnabled || startsField {
            owner?.handler?.textInputEnabled(self)
            seat.inputMethod?.activate(for: self)
        } else {
            owner?.handler?.textInputStateChanged(self)
            seat.inputMethod?.update(from: self)
        }
    }

    override func destroyed() {
        disable()
        seat?.existingSeatClient(for: client)?.textInputs.removeAll { $0 === self }
    }
}

/// Whether byte `offset` of UTF-8 `bytes` lies between code points (or at either end).
func isCodePointBoundary(_ offset: Int, in bytes: [UInt8]) -> Bool {
    // A UTF-8 continuation byte (top bits 0b10) lies inside a code point.
    offset >= 0 && offset <= bytes.count && (offset == bytes.count || bytes[offset] & 0xc0 != 0x80)
}

/// text-input-v3 defines no error enum; requests that break the XML's rules on their values
/// still get a protocol error, with code 0.
private let invalidRequest: UInt32 = 0
