import Glibc
import Testing
import WaylandServer
import WaylandTestClient

/// zwp_virtual_keyboard_v1: an on-screen keyboard's keys reach the client with keyboard focus
/// with the on-screen keyboard's keymap, and its keymap file is read as the hostile input it is.
@Suite struct VirtualKeyboardTests {
    private let keyY: UInt32 = 21
    private let keyA: UInt32 = 30

    /// Client A focused with a keyboard, and client B's virtual keyboard (no keymap yet).
    private func setUp() throws -> (harness: SeatHarness, keyboard: WlKeyboardProxy, board: TestClient, virtual: ZwpVirtualKeyboardV1Proxy, manager: VirtualKeyboardManagerGlobal) {
        let harness = try SeatHarness()
        let manager = VirtualKeyboardManagerGlobal(display: harness.base.display)
        let keyboard = try harness.keyboard(harness.client)
        let (_, surface) = try harness.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        try harness.client.roundtrip()
        let board = try harness.connect()
        let virtual = try board.bind(ZwpVirtualKeyboardManagerV1Proxy.self, version: 1)
            .createVirtualKeyboard(seat: try harness.bindSeat(board))
        try board.roundtrip()
        return (harness, keyboard, board, virtual, manager)
    }

    /// Sends `bytes` in a memfd as the keymap, saying it holds `size` bytes (all of them when nil).
    private func sendKeymap(_ bytes: [UInt8], size: Int? = nil, format: WlKeyboardKeymapFormat = .xkbV1,
                            to virtual: ZwpVirtualKeyboardV1Proxy) throws {
        let fd = anonymousFile(size: bytes.count)
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        try virtual.keymap(format: format, fd: FileDescriptor(rawValue: fd), size: UInt32(size ?? bytes.count))
    }

