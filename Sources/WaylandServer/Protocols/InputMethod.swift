import WaylandProtocols

/// What an input method asked for since its last commit (zwp_input_method_v2's pending state).
private struct InputMethodRequests {
    var commitString: String?
    var preedit: TextInputPreedit?
    var deleteBefore: UInt32 = 0
    var deleteAfter: UInt32 = 0
}

extension SeatGlobal {
    /// Makes `inputMethod` the seat's, unless another one serves it already; tells the compositor.
    fileprivate func serve(with inputMethod: InputMethod, handler: InputMethodHandler?) -> Bool {
        if let current = self.inputMethod, current.isAlive { return false }
        self.inputMethod = inputMethod
        handler?.inputMethodChanged(self)
        return true
    }
}

/// zwp_input_method_v2: a client typing for a seat. It is active while a text input on the seat is
/// enabled, and hears that text input's state (activate or deactivate, then the surrounding text,
/// change cause and content type, then done); its commit_string, set_preedit_string and
/// delete_surrounding_text go to that text input when it commits them quoting the number of done
/// events sent so far. An input method that is not the seat's (another one was first, or the seat
/// went away) is unavailable: it gets no other event, and its requests are ignored.
public final class InputMethod: Resource, RequestHandler {
    /// The longest commit or preedit string, in UTF-8 bytes: text-input-v3's limit on the text it
    /// carries, so that the text input's client, which gets the string, can read the event.
    public static let maximumTextLength = 4000

    /// The seat it types for; nil when that seat went away.
    public private(set) weak var seat: SeatGlobal?
    private weak var owner: InputMethodManagerGlobal?
    var handler: InputMethodHandler? { owner?.handler }
    /// False once unavailable was sent (or from the start, for a seat served already).
    public private(set) var isAvailable = false
    /// The done events sent: a commit must quote this number to take effect.
    public private(set) var doneCount: UInt32 = 0
    /// The enabled text input it was last activated for; nil while inactive.
    public private(set) weak var textInput: TextInput?
    private var pending = InputMethodRequests()
    /// Its popup surfaces (zwp_input_popup_surface_v2), shown while it is active.
    private var popups: [InputPopupSurface] = []
    /// Its keyboard grab, while it holds one.
    public private(set) weak var keyboardGrab: InputMethodKeyboardGrab?

    init(client: Client, version: UInt32, id: UInt32, seat: SeatGlobal?, owner: InputMethodManagerGlobal?) {
        self.seat = seat
        self.owner = owner
        super.init(InputMethod.self, client: client, version: version, id: id)
    }

    /// Whether it is active: available and serving an enabled text input.
    public var isActive: Bool { isAvailable && textInput?.isEnabled == true }

    /// Serves its seat, activated at once for a text input enabled already; unavailable when the
    /// seat is gone or another input method serves it.
    func start() {
        guard let seat, seat.serve(with: self, handler: handler) else {
            send(.unavailable)
            return
        }
        isAvailable = true
        if let active = seat.activeTextInput { activate(for: active) }
    }

    /// A text input of the seat was enabled (again, for a new field): activate, its state, done.
    func activate(for textInput: TextInput) {
        guard isAvailable else { return }
        self.textInput = textInput
        send(.activate)
        sendState(of: textInput)
    }

    /// The enabled text input committed new state: the state, done.
    func update(from textInput: TextInput) {
        guard isAvailable, textInput === self.textInput else { return }
        sendState(of: textInput)
    }

    /// The text input it served is no longer enabled: deactivate, done; its popups go.
    func deactivate(_ textInput: TextInput) {
        guard isAvailable, textInput === self.textInput else { return }
        self.textInput = nil
        send(.deactivate)
        sendDone()
    }

    /// The seat went away: unavailable, and nothing more.
    func seatEnded() {
        guard isAvailable else { return }
        textInput = nil
        isAvailable = false
        send(.unavailable)
        updatePopups()
    }

