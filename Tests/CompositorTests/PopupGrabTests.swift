import Compositor
import Testing
import WaylandTestClient

/// xdg_popup grabs: a press outside the grabbing client dismisses its popups and is not delivered.
@Suite(.serialized) struct PopupGrabTests {
    struct Window {
        let client: TestClient
        let pointer: TestProxy
        let popup: TestProxy
    }

    /// A mapped 64×64 toplevel (centred on the 640×480 output: 288…352 × 208…272) with a mapped
    /// 20×20 popup that holds a grab.
    func windowWithGrabbingPopup(_ session: HeadlessSession) throws -> Window {
        let client = try SessionClient(session)
        let seat = try client.client.bind("wl_seat", version: 7)
        let pointer = try seat.send(0, [.newID], interface: "wl_pointer")
        let (surface, xdgSurface) = try client.makeToplevel()
        try client.show(client.makeBuffer(width: 64, height: 64, format: 1), on: surface)

        let positioner = try client.shell.send(1, [.newID], interface: "xdg_positioner")
        try positioner.send(1, [.int(20), .int(20)])
        try positioner.send(2, [.int(0), .int(0), .int(10), .int(10)])
        let popupSurface = try client.compositor.send(0, [.newID], interface: "wl_surface")
        let popupXdgSurface = try client.shell.send(2, [.newID, .object(popupSurface)], interface: "xdg_surface")
        let popup = try popupXdgSurface.send(
            2, [.newID, .object(xdgSurface), .object(positioner)], interface: "xdg_popup")
        try popup.send(1, [.object(seat), .uint(1)])
        try popupSurface.send(6)
        try client.client.roundtrip()
        try client.acknowledgeConfigure(of: popupXdgSurface)
        try client.show(client.makeBuffer(width: 20, height: 20, format: 1), on: popupSurface)
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
        #expect(window.popup.events(named: "popup_done").count == 1)
        #expect(window.pointer.events(named: "button").isEmpty)

        // With the grab over, clicks reach the window again.
        session.compositor.pointerMoved(toX: 320, y: 240)
        session.compositor.pointerButton(0x110, pressed: true)
        session.compositor.pointerButton(0x110, pressed: false)
        try window.client.roundtrip()
        #expect(window.pointer.events(named: "button").count == 2)
    }

    @Test func aClickOnTheGrabbingClientsOwnWindowKeepsThePopup() throws {
        let session = try HeadlessSession()
        let window = try windowWithGrabbingPopup(session)
        session.compositor.pointerMoved(toX: 340, y: 260)
        session.compositor.pointerButton(0x110, pressed: true)
        session.compositor.pointerButton(0x110, pressed: false)
        try window.client.roundtrip()
        #expect(window.popup.events(named: "popup_done").isEmpty)
        #expect(window.pointer.events(named: "button").count == 2)
    }

    @Test func aTouchOutsideTheClientDismissesItsPopups() throws {
        let session = try HeadlessSession()
        let window = try windowWithGrabbingPopup(session)
        session.compositor.touchDown(id: 0, x: 600, y: 400)
        session.compositor.touchUp(id: 0)
        try window.client.roundtrip()
        #expect(window.popup.events(named: "popup_done").count == 1)
    }
}
