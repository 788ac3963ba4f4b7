internal import CWaylandServer
internal import CVitrineWayland
import WaylandProtocols

/// A protocol object of one client (a `wl_resource` that Vitrine dispatches). Subclasses, one per
/// interface, are `RequestHandler`s: their requests arrive decoded in `handle(_:)`, and the
/// generated `send(_:)` sends their events.
///
/// libwayland holds the Swift object (retained) for as long as the resource exists: it is released
/// when the resource is destroyed, by a destructor request, `destroy()` or the client leaving.
open class Resource: EventSender {
    public let client: Client
    public let version: UInt32
    public let id: UInt32
    private(set) var raw: OpaquePointer?
    /// The class as the `RequestHandler` it is, whose `decode` and `handle` requests go through.
    private let handler: any RequestHandler.Type
    /// Set while one of this resource's requests is handled: a destruction meanwhile (a destructor
    /// request, the client disconnected by the handler) leaves libwayland's hold on this object to
    /// be released once the handler returned (see `resourceDispatcher`).
    private var isDispatching = false
    private var wasDestroyedWhileDispatching = false

    /// Creates the resource for a client's new_id (or a server-created object, `id` 0), of the
    /// interface the generated bindings of `handler` (the subclass, `Self.self`) name. The class is
    /// passed in rather than looked up as a `RequestHandler` at run time: a conformance lookup cost
    /// more than the rest of creating a frame's wl_callback.
    init<Handler: RequestHandler>(_ handler: Handler.Type, client: Client, version: UInt32, id: UInt32) {
        assert(handler == Self.self, "\(Self.self) was created as a \(handler)")
        self.client = client
        self.version = version
        self.handler = handler
        guard let rawClient = client.raw, let resource = wl_resource_create(rawClient, handler.interface.raw, Int32(version), id) else {
            self.id = id
            client.postNoMemory()
            return
        }
        self.id = wl_resource_get_id(resource)
        raw = resource
        wl_resource_set_dispatcher(
            resource, resourceDispatcher, vitrine_implementation_tag(),
            Unmanaged.passRetained(self).toOpaque(), resourceDestroyed)
    }

    /// Whether the resource still exists (not destroyed by the client, the compositor or a disconnect).
    public var isAlive: Bool { raw != nil }

    var eventTarget: OpaquePointer? { raw }

    /// Called once when the resource goes away, whatever the reason; release references here.
    func destroyed() {}

    /// Destroys the resource (from a destructor request or the compositor's side).
    public func destroy() {
        guard let raw else { return }
        wl_resource_destroy(raw)
    }

    /// Posts a protocol error of the interface's error enum on this resource: the client is disconnected.
    func postError(_ code: some WaylandEnumeration, _ message: String) {
        postError(code: code.rawValue, message)
    }

    private func postError(code: UInt32, _ message: String) {
        guard let raw else { return }
        vitrine_resource_post_error(raw, code, message)
    }

    /// The interface's name, as in the XML ("wl_surface").
    public var interfaceName: String { handler.interface.name }

    /// The Swift object of a resource, when Vitrine dispatches it (nil for libwayland's own objects).
    static func own(_ resource: OpaquePointer) -> Resource? {
        guard vitrine_resource_is_own(resource) != 0, let data = wl_resource_get_user_data(resource)
        else { return nil }
        return Unmanaged<Resource>.fromOpaque(data).takeUnretainedValue()
    }

    /// Handles one request; returns whether the resource was destroyed meanwhile, when the caller
    /// releases libwayland's hold on it.
    fileprivate func dispatch(_ opcode: UInt32, _ arguments: UnsafeMutablePointer<wl_argument>?) -> Bool {
        isDispatching = true
        do {
            try handler.dispatch(self, opcode, MessageReader(arguments))
        } catch {
            (error.resource ?? self).postError(code: error.code, error.message)
        }
        isDispatching = false
        return wasDestroyedWhileDispatching
    }

    /// The resource is gone; returns whether libwayland's hold on this object is released now
    /// (false while one of its requests is handled: `dispatch` reports it instead).
    fileprivate func finish() -> Bool {
        raw = nil
        destroyed()
        wasDestroyedWhileDispatching = isDispatching
        return !isDispatching
    }
}

/// Handles a request without retaining its resource: libwayland's hold (taken in `init`) keeps it
/// alive, and a destruction during the request releases that hold only after the request.
/// (Retaining cost two slow reference-count operations per request for a weakly referenced
/// object, a wl_surface, that is, four requests a frame.)
private let resourceDispatcher: wl_dispatcher_func_t = { _, target, opcode, _, arguments in
    guard let target else { return -1 }
    let resource = OpaquePointer(target)
    guard let data = wl_resource_get_user_data(resource) else { return -1 }
    let owner = Unmanaged<Resource>.fromOpaque(data)
    if owner._withUnsafeGuaranteedRef({ $0.dispatch(opcode, arguments) }) {
        owner.release()
    }
    return 0
}

private let resourceDestroyed: wl_resource_destroy_func_t = { resource in
    guard let resource, let data = wl_resource_get_user_data(resource) else { return }
    let owner = Unmanaged<Resource>.fromOpaque(data)
    if owner._withUnsafeGuaranteedRef({ $0.finish() }) {
        owner.release()
    }
}

/// A protocol error to post on a resource (the request's target unless `resource` says otherwise).
/// Unchecked Sendable: it never leaves the compositor thread that dispatches the request.
public struct ProtocolError: Error, CustomStringConvertible, @unchecked Sendable {
    public let code: UInt32
    public let message: String
    let resource: Resource?

    init(code: UInt32, _ message: String, on resource: Resource? = nil) {
        self.code = code
        self.message = message
        self.resource = resource
    }

    /// The error `code` of the interface's error enum (`XdgToplevelError.invalidSize`).
    init(_ code: some WaylandEnumeration, _ message: String, on resource: Resource? = nil) {
        self.init(code: code.rawValue, message, on: resource)
    }

    /// A request the interface does not have: libwayland refuses those before dispatching, so the
    /// generated decoding never meets one.
    static func unknownRequest(_ opcode: UInt32, of interface: Interface) -> ProtocolError {
        ProtocolError(code: 0, "\(interface.name) has no request \(opcode)")
    }

    public var description: String { "protocol error \(code): \(message)" }
}
