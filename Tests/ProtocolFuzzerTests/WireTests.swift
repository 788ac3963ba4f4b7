import ProtocolFuzzer
import WaylandProtocolModel
import Testing

@Suite struct WireTests {
    @Test func aRequestIsItsHeaderThenAlignedArguments() {
        // wl_shm_pool.create_buffer(new_id 7, offset 0, width 2, height 3, stride 8, format 1) on object 5.
        let message = WireMessage(objectID: 5, opcode: 0, arguments: [.newID(7), .int(0), .int(2), .int(3), .int(8), .uint(1)])
        let (bytes, fds) = message.encoded()
        #expect(bytes == [5, 0, 0, 0, 0, 0, 32, 0, 7, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0])
        #expect(fds == [])
    }

    @Test func aStringCountsItsTerminatorAndIsPaddedToFourBytes() {
        // xdg_toplevel.set_title("abcd") on object 9 (opcode 2): length 5, "abcd\0", three bytes of padding.
        let (bytes, _) = WireMessage(objectID: 9, opcode: 2, arguments: [.string(Array("abcd".utf8))]).encoded()
        #expect(bytes == [9, 0, 0, 0, 2, 0, 20, 0, 5, 0, 0, 0, 97, 98, 99, 100, 0, 0, 0, 0])
    }

    @Test func theNullStringAndTheEmptyArrayAreALengthOfZero() {
        let (bytes, _) = WireMessage(objectID: 3, opcode: 1, arguments: [.string(nil), .array([])]).encoded()
        #expect(bytes == [3, 0, 0, 0, 1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func anArrayIsItsLengthThenPaddedBytes() {
        let (bytes, _) = WireMessage(objectID: 4, opcode: 0, arguments: [.array([1, 2, 3, 4, 5])]).encoded()
        #expect(bytes == [4, 0, 0, 0, 0, 0, 20, 0, 5, 0, 0, 0, 1, 2, 3, 4, 5, 0, 0, 0])
    }

    @Test func wlRegistryBindsUntypedNewIDIsInterfaceVersionAndID() {
        // wl_registry.bind(name 2, "wl_shm" v1 as id 5) on the registry (object 2).
        let (bytes, _) = WireMessage(objectID: 2, opcode: 0, arguments: [.uint(2), .untypedNewID(interface: "wl_shm", version: 1, id: 5)])
            .encoded()
        #expect(bytes == [2, 0, 0, 0, 0, 0, 32, 0, 2, 0, 0, 0, 7, 0, 0, 0, 119, 108, 95, 115, 104, 109, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0])
    }

    @Test func descriptorsTravelBesideTheBytes() {
        // wl_shm.create_pool(new_id 6, fd, size 4096): the fd takes no room in the message.
        let (bytes, fds) = WireMessage(objectID: 4, opcode: 0, arguments: [.newID(6), .fd(17), .int(4096)]).encoded()
        #expect(bytes == [4, 0, 0, 0, 0, 0, 16, 0, 6, 0, 0, 0, 0, 16, 0, 0])
        #expect(fds == [17])
    }

    @Test func fixedAndNegativeIntsKeepTheirBits() {
        let (bytes, _) = WireMessage(objectID: 1, opcode: 0, arguments: [.int(-1), .fixed(Int32.min)]).encoded()
        #expect(bytes == [1, 0, 0, 0, 0, 0, 16, 0, 255, 255, 255, 255, 0, 0, 0, 128])
    }

    @Test func aHeaderMayClaimAnySize() {
        #expect(WireMessage.header(objectID: 7, size: 4, opcode: 3) == [7, 0, 0, 0, 3, 0, 4, 0])
    }

    @Test func anEventDecodesByItsMessage() throws {
        // wl_registry.global(name 3, "wl_seat", version 8).
        let global = Message(name: "global", arguments: [
            Argument(name: "name", kind: .uint), Argument(name: "interface", kind: .string), Argument(name: "version", kind: .uint),
        ])
        let body: [UInt8] = [3, 0, 0, 0, 8, 0, 0, 0, 119, 108, 95, 115, 101, 97, 116, 0, 8, 0, 0, 0]
        #expect(try WireMessage.decodeArguments(body[...], as: global) == [.uint(3), .string(Array("wl_seat".utf8)), .uint(8)])
    }

    @Test func anEventWithBytesLeftOverIsMalformed() {
        let done = Message(name: "done", arguments: [Argument(name: "callback_data", kind: .uint)])
        #expect(throws: WireError.malformed("done: bytes left after the arguments")) {
            try WireMessage.decodeArguments([1, 0, 0, 0, 2, 0, 0, 0][...], as: done)
        }
    }

    @Test func theFramerSplitsAStreamIntoMessagesAndWaitsForTheRest() throws {
        var framer = MessageFramer()
        // wl_callback@3.done(7), then the first 6 bytes of wl_display@1.delete_id(3).
        framer.append([3, 0, 0, 0, 0, 0, 12, 0, 7, 0, 0, 0, 1, 0, 0, 0, 1, 0])
        let first = try #require(try framer.next())
        #expect(first.objectID == 3 && first.opcode == 0 && Array(first.body) == [7, 0, 0, 0])
        #expect(try framer.next() == nil)
        framer.append([12, 0, 3, 0, 0, 0])
        let second = try #require(try framer.next())
        #expect(second.objectID == 1 && second.opcode == 1 && Array(second.body) == [3, 0, 0, 0])
    }

    @Test func aMessageSizeBelowTheHeaderIsMalformed() {
        var framer = MessageFramer()
        framer.append([1, 0, 0, 0, 0, 0, 4, 0])
        #expect(throws: WireError.malformed("message size 4")) { try framer.next() }
    }
}
