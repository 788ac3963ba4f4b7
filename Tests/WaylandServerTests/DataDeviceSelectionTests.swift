import Glibc
import Testing
import WaylandServer
import WaylandTestClient

@Suite struct DataDeviceSelectionTests {
    private let mimeTypes = ["text/plain;charset=utf-8", "text/html"]

    /// Client A (the harness's) with keyboard focus and a data device; the serial of a key it got.
    private func focusedClient(_ harness: SeatHarness) throws -> (manager: WlDataDeviceManagerProxy, device: WlDataDeviceProxy, keySerial: UInt32) {
        let (manager, device) = try harness.dataDevice(harness.client)
        _ = try harness.keyboard(harness.client)
        let (_, surface) = try harness.makeSurface(harness.client)
        harness.seat.keyboardEnter(surface)
        let serial = harness.seat.keyboardKey(time: 1, key: 46, pressed: true)
        try harness.client.roundtrip()
        return (manager, device, serial)
    }

    /// The offer a data device introduced with its `index`th data_offer event.
    private func offer(_ device: WlDataDeviceProxy, at index: Int = 0) throws -> WlDataOfferProxy {
        try #require(index < device.offers.count ? device.offers[index] : nil)
    }

    @Test func theSelectionIsOfferedToTheClientThatGetsKeyboardFocus() throws {
        let harness = try SeatHarness()
        let other = try harness.connect()
        let (manager, device, serial) = try focusedClient(harness)
        #expect(device.events == [.selection(id: nil)])

        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: mimeTypes)
        try device.setSelection(source: source, serial: serial)
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
        let offer = try offer(deviceB)
        #expect(deviceB.events.last == .selection(id: offer))
        #expect(offer.events == mimeTypes.map { .offer(mimeType: $0) })
    }

    /// A source offers at most 64 types: the rest never reach the clients the selection is
    /// offered to.
    @Test func typesPastTheLimitAreLeftOutOfTheOffer() throws {
        let harness = try SeatHarness()
        let other = try harness.connect()
        let (manager, device, serial) = try focusedClient(harness)
        let offered = (0..<100).map { "application/x-vitrine-\($0)" }
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: offered)
        try device.setSelection(source: source, serial: serial)
        try harness.client.roundtrip()
        #expect(harness.seat.selectionMimeTypes == Array(offered.prefix(64)))
        let (_, deviceB) = try harness.dataDevice(other)
        let (_, surfaceB) = try harness.makeSurface(other)
        harness.seat.keyboardEnter(surfaceB)
        try other.roundtrip()
        #expect(try offer(deviceB).events == offered.prefix(64).map { .offer(mimeType: $0) })
    }

    @Test func receiveForwardsTheDescriptorToTheSourceAndClosesOurCopy() throws {
        let harness = try SeatHarness()
        let other = try harness.connect()
        let (manager, device, serial) = try focusedClient(harness)
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: mimeTypes)
        try device.setSelection(source: source, serial: serial)
        try harness.client.roundtrip()
        let (_, deviceB) = try harness.dataDevice(other)
        let (_, surfaceB) = try harness.makeSurface(other)
        harness.seat.keyboardEnter(surfaceB)
        try other.roundtrip()
        let offer = try offer(deviceB)

        var pipeEnds: [Int32] = [-1, -1]
        #expect(pipe(&pipeEnds) == 0)
        // Non-blocking, so that a copy of the write end left open shows as EAGAIN instead of hanging.
        #expect(fcntl(pipeEnds[0], F_SETFL, O_NONBLOCK) == 0)
        defer { close(pipeEnds[0]) }
        try offer.receive(mimeType: "text/html", fd: FileDescriptor(rawValue: pipeEnds[1]))
        close(pipeEnds[1])
        try other.roundtrip()
        try harness.client.roundtrip()

        guard case .send(let mimeType, let writeEnd)? = source.events.first else {
            Issue.record("no send event: \(source.events)")
            return
        }
        #expect(mimeType == "text/html")
        let bytes = Array("<p>hello</p>".utf8)
        #expect(write(writeEnd.rawValue, bytes, bytes.count) == bytes.count)
        source.closeReceivedDescriptors()
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
        try device.setSelection(source: first, serial: serial)
        try harness.client.roundtrip()
        let oldOffer = try offer(device)
        let newer = harness.seat.keyboardKey(time: 2, key: 46, pressed: false)
        let second = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["image/png"])
        try device.setSelection(source: second, serial: newer)
        try harness.client.roundtrip()
        #expect(first.events.map(\.name) == ["cancelled"])
        #expect(harness.seat.selectionMimeTypes == ["image/png"])
        #expect(try offer(device, at: 1).events == [.offer(mimeType: "image/png")])

        var pipeEnds: [Int32] = [-1, -1]
        #expect(pipe(&pipeEnds) == 0)
        try oldOffer.receive(mimeType: "text/plain", fd: FileDescriptor(rawValue: pipeEnds[1]))
        close(pipeEnds[1])
        close(pipeEnds[0])
        try harness.client.roundtrip()
        #expect(first.events == [.cancelled])
        #expect(second.events.isEmpty)
    }

    @Test func anOlderSerialOrOneTheClientNeverGotIsIgnored() throws {
        let harness = try SeatHarness()
        let (manager, device, serial) = try focusedClient(harness)
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"])
        try device.setSelection(source: source, serial: serial &+ 1000)
        try harness.client.roundtrip()
        #expect(harness.seat.selectionMimeTypes == nil)

        let newer = harness.seat.keyboardKey(time: 2, key: 46, pressed: false)
        try device.setSelection(source: source, serial: newer)
        let older = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["image/png"])
        try device.setSelection(source: older, serial: serial)
        try harness.client.roundtrip()
        #expect(harness.seat.selectionMimeTypes == ["text/plain"])
        #expect(harness.selectionChanges == 1)
    }

    @Test func destroyingTheSelectionSourceClearsTheSelection() throws {
        let harness = try SeatHarness()
        let (manager, device, serial) = try focusedClient(harness)
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"])
        try device.setSelection(source: source, serial: serial)
        try harness.client.roundtrip()
        try source.destroy()
        try harness.client.roundtrip()
        #expect(harness.seat.selectionMimeTypes == nil)
        #expect(harness.selectionChanges == 2)
        #expect(device.events.map(\.name) == ["selection", "data_offer", "selection", "selection"])
        #expect(device.events.last == .selection(id: nil))
    }

    @Test func aSourceUsedTwiceIsAnInvalidSourceError() throws {
        let harness = try SeatHarness()
        let (manager, device, serial) = try focusedClient(harness)
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"])
        try device.setSelection(source: source, serial: serial)
        try device.setSelection(source: source, serial: serial)
        #expect(throws: SeatHarness.error(WlDataSourceError.invalidSource, on: source)) { try harness.client.roundtrip() }
    }

    @Test func aDragSourceCannotBeTheSelection() throws {
        let harness = try SeatHarness()
        let (manager, device, serial) = try focusedClient(harness)
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"], actions: .copy)
        try device.setSelection(source: source, serial: serial)
        #expect(throws: SeatHarness.error(WlDataSourceError.invalidSource, on: source)) { try harness.client.roundtrip() }
    }

    @Test func finishAndSetActionsOnASelectionOfferAreErrors() throws {
        for request in ["finish", "set_actions"] {
            let harness = try SeatHarness()
            let (manager, device, serial) = try focusedClient(harness)
            let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"])
            try device.setSelection(source: source, serial: serial)
            try harness.client.roundtrip()
            let offer = try offer(device)
            if request == "finish" {
                try offer.finish()
                #expect(throws: SeatHarness.error(WlDataOfferError.invalidFinish, on: offer)) { try harness.client.roundtrip() }
            } else {
                try offer.setActions(dndActions: .copy, preferredAction: .copy)
                #expect(throws: SeatHarness.error(WlDataOfferError.invalidOffer, on: offer)) { try harness.client.roundtrip() }
            }
        }
    }
}
