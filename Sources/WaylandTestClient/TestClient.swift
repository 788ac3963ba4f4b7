internal import CLinux
internal import CWaylandClient
import Glibc
// The proxies' requests and events take the protocols' enums and swift-system's descriptors.
@_exported public import SystemCalls
@_exported public import WaylandProtocols

/// A Wayland client for tests that speaks every protocol Vitrine serves through the proxies the
/// bindings generate (`WlSurfaceProxy.attach(buffer:x:y:)`, `XdgToplevelProxy.events`), so that a
/// test can drive the compositor request by request and assert exact replies. It runs on the same
/// thread as an in-process server: `pump` moves messages both ways.
public final class TestClient {
    let display: OpaquePointer
    private let displayProxy: WlDisplayProxy
    private var registry: WlRegistryProxy?
    /// Globals seen in the registry: name → (interface, version).
    public private(set) var globals: [UInt32: (interface: String, version: UInt32)] = [:]
    private var proxies: [UInt32: TestProxy] = [:]
    private let server: () -> Void

    /// Connects over `socket` (the client takes it). `server` runs one dispatch of the in-process
    /// server (dispatch with timeout 0 and flush), so the client can wait for replies.
    public init(socket: FileDescriptor, server: @escaping () -> Void) throws(TestClientError) {
        guard let display = wl_display_connect_to_fd(socket.rawValue) else { throw TestClientError.connectFailed }
        self.display = display
        self.server = server
        // libwayland dispatches wl_display's own events (error, delete_id).
        displayProxy = WlDisplayProxy(raw: display, owned: false)
        displayProxy.client = self
        let registry = try displayProxy.getRegistry()
        registry.onEvent = { [unowned self] event in
            switch event as? WlRegistryProxy.Event {
            case .global(let name, let interface, let version)?: globals[name] = (interface, version)
            case .globalRemove(let name)?: globals[name] = nil
            case nil: break
            }
        }
        self.registry = registry
        try roundtrip()
    }

    deinit {
        for proxy in proxies.values where proxy.owned { proxy.destroyProxy() }
        wl_display_disconnect(display)
    }

    /// Binds the global of `type`'s interface at `version` (the first one when there are several).
    public func bind<Proxy: TestProxy>(_ type: Proxy.Type, version: UInt32) throws(TestClientError) -> Proxy {
        let interface = Proxy.interface.name
        guard let (name, _) = globals.sorted(by: { $0.key < $1.key }).first(where: { $0.value.interface == interface }) else {
            throw TestClientError.noGlobal(interface)
        }
        return try bind(type, name: name, version: version)
    }

    /// Binds the global the registry announced as `name` (one of several of an interface).
    public func bind<Proxy: TestProxy>(_ type: Proxy.Type, name: UInt32, version: UInt32) throws(TestClientError) -> Proxy {
        guard let registry else { throw TestClientError.noGlobal(Proxy.interface.name) }
        return try registry.bind(name: name, interface: type, version: version)
    }

    func track(_ proxy: TestProxy) {
        proxy.client = self
        proxies[proxy.id] = proxy
    }

    /// Moves messages both ways until neither side has anything left (a few rounds).
    public func pump() throws(TestClientError) {
        for _ in 0..<4 {
            wl_display_flush(display)
            server()
            try readAvailable()
        }
        if let error = protocolError { throw TestClientError.protocolError(error) }
    }

    /// wl_display.sync and pump until its callback is done: everything sent before was handled.
    public func roundtrip() throws(TestClientError) {
        var done = false
        let callback = try displayProxy.sync()
        callback.onEvent = { _ in done = true }
        for _ in 0..<1000 where !done {
            wl_display_flush(display)
            server()
            try readAvailable()
            if let error = protocolError { throw TestClientError.protocolError(error) }
            if connectionError != 0 { throw TestClientError.disconnected(errno: connectionError) }
        }
        if !done { throw TestClientError.timedOut }
        proxies[callback.id] = nil
        callback.destroyProxy()
    }

