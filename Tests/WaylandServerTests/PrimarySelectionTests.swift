import Glibc
import Testing
import WaylandServer
import WaylandTestClient

/// zwp_primary_selection_device_manager_v1: text selected in one client pasted in another, held to
/// wl_data_device's rule that only a client that was sent the quoted input serial sets it.
@Suite struct PrimarySelectionTests {
    private struct Participant {
        let client: TestClient
        let manager: ZwpPrimarySelectionDeviceManagerV1Proxy
        let device: ZwpPrimarySelectionDeviceV1Proxy
        let surface: Surface
    }

    /// A client with a keyboard, a surface and a primary selection device.
    private func participant(_ harness: SeatHarness, _ client: TestClient) throws -> Participant {
        _ = try harness.keyboard(client)
        let (_, surface) = try harness.makeSurface(client)
        let manager = try client.bind(ZwpPrimarySelectionDeviceManagerV1Proxy.self, version: 1)
        let device = try manager.getDevice(seat: try harness.bindSeat(client))
        try client.roundtrip()
        return Participant(client: client, manager: manager, device: device, surface: surface)
    }

    private func source(_ participant: Participant, mimeTypes: [String]) throws -> ZwpPrimarySelectionSourceV1Proxy {
        let source = try participant.manager.createSource()
        for mimeType in mimeTypes { try source.offer(mimeType: mimeType) }
        return source
    }

    private func offers(_ device: ZwpPrimarySelectionDeviceV1Proxy) -> [ZwpPrimarySelectionOfferV1Proxy] {
        device.events.compactMap { if case .dataOffer(let offer) = $0 { offer } else { nil } }
    }

    @Test func textSelectedInOneClientIsPastedInAnother() throws {
        let harness = try SeatHarness()
        let manager = PrimarySelectionDeviceManagerGlobal(display: harness.base.display)
        try harness.client.roundtrip()
        let a = try participant(harness, harness.client)
        let b = try participant(harness, try harness.connect())
        harness.seat.keyboardEnter(a.surface)
        let serial = harness.seat.keyboardKey(time: 1, key: 30, pressed: true)
        try a.client.roundtrip()
        #expect(a.device.events == [.selection(id: nil)])

        let selected = try source(a, mimeTypes: ["text/plain;charset=utf-8", "UTF8_STRING"])
        try a.device.setSelection(source: selected, serial: serial)
        try a.client.roundtrip()
        #expect(harness.seat.primarySelectionMimeTypes == ["text/plain;charset=utf-8", "UTF8_STRING"])
        // The focused client sees its own selection as an offer too.
        #expect(a.device.events.map(\.name) == ["selection", "data_offer", "selection"])

        #expect(b.device.events.isEmpty)
        harness.seat.keyboardEnter(b.surface)
        try b.client.roundtrip()
        let offer = try #require(offers(b.device).first)
        #expect(b.device.events == [.dataOffer(offer: offer), .selection(id: offer)])
        #expect(offer.events == [.offer(mimeType: "text/plain;charset=utf-8"), .offer(mimeType: "UTF8_STRING")])

        var pipeEnds: [Int32] = [-1, -1]
        #expect(pipe(&pipeEnds) == 0)
        defer { close(pipeEnds[0]) }
        try offer.receive(mimeType: "UTF8_STRING", fd: FileDescriptor(rawValue: pipeEnds[1]))
        close(pipeEnds[1])
        try b.client.roundtrip()
        try a.client.roundtrip()
        guard case .send(let mimeType, let writeEnd)? = selected.events.first else {
            Issue.record("no send event: \(selected.events)")
            return
        }
        #expect(mimeType == "UTF8_STRING")
        let text = Array("selected words".utf8)
        #expect(write(writeEnd.rawValue, text, text.count) == text.count)
        selected.closeReceivedDescriptors()
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(pipeEnds[0], &buffer, buffer.count)
        #expect(Array(buffer.prefix(max(count, 0))) == text)
        // End of file: the server kept no copy of the write end.
        #expect(read(pipeEnds[0], &buffer, buffer.count) == 0)
        withExtendedLifetime(manager) {}
    }

    /// A client in the background cannot take the primary selection: a serial it was never sent
    /// is ignored (the protocol has no error for it), and the current selection stays.
    @Test func aSerialTheClientWasNotSentIsIgnored() throws {
        let harness = try SeatHarness()
        let manager = PrimarySelectionDeviceManagerGlobal(display: harness.base.display)
        try harness.client.roundtrip()
        let a = try participant(harness, harness.client)
        let b = try participant(harness, try harness.connect())
        harness.seat.keyboardEnter(a.surface)
        let serial = harness.seat.keyboardKey(time: 1, key: 30, pressed: true)
        try a.client.roundtrip()
        try a.device.setSelection(source: try source(a, mimeTypes: ["text/plain"]), serial: serial)
        try a.client.roundtrip()

        let intruder = try source(b, mimeTypes: ["text/html"])
        for quoted in [serial, 0, serial &+ 1000] { try b.device.setSelection(source: intruder, serial: quoted) }
        try b.client.roundtrip()
        #expect(harness.seat.primarySelectionMimeTypes == ["text/plain"])
        #expect(intruder.events.isEmpty)
        withExtendedLifetime(manager) {}
    }

    @Test func aNewSelectionCancelsTheOldSourceAndDestroyingItClearsTheSelection() throws {
        let harness = try SeatHarness()
        let manager = PrimarySelectionDeviceManagerGlobal(display: harness.base.display)
        try harness.client.roundtrip()
        let a = try participant(harness, harness.client)
        harness.seat.keyboardEnter(a.surface)
        let first = harness.seat.keyboardKey(time: 1, key: 30, pressed: true)
        let older = try source(a, mimeTypes: ["text/plain"])
        try a.device.setSelection(source: older, serial: first)
        let second = harness.seat.keyboardKey(time: 2, key: 30, pressed: false)
        let newer = try source(a, mimeTypes: ["text/html"])
        try a.device.setSelection(source: newer, serial: second)
        // A source is used once: setting the cancelled one again changes nothing.
        try a.device.setSelection(source: older, serial: second)
        try a.client.roundtrip()
        #expect(older.events == [.cancelled])
        #expect(harness.seat.primarySelectionMimeTypes == ["text/html"])

        try newer.destroy()
        try a.client.roundtrip()
        #expect(harness.seat.primarySelectionMimeTypes == nil)
        #expect(a.device.events.last == .selection(id: nil))
        withExtendedLifetime(manager) {}
    }
}
