import Glibc
import SystemCalls
import Testing
import WaylandServer

/// Messages up to the wire's limit (a 16-bit size) are read and answered like any other: with
/// libwayland 1.23's default 4096-byte buffers a client whose message was larger was neither read
/// nor disconnected (`Display.maximumClientBufferSize`).
@Suite struct MessageSizeTests {
    /// wl_registry.bind of global 999 (there is none) under an interface name of `length` bytes,
    /// then wl_display.sync, written by hand: libwayland's client refuses to send over 4096 bytes.
    static func bindAndSync(interfaceNameLength length: Int) -> [UInt8] {
        func message(_ object: UInt32, _ opcode: UInt32, _ words: [UInt32], string: [UInt8]? = nil, after: [UInt32] = []) -> [UInt8] {
            var body = words.flatMap(bytes)
            if let string {
                let terminated = string + [0]
                body += bytes(UInt32(terminated.count)) + terminated + [UInt8](repeating: 0, count: (4 - terminated.count % 4) % 4)
            }
            body += after.flatMap(bytes)
            return bytes(object) + bytes(UInt32(8 + body.count) << 16 | opcode) + body
        }
        func bytes(_ word: UInt32) -> [UInt8] { withUnsafeBytes(of: word.littleEndian, Array.init) }
        return message(1, 1, [2])  // wl_display.get_registry(new id 2)
            + message(2, 0, [999], string: [UInt8](repeating: UInt8(ascii: "x"), count: length), after: [1, 3])
            + message(1, 0, [4])  // wl_display.sync(new id 4)
    }

    @Test(arguments: [4_000, 5_000, 65_000])
    func aBindOfAnUnknownGlobalIsRefusedWhateverTheMessagesSize(interfaceNameLength: Int) throws {
        let harness = try Harness()
        let (_, socket) = try harness.display.createClientSocket()
        defer { try? socket.close() }
        let request = Self.bindAndSync(interfaceNameLength: interfaceNameLength)
        #expect(try request.withUnsafeBytes { try socket.writeAll($0) } == request.count)
        var received: [UInt8] = []
        var closed = false
        for _ in 0..<200 where !closed {
            try harness.display.eventLoop.dispatch(timeoutMilliseconds: 10)
            harness.display.flushClients()
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(socket.rawValue, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 { closed = true }
            if count > 0 { received += chunk[..<count] }
        }
        #expect(closed)
        // Registry globals first, then wl_display.error(wl_registry@2, invalid_object, "invalid global …").
        var messages: [(object: UInt32, opcode: UInt32, body: ArraySlice<UInt8>)] = []
        var offset = 0
        func word(_ at: Int) -> UInt32 { received[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        while offset + 8 <= received.count {
            let size = Int(word(offset + 4) >> 16)
            guard size >= 8, offset + size <= received.count else { break }
            messages.append((word(offset), word(offset + 4) & 0xFFFF, received[offset + 8..<offset + size]))
            offset += size
        }
        let error = try #require(messages.first { $0.object == 1 && $0.opcode == 0 })
        #expect(Array(error.body.prefix(8)) == [2, 0, 0, 0, 0, 0, 0, 0])
        #expect(String(decoding: error.body.dropFirst(12).prefix(14), as: UTF8.self) == "invalid global")
        // The other client is served meanwhile.
        try harness.client.roundtrip()
    }
}
