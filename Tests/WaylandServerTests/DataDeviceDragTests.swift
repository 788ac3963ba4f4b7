import Glibc
import Testing
import WaylandServer
import WaylandTestClient

/// Client A drags from its surface (left button down on it); client B has the other surface.
private struct DragScene {
    let harness: SeatHarness
    let other: TestClient
    let managerA: TestProxy
    let deviceA: TestProxy
    let pointerA: TestProxy
    let proxyA: TestProxy
    let surfaceA: Surface
    let deviceB: TestProxy
    let pointerB: TestProxy
    let proxyB: TestProxy
    let surfaceB: Surface
    let press: UInt32

    static let leftButton: UInt32 = 0x110

    init() throws {
        harness = try SeatHarness()
        other = try harness.connect()
        (managerA, deviceA) = try harness.dataDevice(harness.client)
        pointerA = try harness.pointer(harness.client)
        (proxyA, surfaceA) = try harness.makeSurface(harness.client)
        (_, deviceB) = try harness.dataDevice(other)
        pointerB = try harness.pointer(other)
        (proxyB, surfaceB) = try harness.makeSurface(other)
        harness.seat.pointerEnter(surfaceA, x: 5, y: 5)
        press = harness.seat.pointerButton(time: 1, button: Self.leftButton, pressed: true)
        harness.seat.pointerFrame()
        try harness.client.roundtrip()
    }

    /// Starts dragging `source` (and `icon`) with the button press's serial.
    func startDrag(_ source: TestProxy?, icon: TestProxy? = nil) throws {
        try deviceA.send(0, [.object(source), .object(proxyA), .object(icon), .uint(press)])
        try harness.client.roundtrip()
    }

    /// Moves the drag onto B's surface and returns B's offer.
    func enterB() throws -> TestProxy {
        harness.seat.pointerEnter(surfaceB, x: 1, y: 2)
        try other.roundtrip()
        try harness.client.roundtrip()
        let id = try #require(deviceB.arguments(of: "data_offer")?.first?.objectID)
        return try #require(other.proxy(withID: id))
    }

    func roundtrip() throws {
        try other.roundtrip()
        try harness.client.roundtrip()
    }
}

