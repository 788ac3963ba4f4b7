import Testing
import WaylandServer
import WaylandTestClient

@Suite struct SeatTests {
    @Test func seatSendsCapabilitiesThenNameAndEveryCapabilityChange() throws {
        let harness = try SeatHarness()
        let seat = try harness.bindSeat(harness.client)
        let oldSeat = try harness.bindSeat(harness.client, version: 1)
        try harness.client.roundtrip()
        #expect(seat.events == [.capabilities(capabilities: [.pointer, .keyboard, .touch]), .name(name: "seat0")])
        #expect(oldSeat.events == [.capabilities(capabilities: [.pointer, .keyboard, .touch])])

        harness.seat.capabilities = [.pointer]
        harness.seat.capabilities = [.pointer]
        try harness.client.roundtrip()
        #expect(seat.events.dropFirst(2) == [.capabilities(capabilities: .pointer)])
        #expect(oldSeat.events.dropFirst() == [.capabilities(capabilities: .pointer)])
    }

    @Test func askingForADeviceTheSeatNeverHadIsAMissingCapabilityError() throws {
        let harness = try SeatHarness(capabilities: [.pointer])
        let seat = try harness.bindSeat(harness.client)
        try seat.getKeyboard()
        #expect(throws: SeatHarness.error(WlSeatError.missingCapability, on: seat)) { try harness.client.roundtrip() }
    }

    @Test func aDeviceWhoseCapabilityWentAwayIsStillCreated() throws {
        let harness = try SeatHarness(capabilities: [.pointer, .keyboard])
        harness.seat.capabilities = [.pointer]
        let keyboard = try harness.keyboard(harness.client)
        let touchSeat = try harness.bindSeat(harness.client)
        #expect(keyboard.events.map(\.name) == ["keymap", "repeat_info"])
        try touchSeat.getTouch()
        #expect(throws: SeatHarness.error(WlSeatError.missingCapability, on: touchSeat)) { try harness.client.roundtrip() }
    }

    @Test func otherProtocolsFindTheSeatOfAWlSeatAndCheckInputSerials() throws {
        let harness = try SeatHarness()
        let other = try harness.connect()
        let seatProxy = try harness.bindSeat(harness.client)
        _ = try harness.pointer(harness.client)
        let (_, surface) = try harness.makeSurface(harness.client)
        let (_, otherSurface) = try harness.makeSurface(other)
        harness.seat.pointerEnter(surface, x: 0, y: 0)
        let press = harness.seat.pointerButton(time: 1, button: 0x110, pressed: true)

        let resource = try #require(surface.client.resource(withID: seatProxy.id))
        #expect(SeatGlobal.owning(resource) === harness.seat)
        #expect(SeatGlobal.owning(surface) == nil)
        #expect(harness.seat.isRecentInputSerial(press, of: surface.client))
        #expect(!harness.seat.isRecentInputSerial(press, of: otherSurface.client))
        #expect(!harness.seat.isRecentInputSerial(press &+ 1, of: surface.client))
    }
}
