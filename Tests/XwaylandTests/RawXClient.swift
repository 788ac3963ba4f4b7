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

    // MARK: Selections

    /// What the test reads of the events X sent.
    enum Event {
        case selectionRequest(xcb_selection_request_event_t)
        case selectionNotify(xcb_selection_notify_event_t)
        case propertyNotify(xcb_property_notify_event_t)
    }

    /// The events queued, without waiting (others are dropped).
    func events() -> [Event] {
        var events: [Event] = []
        while let event = xcb_poll_for_event(connection) {
            defer { free(event) }
            let raw = UnsafeRawPointer(event)
            switch Int32(event.pointee.response_type & 0x7f) {
            case XCB_SELECTION_REQUEST: events.append(.selectionRequest(raw.load(as: xcb_selection_request_event_t.self)))
            case XCB_SELECTION_NOTIFY: events.append(.selectionNotify(raw.load(as: xcb_selection_notify_event_t.self)))
            case XCB_PROPERTY_NOTIFY: events.append(.propertyNotify(raw.load(as: xcb_property_notify_event_t.self)))
            default: break
            }
        }
        return events
    }

    func selectEvents(of window: UInt32, mask: UInt32) {
        xcb_change_window_attributes(connection, window, UInt32(XCB_CW_EVENT_MASK.rawValue), [mask])
        xcb_flush(connection)
    }

    func setSelectionOwner(_ owner: UInt32, of selection: UInt32) {
        xcb_set_selection_owner(connection, owner, selection, UInt32(XCB_CURRENT_TIME))
        xcb_flush(connection)
    }

    /// The window owning `selection` (0 for none).
    func selectionOwner(of selection: UInt32) -> UInt32 {
        guard let reply = xcb_get_selection_owner_reply(connection, xcb_get_selection_owner(connection, selection), nil) else { return 0 }
        defer { free(reply) }
        return reply.pointee.owner
    }

    func convertSelection(_ selection: UInt32, to target: UInt32, into property: UInt32, of requestor: UInt32, time: UInt32) {
        xcb_convert_selection(connection, requestor, selection, target, property, time)
        xcb_flush(connection)
    }

    /// Replaces `property` of `window` with `bytes` (format 8) or words (format 32).
    func setProperty(_ property: UInt32, of window: UInt32, type: UInt32, bytes: [UInt8]) {
        xcb_change_property(connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, type, 8, UInt32(bytes.count), bytes)
        xcb_flush(connection)
    }

    func setProperty(_ property: UInt32, of window: UInt32, type: UInt32, words: [UInt32]) {
        xcb_change_property(connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, type, 32, UInt32(words.count), words)
        xcb_flush(connection)
    }

    /// The type of `property` of `window` (0 when it is not set).
    func propertyType(_ property: UInt32, of window: UInt32) -> UInt32 {
        guard let reply = xcb_get_property_reply(connection, xcb_get_property(connection, 0, window, property, 0, 0, 0), nil) else { return 0 }
        defer { free(reply) }
        return reply.pointee.type
    }

    /// Answers a selection request (ICCCM: a SelectionNotify to the requestor; property 0 refuses).
    func notify(_ request: xcb_selection_request_event_t, property: UInt32) {
        var event = xcb_selection_notify_event_t()
        event.response_type = UInt8(XCB_SELECTION_NOTIFY)
        event.time = request.time
        event.requestor = request.requestor
        event.selection = request.selection
        event.target = request.target
        event.property = property
        withUnsafeBytes(of: &event) { bytes in
            xcb_send_event(connection, 0, request.requestor, 0, bytes.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
        xcb_flush(connection)
    }
}
