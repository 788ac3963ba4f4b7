internal import CLinux
internal import CWaylandClient
internal import CVitrineWayland
import Glibc
public import SystemCalls

/// A Wayland client for tests that speaks any protocol by interface name and records every event,
/// so that a test can drive the compositor request by request and assert exact replies. It runs
/// on the same thread as an in-process server: `pump` moves messages both ways.
public final class TestClient {
    let display: OpaquePointer
    private let registry: TestProxy
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
        registry = TestProxy(raw: display, interfaceName: "wl_display", owned: false)
        let registryProxy = try registry.sendRaw(1, [.newID], interface: vitrine_interface_named("wl_registry"), version: 1)
        let wrapped = TestProxy(raw: registryProxy, interfaceName: "wl_registry", owned: true)
        track(wrapped)
        wrapped.onEvent = { [unowned self] event in
            if event.opcode == 0, case .uint(let name) = event.arguments[0], case .string(let interface?) = event.arguments[1],
               case .uint(let version) = event.arguments[2] {
                globals[name] = (interface, version)
            } else if event.opcode == 1, case .uint(let name) = event.arguments[0] {
                globals[name] = nil
            }
        }
        registryObject = wrapped
        try roundtrip()
    }

    private var registryObject: TestProxy?

    deinit {
        for proxy in proxies.values where proxy.owned { proxy.destroyProxy() }
        wl_display_disconnect(display)
    }

    /// Binds the global of `interface` at `version` (the first one when there are several).
    public func bind(_ interface: String, version: UInt32) throws(TestClientError) -> TestProxy {
        guard let (name, _) = globals.sorted(by: { $0.key < $1.key }).first(where: { $0.value.interface == interface }) else {
            throw TestClientError.noGlobal(interface)
        }
        return try bind(name: name, interface: interface, version: version)
    }

    /// Binds the global the registry announced as `name` (one of several of an interface).
    public func bind(name: UInt32, interface: String, version: UInt32) throws(TestClientError) -> TestProxy {
        guard let registryObject, let target = vitrine_interface_named(interface) else { throw TestClientError.noGlobal(interface) }
        // wl_registry.bind's new_id is untyped: it travels as interface name, version, id.
        let raw = try registryObject.sendRaw(0, [.uint(name), .string(interface), .uint(version), .newID],
                                             interface: target, version: version)
        let proxy = TestProxy(raw: raw, interfaceName: interface, owned: true)
        track(proxy)
        return proxy
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
        let callback = try registry.send(0, [.newID], interface: "wl_callback", version: 1)
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

    /// The proxy of an object the server created (from an event's new_id), once seen.
    public func proxy(withID id: UInt32) -> TestProxy? { proxies[id] }
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

    public var description: String { "\(interface)@\(objectID) error \(code)" }
}

public enum TestClientError: Error, Equatable {
    case connectFailed
    case noGlobal(String)
    case unknownInterface(String)
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

/// An argument of a request a test sends.
public enum TestArgument {
    case int(Int32)
    case uint(UInt32)
    case fixed(Double)
    case string(String?)
    case object(TestProxy?)
    /// The new object of the request (its interface is given to `send`).
    case newID
    case fileDescriptor(Int32)
    case bytes([UInt8])
}

/// A decoded event argument.
public enum TestValue: Equatable {
    case int(Int32)
    case uint(UInt32)
    case fixed(Double)
    case string(String?)
    /// An object by id (0 for null); a new object's proxy is tracked by the client.
    case object(UInt32)
    case fileDescriptor(Int32)
    case bytes([UInt8])
}

public struct TestEvent {
    public let opcode: UInt32
    public let name: String
    public let arguments: [TestValue]
}

/// One client-side object; records its events in order.
public final class TestProxy {
    let raw: OpaquePointer
    public let interfaceName: String
    let owned: Bool
    weak var client: TestClient?
    public private(set) var events: [TestEvent] = []
    /// Called for each event as it arrives (after it is recorded).
    public var onEvent: ((TestEvent) -> Void)?
    private var destroyed = false

