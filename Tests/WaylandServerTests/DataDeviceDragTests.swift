import Glibc
import Testing
import WaylandServer
import WaylandTestClient

/// Client A drags from its surface (left button down on it); client B has the other surface.
private struct DragScene {
    let harness: SeatHarness
    let other: TestClient
    let managerA: WlDataDeviceManagerProxy
    let deviceA: WlDataDeviceProxy
    let pointerA: WlPointerProxy
    let proxyA: WlSurfaceProxy
    let surfaceA: Surface
    let deviceB: WlDataDeviceProxy
    let pointerB: WlPointerProxy
    let proxyB: WlSurfaceProxy
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
    func startDrag(_ source: WlDataSourceProxy?, icon: WlSurfaceProxy? = nil) throws {
        try deviceA.startDrag(source: source, origin: proxyA, icon: icon, serial: press)
        try harness.client.roundtrip()
    }

    /// Moves the drag onto B's surface and returns B's offer.
    @discardableResult
    func enterB() throws -> WlDataOfferProxy {
        harness.seat.pointerEnter(surfaceB, x: 1, y: 2)
        try other.roundtrip()
        try harness.client.roundtrip()
        return try #require(deviceB.offers.first)
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
        let source = try harness.dataSource(harness.client, manager: scene.managerA, mimeTypes: ["text/uri-list"], actions: [.copy, .move])
        try scene.startDrag(source, icon: iconProxy)

        #expect(harness.seat.isDragging)
        #expect(harness.seat.dragIcon === icon)
        #expect(icon.roleName == "wl_data_device-icon")
        #expect(harness.dragLog == ["started icon=\(icon.id)"])
        #expect(scene.pointerA.events.map(\.name) == ["enter", "frame", "button", "frame", "leave", "frame"])
        #expect(harness.seat.pointerFocus == nil)
        // The drag first enters the surface it started on, at the pointer.
        #expect(scene.deviceA.events.map(\.name) == ["data_offer", "enter"])
        guard case .enter(_, let entered, 5, 5, _)? = scene.deviceA.events.last, entered == scene.proxyA else {
            Issue.record("the drag did not enter A's surface at the pointer: \(scene.deviceA.events)")
            return
        }

        let offer = try scene.enterB()
        let enterSerial = harness.base.display.currentSerial
        harness.seat.pointerMotion(time: 2, x: 3, y: 4)
        harness.seat.pointerFrame()
        try scene.roundtrip()
        #expect(scene.deviceA.events.map(\.name) == ["data_offer", "enter", "leave"])
        #expect(scene.deviceB.events == [
            .dataOffer(id: offer), .enter(serial: enterSerial, surface: scene.proxyB, x: 1, y: 2, id: offer), .motion(time: 2, x: 3, y: 4),
        ])
        #expect(offer.events == [.offer(mimeType: "text/uri-list"), .sourceActions(sourceActions: [.copy, .move])])
        #expect(scene.pointerB.events.isEmpty)

        try offer.accept(serial: enterSerial, mimeType: "text/uri-list")
        try offer.setActions(dndActions: [.copy, .move], preferredAction: .move)
        try scene.roundtrip()
        #expect(offer.events.last == .action(dndAction: .move))
        #expect(source.events == [.target(mimeType: "text/uri-list"), .action(dndAction: .move)])

        harness.seat.pointerButton(time: 3, button: DragScene.leftButton, pressed: false)
        try scene.roundtrip()
        #expect(scene.deviceB.events.map(\.name) == ["data_offer", "enter", "motion", "drop", "leave"])
        #expect(source.events.map(\.name) == ["target", "action", "dnd_drop_performed"])
        #expect(!harness.seat.isDragging)
        #expect(harness.dragLog == ["started icon=\(icon.id)", "ended"])
        #expect(scene.pointerB.events.isEmpty)

        var pipeEnds: [Int32] = [-1, -1]
        #expect(pipe(&pipeEnds) == 0)
        try offer.receive(mimeType: "text/uri-list", fd: FileDescriptor(rawValue: pipeEnds[1]))
        close(pipeEnds[1])
        close(pipeEnds[0])
        try offer.finish()
        try scene.roundtrip()
        #expect(source.events.map(\.name) == ["target", "action", "dnd_drop_performed", "send", "dnd_finished"])
    }

    /// The surface a drag is over is retained every frame: the drag holds it strongly, not weakly
    /// (a weak reference gives it a side table, which slows every retain and release of it).
    @Test func theSurfaceADragIsOverIsNotWeaklyReferenced() throws {
        let scene = try DragScene()
        let source = try scene.harness.dataSource(scene.harness.client, manager: scene.managerA, mimeTypes: ["text/plain"], actions: [.copy])
        try scene.startDrag(source)
        try scene.enterB()
        // A count of 1 is the object's own: no weak reference.
        #expect(_getWeakRetainCount(scene.surfaceB) == 1)
        #expect(_getWeakRetainCount(scene.surfaceA) == 1)
    }

    @Test func aDropWithoutAnAcceptedMimeTypeCancelsTheSource() throws {
        let scene = try DragScene()
        let source = try scene.harness.dataSource(scene.harness.client, manager: scene.managerA, mimeTypes: ["text/plain"], actions: .copy)
        try scene.startDrag(source)
        let offer = try scene.enterB()
        try offer.setActions(dndActions: .copy, preferredAction: .copy)
        try scene.roundtrip()
        scene.harness.seat.pointerButton(time: 3, button: DragScene.leftButton, pressed: false)
        try scene.roundtrip()
        #expect(scene.deviceB.events.map(\.name) == ["data_offer", "enter", "leave"])
        #expect(source.events.map(\.name) == ["action", "cancelled"])
        #expect(!scene.harness.seat.isDragging)
    }

    @Test func aDragStartedWithoutTheGrabsSerialDoesNotStart() throws {
        let scene = try DragScene()
        let source = try scene.harness.dataSource(scene.harness.client, manager: scene.managerA, mimeTypes: ["text/plain"], actions: .copy)
        try scene.deviceA.startDrag(source: source, origin: scene.proxyA, icon: nil, serial: scene.press &- 1)
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
        #expect(scene.deviceA.events.allSatisfy { if case .enter(_, _, _, _, let offer) = $0 { offer == nil } else { true } })
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
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"], actions: .copy)
        try deviceA.startDrag(source: source, origin: proxyA, icon: nil, serial: down)
        try harness.client.roundtrip()
        #expect(harness.seat.isDragging)
        harness.seat.dragEnter(surfaceB, x: 1, y: 1)
        harness.seat.touchMotion(id: 3, x: 2, y: 2, time: 2)
        try other.roundtrip()
        let offer = try #require(deviceB.offers.first)
        try offer.accept(serial: 0, mimeType: "text/plain")
        try offer.setActions(dndActions: .copy, preferredAction: .copy)
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
        let source = try scene.harness.dataSource(scene.harness.client, manager: scene.managerA, mimeTypes: ["text/plain"], actions: .copy)
        try scene.startDrag(source)
        try scene.enterB()
        try source.destroy()
        try scene.harness.client.roundtrip()
        try scene.other.roundtrip()
        #expect(!scene.harness.seat.isDragging)
        #expect(scene.deviceB.events.map(\.name) == ["data_offer", "enter", "leave"])
        #expect(scene.harness.dragLog == ["started icon=none", "ended"])
    }

    @Test func anIconWithAnotherRoleIsARoleError() throws {
        let scene = try DragScene()
        let (iconProxy, _) = try scene.harness.makeSurface(scene.harness.client)
        try scene.pointerA.setCursor(serial: scene.harness.base.display.currentSerial, surface: iconProxy, hotspotX: 0, hotspotY: 0)
        try scene.deviceA.startDrag(source: nil, origin: scene.proxyA, icon: iconProxy, serial: scene.press)
        #expect(throws: SeatHarness.error(WlDataDeviceError.role, on: scene.deviceA)) { try scene.harness.client.roundtrip() }
    }

    @Test func offerSetActionsWithUnknownBitsIsAnInvalidActionMaskError() throws {
        let scene = try DragScene()
        let source = try scene.harness.dataSource(scene.harness.client, manager: scene.managerA, mimeTypes: ["text/plain"], actions: .copy)
        try scene.startDrag(source)
        let offer = try scene.enterB()
        try offer.setActions(dndActions: WlDataDeviceManagerDndAction(rawValue: 8 | 1), preferredAction: .copy)
        #expect(throws: SeatHarness.error(WlDataOfferError.invalidActionMask, on: offer)) { try scene.other.roundtrip() }
    }

    @Test func aPreferredActionThatIsNotOneActionOfTheMaskIsAnInvalidActionError() throws {
        for preferred in [WlDataDeviceManagerDndAction.move, [.copy, .move], WlDataDeviceManagerDndAction(rawValue: 8)] {
            let scene = try DragScene()
            let source = try scene.harness.dataSource(scene.harness.client, manager: scene.managerA, mimeTypes: ["text/plain"], actions: [.copy, .move])
            try scene.startDrag(source)
            let offer = try scene.enterB()
            try offer.setActions(dndActions: preferred == .move ? .copy : [.copy, .move], preferredAction: preferred)
            #expect(throws: SeatHarness.error(WlDataOfferError.invalidAction, on: offer)) { try scene.other.roundtrip() }
        }
    }

    @Test func finishBeforeTheDropOrWithAskIsAnInvalidFinishError() throws {
        let scene = try DragScene()
        let source = try scene.harness.dataSource(scene.harness.client, manager: scene.managerA, mimeTypes: ["text/plain"], actions: .copy)
        try scene.startDrag(source)
        let offer = try scene.enterB()
        try offer.accept(serial: 0, mimeType: "text/plain")
        try offer.setActions(dndActions: .copy, preferredAction: .copy)
        try offer.finish()
        #expect(throws: SeatHarness.error(WlDataOfferError.invalidFinish, on: offer)) { try scene.other.roundtrip() }

        let askScene = try DragScene()
        let askSource = try askScene.harness.dataSource(askScene.harness.client, manager: askScene.managerA, mimeTypes: ["text/plain"], actions: .ask)
        try askScene.startDrag(askSource)
        let askOffer = try askScene.enterB()
        try askOffer.accept(serial: 0, mimeType: "text/plain")
        try askOffer.setActions(dndActions: .ask, preferredAction: .ask)
        try askScene.roundtrip()
        askScene.harness.seat.pointerButton(time: 3, button: DragScene.leftButton, pressed: false)
        try askScene.roundtrip()
        #expect(askScene.deviceB.events.filter { $0 == .drop }.count == 1)
        try askOffer.finish()
        #expect(throws: SeatHarness.error(WlDataOfferError.invalidFinish, on: askOffer)) { try askScene.other.roundtrip() }
    }

    @Test func sourceSetActionsWithUnknownBitsOrTwiceIsAnError() throws {
        let harness = try SeatHarness()
        let manager = try harness.client.bind(WlDataDeviceManagerProxy.self, version: 3)
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: [], actions: WlDataDeviceManagerDndAction(rawValue: 16))
        #expect(throws: SeatHarness.error(WlDataSourceError.invalidActionMask, on: source)) { try harness.client.roundtrip() }

        let second = try SeatHarness()
        let secondManager = try second.client.bind(WlDataDeviceManagerProxy.self, version: 3)
        let twice = try second.dataSource(second.client, manager: secondManager, mimeTypes: [], actions: .copy)
        try twice.setActions(dndActions: .move)
        #expect(throws: SeatHarness.error(WlDataSourceError.invalidSource, on: twice)) { try second.client.roundtrip() }
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
        let source = try harness.dataSource(harness.client, manager: manager, mimeTypes: ["text/plain"], actions: [.copy, .move])
        try deviceA.startDrag(source: source, origin: proxyA, icon: nil, serial: press)
        try harness.client.roundtrip()
        harness.seat.pointerEnter(surfaceB, x: 0, y: 0)
        try other.roundtrip()
        let offer = try #require(deviceB.offers.first)
        #expect(offer.events == [.offer(mimeType: "text/plain")])
        harness.seat.pointerButton(time: 2, button: DragScene.leftButton, pressed: false)
        try other.roundtrip()
        #expect(deviceB.events.map(\.name) == ["data_offer", "enter", "drop", "leave"])
        try offer.destroy()
        try other.roundtrip()
        try harness.client.roundtrip()
        #expect(source.events == [.action(dndAction: .copy), .dndDropPerformed, .dndFinished])
    }
}
