import BoardConfig
import Compositor
import Glibc
import KioskShell
import LayerKit
import Testing
import WaylandServer
import WaylandTestClient

/// A client input method (zwp_input_method_v2, as squeekboard is one) in a kiosk whose board also
/// has the built-in keyboard: the client input method takes over while it serves the seat, types
/// into the app's field, and its popup is shown by the field's text cursor.
@Suite(.serialized) struct InputMethodClientTests {
    /// An input method client of `kiosk`, allowed to be one (the rule names this process's user).
    private struct InputMethodClient {
        let server: Client
        let client: TestClient
        let method: ZwpInputMethodV2Proxy
        let compositor: WlCompositorProxy
        let shm: WlShmProxy

        init(_ kiosk: OnScreenKeyboardKiosk) throws {
            kiosk.compositor.privilegeRules = [PrivilegeRule(.user(getuid()), privileges: [.inputMethod])]
            let (server, socket) = try kiosk.compositor.display.createClientSocket()
            self.server = server
            client = try TestClient(socket: socket) { try? kiosk.compositor.dispatch(timeoutMilliseconds: 0) }
            method = try client.bind(ZwpInputMethodManagerV2Proxy.self, version: 1)
                .getInputMethod(seat: try client.bind(WlSeatProxy.self, version: 8))
            compositor = try client.bind(WlCompositorProxy.self, version: 5)
            shm = try client.bind(WlShmProxy.self, version: 1)
            try client.roundtrip()
        }

        var doneCount: UInt32 { UInt32(method.events.filter { $0 == .done }.count) }

        /// A popup surface with a `width`×`height` buffer, and the server's surface for it.
        func popup(width: Int32, height: Int32) throws -> (ZwpInputPopupSurfaceV2Proxy, Surface) {
            let surface = try compositor.createSurface()
            let popup = try method.getInputPopupSurface(surface: surface)
            let size = Int(width * height * 4)
            let fd = anonymousFile(size: size)
            defer { close(fd) }
            let pool = try shm.createPool(fd: FileDescriptor(rawValue: fd), size: Int32(size))
            try surface.attach(buffer: try pool.createBuffer(offset: 0, width: width, height: height, stride: width * 4, format: .argb8888), x: 0, y: 0)
            try surface.commit()
            try client.roundtrip()
            return (popup, try #require(server.resource(withID: surface.id) as? Surface))
        }
    }

    @Test func aClientInputMethodTypesInsteadOfTheBuiltInKeyboardWhileItServesTheSeat() throws {
        let kiosk = try OnScreenKeyboardKiosk()
        let app = try TextFieldApp(kiosk)
        let board = try InputMethodClient(kiosk)
        #expect(kiosk.compositor.seat.inputMethod != nil)

        try app.enable { try $0.setContentType(hint: [], purpose: .normal) }
        try board.client.roundtrip()
        #expect(!kiosk.keyboard.view.isShown)
        #expect(board.method.events.first == .activate)

        app.textInput.clearEvents()
        try board.method.commitString(text: "héllo")
        try board.method.commit(serial: board.doneCount)
        try board.client.roundtrip()
        try app.client.roundtrip()
        #expect(app.textInput.events == [.commitString(text: "héllo"), .done(serial: 1)])

        // The client input method gone, the built-in keyboard serves the enabled field again.
        try board.method.destroy()
        try board.client.roundtrip()
        #expect(kiosk.compositor.seat.inputMethod == nil)
        #expect(kiosk.keyboard.view.isShown)
    }

    @Test func thePopupIsShownUnderTheTextCursorOrAboveItNearTheBottomAndStaysOnTheOutput() throws {
        let kiosk = try OnScreenKeyboardKiosk()
        let app = try TextFieldApp(kiosk)
        let board = try InputMethodClient(kiosk)
        let (popup, surface) = try board.popup(width: 100, height: 30)
        #expect(kiosk.compositor.layer(for: surface)?.superlayer == nil, "not shown while inactive")

        // The window fills the 640×480 output at its origin: the cursor's bottom-left is the popup's origin.
        try app.enable { try $0.setCursorRectangle(x: 40, y: 100, width: 2, height: 20) }
        try board.client.roundtrip()
        #expect(kiosk.compositor.windowAreaPosition(of: surface) == Point(x: 40, y: 120))
        #expect(popup.events == [.textInputRectangle(x: 0, y: -20, width: 2, height: 20)])

        // Near the bottom it goes above the cursor; near the right edge it slides left onto the output.
        try app.commit { try $0.setCursorRectangle(x: 600, y: 440, width: 2, height: 20) }
        try board.client.roundtrip()
        #expect(kiosk.compositor.windowAreaPosition(of: surface) == Point(x: 540, y: 410))
        #expect(popup.events.last == .textInputRectangle(x: 60, y: 30, width: 2, height: 20))

        // Deactivated, it leaves the screen.
        try app.disable()
        try board.client.roundtrip()
        #expect(kiosk.compositor.layer(for: surface)?.superlayer == nil)
    }
}