    private func readAvailable() throws(TestClientError) {
        while wl_display_prepare_read(display) != 0 {
            wl_display_dispatch_pending(display)
        }
        var poller = pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0)
        if poll(&poller, 1, 0) > 0 {
            wl_display_read_events(display)
        } else {
            wl_display_cancel_read(display)
        }
        wl_display_dispatch_pending(display)
    }

    /// The protocol error the server posted, if any: (interface, object id, code).
    public var protocolError: ProtocolErrorReport? {
        guard wl_display_get_error(display) == EPROTO else { return nil }
        var interface: UnsafePointer<wl_interface>?
        var id: UInt32 = 0
        let code = wl_display_get_protocol_error(display, &interface, &id)
        return ProtocolErrorReport(interface: interface.map { String(cString: $0.pointee.name) } ?? "?", objectID: id, code: code)
    }

    /// Whether the connection failed (error or disconnection by the server).
    public var connectionError: Int32 { wl_display_get_error(display) }

    /// The proxy of the object `id`, while the client knows it.
    func proxy(withID id: UInt32) -> TestProxy? { proxies[id] }
}

public struct ProtocolErrorReport: Equatable, Sendable, CustomStringConvertible {
    public let interface: String
    public let objectID: UInt32
    public let code: UInt32

    public init(interface: String, objectID: UInt32, code: UInt32) {
        self.interface = interface
        self.objectID = objectID
        self.code = code
    }

    /// The error `code` of an interface's error enum, posted on `proxy`.
    public init(_ code: some WaylandEnumeration, on proxy: TestProxy) {
        self.init(interface: proxy.interfaceName, objectID: proxy.id, code: code.rawValue)
    }

    public var description: String { "\(interface)@\(objectID) error \(code)" }
}

public enum TestClientError: Error, Equatable {
    case connectFailed
    case noGlobal(String)
    case marshalFailed
    case timedOut
    case protocolError(ProtocolErrorReport)
    /// The connection failed for another reason than a protocol error: ENOMEM for the server's
    /// no_memory error, EPIPE or ECONNRESET when it hung up.
    case disconnected(errno: Int32)
}

/// An anonymous memory file of `size` bytes (memfd), for wl_shm pools; `sealedAgainstShrinking`
/// makes it what the compositor takes for a dma-buf on machines without /dev/udmabuf (a memfd
/// that no one can truncate under a mapping).
public func anonymousFile(size: Int, sealedAgainstShrinking: Bool = false) -> Int32 {
    let fd = memfd_create("vitrine-test-buffer", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
    precondition(fd >= 0, "memfd_create failed")
    precondition(ftruncate(fd, off_t(size)) == 0, "ftruncate failed")
    if sealedAgainstShrinking {
        precondition(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) == 0, "F_ADD_SEALS failed")
    }
    return fd
}

/// An event of a proxy's interface: the generated `Event` enum of its proxy class.
public protocol ProxyEvent {
    /// The event's name in the protocol XML ("configure").
    var name: String { get }
}

/// One client-side object; the generated subclass of its interface sends its requests and
/// records its events. Two proxies are equal when they are the same object.
public class TestProxy: Equatable {
    let raw: OpaquePointer
    let owned: Bool
    weak var client: TestClient?
    /// Called for each event as it arrives (after the proxy recorded it).
    public var onEvent: ((any ProxyEvent) -> Void)?
    /// The descriptors events brought: the proxy owns them, so they close when it goes.
    private var receivedDescriptors: [OwnedFileDescriptor] = []

    /// The interface of the proxy class (each generated class names its own).
    class var interface: Interface {
        preconditionFailure("\(Self.self) names no interface: proxies are of the generated classes")
    }

