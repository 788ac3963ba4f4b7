import Glibc
import Testing
import WaylandServer
import WaylandTestClient

@Suite struct SeatKeyboardTests {
    private let leftShift: UInt32 = 42
    private let capsLock: UInt32 = 58
    private let keyA: UInt32 = 30

    /// A modifiers event's depressed, latched and locked modifiers and group.
    private static func modifiers(_ event: WlKeyboardProxy.Event) -> [UInt32]? {
        guard case .modifiers(_, let depressed, let latched, let locked, let group) = event else { return nil }
        return [depressed, latched, locked, group]
    }

    @Test func keymapArrivesAsASealedFileWithTheRequestedLayout() throws {
        let harness = try SeatHarness()
        try harness.seat.setKeymap(layout: "de")
        let keyboard = try harness.keyboard(harness.client)
        #expect(keyboard.events.map(\.name) == ["keymap", "repeat_info"])
        let text = try keymapText(keyboard)
        #expect(text.hasPrefix("xkb_keymap {"))
        #expect(text.contains("name[Group1]=\"German\""))
        // German keyboards are QWERTZ: the key right of T gives z.
        #expect(symbols(of: "AD06", in: text).prefix(2) == ["z", "Z"])
    }

    @Test func changingTheKeymapSendsItToBoundKeyboards() throws {
        let harness = try SeatHarness()
        let keyboard = try harness.keyboard(harness.client)
        #expect(symbols(of: "AD06", in: try keymapText(keyboard)).first == "y")
        try harness.seat.setKeymap(layout: "fr")
        try harness.client.roundtrip()
        #expect(keyboard.events.map(\.name) == ["keymap", "repeat_info", "keymap"])
        // French keyboards are AZERTY.
        #expect(symbols(of: "AD01", in: try keymapText(keyboard, at: 1)).first == "a")
    }

    @Test func anUnknownLayoutIsAnErrorThatNamesIt() throws {
        let harness = try SeatHarness()
        let error = #expect(throws: KeymapError.self) { try harness.seat.setKeymap(layout: "no-such-layout") }
        #expect(error == .unknownNames(rules: nil, model: nil, layout: "no-such-layout", variant: nil, options: nil))
        #expect(error?.description.contains("layout \"no-such-layout\"") == true)
        #expect(harness.seat.keysyms(forKey: keyA) == [Keysym(named: "a")])
    }

    /// The focused surface is retained every frame: the seat holds it strongly, not weakly (a weak
    /// reference gives it a side table, which slows every retain and release of it), and lets go
    /// of it when it is destroyed.
    @Test func theKeyboardFocusIsNotWeaklyReferencedAndIsReleasedWhenDestroyed() throws {
        let harness = try SeatHarness()
        weak var released: Surface?
        do {
            let (proxy, surface) = try harness.makeSurface(harness.client)
            harness.seat.keyboardEnter(surface)
            // A count of 1 is the object's own: no weak reference.
            #expect(_getWeakRetainCount(surface) == 1)
            released = surface
            try proxy.destroy()
            try harness.client.roundtrip()
        }
        #expect(released == nil)
        #expect(harness.seat.keyboardFocus == nil)
    }

    /// Gives a new surface of the harness's client keyboard focus, then forgets `keyboard`'s events.
    private func focusNewSurface(_ harness: SeatHarness, keyboard: WlKeyboardProxy) throws {
        let (_, surface) = try harness.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        try harness.client.roundtrip()
        keyboard.clearEvents()
    }

    @Test func aSeatLayoutThatDoesNotCompileGivesKeyboardsNoKeymapAndIsReportedOnce() throws {
        // The seat compiles its keymap when a keyboard first needs it, so making it succeeds.
        let harness = try SeatHarness(keymapLayout: "no-such-layout")
        #expect(harness.keymapErrors.isEmpty)
        let keyboard = try harness.keyboard(harness.client)
        let second = try harness.keyboard(harness.client)
        for proxy in [keyboard, second] {
            guard case .keymap(let format, _, let size) = proxy.events.first else {
                Issue.record("expected a keymap event first, got \(proxy.events.map(\.name))")
                continue
            }
            #expect(format == .noKeymap && size == 0)
        }
        #expect(harness.keymapErrors == [.unknownNames(rules: nil, model: nil, layout: "no-such-layout", variant: nil, options: nil)])
        try focusNewSurface(harness, keyboard: keyboard)
        let serial = harness.seat.keyboardKey(time: 3, key: leftShift, pressed: true)
        try harness.client.roundtrip()
        #expect(keyboard.events == [.key(serial: serial, time: 3, key: leftShift, state: .pressed)])
        #expect(harness.seat.keysyms(forKey: keyA).isEmpty)
        #expect(harness.keymapErrors.count == 1)
        try harness.seat.setKeymap(layout: "us")
        try harness.client.roundtrip()
        #expect(symbols(of: "AD06", in: try keymapText(keyboard)).first == "y")
    }