    private func sendState(of textInput: TextInput) {
        let state = textInput.state
        if let surrounding = state.surroundingText {
            send(.surroundingText(text: surrounding.text, cursor: UInt32(surrounding.cursor), anchor: UInt32(surrounding.anchor)))
        }
        send(.textChangeCause(cause: ZwpTextInputV3ChangeCause(rawValue: state.changeCause.rawValue)))
        send(.contentType(hint: ZwpTextInputV3ContentHint(rawValue: state.contentHints.rawValue),
                          purpose: ZwpTextInputV3ContentPurpose(rawValue: state.contentPurpose.rawValue)))
        sendDone()
    }

    private func sendDone() {
        send(.done)
        doneCount &+= 1
        updatePopups()
    }

    /// Shows, places again or hides each popup for the state just sent.
    func updatePopups() {
        for popup in popups { popup.update() }
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .commitString(let text):
            try checkLength(of: text, in: "commit_string")
            pending.commitString = text
        case .setPreeditString(let text, let cursorBegin, let cursorEnd):
            try checkLength(of: text, in: "set_preedit_string")
            let bytes = Array(text.utf8)
            // Both -1 hide the cursor; otherwise each end lies on a code point boundary of the text.
            guard cursorBegin == -1 && cursorEnd == -1
                || [cursorBegin, cursorEnd].allSatisfy({ isCodePointBoundary(Int($0), in: bytes) }) else {
                throw ProtocolError(code: invalidRequest,
                                    "set_preedit_string: cursor \(cursorBegin)…\(cursorEnd) is not on code point boundaries of the \(bytes.count)-byte text")
            }
            pending.preedit = TextInputPreedit(text: text, cursorBegin: cursorBegin, cursorEnd: cursorEnd)
        case .deleteSurroundingText(let before, let after):
            pending.deleteBefore = before
            pending.deleteAfter = after
        case .commit(let serial):
            let requests = pending
            pending = InputMethodRequests()
            // A commit quoting an older done (the client had not read the latest state) changes nothing.
            guard isAvailable, serial == doneCount, let textInput, textInput.isEnabled else { return }
            textInput.send(preedit: requests.preedit, commitString: requests.commitString,
                           deleteBefore: requests.deleteBefore, deleteAfter: requests.deleteAfter)
        case .getInputPopupSurface(let id, let surface):
            let popup = InputPopupSurface(client: client, version: version, id: id, surface: surface, inputMethod: self)
            do {
                try surface.setRole(popup, errorOn: self, code: ZwpInputMethodV2Error.role)
            } catch {
                popup.destroy()
                throw error
            }
            popup.didAttach()
            popups.append(popup)
            popup.update()
        case .grabKeyboard(let id):
            let grab = InputMethodKeyboardGrab(client: client, version: version, id: id, inputMethod: self)
            // One grab at a time: a second one, or one of an unavailable input method, gets no keys.
            guard isAvailable, keyboardGrab == nil, let seat else { return }
            keyboardGrab = grab
            seat.startKeyboardGrab(grab)
        case .destroy: destroy()
        }
    }

    /// Strings over `maximumTextLength` bytes are refused.
    private func checkLength(of text: String, in request: String) throws(ProtocolError) {
        let length = text.utf8.count
        guard length <= Self.maximumTextLength else {
            throw ProtocolError(code: invalidRequest, "\(request): \(length) bytes of text, more than \(Self.maximumTextLength)")
        }
    }

    /// Its popup went away.
    func removed(_ popup: InputPopupSurface) {
        popups.removeAll { $0 === popup }
    }

    /// Its keyboard grab was released.
    func released(_ grab: InputMethodKeyboardGrab) {
        if keyboardGrab === grab { keyboardGrab = nil }
    }

    override func destroyed() {
        let wasServing = isAvailable
        isAvailable = false
        textInput = nil
        updatePopups()
        // The client still holds its grab: it stays, inert.
        keyboardGrab?.end()
        guard wasServing, let seat, seat.inputMethod === self else { return }
        seat.inputMethod = nil
        handler?.inputMethodChanged(seat)
    }
}

/// zwp_input_method_v2's only error is role; requests that break Vitrine's limits on their values
/// (text length, cursor offsets) get a protocol error with that code and a message saying which.
private let invalidRequest: UInt32 = 0
