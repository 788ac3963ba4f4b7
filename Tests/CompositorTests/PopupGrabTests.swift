import Compositor
import Testing
import WaylandTestClient

/// xdg_popup grabs: a press outside the grabbing client dismisses its popups and is not delivered.
@Suite(.serialized) struct PopupGrabTests {
    struct Window {
        let client: TestClient
        let pointer: WlPointerProxy
        let popup: XdgPopupProxy
    }

    /// A mapped 64×64 toplevel (centred on the 640×480 output: 288…352 × 208…272) with a mapped
    /// 20×20 popup that holds a grab.
    func windowWithGrabbingPopup(_ session: HeadlessSession) throws -> Window {
        let client = try SessionClient(session)
        let seat = try client.client.bind(WlSeatProxy.self, version: 7)
        let pointer = try seat.getPointer()
        let (surface, xdgSurface) = try client.makeToplevel()
        try client.show(client.makeBuffer(width: 64, height: 64, format: .xrgb8888), on: surface)

        let positioner = try client.shell.createPositioner()
        try positioner.setSize(width: 20, height: 20)
        try positioner.setAnchorRect(x: 0, y: 0, width: 10, height: 10)
        let popupSurface = try client.compositor.createSurface()
        let popupXdgSurface = try client.shell.getXdgSurface(surface: popupSurface)
        let popup = try popupXdgSurface.getPopup(parent: xdgSurface, positioner: positioner)
        try popup.grab(seat: seat, serial: 1)
        try popupSurface.commit()
        try client.client.roundtrip()
        try client.acknowledgeConfigure(of: popupXdgSurface)
        try client.show(client.makeBuffer(width: 20, height: 20, format: .xrgb8888), on: popupSurface)
        try client.client.roundtrip()
        return Window(client: client.client, pointer: pointer, popup: popup)
    }

    @Test func aClickOutsideTheClientDismissesItsPopupsAndIsNotDelivered() throws {
        let session = try HeadlessSession()
        let window = try windowWithGrabbingPopup(session)
        session.compositor.pointerMoved(toX: 10, y: 10)
        session.compositor.pointerButton(0x110, pressed: true)
        session.compositor.pointerButton(0x110, pressed: false)
        try window.client.roundtrip()
        #expect(window.popup.events.filter { $0 == .popupDone }.count == 1)
        #expect(!window.pointer.events.contains { $0.name == "button" })

        // With the grab over, clicks reach the window again.
        session.compositor.pointerMoved(toX: 320, y: 240)
        session.compositor.pointerButton(0x110, pressed: true)
        session.compositor.pointerButton(0x110, pressed: false)
        try window.client.roundtrip()
        #expect(window.pointer.events.filter { $0.name == "button" }.count == 2)
    }

    @Test func aClickOnTheGrabbingClientsOwnWindowKeepsThePopup() throws {
        let session = try HeadlessSession()
        let window = try windowWithGrabbingPopup(session)
        session.compositor.pointerMoved(toX: 340, y: 260)
        session.compositor.pointerButton(0x110, pressed: true)
        session.compositor.pointerButton(0x110, pressed: false)
        try window.client.roundtrip()
        #expect(!window.popup.events.contains(.popupDone))
        #expect(window.pointer.events.filter { $0.name == "button" }.count == 2)
    }

    @Test func aTouchOutsideTheClientDismissesItsPopups() throws {
        let session = try HeadlessSession()
        let window = try windowWithGrabbingPopup(session)
        session.compositor.touchDown(id: 0, x: 600, y: 400)
        session.compositor.touchUp(id: 0)
        try window.client.roundtrip()
        #expect(window.popup.events.filter { $0 == .popupDone }.count == 1)
    }
}
