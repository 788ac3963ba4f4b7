internal import CXCB
internal import CXCBComposite
internal import CXCBRes
import Glibc
import SystemCalls

/// The atoms the window manager speaks, interned once per connection.
enum AtomName: String, CaseIterable {
    case wlSurfaceID = "WL_SURFACE_ID"
    case wlSurfaceSerial = "WL_SURFACE_SERIAL"
    case wmProtocols = "WM_PROTOCOLS"
    case wmDeleteWindow = "WM_DELETE_WINDOW"
    case wmTakeFocus = "WM_TAKE_FOCUS"
    case wmState = "WM_STATE"
    case wmName = "WM_NAME"
    case wmClass = "WM_CLASS"
    case wmTransientFor = "WM_TRANSIENT_FOR"
    case wmS0 = "WM_S0"
    case utf8String = "UTF8_STRING"
    case netWMName = "_NET_WM_NAME"
    case netWMState = "_NET_WM_STATE"
    case netWMStateFullscreen = "_NET_WM_STATE_FULLSCREEN"
    case netWMPID = "_NET_WM_PID"
    case netSupported = "_NET_SUPPORTED"
    case netSupportingWMCheck = "_NET_SUPPORTING_WM_CHECK"
    case netActiveWindow = "_NET_ACTIVE_WINDOW"
    case netWMPing = "_NET_WM_PING"
    case netWMCMS0 = "_NET_WM_CM_S0"
    case clipboard = "CLIPBOARD"
    case targets = "TARGETS"
    case text = "TEXT"
    case incr = "INCR"
    /// Where a selection bridge has selections converted to (its own window's property), and
    /// their targets.
    case vitrineSelection = "_VITRINE_SELECTION"
    case vitrineTargets = "_VITRINE_TARGETS"
}

/// A property's value as the server holds it.
struct PropertyValue {
    var type: UInt32
    var format: UInt8
    var bytes: [UInt8]

    /// The value as 32-bit items (format 32), host order as xcb delivers them.
    var words: [UInt32] {
        guard format == 32 else { return [] }
        return bytes.withUnsafeBytes { raw in
            (0..<raw.count / 4).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) }
        }
    }
}

/// The window manager's X connection to Xwayland (`-wm`), the one owner of the
/// `xcb_connection_t`: xcb takes the descriptor and closes it on disconnect, with this object.
final class XConnection {
    let raw: OpaquePointer
    let root: UInt32
    private var atoms: [AtomName: UInt32] = [:]
    private var names: [UInt32: AtomName] = [:]

    /// The most bytes of a property read (titles, classes): 64 KiB.
    static let propertyLimitWords: UInt32 = 16_384

    init(taking descriptor: OwnedFileDescriptor) throws(XWindowManagerError) {
        guard let connection = xcb_connect_to_fd(descriptor.take().rawValue, nil) else { throw .connectionFailed(0) }
        let error = xcb_connection_has_error(connection)
        guard error == 0 else {
            xcb_disconnect(connection)
            throw .connectionFailed(error)
        }
        raw = connection
        root = xcb_setup_roots_iterator(xcb_get_setup(connection)).data.pointee.root
        let cookies = AtomName.allCases.map { name in
            (name, xcb_intern_atom(connection, 0, UInt16(name.rawValue.utf8.count), name.rawValue))
        }
        for (name, cookie) in cookies {
            guard let reply = xcb_intern_atom_reply(connection, cookie, nil) else { continue }
            atoms[name] = reply.pointee.atom
            names[reply.pointee.atom] = name
            free(reply)
        }
        guard atoms.count == AtomName.allCases.count else {
            xcb_disconnect(connection)
            throw .connectionFailed(xcb_connection_has_error(connection))
        }
    }

    deinit {
        xcb_disconnect(raw)
    }

    var fileDescriptor: FileDescriptor { FileDescriptor(rawValue: xcb_get_file_descriptor(raw)) }

    /// Nonzero once the connection broke (Xwayland went away).
    var error: Int32 { xcb_connection_has_error(raw) }

    subscript(name: AtomName) -> UInt32 { atoms[name]! }

    func name(of atom: UInt32) -> AtomName? { names[atom] }

    func flush() {
        xcb_flush(raw)
    }

