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

/// zwp_text_input_v3 request opcodes, in the XML's order.
enum TextInputRequest: UInt32 {
    case destroy = 0, enable, disable, setSurroundingText, setTextChangeCause, setContentType, setCursorRectangle, commit
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
    func textInput(_ client: TestClient) throws -> TestProxy {
        let manager = try client.bind("zwp_text_input_manager_v3", version: 1)
        let input = try manager.send(1, [.newID, .object(try seats.bindSeat(client))], interface: "zwp_text_input_v3")
        try client.roundtrip()
        return input
    }

    /// The server's object for a text input proxy of `surface`'s client.
    func serverObject(_ input: TestProxy, of surface: Surface) throws -> TextInput {
        try #require(surface.client.resource(withID: input.id) as? TextInput)
    }
}

private extension TestProxy {
    func send(_ request: TextInputRequest, _ arguments: [TestArgument] = []) throws {
        _ = try send(request.rawValue, arguments)
    }

    /// enable, the given state requests, commit.
    func enable(_ state: [(TextInputRequest, [TestArgument])] = []) throws {
        try send(.enable)
        for (request, arguments) in state { try send(request, arguments) }
        try send(.commit)
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
        #expect(input.events.map(\.name) == ["enter", "leave", "enter", "leave"])
        #expect(input.events.map(\.arguments) == [[.object(firstProxy.id)], [.object(firstProxy.id)],
                                                  [.object(secondProxy.id)], [.object(secondProxy.id)]])
        #expect(otherInput.events.map(\.name) == ["enter"])
        #expect(otherInput.arguments(of: "enter") == [.object(otherProxy.id)])

        harness.seat.keyboardLeave()
        try other.roundtrip()
        #expect(otherInput.events.map(\.name) == ["enter", "leave"])
        #expect(otherInput.arguments(of: "leave") == [.object(otherProxy.id)])
        #expect(try harness.serverObject(otherInput, of: otherSurface).surface == nil)
    }

    @Test func everyTextInputOfTheFocusedClientIsEnteredIncludingOnesCreatedLater() throws {
        let harness = try TextInputHarness()
        let early = try harness.textInput(harness.client)
        let (proxy, surface) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        let late = try harness.textInput(harness.client)
        try harness.client.roundtrip()
        #expect(early.events.map(\.arguments) == [[.object(proxy.id)]])
        #expect(late.events.map(\.arguments) == [[.object(proxy.id)]])
        #expect(try harness.serverObject(late, of: surface).surface === surface)
        #expect(try harness.serverObject(late, of: surface).seat === harness.seat)
    }

    @Test func enableAndStateReachTheInputMethodOnCommitWithExactValues() throws {
        let harness = try TextInputHarness()
        let input = try harness.textInput(harness.client)
        let (_, surface) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        // "Grüße, Welt": ü and ß take two bytes each; the selection runs from ß (byte 4) to W (byte 9).
        try input.enable([
            (.setSurroundingText, [.string("Grüße, Welt"), .int(9), .int(4)]),
            (.setTextChangeCause, [.uint(1)]),
            (.setContentType, [.uint(0x2 | 0x80), .uint(9)]),
            (.setCursorRectangle, [.int(40), .int(12), .int(2), .int(18)]),
        ])
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
        try input.send(.commit)
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
        try input.send(.enable)
        try input.send(.setContentType, [.uint(0x200), .uint(6)])
        try harness.client.roundtrip()
        let server = try harness.serverObject(input, of: surface)
        #expect(harness.log.entries.isEmpty)
        #expect(!server.isEnabled && harness.seat.activeTextInput == nil)
        #expect(server.state == TextInputState())

        try input.send(.commit)
        try harness.client.roundtrip()
        #expect(server.state.contentPurpose == .email && server.state.contentHints == .multiline)

        try input.send(.setSurroundingText, [.string("a@b"), .int(3), .int(3)])
        try input.send(.setCursorRectangle, [.int(1), .int(2), .int(3), .int(4)])
        try harness.client.roundtrip()
        #expect(server.state.surroundingText == nil && server.state.cursorRectangle == nil)
        #expect(harness.log.entries.count == 1)

        try input.send(.commit)
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
        try input.enable([(.setContentType, [.uint(0), .uint(2)]), (.setSurroundingText, [.string("42"), .int(2), .int(2)])])
        // State sent before the new enable belongs to the old field and is dropped with it.
        try input.send(.setCursorRectangle, [.int(5), .int(5), .int(1), .int(10)])
        try input.enable([(.setContentType, [.uint(0x4), .uint(7)])])
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
        try input.send(.commit)
        try harness.client.roundtrip()
        harness.seat.keyboardEnter(surface)
        try input.enable()
        try input.send(.commit)
        try harness.client.roundtrip()
        input.clearEvents()

        let server = try #require(harness.seat.activeTextInput)
        #expect(server.commitCount == 3)
        let sent = server.send(preedit: TextInputPreedit(text: "schö", cursorBegin: 5, cursorEnd: 5),
                               commitString: "Grüße", deleteBefore: 2, deleteAfter: 1)
        #expect(sent)
        try harness.client.roundtrip()
        #expect(input.events.map(\.name) == ["preedit_string", "commit_string", "delete_surrounding_text", "done"])
        #expect(input.events.map(\.arguments) == [[.string("schö"), .int(5), .int(5)], [.string("Grüße")],
                                                  [.uint(2), .uint(1)], [.uint(3)]])

        // Only what is given is sent; done always ends it, with the count at the time.
        input.clearEvents()
        try input.send(.commit)
        try harness.client.roundtrip()
        #expect(server.send(commitString: "!"))
        #expect(server.send())
        try harness.client.roundtrip()
        #expect(input.events.map(\.name) == ["commit_string", "done", "done"])
        #expect(input.events.map(\.arguments).last == [.uint(4)])
    }

    @Test func disableEndsTheFieldAndTheInputMethodCanNoLongerSend() throws {
        let harness = try TextInputHarness()
        let input = try harness.textInput(harness.client)
        let (_, surface) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        try input.enable([(.setContentType, [.uint(0), .uint(8)])])
        try harness.client.roundtrip()
        let server = try #require(harness.seat.activeTextInput)

        try input.send(.disable)
        try harness.client.roundtrip()
        #expect(server.isEnabled, "disable is double-buffered")
        try input.send(.commit)
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
        try input.enable([(.setContentType, [.uint(0), .uint(3)])])
        try harness.client.roundtrip()
        let server = try #require(harness.seat.activeTextInput)

        harness.seat.keyboardEnter(second)
        #expect(harness.log.entries == ["enabled \(input.id) on \(first.id)", "disabled \(input.id)"])
        #expect(server.surface === second && !server.isEnabled)
        // The enter invalidated everything: a commit without enable enables nothing.
        try input.send(.commit)
        try harness.client.roundtrip()
        #expect(harness.log.entries.count == 2)
        try input.enable()
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
        try input.enable([(.setSurroundingText, [.string("x"), .int(1), .int(1)])])
        try harness.client.roundtrip()
        #expect(harness.log.entries.isEmpty)

        // The enter does not bring the ignored enable back.
        harness.seat.keyboardEnter(surface)
        try input.send(.commit)
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
        try first.enable()
        try second.enable([(.setContentType, [.uint(0), .uint(2)])])
        try harness.client.roundtrip()
        #expect(harness.log.entries == ["enabled \(first.id) on \(surface.id)"])
        #expect(harness.seat.activeTextInput?.id == first.id)
        #expect(!(try harness.serverObject(second, of: surface).send(commitString: "no")))

        // The ignored enable does not linger: the second one needs a new enable once the first is done.
        try first.send(.disable)
        try first.send(.commit)
        try second.send(.commit)
        try harness.client.roundtrip()
        #expect(harness.log.entries == ["enabled \(first.id) on \(surface.id)", "disabled \(first.id)"])
        try second.enable()
        try harness.client.roundtrip()
        #expect(harness.log.entries.last == "enabled \(second.id) on \(surface.id)")
    }

    @Test func destroyingTheFocusedSurfaceDisablesWithoutALeave() throws {
        let harness = try TextInputHarness()
        let input = try harness.textInput(harness.client)
        let (proxy, surface) = try harness.seats.makeSurface(harness.client)
        let (nextProxy, next) = try harness.seats.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        try input.enable()
        try harness.client.roundtrip()
        let server = try #require(harness.seat.activeTextInput)

        try proxy.sendDestructor(0)
        try harness.client.roundtrip()
        #expect(harness.log.entries == ["enabled \(input.id) on \(surface.id)", "disabled \(input.id)"])
        #expect(server.surface == nil && harness.seat.activeTextInput == nil)
        #expect(input.events.map(\.name) == ["enter"])

        harness.seat.keyboardEnter(next)
        try harness.client.roundtrip()
        #expect(input.events.map(\.name) == ["enter", "enter"])
        #expect(input.arguments(of: "enter", at: 1) == [.object(nextProxy.id)])
    }

    @Test func destroyingTheTextInputOrDisconnectingDisablesIt() throws {
        let harness = try TextInputHarness()
        let other = try harness.seats.connect()
        let input = try harness.textInput(harness.client)
        let otherInput = try harness.textInput(other)
        let (_, surface) = try harness.seats.makeSurface(harness.client)
        let (_, otherSurface) = try harness.seats.makeSurface(other)
        harness.seat.keyboardEnter(surface)
        try input.enable()
        try harness.client.roundtrip()
        let inputID = input.id
        try input.sendDestructor(TextInputRequest.destroy.rawValue)
        try harness.client.roundtrip()
        #expect(harness.log.entries == ["enabled \(inputID) on \(surface.id)", "disabled \(inputID)"])
        #expect(harness.seat.activeTextInput == nil)

        harness.seat.keyboardEnter(otherSurface)
        try otherInput.enable()
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
        var seat: SeatGlobal? = try SeatGlobal(display: base.display, name: "seat1", capabilities: [.keyboard])
        try base.client.roundtrip()
        let seatProxy = try base.client.bind("wl_seat", version: 8)
        let input = try base.client.bind("zwp_text_input_manager_v3", version: 1)
            .send(1, [.newID, .object(seatProxy)], interface: "zwp_text_input_v3")
        let compositor = try base.client.bind("wl_compositor", version: 5)
        _ = try compositor.send(0, [.newID], interface: "wl_surface")
        try base.client.roundtrip()
        let surface = try #require(base.surfaces.last)
        seat?.keyboardEnter(surface)
        try input.enable()
        try base.client.roundtrip()
        let server = try #require(seat?.activeTextInput)

        seat = nil
        #expect(log.entries == ["enabled \(input.id) on \(surface.id)", "disabled \(input.id)"])
        #expect(server.seat == nil && server.surface == nil && !server.isEnabled)
        try input.enable()
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
        try input.enable([(.setSurroundingText, [.string(text), .int(4000), .int(0)])])
        try harness.client.roundtrip()
        #expect(harness.log.states.last?.surroundingText == SurroundingText(text: text, cursor: 4000, anchor: 0))
    }

    /// Requests that break the XML's rules on their values; text-input-v3 has no error enum, so
    /// each is error 0 on the text input.
    enum BadRequest: CaseIterable {
        case textOver4000Bytes, cursorInsideACodePoint, anchorInsideACodePoint, negativeCursor, anchorPastTheEnd
        case unknownChangeCause, unknownPurpose, unknownHintBit

        var request: (TextInputRequest, [TestArgument]) {
            switch self {
            case .textOver4000Bytes: (.setSurroundingText, [.string(String(repeating: "a", count: 4001)), .int(0), .int(0)])
            case .cursorInsideACodePoint: (.setSurroundingText, [.string("Grüße"), .int(3), .int(0)])
            case .anchorInsideACodePoint: (.setSurroundingText, [.string("Grüße"), .int(0), .int(5)])
            case .negativeCursor: (.setSurroundingText, [.string("abc"), .int(-1), .int(0)])
            case .anchorPastTheEnd: (.setSurroundingText, [.string("abc"), .int(3), .int(4)])
            case .unknownChangeCause: (.setTextChangeCause, [.uint(2)])
            case .unknownPurpose: (.setContentType, [.uint(0), .uint(14)])
            case .unknownHintBit: (.setContentType, [.uint(0x400), .uint(0)])
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
        try input.send(.enable)
        let (request, arguments) = bad.request
        try input.send(request, arguments)
        #expect(throws: SeatHarness.error("zwp_text_input_v3", input, code: 0)) { try harness.client.roundtrip() }
        #expect(harness.log.entries.isEmpty)
        // The compositor goes on serving other clients.
        let other = try harness.seats.connect()
        _ = try harness.textInput(other)
    }
}
