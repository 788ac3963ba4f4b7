import Testing
import WaylandServer
import WaylandTestClient

@Suite struct SeatPointerTests {
    private let leftButton: UInt32 = 0x110

    @Test func enterMotionButtonAndFrameArriveInOrderWithSerialsAndSurfaceLocalCoordinates() throws {
        let harness = try SeatHarness()
        let pointer = try harness.pointer(harness.client)
        let (proxy, surface) = try harness.makeSurface(harness.client)
        harness.seat.pointerEnter(surface, x: 10.5, y: 20.25)
        let enterSerial = harness.base.display.currentSerial
        harness.seat.pointerMotion(time: 100, x: 11, y: 21.5)
        let press = harness.seat.pointerButton(time: 101, button: leftButton, pressed: true)
        harness.seat.pointerFrame()
        let release = harness.seat.pointerButton(time: 102, button: leftButton, pressed: false)
        harness.seat.pointerFrame()
        try harness.client.roundtrip()

        #expect(pointer.events.map(\.name) == ["enter", "frame", "motion", "button", "frame", "button", "frame"])
        #expect(pointer.arguments(of: "enter") == [.uint(enterSerial), .object(proxy.id), .fixed(10.5), .fixed(20.25)])
        #expect(pointer.arguments(of: "motion") == [.uint(100), .fixed(11), .fixed(21.5)])
        #expect(pointer.arguments(of: "button", at: 0) == [.uint(press), .uint(101), .uint(leftButton), .uint(1)])
        #expect(pointer.arguments(of: "button", at: 1) == [.uint(release), .uint(102), .uint(leftButton), .uint(0)])
        #expect(enterSerial < press && press < release)
        #expect(harness.seat.pointerFocus === surface)
    }

    @Test func focusMovingToAnotherClientEndsTheFirstClientsGroupWithAFrame() throws {
        let harness = try SeatHarness()
        let other = try harness.connect()
        let pointerA = try harness.pointer(harness.client)
        let pointerB = try harness.pointer(other)
        let (proxyA, surfaceA) = try harness.makeSurface(harness.client)
        let (proxyB, surfaceB) = try harness.makeSurface(other)
        harness.seat.pointerEnter(surfaceA, x: 1, y: 1)
        harness.seat.pointerEnter(surfaceB, x: 2, y: 3)
        let enterB = harness.base.display.currentSerial
        harness.seat.pointerMotion(time: 5, x: 4, y: 4)
        harness.seat.pointerFrame()
        try harness.client.roundtrip()
        try other.roundtrip()

        #expect(pointerA.events.map(\.name) == ["enter", "frame", "leave", "frame"])
        #expect(pointerA.arguments(of: "leave") == [.uint(enterB - 1), .object(proxyA.id)])
        #expect(pointerB.events.map(\.name) == ["enter", "frame", "motion", "frame"])
        #expect(pointerB.arguments(of: "enter") == [.uint(enterB), .object(proxyB.id), .fixed(2), .fixed(3)])
    }

    @Test func focusMovingWithinOneClientGroupsLeaveAndEnterInOneFrame() throws {
        let harness = try SeatHarness()
        let pointer = try harness.pointer(harness.client)
        let (_, first) = try harness.makeSurface(harness.client)
        let (_, second) = try harness.makeSurface(harness.client)
        harness.seat.pointerEnter(first, x: 1, y: 1)
        harness.seat.pointerEnter(second, x: 1, y: 1)
        harness.seat.pointerLeave()
        try harness.client.roundtrip()
        #expect(pointer.events.map(\.name) == ["enter", "frame", "leave", "enter", "frame", "leave", "frame"])
        #expect(harness.seat.pointerFocus == nil)
    }

    @Test func aPointerCreatedWhileItsClientHasFocusIsEnteredAtOnce() throws {
        let harness = try SeatHarness()
        let (proxy, surface) = try harness.makeSurface(harness.client)
        harness.seat.pointerEnter(surface, x: 7, y: 8)
        let serial = harness.base.display.currentSerial
        let pointer = try harness.pointer(harness.client)
        #expect(pointer.events.map(\.name) == ["enter", "frame"])
        #expect(pointer.arguments(of: "enter") == [.uint(serial), .object(proxy.id), .fixed(7), .fixed(8)])
    }

    @Test func aVersion4PointerGetsNeitherFramesNorAxisSources() throws {
        let harness = try SeatHarness()
        let pointer = try harness.pointer(harness.client, version: 4)
        let (_, surface) = try harness.makeSurface(harness.client)
        harness.seat.pointerEnter(surface, x: 0, y: 0)
        harness.seat.pointerAxis(time: 9, axis: .vertical, value: 15, value120: 120, source: .wheel)
        harness.seat.pointerFrame()
        try harness.client.roundtrip()
        #expect(pointer.events.map(\.name) == ["enter", "axis"])
        #expect(pointer.arguments(of: "axis") == [.uint(9), .uint(0), .fixed(15)])
    }

