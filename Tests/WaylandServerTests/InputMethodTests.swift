import Testing
import WaylandServer
import WaylandTestClient

/// Records what the input method global asks of the compositor, and places popups at a fixed
/// offset from the cursor rectangle so that text_input_rectangle can be checked.
private final class InputMethodCompositor: InputMethodHandler {
    var log: [String] = []

    func inputMethodChanged(_ seat: SeatGlobal) {
        log.append(seat.inputMethod.map { "served by \($0.id)" } ?? "unserved")
    }

    func inputPopupNeedsPlacing(_ popup: InputPopupSurface) {
        let cursor = popup.textInput?.state.cursorRectangle ?? IntRect(x: 0, y: 0, width: 0, height: 0)
        // The popup's origin at the bottom-left corner of the cursor rectangle.
        popup.setTextInputRectangle(IntRect(x: 0, y: -cursor.height, width: cursor.width, height: cursor.height))
        log.append("place \(popup.surface.id)")
    }

    func inputPopupHidden(_ popup: InputPopupSurface) {
        log.append("hide \(popup.surface.id)")
    }
}

/// A seat with a text-input client (the harness's) focused on one surface, and an input method
/// client bound to zwp_input_method_manager_v2.
private final class InputMethodHarness {
    let seats: SeatHarness
    let textInputManager: TextInputManagerGlobal
    let inputMethodManager: InputMethodManagerGlobal
    let compositor = InputMethodCompositor()
    let textInput: ZwpTextInputV3Proxy
    let surface: Surface
    let board: TestClient

    init() throws {
        seats = try SeatHarness()
        textInputManager = TextInputManagerGlobal(display: seats.base.display)
        inputMethodManager = InputMethodManagerGlobal(display: seats.base.display)
        inputMethodManager.handler = compositor
        try seats.client.roundtrip()
        textInput = try seats.client.bind(ZwpTextInputManagerV3Proxy.self, version: 1)
            .getTextInput(seat: try seats.bindSeat(seats.client))
        (_, surface) = try seats.makeSurface(seats.client)
        seats.seat.keyboardEnter(surface)
        board = try seats.connect()
        try seats.client.roundtrip()
    }

    var client: TestClient { seats.client }

    /// A zwp_input_method_v2 of `client` (the board's by default) for the seat.
    func inputMethod(_ client: TestClient? = nil) throws -> ZwpInputMethodV2Proxy {
        let client = client ?? board
        let method = try client.bind(ZwpInputMethodManagerV2Proxy.self, version: 1)
            .getInputMethod(seat: try seats.bindSeat(client))
        try client.roundtrip()
        return method
    }

    /// The text input enables with this state and commits.
    func enable(surrounding: (String, Int32, Int32)? = nil, hint: ZwpTextInputV3ContentHint = [],
                purpose: ZwpTextInputV3ContentPurpose = .normal, cursor: IntRect? = nil) throws {
        try textInput.enable()
        if let (text, cursor, anchor) = surrounding { try textInput.setSurroundingText(text: text, cursor: cursor, anchor: anchor) }
        try textInput.setContentType(hint: hint, purpose: purpose)
        if let cursor { try textInput.setCursorRectangle(x: cursor.x, y: cursor.y, width: cursor.width, height: cursor.height) }
        try textInput.commit()
        try client.roundtrip()
        try board.roundtrip()
    }

    /// The number of done events `method` received: what its commit must quote.
    static func doneCount(_ method: ZwpInputMethodV2Proxy) -> UInt32 {
        UInt32(method.events.filter { $0 == .done }.count)
    }
}