    @Test func enterSendsThePressedKeysThenTheModifiers() throws {
        let harness = try SeatHarness()
        let keyboard = try harness.keyboard(harness.client)
        let (proxy, surface) = try harness.makeSurface(harness.client)
        harness.seat.keyboardKey(time: 1, key: keyA, pressed: true)
        harness.seat.keyboardEnter(surface)
        let modifiersSerial = harness.base.display.currentSerial
        try harness.client.roundtrip()
        #expect(keyboard.events.map(\.name) == ["keymap", "repeat_info", "enter", "modifiers"])
        let keys = withUnsafeBytes(of: keyA) { Array($0) }
        #expect(keyboard.events.dropFirst(2) == [
            .enter(serial: modifiersSerial - 1, surface: proxy, keys: keys),
            .modifiers(serial: modifiersSerial, modsDepressed: 0, modsLatched: 0, modsLocked: 0, group: 0),
        ])
        #expect(harness.seat.keyboardFocus === surface)
    }

    @Test func shiftIsDepressedAfterItsKeyGoesDownAndChangesTheKeysyms() throws {
        let harness = try SeatHarness()
        let keyboard = try harness.keyboard(harness.client)
        try focusNewSurface(harness, keyboard: keyboard)
        let shift = harness.seat.keyboardKey(time: 7, key: leftShift, pressed: true)
        try harness.client.roundtrip()

        #expect(keyboard.events == [
            .key(serial: shift, time: 7, key: leftShift, state: .pressed),
            .modifiers(serial: shift + 1, modsDepressed: 1, modsLatched: 0, modsLocked: 0, group: 0),
        ])
        #expect(harness.seat.keyboardModifiers == KeyboardModifiers(depressed: 1))
        #expect(harness.seat.isModifierActive(.shift) && !harness.seat.isModifierActive(.control))
        #expect(harness.seat.keysyms(forKey: keyA) == [Keysym(named: "A")])
        #expect(harness.seat.keysyms(forKey: keyA).map(\.name) == ["A"])

        harness.seat.keyboardKey(time: 8, key: keyA, pressed: true)
        harness.seat.keyboardKey(time: 9, key: keyA, pressed: false)
        harness.seat.keyboardKey(time: 10, key: leftShift, pressed: false)
        try harness.client.roundtrip()
        #expect(keyboard.events.map(\.name) == ["key", "modifiers", "key", "key", "key", "modifiers"])
        #expect(Self.modifiers(keyboard.events[5]) == [0, 0, 0, 0])
        #expect(harness.seat.keysyms(forKey: keyA) == [Keysym(named: "a")])
        #expect(harness.seat.pressedKeys.isEmpty)
    }

    @Test func capsLockStaysLockedAfterItsKeyGoesUp() throws {
        let harness = try SeatHarness()
        let keyboard = try harness.keyboard(harness.client)
        let (_, surface) = try harness.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        try harness.client.roundtrip()
        keyboard.clearEvents()
        harness.seat.keyboardKey(time: 1, key: capsLock, pressed: true)
        harness.seat.keyboardKey(time: 2, key: capsLock, pressed: false)
        try harness.client.roundtrip()
        #expect(keyboard.events.map(\.name) == ["key", "modifiers", "key", "modifiers"])
        #expect(Self.modifiers(keyboard.events[3]) == [0, 0, 2, 0])
        #expect(harness.seat.isModifierActive(.capsLock))
    }

    @Test func leaveGoesToThePreviousFocusAndKeysOnlyToTheFocus() throws {
        let harness = try SeatHarness()
        let other = try harness.connect()
        let keyboardA = try harness.keyboard(harness.client)
        let keyboardB = try harness.keyboard(other)
        let (proxyA, surfaceA) = try harness.makeSurface(harness.client)
        let (_, surfaceB) = try harness.makeSurface(other)
        harness.seat.keyboardEnter(surfaceA)
        harness.seat.keyboardEnter(surfaceB)
        let key = harness.seat.keyboardKey(time: 3, key: keyA, pressed: true)
        try harness.client.roundtrip()
        try other.roundtrip()
        #expect(keyboardA.events.map(\.name) == ["keymap", "repeat_info", "enter", "modifiers", "leave"])
        let left = try #require(keyboardA.events.last.flatMap { if case .leave(_, let surface) = $0 { surface } else { nil } })
        #expect(left == proxyA)
        #expect(keyboardB.events.map(\.name) == ["keymap", "repeat_info", "enter", "modifiers", "key"])
        #expect(keyboardB.events.last == .key(serial: key, time: 3, key: keyA, state: .pressed))
    }

    @Test func repeatInfoGoesToVersion4AndLaterKeyboards() throws {
        let harness = try SeatHarness()
        let current = try harness.keyboard(harness.client, version: 4)
        let older = try harness.keyboard(harness.client, version: 3)
        #expect(current.events[1] == .repeatInfo(rate: 25, delay: 600))
        harness.seat.setKeyRepeat(rate: 40, delay: 200)
        try harness.client.roundtrip()
        #expect(current.events.dropFirst(2) == [.repeatInfo(rate: 40, delay: 200)])
        #expect(older.events.map(\.name) == ["keymap"])
        #expect(harness.seat.keyRepeatRate == 40 && harness.seat.keyRepeatDelay == 200)
    }
}
