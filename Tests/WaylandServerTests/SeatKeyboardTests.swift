import Glibc
import Testing
import WaylandServer
import WaylandTestClient

@Suite struct SeatKeyboardTests {
    private let leftShift: UInt32 = 42
    private let capsLock: UInt32 = 58
    private let keyA: UInt32 = 30

    /// The keymap text a keymap event carries, read through a private read-only mapping.
    private func keymapText(_ keyboard: TestProxy, at index: Int = 0) throws -> String {
        let arguments = try #require(keyboard.arguments(of: "keymap", at: index))
        #expect(arguments[0] == .uint(1))
        let fd = try #require(arguments[1].descriptor)
        defer { close(fd) }
        let size = Int(try #require(arguments[2].uintValue))
        let memory = try #require(mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0))
        #expect(memory != MAP_FAILED)
        defer { munmap(memory, size) }
        // Sealed against writing: a writable shared mapping is refused.
        #expect(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED)
        return String(cString: memory.assumingMemoryBound(to: CChar.self))
    }

    /// The symbols of `key` ("AD06") in a keymap's text: the list in the last brackets of its line.
    private func symbols(of key: String, in keymap: String) -> [String] {
        guard let line = keymap.split(separator: "\n").first(where: { $0.contains("key <\(key)>") }),
              let open = line.lastIndex(of: "["), let close = line[open...].firstIndex(of: "]") else { return [] }
        return line[line.index(after: open)..<close].split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }
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
        #expect(keyboard.arguments(of: "enter") == [.uint(modifiersSerial - 1), .object(proxy.id), .bytes(keys)])
        #expect(keyboard.arguments(of: "modifiers") == [.uint(modifiersSerial), .uint(0), .uint(0), .uint(0), .uint(0)])
        #expect(harness.seat.keyboardFocus === surface)
    }

    @Test func shiftIsDepressedAfterItsKeyGoesDownAndChangesTheKeysyms() throws {
        let harness = try SeatHarness()
        let keyboard = try harness.keyboard(harness.client)
        let (_, surface) = try harness.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        try harness.client.roundtrip()
        keyboard.clearEvents()
        let shift = harness.seat.keyboardKey(time: 7, key: leftShift, pressed: true)
        try harness.client.roundtrip()

        #expect(keyboard.events.map(\.name) == ["key", "modifiers"])
        #expect(keyboard.arguments(of: "key") == [.uint(shift), .uint(7), .uint(leftShift), .uint(1)])
        #expect(keyboard.arguments(of: "modifiers") == [.uint(shift + 1), .uint(1), .uint(0), .uint(0), .uint(0)])
        #expect(harness.seat.keyboardModifiers == KeyboardModifiers(depressed: 1))
        #expect(harness.seat.isModifierActive(.shift) && !harness.seat.isModifierActive(.control))
        #expect(harness.seat.keysyms(forKey: keyA) == [Keysym(named: "A")])
        #expect(harness.seat.keysyms(forKey: keyA).map(\.name) == ["A"])

        harness.seat.keyboardKey(time: 8, key: keyA, pressed: true)
        harness.seat.keyboardKey(time: 9, key: keyA, pressed: false)
        harness.seat.keyboardKey(time: 10, key: leftShift, pressed: false)
        try harness.client.roundtrip()
        #expect(keyboard.events.map(\.name) == ["key", "modifiers", "key", "key", "key", "modifiers"])
        #expect(keyboard.arguments(of: "modifiers", at: 1)?.dropFirst() == [.uint(0), .uint(0), .uint(0), .uint(0)])
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
        #expect(keyboard.arguments(of: "modifiers", at: 1)?.dropFirst() == [.uint(0), .uint(0), .uint(2), .uint(0)])
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
        #expect(keyboardA.arguments(of: "leave")?.last == .object(proxyA.id))
        #expect(keyboardB.events.map(\.name) == ["keymap", "repeat_info", "enter", "modifiers", "key"])
        #expect(keyboardB.arguments(of: "key")?.first == .uint(key))
    }

    @Test func repeatInfoGoesToVersion4AndLaterKeyboards() throws {
        let harness = try SeatHarness()
        let current = try harness.keyboard(harness.client, version: 4)
        let older = try harness.keyboard(harness.client, version: 3)
        #expect(current.arguments(of: "repeat_info") == [.int(25), .int(600)])
        harness.seat.setKeyRepeat(rate: 40, delay: 200)
        try harness.client.roundtrip()
        #expect(current.arguments(of: "repeat_info", at: 1) == [.int(40), .int(200)])
        #expect(older.events.map(\.name) == ["keymap"])
        #expect(harness.seat.keyRepeatRate == 40 && harness.seat.keyRepeatDelay == 200)
    }
}
