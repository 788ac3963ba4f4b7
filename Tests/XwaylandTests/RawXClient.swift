import CXCB
import Glibc

/// An X client of the test's own on libxcb, for what no Debian tool does: sending the window
/// manager Xwayland's messages, and owning or converting selections request by request. Its
/// events are read without waiting (`events()`), so that the compositor's loop keeps running.
final class RawXClient {
    struct ConnectionFailed: Error {}

    let connection: OpaquePointer
    let root: UInt32
    private let rootVisual: UInt32

    /// Connects to `display`, which must already accept clients (xcb waits for the server).
    init(display: String) throws {
        guard let connection = xcb_connect(display, nil) else { throw ConnectionFailed() }
        guard xcb_connection_has_error(connection) == 0 else {
            xcb_disconnect(connection)
            throw ConnectionFailed()
        }
        self.connection = connection
        let screen = xcb_setup_roots_iterator(xcb_get_setup(connection)).data.pointee
        root = screen.root
        rootVisual = screen.root_visual
    }

    deinit {
        xcb_disconnect(connection)
    }

    func atom(_ name: String) -> UInt32 {
        guard let reply = xcb_intern_atom_reply(connection, xcb_intern_atom(connection, 0, UInt16(name.utf8.count), name), nil) else { return 0 }
        defer { free(reply) }
        return reply.pointee.atom
    }

    /// A new top-level window, listening to `eventMask`.
    func createWindow(width: UInt16, height: UInt16, eventMask: UInt32 = 0) -> UInt32 {
        let window = xcb_generate_id(connection)
        xcb_create_window(
            connection, UInt8(XCB_COPY_FROM_PARENT), window, root, 0, 0, width, height, 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue),
            rootVisual, UInt32(XCB_CW_EVENT_MASK.rawValue), [eventMask])
        xcb_flush(connection)
        return window
    }

    func map(_ window: UInt32) {
        xcb_map_window(connection, window)
        xcb_flush(connection)
    }

    /// Sends the window manager a 32-bit client message about `window` the way Xwayland sends
    /// `WL_SURFACE_ID` and `WL_SURFACE_SERIAL`: to the root, where only the window manager
    /// selects SubstructureRedirect.
    func sendToWindowManager(type: UInt32, about window: UInt32, words: [UInt32]) {
        var message = xcb_client_message_event_t()
        message.response_type = UInt8(XCB_CLIENT_MESSAGE)
        message.format = 32
        message.window = window
        message.type = type
        withUnsafeMutableBytes(of: &message.data) { data in
            for (index, word) in words.prefix(5).enumerated() { data.storeBytes(of: word, toByteOffset: index * 4, as: UInt32.self) }
        }
        withUnsafeBytes(of: &message) { bytes in
            xcb_send_event(
                connection, 0, root, UInt32(XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue),
                bytes.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
        xcb_flush(connection)
    }
}