@Suite struct DataDeviceDragTests {
    @Test func aDragEntersMovesAndDropsOntoAnotherClientsSurface() throws {
        let scene = try DragScene()
        let harness = scene.harness
        let (iconProxy, icon) = try harness.makeSurface(harness.client)
        let source = try harness.dataSource(harness.client, manager: scene.managerA, mimeTypes: ["text/uri-list"], actions: 1 | 2)
        try scene.startDrag(source, icon: iconProxy)

        #expect(harness.seat.isDragging)
        #expect(harness.seat.dragIcon === icon)
        #expect(icon.roleName == "wl_data_device-icon")
        #expect(harness.dragLog == ["started icon=\(icon.id)"])
        #expect(scene.pointerA.events.map(\.name) == ["enter", "frame", "button", "frame", "leave", "frame"])
        #expect(harness.seat.pointerFocus == nil)
        // The drag first enters the surface it started on, at the pointer.
        #expect(scene.deviceA.events.map(\.name) == ["data_offer", "enter"])
        #expect(scene.deviceA.arguments(of: "enter")?[1...3] == [.object(scene.proxyA.id), .fixed(5), .fixed(5)])

        let offer = try scene.enterB()
        let enterSerial = harness.base.display.currentSerial
        harness.seat.pointerMotion(time: 2, x: 3, y: 4)
        harness.seat.pointerFrame()
        try scene.roundtrip()
        #expect(scene.deviceA.events.map(\.name) == ["data_offer", "enter", "leave"])
        #expect(scene.deviceB.events.map(\.name) == ["data_offer", "enter", "motion"])
        #expect(scene.deviceB.arguments(of: "enter") == [.uint(enterSerial), .object(scene.proxyB.id), .fixed(1), .fixed(2), .object(offer.id)])
        #expect(scene.deviceB.arguments(of: "motion") == [.uint(2), .fixed(3), .fixed(4)])
        #expect(offer.events.map(\.name) == ["offer", "source_actions"])
        #expect(offer.arguments(of: "offer") == [.string("text/uri-list")])
        #expect(offer.arguments(of: "source_actions") == [.uint(3)])
        #expect(scene.pointerB.events.isEmpty)

        try offer.send(0, [.uint(enterSerial), .string("text/uri-list")])
        try offer.send(4, [.uint(1 | 2), .uint(2)])
        try scene.roundtrip()
        #expect(offer.events.map(\.name) == ["offer", "source_actions", "action"])
        #expect(offer.arguments(of: "action") == [.uint(2)])
        #expect(source.events.map(\.name) == ["target", "action"])
        #expect(source.arguments(of: "target") == [.string("text/uri-list")])
        #expect(source.arguments(of: "action") == [.uint(2)])

        harness.seat.pointerButton(time: 3, button: DragScene.leftButton, pressed: false)
        try scene.roundtrip()
        #expect(scene.deviceB.events.map(\.name) == ["data_offer", "enter", "motion", "drop", "leave"])
        #expect(source.events.map(\.name) == ["target", "action", "dnd_drop_performed"])
        #expect(!harness.seat.isDragging)
        #expect(harness.dragLog == ["started icon=\(icon.id)", "ended"])
        #expect(scene.pointerB.events.isEmpty)

        var pipeEnds: [Int32] = [-1, -1]
        #expect(pipe(&pipeEnds) == 0)
        try offer.send(1, [.string("text/uri-list"), .fileDescriptor(pipeEnds[1])])
        close(pipeEnds[1])
        close(pipeEnds[0])
        try offer.send(3)
        try scene.roundtrip()
        #expect(source.events.map(\.name) == ["target", "action", "dnd_drop_performed", "send", "dnd_finished"])
        if let fd = source.arguments(of: "send")?.last?.descriptor { close(fd) }
    }

    @Test func aDropWithoutAnAcceptedMimeTypeCancelsTheSource() throws {
        let scene = try DragScene()
        let source = try scene.harness.dataSource(scene.harness.client, manager: scene.managerA, mimeTypes: ["text/plain"], actions: 1)
        try scene.startDrag(source)
        let offer = try scene.enterB()
        try offer.send(4, [.uint(1), .uint(1)])
        try scene.roundtrip()
        scene.harness.seat.pointerButton(time: 3, button: DragScene.leftButton, pressed: false)
        try scene.roundtrip()
        #expect(scene.deviceB.events.map(\.name) == ["data_offer", "enter", "leave"])
        #expect(source.events.map(\.name) == ["action", "cancelled"])
        #expect(!scene.harness.seat.isDragging)
    }

    @Test func aDragStartedWithoutTheGrabsSerialDoesNotStart() throws {
        let scene = try DragScene()
        let source = try scene.harness.dataSource(scene.harness.client, manager: scene.managerA, mimeTypes: ["text/plain"], actions: 1)
        try scene.deviceA.send(0, [.object(source), .object(scene.proxyA), .object(nil), .uint(scene.press &- 1)])
        try scene.harness.client.roundtrip()
        #expect(!scene.harness.seat.isDragging)
        #expect(source.events.map(\.name) == ["cancelled"])
        #expect(scene.harness.dragLog.isEmpty)
    }

    @Test func aDragWithoutSourceOnlyEntersItsOwnClient() throws {
        let scene = try DragScene()
        try scene.startDrag(nil)
        scene.harness.seat.pointerEnter(scene.surfaceB, x: 1, y: 1)
        scene.harness.seat.pointerEnter(scene.surfaceA, x: 2, y: 2)
        scene.harness.seat.pointerButton(time: 3, button: DragScene.leftButton, pressed: false)
        try scene.roundtrip()
        #expect(scene.deviceA.events.map(\.name) == ["enter", "leave", "enter", "drop", "leave"])
        #expect(scene.deviceA.arguments(of: "enter")?.last == .object(0))
        #expect(scene.deviceB.events.isEmpty)
    }

