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

        #expect(pointer.events == [
            .enter(serial: enterSerial, surface: proxy, surfaceX: 10.5, surfaceY: 20.25), .frame,
            .motion(time: 100, surfaceX: 11, surfaceY: 21.5),
            .button(serial: press, time: 101, button: leftButton, state: .pressed), .frame,
            .button(serial: release, time: 102, button: leftButton, state: .released), .frame,
        ])
        #expect(enterSerial < press && press < release)
        #expect(harness.seat.pointerFocus === surface)
    }

    /// The surface under the pointer is retained every frame: the seat holds it strongly, not
    /// weakly (a weak reference gives it a side table, which slows every retain and release of
    /// it), and lets go of it when it is destroyed.
    @Test func thePointerFocusIsNotWeaklyReferencedAndIsReleasedWhenDestroyed() throws {
        let harness = try SeatHarness()
        let pointer = try harness.pointer(harness.client)
        weak var released: Surface?
        do {
            let (proxy, surface) = try harness.makeSurface(harness.client)
            harness.seat.pointerEnter(surface, x: 1, y: 2)
            #expect(harness.seat.pointerFocus === surface)
            // A count of 1 is the object's own: no weak reference.
            #expect(_getWeakRetainCount(surface) == 1)
            released = surface
            try proxy.destroy()
            try harness.client.roundtrip()
        }
        #expect(released == nil)
        #expect(harness.seat.pointerFocus == nil)
        withExtendedLifetime(pointer) {}
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
        #expect(pointerA.events[2] == .leave(serial: enterB - 1, surface: proxyA))
        #expect(pointerB.events == [
            .enter(serial: enterB, surface: proxyB, surfaceX: 2, surfaceY: 3), .frame, .motion(time: 5, surfaceX: 4, surfaceY: 4), .frame,
        ])
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
        #expect(pointer.events == [.enter(serial: serial, surface: proxy, surfaceX: 7, surfaceY: 8), .frame])
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
        #expect(pointer.events[1] == .axis(time: 9, axis: .verticalScroll, value: 15))
    }

    /// A pointer of each version, of one client, in a surface of that client, their enter heard.
    private func enteredPointers(_ harness: SeatHarness, versions: [UInt32]) throws -> [WlPointerProxy] {
        let pointers = try versions.map { try harness.pointer(harness.client, version: $0) }
        let (_, surface) = try harness.makeSurface(harness.client)
        harness.seat.pointerEnter(surface, x: 0, y: 0)
        try harness.client.roundtrip()
        for pointer in pointers { pointer.clearEvents() }
        return pointers
    }

    @Test func version9HearsTheScrollsPhysicalDirectionBeforeEachAxisEvent() throws {
        let harness = try SeatHarness()
        let pointers = try enteredPointers(harness, versions: [9, 8])
        let (current, older) = (pointers[0], pointers[1])
        harness.seat.pointerAxis(time: 1, axis: .vertical, value: 15, value120: 120, source: .wheel)
        harness.seat.pointerFrame()
        harness.seat.pointerAxis(time: 2, axis: .horizontal, value: -4, source: .finger, direction: .inverted)
        harness.seat.pointerFrame()
        try harness.client.roundtrip()
        #expect(current.events == [
            .axisSource(axisSource: .wheel), .axisValue120(axis: .verticalScroll, value120: 120),
            .axisRelativeDirection(axis: .verticalScroll, direction: .identical), .axis(time: 1, axis: .verticalScroll, value: 15), .frame,
            .axisSource(axisSource: .finger), .axisRelativeDirection(axis: .horizontalScroll, direction: .inverted),
            .axis(time: 2, axis: .horizontalScroll, value: -4), .frame,
        ])
        #expect(!older.events.contains { $0.name == "axis_relative_direction" })
        #expect(older.events.count == 7)
    }

    @Test func version8GetsValue120WhileVersions5To7GetWholeDiscreteSteps() throws {
        let harness = try SeatHarness()
        let pointers = try enteredPointers(harness, versions: [8, 7])
        let (current, older) = (pointers[0], pointers[1])
        harness.seat.pointerAxis(time: 1, axis: .vertical, value: 15, value120: 120, source: .wheel)
        harness.seat.pointerFrame()
        // Two half detents of a high-resolution wheel: one discrete step, on the second.
        harness.seat.pointerAxis(time: 2, axis: .horizontal, value: -7.5, value120: -60, source: .wheel)
        harness.seat.pointerFrame()
        harness.seat.pointerAxis(time: 3, axis: .horizontal, value: -7.5, value120: -60, source: .wheel)
        harness.seat.pointerAxisStop(time: 4, axis: .vertical)
        harness.seat.pointerFrame()
        try harness.client.roundtrip()

        #expect(current.events == [
            .axisSource(axisSource: .wheel), .axisValue120(axis: .verticalScroll, value120: 120),
            .axis(time: 1, axis: .verticalScroll, value: 15), .frame,
            .axisSource(axisSource: .wheel), .axisValue120(axis: .horizontalScroll, value120: -60),
            .axis(time: 2, axis: .horizontalScroll, value: -7.5), .frame,
            .axisSource(axisSource: .wheel), .axisValue120(axis: .horizontalScroll, value120: -60),
            .axis(time: 3, axis: .horizontalScroll, value: -7.5), .axisStop(time: 4, axis: .verticalScroll), .frame,
        ])
        #expect(older.events == [
            .axisSource(axisSource: .wheel), .axisDiscrete(axis: .verticalScroll, discrete: 1),
            .axis(time: 1, axis: .verticalScroll, value: 15), .frame,
            .axisSource(axisSource: .wheel), .axis(time: 2, axis: .horizontalScroll, value: -7.5), .frame,
            .axisSource(axisSource: .wheel), .axisDiscrete(axis: .horizontalScroll, discrete: -1),
            .axis(time: 3, axis: .horizontalScroll, value: -7.5), .axisStop(time: 4, axis: .verticalScroll), .frame,
        ])
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
        #expect(pointer.events == [
            .axisSource(axisSource: .finger), .axis(time: 1, axis: .verticalScroll, value: 3),
            .axis(time: 1, axis: .horizontalScroll, value: 4), .frame,
        ])
    }

    @Test func setCursorGivesTheCursorRoleAndACommitOffsetMovesTheHotspot() throws {
        let harness = try SeatHarness()
        let pointer = try harness.pointer(harness.client)
        let (_, surface) = try harness.makeSurface(harness.client)
        let (cursorProxy, cursor) = try harness.makeSurface(harness.client)
        harness.seat.pointerEnter(surface, x: 1, y: 1)
        let serial = harness.base.display.currentSerial
        try pointer.setCursor(serial: serial, surface: cursorProxy, hotspotX: 3, hotspotY: 4)
        try harness.client.roundtrip()
        #expect(cursor.roleName == "wl_pointer-cursor")
        #expect(harness.cursorRequests.count == 1)
        #expect(harness.cursorRequests.last?.surface === cursor)
        #expect(harness.cursorRequests.last.map { [$0.hotspotX, $0.hotspotY] } == [3, 4])

        try cursorProxy.offset(x: 1, y: -2)
        try cursorProxy.commit()
        try harness.client.roundtrip()
        #expect(harness.cursorRequests.count == 2)
        #expect(harness.cursorRequests.last.map { [$0.hotspotX, $0.hotspotY] } == [2, 6])

        try pointer.setCursor(serial: serial, surface: nil, hotspotX: 0, hotspotY: 0)
        try harness.client.roundtrip()
        #expect(harness.cursorRequests.count == 3)
        #expect(harness.cursorRequests.last?.surface == nil)
    }

    /// The cursor surface is retained every frame it shows: the seat holds it strongly, not weakly
    /// (a weak reference gives it a side table, which slows every retain and release of it), and
    /// lets go of it when it is destroyed.
    @Test func theCursorIsNotWeaklyReferencedAndIsReleasedWhenDestroyed() throws {
        let harness = try SeatHarness()
        let pointer = try harness.pointer(harness.client)
        let (_, surface) = try harness.makeSurface(harness.client)
        harness.seat.pointerEnter(surface, x: 1, y: 1)
        weak var released: Surface?
        do {
            let (cursorProxy, cursor) = try harness.makeSurface(harness.client)
            try pointer.setCursor(serial: harness.base.display.currentSerial, surface: cursorProxy, hotspotX: 3, hotspotY: 4)
            try harness.client.roundtrip()
            #expect(harness.cursorRequests.last?.surface === cursor)
            // A count of 1 is the object's own: no weak reference.
            #expect(_getWeakRetainCount(cursor) == 1)
            released = cursor
            try cursorProxy.destroy()
            try harness.client.roundtrip()
        }
        harness.forgetCursorRequests()
        #expect(released == nil)
    }

    @Test func setCursorWithAStaleSerialOrWithoutFocusIsIgnored() throws {
        let harness = try SeatHarness()
        let pointer = try harness.pointer(harness.client)
        let (_, surface) = try harness.makeSurface(harness.client)
        let (cursorProxy, _) = try harness.makeSurface(harness.client)
        harness.seat.pointerEnter(surface, x: 1, y: 1)
        let serial = harness.base.display.currentSerial
        try pointer.setCursor(serial: serial &- 1, surface: cursorProxy, hotspotX: 0, hotspotY: 0)
        try harness.client.roundtrip()
        #expect(harness.cursorRequests.isEmpty)
        harness.seat.pointerLeave()
        try pointer.setCursor(serial: serial, surface: cursorProxy, hotspotX: 0, hotspotY: 0)
        try harness.client.roundtrip()
        #expect(harness.cursorRequests.isEmpty)
    }

    @Test func aSurfaceWithAnotherRoleCannotBeTheCursor() throws {
        let harness = try SeatHarness()
        let pointer = try harness.pointer(harness.client)
        let (parentProxy, surface) = try harness.makeSurface(harness.client)
        let (childProxy, _) = try harness.makeSurface(harness.client)
        let subcompositor = try harness.client.bind(WlSubcompositorProxy.self, version: 1)
        try subcompositor.getSubsurface(surface: childProxy, parent: parentProxy)
        harness.seat.pointerEnter(surface, x: 1, y: 1)
        try harness.client.roundtrip()
        try pointer.setCursor(serial: harness.base.display.currentSerial, surface: childProxy, hotspotX: 0, hotspotY: 0)
        #expect(throws: SeatHarness.error(WlPointerError.role, on: pointer)) { try harness.client.roundtrip() }
    }
}
