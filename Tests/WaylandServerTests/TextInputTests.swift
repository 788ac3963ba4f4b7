import Testing
import WaylandServer
import WaylandTestClient

/// Records what the compositor's input method hears, by text input and surface id.
private final class InputMethodLog: TextInputHandler {
    var entries: [String] = []
    var states: [TextInputState] = []

    func textInputEnabled(_ textInput: TextInput) {
        entries.append("enabled \(textInput.id) on \(textInput.surface.map { String($0.id) } ?? "none")")
        states.append(textInput.state)
    }

    func textInputStateChanged(_ textInput: TextInput) {
        entries.append("changed \(textInput.id)")
        states.append(textInput.state)
    }

    func textInputDisabled(_ textInput: TextInput) {
        entries.append("disabled \(textInput.id)")
    }
}

/// The seat harness plus zwp_text_input_manager_v3 with a recording input method.
private final class TextInputHarness {
    let seats: SeatHarness
    let manager: TextInputManagerGlobal
    let log = InputMethodLog()

    init() throws {
        seats = try SeatHarness()
        manager = TextInputManagerGlobal(display: seats.base.display)
        manager.handler = log
        try seats.client.roundtrip()
    }

    var client: TestClient { seats.client }
    var seat: SeatGlobal { seats.seat }

    /// A zwp_text_input_v3 of `client` for the seat.
    @discardableResult
    func textInput(_ client: TestClient) throws -> ZwpTextInputV3Proxy {
        let manager = try client.bind(ZwpTextInputManagerV3Proxy.self, version: 1)
        let input = try manager.getTextInput(seat: try seats.bindSeat(client))
        try client.roundtrip()
        return input
    }

    /// The server's object for a text input proxy of `surface`'s client.
    func serverObject(_ input: ZwpTextInputV3Proxy, of surface: Surface) throws -> TextInput {
        try #require(surface.client.resource(withID: input.id) as? TextInput)
    }
}

private extension ZwpTextInputV3Proxy {
    /// enable, the state requests `state` sends, commit.
    func enableAndCommit(_ state: (ZwpTextInputV3Proxy) throws -> Void = { _ in }) throws {
        try enable()
        try state(self)
        try commit()
    }
}