    /// The seat's US keymap with the key right of T giving z (as a German one does).
    private func qwertzKeymap(_ keyboard: WlKeyboardProxy) throws -> [UInt8] {
        let text = try keymapText(keyboard)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.contains("key <AD06>") ? "    key <AD06> { [ z, Z ] };" : String(line)
        }
        return Array(lines.joined(separator: "\n").utf8) + [0]
    }

    @Test func keysReachTheFocusWithTheVirtualKeyboardsKeymapAndPhysicalKeysBringTheSeatsBack() throws {
        let (harness, keyboard, board, virtual, manager) = try setUp()
        let keymap = try qwertzKeymap(keyboard)
        try sendKeymap(keymap, to: virtual)
        try virtual.key(time: 5, key: keyY, state: 1)
        try virtual.key(time: 6, key: keyY, state: 0)
        try board.roundtrip()
        try harness.client.roundtrip()
        harness.seat.keyboardKey(time: 7, key: keyA, pressed: true)
        try harness.client.roundtrip()

        let names = keyboard.events.map(\.name)
        #expect(names == ["keymap", "repeat_info", "enter", "modifiers", "keymap", "key", "key", "keymap", "key"])
        #expect(symbols(of: "AD06", in: try keymapText(keyboard, at: 1)).prefix(2) == ["z", "Z"])
        #expect(symbols(of: "AD06", in: try keymapText(keyboard, at: 2)).prefix(2) == ["y", "Y"])
        let keys = keyboard.events.compactMap { event -> [UInt32]? in
            guard case .key(_, let time, let key, let state) = event else { return nil }
            return [time, key, state.rawValue]
        }
        #expect(keys == [[5, keyY, 1], [6, keyY, 0], [7, keyA, 1]])
        withExtendedLifetime(manager) {}
    }

    @Test func modifiersAreSetAsTheVirtualKeyboardSays() throws {
        let (harness, keyboard, board, virtual, manager) = try setUp()
        let keymap = try qwertzKeymap(keyboard)
        try sendKeymap(keymap, to: virtual)
        // Shift (bit 0) depressed, Lock (bit 1) locked.
        try virtual.modifiers(modsDepressed: 1, modsLatched: 0, modsLocked: 2, group: 0)
        try board.roundtrip()
        try harness.client.roundtrip()
        guard case .modifiers(_, let depressed, let latched, let locked, let group)? = keyboard.events.last else {
            Issue.record("no modifiers event: \(keyboard.events.map(\.name))")
            return
        }
        #expect([depressed, latched, locked, group] == [1, 0, 2, 0])
        #expect(harness.seat.keyboardModifiers == KeyboardModifiers(depressed: 1, locked: 2))
        withExtendedLifetime(manager) {}
    }

    @Test func keysItLeavesDownAreReleasedWhenItGoes() throws {
        let (harness, keyboard, board, virtual, manager) = try setUp()
        let keymap = try qwertzKeymap(keyboard)
        try sendKeymap(keymap, to: virtual)
        try virtual.key(time: 9, key: keyA, state: 1)
        try virtual.destroy()
        try board.roundtrip()
        try harness.client.roundtrip()
        let keys = keyboard.events.compactMap { event -> [UInt32]? in
            guard case .key(_, let time, let key, let state) = event else { return nil }
            return [time, key, state.rawValue]
        }
        #expect(keys == [[9, keyA, 1], [9, keyA, 0]])
        #expect(harness.seat.pressedKeys.isEmpty)
        withExtendedLifetime(manager) {}
    }

    /// What a hostile board sends: each is no_keymap (the protocol's one error), the board is
    /// disconnected, and the focused client goes on getting keys.
    enum Hostile: CaseIterable, Sendable {
        case keyBeforeKeymap, modifiersBeforeKeymap, pipe, sizeLargerThanFile, sizePastLimit, notAKeymap, keyPastKeyMax, unknownState, noKeymapFormat
    }

    @Test(arguments: Hostile.allCases)
    func hostileRequestsAreNoKeymapAndTheSeatLivesOn(_ hostile: Hostile) throws {
        let (harness, keyboard, board, virtual, manager) = try setUp()
        let keymap = try qwertzKeymap(keyboard)
        switch hostile {
        case .keyBeforeKeymap: try virtual.key(time: 1, key: keyA, state: 1)
        case .modifiersBeforeKeymap: try virtual.modifiers(modsDepressed: 1, modsLatched: 0, modsLocked: 0, group: 0)
        case .pipe:
            // A pipe's reader would wait for bytes that never come.
            var ends: [Int32] = [-1, -1]
            #expect(pipe(&ends) == 0)
            defer { close(ends[0]); close(ends[1]) }
            try virtual.keymap(format: .xkbV1, fd: FileDescriptor(rawValue: ends[0]), size: 100)
        case .sizeLargerThanFile: try sendKeymap(keymap, size: keymap.count + 1, to: virtual)
        case .sizePastLimit: try sendKeymap(keymap + [UInt8](repeating: 32, count: 2 << 20), to: virtual)
        case .notAKeymap:
            let garbage = Array("xkb_keymap { nonsense".utf8)
            try sendKeymap(garbage, to: virtual)
        case .keyPastKeyMax:
            try sendKeymap(keymap, to: virtual)
            try virtual.key(time: 1, key: .max, state: 1)
        case .unknownState:
            try sendKeymap(keymap, to: virtual)
            try virtual.key(time: 1, key: keyA, state: 2)
        case .noKeymapFormat: try sendKeymap(keymap, format: .noKeymap, to: virtual)
        }
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(ZwpVirtualKeyboardV1Error.noKeymap, on: virtual))) {
            try board.roundtrip()
        }
        harness.seat.keyboardKey(time: 2, key: keyA, pressed: true)
        try harness.client.roundtrip()
        guard case .key(_, _, let key, let state)? = keyboard.events.last else {
            Issue.record("no key after the board's error: \(keyboard.events.map(\.name))")
            return
        }
        #expect(key == keyA && state == .pressed)
        withExtendedLifetime(manager) {}
    }
}