    @Test func version8GetsValue120WhileVersions5To7GetWholeDiscreteSteps() throws {
        let harness = try SeatHarness()
        let current = try harness.pointer(harness.client, version: 8)
        let older = try harness.pointer(harness.client, version: 7)
        let (_, surface) = try harness.makeSurface(harness.client)
        harness.seat.pointerEnter(surface, x: 0, y: 0)
        try harness.client.roundtrip()
        current.clearEvents()
        older.clearEvents()
        harness.seat.pointerAxis(time: 1, axis: .vertical, value: 15, value120: 120, source: .wheel)
        harness.seat.pointerFrame()
        // Two half detents of a high-resolution wheel: one discrete step, on the second.
        harness.seat.pointerAxis(time: 2, axis: .horizontal, value: -7.5, value120: -60, source: .wheel)
        harness.seat.pointerFrame()
        harness.seat.pointerAxis(time: 3, axis: .horizontal, value: -7.5, value120: -60, source: .wheel)
        harness.seat.pointerAxisStop(time: 4, axis: .vertical)
        harness.seat.pointerFrame()
        try harness.client.roundtrip()

        #expect(current.events.map(\.name) == [
            "axis_source", "axis_value120", "axis", "frame",
            "axis_source", "axis_value120", "axis", "frame",
            "axis_source", "axis_value120", "axis", "axis_stop", "frame",
        ])
        #expect(current.arguments(of: "axis_value120", at: 0) == [.uint(0), .int(120)])
        #expect(current.arguments(of: "axis_value120", at: 2) == [.uint(1), .int(-60)])
        #expect(current.arguments(of: "axis_source") == [.uint(0)])
        #expect(older.events.map(\.name) == [
            "axis_source", "axis_discrete", "axis", "frame",
            "axis_source", "axis", "frame",
            "axis_source", "axis_discrete", "axis", "axis_stop", "frame",
        ])
        #expect(older.arguments(of: "axis_discrete", at: 0) == [.uint(0), .int(1)])
        #expect(older.arguments(of: "axis_discrete", at: 1) == [.uint(1), .int(-1)])
        #expect(older.arguments(of: "axis", at: 1) == [.uint(2), .uint(1), .fixed(-7.5)])
        #expect(older.arguments(of: "axis_stop") == [.uint(4), .uint(0)])
    }

    @Test func onlyOneAxisSourceGoesOutPerFrame() throws {
        let harness = try SeatHarness()
        let pointer = try harness.pointer(harness.client)
        let (_, surface) = try harness.makeSurface(harness.client)
        harness.seat.pointerEnter(surface, x: 0, y: 0)
        try harness.client.roundtrip()
        pointer.clearEvents()
        harness.seat.pointerAxis(time: 1, axis: .vertical, value: 3, source: .finger)
        harness.seat.pointerAxis(time: 1, axis: .horizontal, value: 4, source: .finger)
        harness.seat.pointerFrame()
        try harness.client.roundtrip()
        #expect(pointer.events.map(\.name) == ["axis_source", "axis", "axis", "frame"])
        #expect(pointer.arguments(of: "axis_source") == [.uint(1)])
    }

    @Test func setCursorGivesTheCursorRoleAndACommitOffsetMovesTheHotspot() throws {
        let harness = try SeatHarness()
        let pointer = try harness.pointer(harness.client)
        let (_, surface) = try harness.makeSurface(harness.client)
        let (cursorProxy, cursor) = try harness.makeSurface(harness.client)
        harness.seat.pointerEnter(surface, x: 1, y: 1)
        let serial = harness.base.display.currentSerial
        try pointer.send(0, [.uint(serial), .object(cursorProxy), .int(3), .int(4)])
        try harness.client.roundtrip()
        #expect(cursor.roleName == "wl_pointer-cursor")
        #expect(harness.cursorRequests.count == 1)
        #expect(harness.cursorRequests.last?.surface === cursor)
        #expect(harness.cursorRequests.last.map { [$0.hotspotX, $0.hotspotY] } == [3, 4])

        try cursorProxy.send(10, [.int(1), .int(-2)])
        try cursorProxy.send(6)
        try harness.client.roundtrip()
        #expect(harness.cursorRequests.count == 2)
        #expect(harness.cursorRequests.last.map { [$0.hotspotX, $0.hotspotY] } == [2, 6])

        try pointer.send(0, [.uint(serial), .object(nil), .int(0), .int(0)])
        try harness.client.roundtrip()
        #expect(harness.cursorRequests.count == 3)
        #expect(harness.cursorRequests.last?.surface == nil)
    }

    @Test func setCursorWithAStaleSerialOrWithoutFocusIsIgnored() throws {
        let harness = try SeatHarness()
        let pointer = try harness.pointer(harness.client)
        let (_, surface) = try harness.makeSurface(harness.client)
        let (cursorProxy, _) = try harness.makeSurface(harness.client)
        harness.seat.pointerEnter(surface, x: 1, y: 1)
        let serial = harness.base.display.currentSerial
        try pointer.send(0, [.uint(serial &- 1), .object(cursorProxy), .int(0), .int(0)])
        try harness.client.roundtrip()
        #expect(harness.cursorRequests.isEmpty)
        harness.seat.pointerLeave()
        try pointer.send(0, [.uint(serial), .object(cursorProxy), .int(0), .int(0)])
        try harness.client.roundtrip()
        #expect(harness.cursorRequests.isEmpty)
    }

    @Test func aSurfaceWithAnotherRoleCannotBeTheCursor() throws {
        let harness = try SeatHarness()
        let pointer = try harness.pointer(harness.client)
        let (parentProxy, surface) = try harness.makeSurface(harness.client)
        let (childProxy, _) = try harness.makeSurface(harness.client)
        let subcompositor = try harness.client.bind("wl_subcompositor", version: 1)
        _ = try subcompositor.send(1, [.newID, .object(childProxy), .object(parentProxy)], interface: "wl_subsurface")
        harness.seat.pointerEnter(surface, x: 1, y: 1)
        try harness.client.roundtrip()
        try pointer.send(0, [.uint(harness.base.display.currentSerial), .object(childProxy), .int(0), .int(0)])
        #expect(throws: SeatHarness.error("wl_pointer", pointer, code: 0)) { try harness.client.roundtrip() }
    }
}
