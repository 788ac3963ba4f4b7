import Glibc
import Testing
import WaylandServer
import WaylandTestClient

@Suite struct DataDeviceSelectionTests {
    private let mimeTypes = ["text/plain;charset=utf-8", "text/html"]

    /// Client A (the harness's) with keyboard focus and a data device; the serial of a key it got.
    private func focusedClient(_ harness: SeatHarness) throws -> (manager: TestProxy, device: TestProxy, keySerial: UInt32) {
        let (manager, device) = try harness.dataDevice(harness.client)
        _ = try harness.keyboard(harness.client)
        let (_, surface) = try harness.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        let serial = harness.seat.keyboardKey(time: 1, key: 46, pressed: true)
        try harness.client.roundtrip()
        return (manager, device, serial)
    }

    /// The offer a data device introduced with its `index`th data_offer event.
    private func offer(_ device: TestProxy, _ client: TestClient, at index: Int = 0) throws -> TestProxy {
        let id = try #require(device.arguments(of: "data_offer", at: index)?.first?.objectID)
        return try #require(client.proxy(withID: id))
    }

    @Test func theSelectionIsOfferedToTheClientThatGetsKeyboardFocus() throws {
        let harness = try SeatHarness()
        let other = try harness.connect()
        let (manager, device, serial) = try focusedClient(harness)
        #expect(device.events.map(\.name) == ["selection"])
        #expect(device.arguments(of: "selection") == [.object(0)])

        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: mimeTypes)
        try device.send(1, [.object(source), .uint(serial)])
        try harness.client.roundtrip()
        #expect(harness.seat.selectionMimeTypes == mimeTypes)
        #expect(harness.selectionChanges == 1)
        #expect(device.events.map(\.name) == ["selection", "data_offer", "selection"])