    /// Reads a property of `window` (any type), at most `limitBytes` of it (64 KiB by default),
    /// and deletes it when asked and read whole; nil when it is not set or the window is gone. A
    /// property may be set and empty (xclip's `INCR` is).
    func property(_ atom: UInt32, of window: UInt32, delete: Bool = false, limitBytes: Int = Int(propertyLimitWords) * 4) -> PropertyValue? {
        let cookie = xcb_get_property(raw, delete ? 1 : 0, window, atom, 0, 0, UInt32((limitBytes + 3) / 4))
        guard let reply = xcb_get_property_reply(raw, cookie, nil) else { return nil }
        defer { free(reply) }
        let length = Int(xcb_get_property_value_length(reply))
        guard reply.pointee.type != 0 else { return nil }
        let bytes = length > 0 ? Array(UnsafeRawBufferPointer(start: xcb_get_property_value(reply), count: length)) : []
        return PropertyValue(type: reply.pointee.type, format: reply.pointee.format, bytes: bytes)
    }

    /// The atom named `name`, made when there is none yet; nil when X refuses (a name too long).
    func atom(named name: String) -> UInt32? {
        if let known = AtomName(rawValue: name) { return self[known] }
        let bytes = Array(name.utf8)
        guard bytes.count <= Int(UInt16.max),
              let reply = xcb_intern_atom_reply(raw, xcb_intern_atom(raw, 0, UInt16(bytes.count), bytes), nil) else { return nil }
        defer { free(reply) }
        return reply.pointee.atom
    }

    /// The name of `atom`, nil when it names none.
    func atomName(_ atom: UInt32) -> String? {
        if let known = names[atom] { return known.rawValue }
        guard atom != 0, let reply = xcb_get_atom_name_reply(raw, xcb_get_atom_name(raw, atom), nil) else { return nil }
        defer { free(reply) }
        let length = Int(xcb_get_atom_name_name_length(reply))
        guard let name = xcb_get_atom_name_name(reply) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: name, count: length), as: UTF8.self)
    }

    /// Replaces a property of `window` with 32-bit items of `type`.
    func setProperty(_ atom: UInt32, of window: UInt32, type: UInt32, words: [UInt32]) {
        xcb_change_property(raw, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, atom, type, 32, UInt32(words.count), words)
    }

    /// Replaces a property of `window` with UTF-8 text.
    func setProperty(_ atom: UInt32, of window: UInt32, text: String) {
        let bytes = Array(text.utf8)
        xcb_change_property(raw, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, atom, self[.utf8String], 8, UInt32(bytes.count), bytes)
    }

    /// The process of the X client that made `window`, as the X-Resource extension tells for
    /// local clients; nil where it cannot.
    func processID(owning window: UInt32) -> Int32? {
        var spec = xcb_res_client_id_spec_t(client: window, mask: UInt32(XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID.rawValue))
        let cookie = xcb_res_query_client_ids(raw, 1, &spec)
        guard let reply = xcb_res_query_client_ids_reply(raw, cookie, nil) else { return nil }
        defer { free(reply) }
        var iterator = xcb_res_query_client_ids_ids_iterator(reply)
        while iterator.rem > 0 {
            if let value = iterator.data, value.pointee.spec.mask & UInt32(XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID.rawValue) != 0,
                xcb_res_client_id_value_value_length(value) >= 1, let pid = xcb_res_client_id_value_value(value)
            {
                return Int32(bitPattern: pid.pointee)
            }
            xcb_res_client_id_value_next(&iterator)
        }
        return nil
    }

    /// Sends `event` (an xcb event structure, 32 bytes on the wire) to `window`'s client.
    func send<Event>(_ event: Event, to window: UInt32, mask: UInt32) {
        var bytes = [CChar](repeating: 0, count: 32)
        withUnsafeBytes(of: event) { raw in
            for index in 0..<min(32, raw.count) { bytes[index] = CChar(bitPattern: raw[index]) }
        }
        xcb_send_event(self.raw, 0, window, mask, bytes)
    }
}

public enum XWindowManagerError: Error, Equatable, CustomStringConvertible {
    /// xcb could not use the connection (xcb_connection_has_error's code).
    case connectionFailed(Int32)
    /// Another X client is the window manager already.
    case anotherWindowManager
    case system(SystemCallError)

    public var description: String {
        switch self {
        case .connectionFailed(let code): "the X connection to Xwayland failed (xcb error \(code))"
        case .anotherWindowManager: "another X window manager runs on the display"
        case .system(let error): "\(error)"
        }
    }
}