@Suite struct TextInputTests {
    @Test func enterAndLeaveFollowKeyboardFocusAcrossSurfacesAndClients() throws {
        let harness = try TextInputHarness()
        let other = try harness.seats.connect()
        let input = try harness.textInput(harness.client)
        let otherInput = try harness.textInput(other)
        let (firstProxy, first) = try harness.seats.makeSurface(harness.client)
        let (secondProxy, second) = try harness.seats.makeSurface(harness.client)
        let (otherProxy, otherSurface) = try harness.seats.makeSurface(other)

        harness.seat.keyboardEnter(first)
        harness.seat.keyboardEnter(second)
        harness.seat.keyboardEnter(otherSurface)
        try harness.client.roundtrip()
        try other.roundtrip()
        #expect(input.events == [
            .enter(surface: firstProxy), .leave(surface: firstProxy), .enter(surface: secondProxy), .leave(surface: secondProxy),
        ])
        #expect(otherInput.events == [.enter(surface: otherProxy)])

        harness.seat.keyboardLeave()
        try other.roundtrip()
        #expect(otherInput.events == [.enter(surface: otherProxy), .leave(surface: otherProxy)])
        #expect(try harness.serverObject(otherInput, of: otherSurface).surface == nil)
    }

    @Test func everyTextInputOfTheFocusedClientIsEnteredIncludingOnesCreatedLater() throws {
        let harness = try TextInputHarness()
        let early = try harness.textInput(harness.client)
        let (proxy, surface) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        let late = try harness.textInput(harness.client)
        try harness.client.roundtrip()
        #expect(early.events == [.enter(surface: proxy)])
        #expect(late.events == [.enter(surface: proxy)])
        #expect(try harness.serverObject(late, of: surface).surface === surface)
        #expect(try harness.serverObject(late, of: surface).seat === harness.seat)
    }

    @Test func enableAndStateReachTheInputMethodOnCommitWithExactValues() throws {
        let harness = try TextInputHarness()
        let input = try harness.textInput(harness.client)
        let (_, surface) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        // "Grüße, Welt": ü and ß take two bytes each; the selection runs from ß (byte 4) to W (byte 9).
        try input.enableAndCommit {
            try $0.setSurroundingText(text: "Grüße, Welt", cursor: 9, anchor: 4)
            try $0.setTextChangeCause(cause: .other)
            try $0.setContentType(hint: [.spellcheck, .sensitiveData], purpose: .pin)
            try $0.setCursorRectangle(x: 40, y: 12, width: 2, height: 18)
        }
        try harness.client.roundtrip()

        let server = try harness.serverObject(input, of: surface)
        #expect(harness.log.entries == ["enabled \(input.id) on \(surface.id)"])
        var expected = TextInputState()
        expected.surroundingText = SurroundingText(text: "Grüße, Welt", cursor: 9, anchor: 4)
        expected.changeCause = .other
        expected.contentHints = [.spellcheck, .sensitiveData]
        expected.contentPurpose = .pin
        expected.cursorRectangle = IntRect(x: 40, y: 12, width: 2, height: 18)
        #expect(harness.log.states == [expected])
        #expect(server.state == expected)
        #expect(server.isEnabled)
        #expect(harness.seat.activeTextInput === server)

        // The change cause lasts one commit; the rest stays until the next enable or disable.
        try input.commit()
        try harness.client.roundtrip()
        expected.changeCause = .inputMethod
        #expect(harness.log.entries == ["enabled \(input.id) on \(surface.id)", "changed \(input.id)"])
        #expect(harness.log.states.last == expected)
    }

    @Test func stateIsNotAppliedBeforeCommit() throws {
        let harness = try TextInputHarness()
        let input = try harness.textInput(harness.client)
        let (_, surface) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        try input.enable()
        try input.setContentType(hint: .multiline, purpose: .email)
        try harness.client.roundtrip()
        let server = try harness.serverObject(input, of: surface)
        #expect(harness.log.entries.isEmpty)
        #expect(!server.isEnabled && harness.seat.activeTextInput == nil)
        #expect(server.state == TextInputState())

        try input.commit()
        try harness.client.roundtrip()
        #expect(server.state.contentPurpose == .email && server.state.contentHints == .multiline)

        try input.setSurroundingText(text: "a@b", cursor: 3, anchor: 3)
        try input.setCursorRectangle(x: 1, y: 2, width: 3, height: 4)
        try harness.client.roundtrip()
        #expect(server.state.surroundingText == nil && server.state.cursorRectangle == nil)
        #expect(harness.log.entries.count == 1)

        try input.commit()
        try harness.client.roundtrip()
        #expect(server.state.surroundingText == SurroundingText(text: "a@b", cursor: 3, anchor: 3))
        #expect(server.state.cursorRectangle == IntRect(x: 1, y: 2, width: 3, height: 4))
        #expect(server.state.contentPurpose == .email)
        #expect(harness.log.entries == ["enabled \(input.id) on \(surface.id)", "changed \(input.id)"])
    }

    @Test func enablingAgainStartsAFieldWithFreshState() throws {
        let harness = try TextInputHarness()
        let input = try harness.textInput(harness.client)
        let (_, surface) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        try input.enableAndCommit {
            try $0.setContentType(hint: [], purpose: .digits)
            try $0.setSurroundingText(text: "42", cursor: 2, anchor: 2)
        }
        // State sent before the new enable belongs to the old field and is dropped with it.
        try input.setCursorRectangle(x: 5, y: 5, width: 1, height: 10)
        try input.enableAndCommit { try $0.setContentType(hint: .autoCapitalization, purpose: .name) }
        try harness.client.roundtrip()
        var expected = TextInputState()
        expected.contentHints = .autoCapitalization
        expected.contentPurpose = .name
        #expect(harness.log.entries == ["enabled \(input.id) on \(surface.id)", "enabled \(input.id) on \(surface.id)"])
        #expect(harness.log.states.last == expected)
    }

    @Test func inputMethodEventsArriveWithDoneCarryingTheCommitCount() throws {
        let harness = try TextInputHarness()
        let input = try harness.textInput(harness.client)
        let (_, surface) = try harness.seats.makeSurface(harness.client)
        // A commit before focus is ignored but still counted.
        try input.commit()
        try harness.client.roundtrip()
        harness.seat.keyboardEnter(surface)
        try input.enableAndCommit()
        try input.commit()
        try harness.client.roundtrip()
        input.clearEvents()

        let server = try #require(harness.seat.activeTextInput)
        #expect(server.commitCount == 3)
        let sent = server.send(preedit: TextInputPreedit(text: "schö", cursorBegin: 5, cursorEnd: 5),
                               commitString: "Grüße", deleteBefore: 2, deleteAfter: 1)
        #expect(sent)
        try harness.client.roundtrip()
        #expect(input.events == [
            .preeditString(text: "schö", cursorBegin: 5, cursorEnd: 5), .commitString(text: "Grüße"),
            .deleteSurroundingText(beforeLength: 2, afterLength: 1), .done(serial: 3),
        ])

        // Only what is given is sent; done always ends it, with the count at the time.
        input.clearEvents()
        try input.commit()
        try harness.client.roundtrip()
        #expect(server.send(commitString: "!"))
        #expect(server.send())
        try harness.client.roundtrip()
        #expect(input.events == [.commitString(text: "!"), .done(serial: 4), .done(serial: 4)])
    }

    @Test func disableEndsTheFieldAndTheInputMethodCanNoLongerSend() throws {
        let harness = try TextInputHarness()
        let input = try harness.textInput(harness.client)
        let (_, surface) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        try input.enableAndCommit { try $0.setContentType(hint: [], purpose: .password) }
        try harness.client.roundtrip()
        let server = try #require(harness.seat.activeTextInput)

        try input.disable()
        try harness.client.roundtrip()
        #expect(server.isEnabled, "disable is double-buffered")
        try input.commit()
        try harness.client.roundtrip()
        #expect(harness.log.entries == ["enabled \(input.id) on \(surface.id)", "disabled \(input.id)"])
        #expect(!server.isEnabled && harness.seat.activeTextInput == nil)
        #expect(server.state == TextInputState())
        #expect(server.surface === surface)
        input.clearEvents()
        #expect(!server.send(commitString: "x"))
        try harness.client.roundtrip()
        #expect(input.events.isEmpty)
    }

    @Test func focusLeavingDisablesAndReturningFocusNeedsANewEnable() throws {
        let harness = try TextInputHarness()
        let input = try harness.textInput(harness.client)
        let (_, first) = try harness.seats.makeSurface(harness.client)
        let (_, second) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(first)
        try input.enableAndCommit { try $0.setContentType(hint: [], purpose: .number) }
        try harness.client.roundtrip()
        let server = try #require(harness.seat.activeTextInput)

        harness.seat.keyboardEnter(second)
        #expect(harness.log.entries == ["enabled \(input.id) on \(first.id)", "disabled \(input.id)"])
        #expect(server.surface === second && !server.isEnabled)
        // The enter invalidated everything: a commit without enable enables nothing.
        try input.commit()
        try harness.client.roundtrip()
        #expect(harness.log.entries.count == 2)
        try input.enableAndCommit()
        try harness.client.roundtrip()
        #expect(harness.log.entries.last == "enabled \(input.id) on \(second.id)")
        #expect(harness.log.states.last == TextInputState())
    }

    @Test func requestsWithoutFocusAreIgnored() throws {
        let harness = try TextInputHarness()
        let other = try harness.seats.connect()
        let input = try harness.textInput(harness.client)
        let (_, surface) = try harness.seats.makeSurface(harness.client)
        let (_, otherSurface) = try harness.seats.makeSurface(other)
        harness.seat.keyboardEnter(otherSurface)
        try input.enableAndCommit { try $0.setSurroundingText(text: "x", cursor: 1, anchor: 1) }
        try harness.client.roundtrip()
        #expect(harness.log.entries.isEmpty)

        // The enter does not bring the ignored enable back.
        harness.seat.keyboardEnter(surface)
        try input.commit()
        try harness.client.roundtrip()
        #expect(harness.log.entries.isEmpty)
        #expect(try harness.serverObject(input, of: surface).commitCount == 2)
    }

    @Test func aSecondTextInputCannotEnableWhileTheFirstIsEnabled() throws {
        let harness = try TextInputHarness()
        let first = try harness.textInput(harness.client)
        let second = try harness.textInput(harness.client)
        let (_, surface) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        try first.enableAndCommit()
        try second.enableAndCommit { try $0.setContentType(hint: [], purpose: .digits) }
        try harness.client.roundtrip()
        #expect(harness.log.entries == ["enabled \(first.id) on \(surface.id)"])
        #expect(harness.seat.activeTextInput?.id == first.id)
        #expect(!(try harness.serverObject(second, of: surface).send(commitString: "no")))

        // The ignored enable does not linger: the second one needs a new enable once the first is done.
        try first.disable()
        try first.commit()
        try second.commit()
        try harness.client.roundtrip()
        #expect(harness.log.entries == ["enabled \(first.id) on \(surface.id)", "disabled \(first.id)"])
        try second.enableAndCommit()
        try harness.client.roundtrip()
        #expect(harness.log.entries.last == "enabled \(second.id) on \(surface.id)")
    }

    @Test func destroyingTheFocusedSurfaceDisablesWithoutALeave() throws {
        let harness = try TextInputHarness()
        let input = try harness.textInput(harness.client)
        let (proxy, surface) = try harness.seats.makeSurface(harness.client)
        let (nextProxy, next) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        try input.enableAndCommit()
        try harness.client.roundtrip()
        let server = try #require(harness.seat.activeTextInput)

        try proxy.destroy()
        try harness.client.roundtrip()
        #expect(harness.log.entries == ["enabled \(input.id) on \(surface.id)", "disabled \(input.id)"])
        #expect(server.surface == nil && harness.seat.activeTextInput == nil)
        #expect(input.events.map(\.name) == ["enter"])

        harness.seat.keyboardEnter(next)
        try harness.client.roundtrip()
        #expect(input.events.map(\.name) == ["enter", "enter"])
        #expect(input.events.last == .enter(surface: nextProxy))
    }

    /// The focused surface is retained every frame: an entered text input holds it strongly, not
    /// weakly (a weak reference gives it a side table, which slows every retain and release of
    /// it), and lets go of it when it is destroyed.
    @Test func anEnteredSurfaceIsNotWeaklyReferencedAndIsReleasedWhenDestroyed() throws {
        let harness = try TextInputHarness()
        let input = try harness.textInput(harness.client)
        weak var released: Surface?
        do {
            let (proxy, surface) = try harness.seats.makeSurface(harness.client)
            harness.seat.keyboardEnter(surface)
            try input.enableAndCommit()
            try harness.client.roundtrip()
            #expect(try harness.serverObject(input, of: surface).surface === surface)
            // A count of 1 is the object's own: no weak reference.
            #expect(_getWeakRetainCount(surface) == 1)
            released = surface
            try proxy.destroy()
            try harness.client.roundtrip()
        }
        #expect(released == nil)
    }

    @Test func destroyingTheTextInputOrDisconnectingDisablesIt() throws {
        let harness = try TextInputHarness()
        let other = try harness.seats.connect()
        let input = try harness.textInput(harness.client)
        let otherInput = try harness.textInput(other)
        let (_, surface) = try harness.seats.makeSurface(harness.client)
        let (_, otherSurface) = try harness.seats.makeSurface(other)
        harness.seat.keyboardEnter(surface)
        try input.enableAndCommit()
        try harness.client.roundtrip()
        let inputID = input.id
        try input.destroy()
        try harness.client.roundtrip()
        #expect(harness.log.entries == ["enabled \(inputID) on \(surface.id)", "disabled \(inputID)"])
        #expect(harness.seat.activeTextInput == nil)

        harness.seat.keyboardEnter(otherSurface)
        try otherInput.enableAndCommit()
        try other.roundtrip()
        let server = try #require(harness.seat.activeTextInput)
        otherSurface.client.disconnect()
        #expect(harness.log.entries.suffix(2) == ["enabled \(otherInput.id) on \(otherSurface.id)", "disabled \(otherInput.id)"])
        #expect(harness.seat.activeTextInput == nil && !server.isAlive)
    }

    @Test func aSeatThatGoesAwayDisablesItsTextInputAndLeavesThemInert() throws {
        let base = try Harness()
        let log = InputMethodLog()
        let manager = TextInputManagerGlobal(display: base.display)
        manager.handler = log
        var seat: SeatGlobal? = SeatGlobal(display: base.display, name: "seat1", capabilities: [.keyboard])
        try base.client.roundtrip()
        let seatProxy = try base.client.bind(WlSeatProxy.self, version: 8)
        let input = try base.client.bind(ZwpTextInputManagerV3Proxy.self, version: 1)
            .getTextInput(seat: seatProxy)
        let compositor = try base.client.bind(WlCompositorProxy.self, version: 5)
        try compositor.createSurface()
        try base.client.roundtrip()
        let surface = try #require(base.surfaces.last)
        seat?.keyboardEnter(surface)
        try input.enableAndCommit()
        try base.client.roundtrip()
        let server = try #require(seat?.activeTextInput)

        seat = nil
        #expect(log.entries == ["enabled \(input.id) on \(surface.id)", "disabled \(input.id)"])
        #expect(server.seat == nil && server.surface == nil && !server.isEnabled)
        try input.enableAndCommit()
        try base.client.roundtrip()
        #expect(log.entries.count == 2)
        #expect(server.commitCount == 2)
    }

    @Test func surroundingTextOfExactly4000BytesIsAccepted() throws {
        let harness = try TextInputHarness()
        let input = try harness.textInput(harness.client)
        let (_, surface) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        let text = String(repeating: "ä", count: 2000)
        try input.enableAndCommit { try $0.setSurroundingText(text: text, cursor: 4000, anchor: 0) }
        try harness.client.roundtrip()
        #expect(harness.log.states.last?.surroundingText == SurroundingText(text: text, cursor: 4000, anchor: 0))
    }

    /// Requests that break the XML's rules on their values; text-input-v3 has no error enum, so
    /// each is error 0 on the text input.
    enum BadRequest: CaseIterable {
        case textOver4000Bytes, cursorInsideACodePoint, anchorInsideACodePoint, negativeCursor, anchorPastTheEnd
        case unknownChangeCause, unknownPurpose, unknownHintBit

        func send(on input: ZwpTextInputV3Proxy) throws {
            switch self {
            case .textOver4000Bytes: try input.setSurroundingText(text: String(repeating: "a", count: 4001), cursor: 0, anchor: 0)
            case .cursorInsideACodePoint: try input.setSurroundingText(text: "Grüße", cursor: 3, anchor: 0)
            case .anchorInsideACodePoint: try input.setSurroundingText(text: "Grüße", cursor: 0, anchor: 5)
            case .negativeCursor: try input.setSurroundingText(text: "abc", cursor: -1, anchor: 0)
            case .anchorPastTheEnd: try input.setSurroundingText(text: "abc", cursor: 3, anchor: 4)
            case .unknownChangeCause: try input.setTextChangeCause(cause: ZwpTextInputV3ChangeCause(rawValue: 2))
            case .unknownPurpose: try input.setContentType(hint: [], purpose: ZwpTextInputV3ContentPurpose(rawValue: 14))
            case .unknownHintBit: try input.setContentType(hint: ZwpTextInputV3ContentHint(rawValue: 0x400), purpose: .normal)
            }
        }
    }

    @Test(arguments: BadRequest.allCases)
    func requestsBreakingTheValueRulesAreProtocolErrors(_ bad: BadRequest) throws {
        let harness = try TextInputHarness()
        let input = try harness.textInput(harness.client)
        let (_, surface) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        try harness.client.roundtrip()
        try input.enable()
        try bad.send(on: input)
        let expected = ProtocolErrorReport(interface: "zwp_text_input_v3", objectID: input.id, code: 0)
        #expect(throws: TestClientError.protocolError(expected)) { try harness.client.roundtrip() }
        #expect(harness.log.entries.isEmpty)
        // The compositor goes on serving other clients.
        let other = try harness.seats.connect()
        try harness.textInput(other)
    }
}