@Suite struct InputMethodTests {
    @Test func theInputMethodHearsTheEnabledFieldAndItsCommitTypesIntoIt() throws {
        let harness = try InputMethodHarness()
        let method = try harness.inputMethod()
        #expect(harness.compositor.log == ["served by \(method.id)"])
        #expect(method.events.isEmpty)

        // "Grüße|": the cursor after ß is byte 7.
        try harness.enable(surrounding: ("Grüße", 7, 7), hint: [.spellcheck], purpose: .email)
        #expect(method.events == [
            .activate, .surroundingText(text: "Grüße", cursor: 7, anchor: 7), .textChangeCause(cause: .inputMethod),
            .contentType(hint: [.spellcheck], purpose: .email), .done,
        ])

        // Replace ß with "ss", and show a preedit "ä" with its cursor after the ä (2 bytes).
        harness.textInput.clearEvents()
        try method.deleteSurroundingText(beforeLength: 2, afterLength: 0)
        try method.commitString(text: "ss")
        try method.setPreeditString(text: "ä", cursorBegin: 2, cursorEnd: 2)
        try method.commit(serial: 1)
        try harness.board.roundtrip()
        try harness.client.roundtrip()
        // The text input committed once (enable): done carries its count.
        #expect(harness.textInput.events == [
            .preeditString(text: "ä", cursorBegin: 2, cursorEnd: 2), .commitString(text: "ss"),
            .deleteSurroundingText(beforeLength: 2, afterLength: 0), .done(serial: 1),
        ])

        // The field's next commit reaches the input method as state and done, without activate.
        method.clearEvents()
        try harness.textInput.setSurroundingText(text: "Grüssä", cursor: 8, anchor: 8)
        try harness.textInput.commit()
        try harness.client.roundtrip()
        try harness.board.roundtrip()
        #expect(method.events == [
            .surroundingText(text: "Grüssä", cursor: 8, anchor: 8), .textChangeCause(cause: .inputMethod),
            .contentType(hint: [.spellcheck], purpose: .email), .done,
        ])
    }

    @Test func aCommitQuotingAnOlderDoneChangesNothingAndDropsWhatItCommitted() throws {
        let harness = try InputMethodHarness()
        let method = try harness.inputMethod()
        try harness.enable()
        try harness.textInput.commit()
        try harness.client.roundtrip()
        try harness.board.roundtrip()
        #expect(InputMethodHarness.doneCount(method) == 2)

        harness.textInput.clearEvents()
        try method.commitString(text: "late")
        try method.commit(serial: 1)
        try method.commitString(text: "future")
        try method.commit(serial: 3)
        try harness.board.roundtrip()
        try harness.client.roundtrip()
        #expect(harness.textInput.events.isEmpty)

        // The current serial works, with only what was asked since the dropped commits.
        try method.commit(serial: 2)
        try harness.board.roundtrip()
        try harness.client.roundtrip()
        #expect(harness.textInput.events == [.done(serial: 2)])
    }

    @Test func disablingTheFieldDeactivatesAndItsCommitsGoNowhere() throws {
        let harness = try InputMethodHarness()
        let method = try harness.inputMethod()
        try harness.enable()
        try harness.textInput.disable()
        try harness.textInput.commit()
        try harness.client.roundtrip()
        try harness.board.roundtrip()
        #expect(Array(method.events.suffix(2)) == [.deactivate, .done])

        harness.textInput.clearEvents()
        try method.commitString(text: "x")
        try method.commit(serial: InputMethodHarness.doneCount(method))
        try harness.board.roundtrip()
        try harness.client.roundtrip()
        #expect(harness.textInput.events.isEmpty)

        // Keyboard focus leaving an enabled field deactivates too.
        try harness.enable()
        method.clearEvents()
        harness.seats.seat.keyboardLeave()
        try harness.board.roundtrip()
        #expect(method.events == [.deactivate, .done])
    }

    @Test func anInputMethodBoundWhileAFieldIsEnabledIsActivatedAtOnce() throws {
        let harness = try InputMethodHarness()
        try harness.enable(purpose: .digits)
        let method = try harness.inputMethod()
        #expect(method.events == [
            .activate, .textChangeCause(cause: .inputMethod), .contentType(hint: [], purpose: .digits), .done,
        ])
    }

    @Test func aSecondInputMethodIsUnavailableUntilTheFirstIsGone() throws {
        let harness = try InputMethodHarness()
        let first = try harness.inputMethod()
        let other = try harness.seats.connect()
        let second = try harness.inputMethod(other)
        #expect(second.events == [.unavailable])

        // Its requests are ignored; the field hears nothing, the first keeps the seat.
        try harness.enable()
        try second.commitString(text: "intruder")
        try second.commit(serial: 0)
        try other.roundtrip()
        try harness.client.roundtrip()
        #expect(harness.textInput.events.map(\.name) == ["enter"])
        #expect(second.events == [.unavailable])
        #expect(harness.seats.seat.inputMethod?.id == first.id)

        try first.destroy()
        try harness.board.roundtrip()
        #expect(harness.seats.seat.inputMethod == nil)
        let third = try harness.inputMethod(other)
        #expect(third.events.first == .activate)
        #expect(harness.compositor.log == ["served by \(first.id)", "unserved", "served by \(third.id)"])
    }

    @Test func longStringsAndPreeditCursorsInsideACharacterAreProtocolErrors() throws {
        let cases: [(String, (ZwpInputMethodV2Proxy) throws -> Void)] = [
            ("commit_string of 4001 bytes", { try $0.commitString(text: String(repeating: "a", count: 4001)) }),
            ("preedit of 4001 bytes", { try $0.setPreeditString(text: String(repeating: "é", count: 2000) + "a", cursorBegin: -1, cursorEnd: -1) }),
            ("preedit cursor inside é", { try $0.setPreeditString(text: "é", cursorBegin: 1, cursorEnd: 1) }),
            ("preedit cursor past the end", { try $0.setPreeditString(text: "ab", cursorBegin: 0, cursorEnd: 3) }),
            ("preedit cursor -1 on one end only", { try $0.setPreeditString(text: "ab", cursorBegin: -1, cursorEnd: 1) }),
        ]
        for (name, request) in cases {
            let harness = try InputMethodHarness()
            let method = try harness.inputMethod()
            try request(method)
            #expect(throws: SeatHarness.error(ZwpInputMethodV2Error.role, on: method), "\(name)") { try harness.board.roundtrip() }
            // The compositor serves the other clients on.
            try harness.client.roundtrip()
            #expect(harness.seats.seat.inputMethod == nil, "\(name)")
        }
        // The limits themselves are accepted.
        let harness = try InputMethodHarness()
        let method = try harness.inputMethod()
        try method.commitString(text: String(repeating: "a", count: 4000))
        try method.setPreeditString(text: String(repeating: "é", count: 2000), cursorBegin: 4000, cursorEnd: 0)
        try method.setPreeditString(text: "ab", cursorBegin: -1, cursorEnd: -1)
        try harness.board.roundtrip()
    }

    @Test func aSurfaceWithAnotherRoleCannotBecomeAPopup() throws {
        let harness = try InputMethodHarness()
        let method = try harness.inputMethod()
        let compositor = try harness.board.bind(WlCompositorProxy.self, version: 5)
        let child = try compositor.createSurface()
        let parent = try compositor.createSurface()
        _ = try harness.board.bind(WlSubcompositorProxy.self, version: 1).getSubsurface(surface: child, parent: parent)
        _ = try method.getInputPopupSurface(surface: child)
        #expect(throws: SeatHarness.error(ZwpInputMethodV2Error.role, on: method)) { try harness.board.roundtrip() }
    }

    @Test func aPopupIsShownWhileActiveWithABufferAndToldWhereTheCursorIs() throws {
        let harness = try InputMethodHarness()
        let method = try harness.inputMethod()
        let compositor = try harness.board.bind(WlCompositorProxy.self, version: 5)
        let surfaceProxy = try compositor.createSurface()
        let popup = try method.getInputPopupSurface(surface: surfaceProxy)
        try surfaceProxy.attach(buffer: try harness.seats.base.shmBuffer(harness.board, width: 60, height: 20, pixel: 0), x: 0, y: 0)
        try surfaceProxy.commit()
        try harness.board.roundtrip()
        // Inactive: not shown.
        #expect(harness.compositor.log == ["served by \(method.id)"])

        try harness.enable(cursor: IntRect(x: 30, y: 40, width: 2, height: 18))
        let popupID = surfaceProxy.id
        #expect(harness.compositor.log == ["served by \(method.id)", "place \(popupID)"])
        #expect(popup.events == [.textInputRectangle(x: 0, y: -18, width: 2, height: 18)])

        // Deactivation hides it; a null buffer keeps it hidden when the next field comes.
        try harness.textInput.disable()
        try harness.textInput.commit()
        try harness.client.roundtrip()
        try surfaceProxy.attach(buffer: nil, x: 0, y: 0)
        try surfaceProxy.commit()
        try harness.board.roundtrip()
        try harness.enable()
        #expect(harness.compositor.log == ["served by \(method.id)", "place \(popupID)", "hide \(popupID)"])

        // With a buffer again it shows; destroying the input method hides it, and the popup stays inert.
        try surfaceProxy.attach(buffer: try harness.seats.base.shmBuffer(harness.board, width: 60, height: 20, pixel: 0), x: 0, y: 0)
        try surfaceProxy.commit()
        try method.destroy()
        try harness.board.roundtrip()
        #expect(harness.compositor.log.suffix(3) == ["place \(popupID)", "hide \(popupID)", "unserved"])
        try surfaceProxy.commit()
        try popup.destroy()
        try harness.board.roundtrip()
        #expect(harness.compositor.log.count == 6)
    }

    @Test func aKeyboardGrabTakesPhysicalKeysFromTheFocusUntilReleased() throws {
        let harness = try InputMethodHarness()
        let keyboard = try harness.seats.keyboard(harness.client)
        let method = try harness.inputMethod()
        let grab = try method.grabKeyboard()
        try harness.board.roundtrip()
        #expect(grab.events.map(\.name) == ["keymap", "repeat_info", "modifiers"])
        guard case .keymap(let format, _, let size)? = grab.events.first else { Issue.record("no keymap"); return }
        #expect(format == .xkbV1 && size > 0)
        #expect(grab.events[1] == .repeatInfo(rate: 25, delay: 600))

        keyboard.clearEvents()
        let keyA: UInt32 = 30, leftShift: UInt32 = 42
        harness.seats.seat.keyboardKey(time: 5, key: leftShift, pressed: true)
        harness.seats.seat.keyboardKey(time: 6, key: keyA, pressed: true)
        try harness.board.roundtrip()
        try harness.client.roundtrip()
        let keys = grab.events.compactMap { event -> [UInt32]? in
            guard case .key(_, let time, let key, let state) = event else { return nil }
            return [time, key, state.rawValue]
        }
        #expect(keys == [[5, leftShift, 1], [6, keyA, 1]])
        guard case .modifiers(_, let depressed, _, _, _)? = grab.events.last(where: { $0.name == "modifiers" }) else {
            Issue.record("no modifiers"); return
        }
        #expect(depressed == 1, "shift")
        #expect(keyboard.events.isEmpty)

        try grab.release()
        try harness.board.roundtrip()
        harness.seats.seat.keyboardKey(time: 7, key: keyA, pressed: false)
        try harness.client.roundtrip()
        #expect(keyboard.events.contains { if case .key(_, 7, keyA, .released) = $0 { true } else { false } })
    }
}