    required init(raw: OpaquePointer, owned: Bool) {
        self.raw = raw
        self.owned = owned
        if owned {
            wl_proxy_add_dispatcher(raw, testDispatcher, nil, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    public static func == (lhs: TestProxy, rhs: TestProxy) -> Bool {
        lhs === rhs
    }

    public var id: UInt32 { wl_proxy_get_id(raw) }
    public var version: UInt32 { wl_proxy_get_version(raw) }
    public var interfaceName: String { Self.interface.name }

    /// Forgets the events recorded so far.
    public func clearEvents() {}

    /// Decodes and records event `opcode` (the generated subclasses do).
    func decodeEvent(_ opcode: UInt32, _ arguments: MessageReader) -> (any ProxyEvent)? {
        nil
    }

    func destroyProxy() {
        wl_proxy_destroy(raw)
    }

    /// Sends request `opcode`.
    func marshal(_ opcode: UInt32, _ arguments: [WireArgument]) throws(TestClientError) {
        _ = try marshal(opcode, arguments, interface: nil, version: version)
    }

    /// Sends destructor request `opcode`. The wl_proxy stays until the client goes, so that a
    /// protocol error the request causes still names the object (libwayland-client frees it once
    /// the server's delete_id came and the proxy is destroyed).
    func marshalDestructor(_ opcode: UInt32, _ arguments: [WireArgument]) throws(TestClientError) {
        try marshal(opcode, arguments)
    }

    /// Sends request `opcode`, which creates an object of `type`'s interface (at this proxy's
    /// version, or `version` for wl_registry.bind), and returns its proxy.
    func marshal<Proxy: TestProxy>(
        _ opcode: UInt32, _ arguments: [WireArgument], creating type: Proxy.Type, version: UInt32? = nil
    ) throws(TestClientError) -> Proxy {
        guard let created = try marshal(opcode, arguments, interface: Proxy.interface, version: version ?? self.version) else {
            throw TestClientError.marshalFailed
        }
        let proxy = Proxy(raw: created, owned: true)
        client?.track(proxy)
        return proxy
    }

    private func marshal(
        _ opcode: UInt32, _ arguments: [WireArgument], interface: Interface?, version: UInt32
    ) throws(TestClientError) -> OpaquePointer? {
        let created = WireArgument.withMarshalled(arguments) {
            wl_proxy_marshal_array_flags(raw, opcode, interface?.raw, version, 0, $0)
        }
        if interface != nil, created == nil { throw TestClientError.marshalFailed }
        return created
    }

    /// A descriptor an event brought, owned by the proxy from now on.
    func received(_ descriptor: Int32) -> FileDescriptor {
        let owned = OwnedFileDescriptor(rawValue: descriptor)
        receivedDescriptors.append(owned)
        return owned.fileDescriptor
    }

    /// Closes the descriptors events brought so far, before the proxy goes (a pipe's write end
    /// the test is done with).
    public func closeReceivedDescriptors() {
        for descriptor in receivedDescriptors { descriptor.close() }
        receivedDescriptors = []
    }

    /// The proxy of an event's object argument (nil when null or no longer the client's).
    func proxy<Proxy: TestProxy>(_ object: OpaquePointer?, as type: Proxy.Type) -> Proxy? {
        object.flatMap { client?.proxy(withID: wl_proxy_get_id($0)) as? Proxy }
    }

    /// The proxy of an object the server created with an event (libwayland made its wl_proxy).
    func adopt<Proxy: TestProxy>(_ object: OpaquePointer?, as type: Proxy.Type) -> Proxy {
        guard let object else { preconditionFailure("libwayland delivered a new object without its proxy") }
        let proxy = Proxy(raw: object, owned: true)
        client?.track(proxy)
        return proxy
    }

    fileprivate func receive(_ opcode: UInt32, _ arguments: UnsafeMutablePointer<wl_argument>?) {
        guard let event = decodeEvent(opcode, MessageReader(arguments)) else { return }
        onEvent?(event)
    }
}

private let testDispatcher: wl_dispatcher_func_t = { _, target, opcode, _, arguments in
    guard let target, let data = wl_proxy_get_user_data(OpaquePointer(target)) else { return 0 }
    Unmanaged<TestProxy>.fromOpaque(data).takeUnretainedValue().receive(opcode, arguments)
    return 0
}