    @Test func aTouchPointCanDragAndDropsWhenLifted() throws {
        let harness = try SeatHarness()
        let other = try harness.connect()
        let (manager, deviceA) = try harness.dataDevice(harness.client)
        let touchA = try harness.touch(harness.client)
        let (proxyA, surfaceA) = try harness.makeSurface(harness.client)
        let (_, deviceB) = try harness.dataDevice(other)
        let (_, surfaceB) = try harness.makeSurface(other)
        let down = harness.seat.touchDown(surfaceA, id: 3, x: 4, y: 4, time: 1)
        harness.seat.touchFrame()
        try harness.client.roundtrip()
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"], actions: 1)
        try deviceA.send(0, [.object(source), .object(proxyA), .object(nil), .uint(down)])
        try harness.client.roundtrip()
        #expect(harness.seat.isDragging)
        harness.seat.dragEnter(surfaceB, x: 1, y: 1)
        harness.seat.touchMotion(id: 3, x: 2, y: 2, time: 2)
        try other.roundtrip()
        let offerID = try #require(deviceB.arguments(of: "data_offer")?.first?.objectID)
        let offer = try #require(other.proxy(withID: offerID))
        try offer.send(0, [.uint(0), .string("text/plain")])
        try offer.send(4, [.uint(1), .uint(1)])
        try other.roundtrip()
        harness.seat.touchUp(id: 3, time: 3)
        try other.roundtrip()
        try harness.client.roundtrip()
        #expect(deviceB.events.map(\.name) == ["data_offer", "enter", "motion", "drop", "leave"])
        #expect(source.events.map(\.name) == ["target", "action", "dnd_drop_performed"])
        #expect(touchA.events.map(\.name) == ["down", "frame"])
        #expect(!harness.seat.isDragging)
    }

    @Test func destroyingTheSourceCancelsTheDrag() throws {
        let scene = try DragScene()
        let source = try scene.harness.dataSource(scene.harness.client, manager: scene.managerA, mimeTypes: ["text/plain"], actions: 1)
        try scene.startDrag(source)
        _ = try scene.enterB()
        try source.sendDestructor(1)
        try scene.harness.client.roundtrip()
        try scene.other.roundtrip()
        #expect(!scene.harness.seat.isDragging)
        #expect(scene.deviceB.events.map(\.name) == ["data_offer", "enter", "leave"])
        #expect(scene.harness.dragLog == ["started icon=none", "ended"])
    }

    @Test func anIconWithAnotherRoleIsARoleError() throws {
        let scene = try DragScene()
        let (iconProxy, _) = try scene.harness.makeSurface(scene.harness.client)
        try scene.pointerA.send(0, [.uint(scene.harness.base.display.currentSerial), .object(iconProxy), .int(0), .int(0)])
        try scene.deviceA.send(0, [.object(nil), .object(scene.proxyA), .object(iconProxy), .uint(scene.press)])
        #expect(throws: SeatHarness.error("wl_data_device", scene.deviceA, code: 0)) { try scene.harness.client.roundtrip() }
    }

    @Test func offerSetActionsWithUnknownBitsIsAnInvalidActionMaskError() throws {
        let scene = try DragScene()
        let source = try scene.harness.dataSource(scene.harness.client, manager: scene.managerA, mimeTypes: ["text/plain"], actions: 1)
        try scene.startDrag(source)
        let offer = try scene.enterB()
        try offer.send(4, [.uint(8 | 1), .uint(1)])
        #expect(throws: SeatHarness.error("wl_data_offer", offer, code: 1)) { try scene.other.roundtrip() }
    }

    @Test func aPreferredActionThatIsNotOneActionOfTheMaskIsAnInvalidActionError() throws {
        for preferred: UInt32 in [2, 1 | 2, 8] {
            let scene = try DragScene()
            let source = try scene.harness.dataSource(scene.harness.client, manager: scene.managerA, mimeTypes: ["text/plain"], actions: 3)
            try scene.startDrag(source)
            let offer = try scene.enterB()
            try offer.send(4, [.uint(preferred == 2 ? 1 : 3), .uint(preferred)])
            #expect(throws: SeatHarness.error("wl_data_offer", offer, code: 2)) { try scene.other.roundtrip() }
        }
    }