        let (_, deviceB) = try harness.dataDevice(other)
        let (_, surfaceB) = try harness.makeSurface(other)
        #expect(deviceB.events.isEmpty)
        harness.seat.keyboardEnter(surfaceB)
        try other.roundtrip()
        #expect(deviceB.events.map(\.name) == ["data_offer", "selection"])
        let offer = try offer(deviceB, other)
        #expect(deviceB.arguments(of: "selection") == [.object(offer.id)])
        #expect(offer.events.map(\.name) == ["offer", "offer"])
        #expect(offer.events.map(\.arguments) == mimeTypes.map { [.string($0)] })
    }

    /// A source offers at most 64 types: the rest never reach the clients the selection is
    /// offered to.
    @Test func typesPastTheLimitAreLeftOutOfTheOffer() throws {
        let harness = try SeatHarness()
        let other = try harness.connect()
        let (manager, device, serial) = try focusedClient(harness)
        let offered = (0..<100).map { "application/x-vitrine-\($0)" }
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: offered)
        try device.send(1, [.object(source), .uint(serial)])
        try harness.client.roundtrip()
        #expect(harness.seat.selectionMimeTypes == Array(offered.prefix(64)))
        let (_, deviceB) = try harness.dataDevice(other)
        let (_, surfaceB) = try harness.makeSurface(other)
        harness.seat.keyboardEnter(surfaceB)
        try other.roundtrip()
        #expect(try offer(deviceB, other).events.map(\.arguments) == offered.prefix(64).map { [.string($0)] })
    }

    @Test func receiveForwardsTheDescriptorToTheSourceAndClosesOurCopy() throws {
        let harness = try SeatHarness()
        let other = try harness.connect()
        let (manager, device, serial) = try focusedClient(harness)
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: mimeTypes)
        try device.send(1, [.object(source), .uint(serial)])
        try harness.client.roundtrip()
        let (_, deviceB) = try harness.dataDevice(other)
        let (_, surfaceB) = try harness.makeSurface(other)
        harness.seat.keyboardEnter(surfaceB)
        try other.roundtrip()
        let offer = try offer(deviceB, other)

        var pipeEnds: [Int32] = [-1, -1]
        #expect(pipe(&pipeEnds) == 0)
        // Non-blocking, so that a copy of the write end left open shows as EAGAIN instead of hanging.
        #expect(fcntl(pipeEnds[0], F_SETFL, O_NONBLOCK) == 0)
        defer { close(pipeEnds[0]) }
        try offer.send(1, [.string("text/html"), .fileDescriptor(pipeEnds[1])])
        close(pipeEnds[1])
        try other.roundtrip()
        try harness.client.roundtrip()

        let send = try #require(source.arguments(of: "send"))
        #expect(send.first == .string("text/html"))
        let writeEnd = try #require(send.last?.descriptor)
        let bytes = Array("<p>hello</p>".utf8)
        #expect(write(writeEnd, bytes, bytes.count) == bytes.count)
        close(writeEnd)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(pipeEnds[0], &buffer, buffer.count)
        #expect(count == bytes.count)
        #expect(Array(buffer.prefix(max(count, 0))) == bytes)
        // End of file: no other copy of the write end is open (the server closed its own).
        #expect(read(pipeEnds[0], &buffer, buffer.count) == 0)
    }

    @Test func aNewSelectionCancelsTheOldSourceAndItsOffersGoInert() throws {
        let harness = try SeatHarness()
        let (manager, device, serial) = try focusedClient(harness)
        let first = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"])
        try device.send(1, [.object(first), .uint(serial)])
        try harness.client.roundtrip()
        let oldOffer = try offer(device, harness.client)
        let newer = harness.seat.keyboardKey(time: 2, key: 46, pressed: false)
        let second = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["image/png"])
        try device.send(1, [.object(second), .uint(newer)])
        try harness.client.roundtrip()
        #expect(first.events.map(\.name) == ["cancelled"])
        #expect(harness.seat.selectionMimeTypes == ["image/png"])
        #expect(try offer(device, harness.client, at: 1).events.map(\.arguments) == [[.string("image/png")]])

        var pipeEnds: [Int32] = [-1, -1]
        #expect(pipe(&pipeEnds) == 0)
        try oldOffer.send(1, [.string("text/plain"), .fileDescriptor(pipeEnds[1])])
        close(pipeEnds[1])
        close(pipeEnds[0])
        try harness.client.roundtrip()
        #expect(first.events(named: "send").isEmpty)
        #expect(second.events.isEmpty)
    }

    @Test func anOlderSerialOrOneTheClientNeverGotIsIgnored() throws {
        let harness = try SeatHarness()
        let (manager, device, serial) = try focusedClient(harness)
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"])
        try device.send(1, [.object(source), .uint(serial &+ 1000)])
        try harness.client.roundtrip()
        #expect(harness.seat.selectionMimeTypes == nil)

        let newer = harness.seat.keyboardKey(time: 2, key: 46, pressed: false)
        try device.send(1, [.object(source), .uint(newer)])
        let older = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["image/png"])
        try device.send(1, [.object(older), .uint(serial)])
        try harness.client.roundtrip()
        #expect(harness.seat.selectionMimeTypes == ["text/plain"])
        #expect(harness.selectionChanges == 1)
    }

    @Test func destroyingTheSelectionSourceClearsTheSelection() throws {
        let harness = try SeatHarness()
        let (manager, device, serial) = try focusedClient(harness)
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"])
        try device.send(1, [.object(source), .uint(serial)])
        try harness.client.roundtrip()
        try source.sendDestructor(1)
        try harness.client.roundtrip()
        #expect(harness.seat.selectionMimeTypes == nil)
        #expect(harness.selectionChanges == 2)
        #expect(device.events.map(\.name) == ["selection", "data_offer", "selection", "selection"])
        #expect(device.arguments(of: "selection", at: 2) == [.object(0)])
    }

    @Test func aSourceUsedTwiceIsAnInvalidSourceError() throws {
        let harness = try SeatHarness()
        let (manager, device, serial) = try focusedClient(harness)
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"])
        try device.send(1, [.object(source), .uint(serial)])
        try device.send(1, [.object(source), .uint(serial)])
        #expect(throws: SeatHarness.error("wl_data_source", source, code: 1)) { try harness.client.roundtrip() }
    }

    @Test func aDragSourceCannotBeTheSelection() throws {
        let harness = try SeatHarness()
        let (manager, device, serial) = try focusedClient(harness)
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"], actions: 1)
        try device.send(1, [.object(source), .uint(serial)])
        #expect(throws: SeatHarness.error("wl_data_source", source, code: 1)) { try harness.client.roundtrip() }
    }

    @Test func finishAndSetActionsOnASelectionOfferAreErrors() throws {
        for (request, code): (UInt32, UInt32) in [(3, 0), (4, 3)] {
            let harness = try SeatHarness()
            let (manager, device, serial) = try focusedClient(harness)
            let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"])
            try device.send(1, [.object(source), .uint(serial)])
            try harness.client.roundtrip()
            let offer = try offer(device, harness.client)
            try offer.send(request, request == 4 ? [.uint(1), .uint(1)] : [])
            #expect(throws: SeatHarness.error("wl_data_offer", offer, code: code)) { try harness.client.roundtrip() }
        }
    }
}
