import Compositor
import Foundation
import Glibc
import Testing
import WaylandTestClient

/// xdg_popup grabs: a press outside the grabbing client dismisses its popups and is not delivered.
@Suite(.serialized) struct PopupGrabTests {
    struct Window {
        let client: TestClient
        let xdgSurface: TestProxy
        let pointer: TestProxy
        let popup: TestProxy
    }

    /// Attaches a `width`×`height` XRGB buffer to `surface` and commits.
    func attachBuffer(_ client: TestClient, _ surface: TestProxy, width: Int, height: Int) throws {
        let shm = try client.bind("wl_shm", version: 1)
        let size = width * height * 4
        let fd = anonymousFile(size: size)
        let pool = try shm.send(0, [.newID, .fileDescriptor(fd), .int(Int32(size))], interface: "wl_shm_pool")
        close(fd)
        let buffer = try pool.send(
            0, [.newID, .int(0), .int(Int32(width)), .int(Int32(height)), .int(Int32(width * 4)), .uint(1)],
            interface: "wl_buffer")
        try surface.send(1, [.object(buffer), .int(0), .int(0)])
        try surface.send(6)
    }

    /// A mapped 64×64 toplevel (centred on the 640×480 output: 288…352 × 208…272) with a mapped
    /// 20×20 popup that holds a grab.
    func windowWithGrabbingPopup(_ session: HeadlessSession) throws -> Window {
        let (_, socket) = try session.compositor.display.createClientSocket()
        let client = try TestClient(socket: socket) { try? session.compositor.dispatch(timeoutMilliseconds: 0) }
        let compositor = try client.bind("wl_compositor", version: 5)
        let shell = try client.bind("xdg_wm_base", version: 4)
        let seat = try client.bind("wl_seat", version: 7)
        let pointer = try seat.send(0, [.newID], interface: "wl_pointer")
        let surface = try compositor.send(0, [.newID], interface: "wl_surface")
        let xdgSurface = try shell.send(2, [.newID, .object(surface)], interface: "xdg_surface")
        _ = try xdgSurface.send(1, [.newID], interface: "xdg_toplevel")
        try surface.send(6)
        try client.roundtrip()
        guard case .uint(let serial) = xdgSurface.events(named: "configure").last?.arguments.first else {
            throw TestClientError.timedOut
        }
        try xdgSurface.send(4, [.uint(serial)])
        try attachBuffer(client, surface, width: 64, height: 64)
        try client.roundtrip()

        let positioner = try shell.send(1, [.newID], interface: "xdg_positioner")
        try positioner.send(1, [.int(20), .int(20)])
        try positioner.send(2, [.int(0), .int(0), .int(10), .int(10)])
        let popupSurface = try compositor.send(0, [.newID], interface: "wl_surface")
        let popupXdgSurface = try shell.send(2, [.newID, .object(popupSurface)], interface: "xdg_surface")
        let popup = try popupXdgSurface.send(
            2, [.newID, .object(xdgSurface), .object(positioner)], interface: "xdg_popup")
        try popup.send(1, [.object(seat), .uint(1)])
        try popupSurface.send(6)
        try client.roundtrip()
        guard case .uint(let popupSerial) = popupXdgSurface.events(named: "configure").last?.arguments.first else {
            throw TestClientError.timedOut
        }
        try popupXdgSurface.send(4, [.uint(popupSerial)])
        try attachBuffer(client, popupSurface, width: 20, height: 20)
        try client.roundtrip()
        return Window(client: client, xdgSurface: xdgSurface, pointer: pointer, popup: popup)
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