    @Test func finishBeforeTheDropOrWithAskIsAnInvalidFinishError() throws {
        let scene = try DragScene()
        let source = try scene.harness.dataSource(scene.harness.client, manager: scene.managerA, mimeTypes: ["text/plain"], actions: 1)
        try scene.startDrag(source)
        let offer = try scene.enterB()
        try offer.send(0, [.uint(0), .string("text/plain")])
        try offer.send(4, [.uint(1), .uint(1)])
        try offer.send(3)
        #expect(throws: SeatHarness.error("wl_data_offer", offer, code: 0)) { try scene.other.roundtrip() }

        let askScene = try DragScene()
        let askSource = try askScene.harness.dataSource(askScene.harness.client, manager: askScene.managerA, mimeTypes: ["text/plain"], actions: 4)
        try askScene.startDrag(askSource)
        let askOffer = try askScene.enterB()
        try askOffer.send(0, [.uint(0), .string("text/plain")])
        try askOffer.send(4, [.uint(4), .uint(4)])
        try askScene.roundtrip()
        askScene.harness.seat.pointerButton(time: 3, button: DragScene.leftButton, pressed: false)
        try askScene.roundtrip()
        #expect(askScene.deviceB.events(named: "drop").count == 1)
        try askOffer.send(3)
        #expect(throws: SeatHarness.error("wl_data_offer", askOffer, code: 0)) { try askScene.other.roundtrip() }
    }

    @Test func sourceSetActionsWithUnknownBitsOrTwiceIsAnError() throws {
        let harness = try SeatHarness()
        let manager = try harness.client.bind("wl_data_device_manager", version: 3)
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: [], actions: 16)
        #expect(throws: SeatHarness.error("wl_data_source", source, code: 0)) { try harness.client.roundtrip() }

        let second = try SeatHarness()
        let secondManager = try second.client.bind("wl_data_device_manager", version: 3)
        let twice = try second.dataSource(second.client, manager: secondManager, mimeTypes: [], actions: 1)
        try twice.send(2, [.uint(2)])
        #expect(throws: SeatHarness.error("wl_data_source", twice, code: 1)) { try second.client.roundtrip() }
    }

    @Test func aDroppedVersion2OfferFinishesWhenDestroyed() throws {
        let harness = try SeatHarness()
        let other = try harness.connect()
        let (manager, deviceA) = try harness.dataDevice(harness.client)
        _ = try harness.pointer(harness.client)
        let (proxyA, surfaceA) = try harness.makeSurface(harness.client)
        let (_, deviceB) = try harness.dataDevice(other, version: 2)
        let (_, surfaceB) = try harness.makeSurface(other)
        harness.seat.pointerEnter(surfaceA, x: 0, y: 0)
        let press = harness.seat.pointerButton(time: 1, button: DragScene.leftButton, pressed: true)
        try harness.client.roundtrip()
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"], actions: 1 | 2)
        try deviceA.send(0, [.object(source), .object(proxyA), .object(nil), .uint(press)])
        try harness.client.roundtrip()
        harness.seat.pointerEnter(surfaceB, x: 0, y: 0)
        try other.roundtrip()
        let offerID = try #require(deviceB.arguments(of: "data_offer")?.first?.objectID)
        let offer = try #require(other.proxy(withID: offerID))
        #expect(offer.events.map(\.name) == ["offer"])
        harness.seat.pointerButton(time: 2, button: DragScene.leftButton, pressed: false)
        try other.roundtrip()
        #expect(deviceB.events.map(\.name) == ["data_offer", "enter", "drop", "leave"])
        try offer.sendDestructor(2)
        try other.roundtrip()
        try harness.client.roundtrip()
        #expect(source.events.map(\.name) == ["action", "dnd_drop_performed", "dnd_finished"])
        #expect(source.arguments(of: "action") == [.uint(1)])
    }
}