    init(raw: OpaquePointer, interfaceName: String, owned: Bool) {
        self.raw = raw
        self.interfaceName = interfaceName
        self.owned = owned
        if owned {
            wl_proxy_add_dispatcher(raw, testDispatcher, nil, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    public var id: UInt32 { wl_proxy_get_id(raw) }
    public var version: UInt32 { wl_proxy_get_version(raw) }

    /// The recorded events named `name`.
    public func events(named name: String) -> [TestEvent] { events.filter { $0.name == name } }

    public func clearEvents() { events = [] }

    /// Sends request `opcode`; when it creates an object, `interface` names it and its proxy is returned.
    @discardableResult
    public func send(_ opcode: UInt32, _ arguments: [TestArgument] = [], interface: String? = nil,
                     version: UInt32? = nil) throws(TestClientError) -> TestProxy {
        var target: UnsafePointer<wl_interface>?
        if let interface {
            guard let known = vitrine_interface_named(interface) else { throw TestClientError.unknownInterface(interface) }
            target = known
        }
        let created = try sendRaw(opcode, arguments, interface: target, version: version ?? self.version)
        guard let interface, created != raw else { return self }
        let proxy = TestProxy(raw: created, interfaceName: interface, owned: true)
        client?.track(proxy)
        return proxy
    }

    /// Sends a destructor request and forgets the proxy.
    public func sendDestructor(_ opcode: UInt32, _ arguments: [TestArgument] = []) throws(TestClientError) {
        _ = try sendRaw(opcode, arguments, interface: nil, version: version)
        destroyProxy()
    }

    func destroyProxy() {
        guard !destroyed else { return }
        destroyed = true
        wl_proxy_destroy(raw)
    }

    func sendRaw(_ opcode: UInt32, _ arguments: [TestArgument], interface: UnsafePointer<wl_interface>?,
                 version: UInt32) throws(TestClientError) -> OpaquePointer {
        var storage: [UnsafeMutableRawPointer] = []
        defer { storage.forEach { $0.deallocate() } }
        var values = arguments.map { argument -> wl_argument in
            var value = wl_argument()
            switch argument {
            case .int(let v): value.i = v
            case .uint(let v): value.u = v
            case .fixed(let v): value.f = wl_fixed_from_double(v)
            case .string(let text):
                if let text {
                    let bytes = Array(text.utf8CString)
                    let copy = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
                    bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
                    storage.append(copy)
                    value.s = UnsafePointer(copy.assumingMemoryBound(to: CChar.self))
                }
            case .object(let proxy): value.o = proxy?.raw
            case .newID: value.n = 0
            case .fileDescriptor(let fd): value.h = fd
            case .bytes(let bytes):
                let array = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<wl_array>.size + max(1, bytes.count), alignment: 16)
                storage.append(array)
                let data = array + MemoryLayout<wl_array>.size
                bytes.withUnsafeBytes { if let base = $0.baseAddress { data.copyMemory(from: base, byteCount: bytes.count) } }
                array.assumingMemoryBound(to: wl_array.self).initialize(to: wl_array(size: bytes.count, alloc: bytes.count, data: data))
                value.a = array.assumingMemoryBound(to: wl_array.self)
            }
            return value
        }
        let created = values.withUnsafeMutableBufferPointer {
            wl_proxy_marshal_array_flags(raw, opcode, interface, version, 0, $0.baseAddress)
        }
        if interface != nil {
            guard let created else { throw TestClientError.marshalFailed }
            return created
        }
        return raw
    }

    fileprivate func record(opcode: UInt32, message: UnsafePointer<wl_message>, arguments: UnsafeMutablePointer<wl_argument>?) {
        var values: [TestValue] = []
        var index = 0
        for character in String(cString: message.pointee.signature) where character.isLetter {
            let argument = arguments![index]
            switch character {
            case "i": values.append(.int(argument.i))
            case "u": values.append(.uint(argument.u))
            case "f": values.append(.fixed(wl_fixed_to_double(argument.f)))
            case "s": values.append(.string(argument.s.map { String(cString: $0) }))
            case "o":
                values.append(.object(argument.o.map { wl_proxy_get_id($0) } ?? 0))
            case "n":
                // A server-created object: libwayland made its proxy; track it so its events are recorded.
                if let created = argument.o, let type = message.pointee.types[index] {
                    let proxy = TestProxy(raw: created, interfaceName: String(cString: type.pointee.name), owned: true)
                    client?.track(proxy)
                    values.append(.object(proxy.id))
                } else {
                    values.append(.object(0))
                }
            case "h": values.append(.fileDescriptor(argument.h))
            case "a":
                if let array = argument.a, let data = array.pointee.data {
                    values.append(.bytes(Array(UnsafeRawBufferPointer(start: data, count: array.pointee.size))))
                } else {
                    values.append(.bytes([]))
                }
            default: break
            }
            index += 1
        }
        let event = TestEvent(opcode: opcode, name: String(cString: message.pointee.name), arguments: values)
        events.append(event)
        onEvent?(event)
    }
}

private let testDispatcher: wl_dispatcher_func_t = { _, target, opcode, message, arguments in
    guard let target, let message, let data = wl_proxy_get_user_data(OpaquePointer(target)) else { return 0 }
    Unmanaged<TestProxy>.fromOpaque(data).takeUnretainedValue().record(opcode: opcode, message: message, arguments: arguments)
    return 0
}
