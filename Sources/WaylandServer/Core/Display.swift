import Buffers
internal import CVitrineWayland
internal import CWaylandServer
import Glibc
public import SystemCalls

/// The Wayland display: the listening socket, the connected clients and the event loop, all
/// owned by the one compositor thread. Protocol globals are created on it by the protocol types.
public final class Display {
    /// The version of libwayland-server this module was built against, e.g. "1.21.0".
    public static let libwaylandVersion = WAYLAND_VERSION
    /// The most bytes libwayland buffers each way for one client. Its default (4 KiB) disconnects
    /// a client that is briefly slow to read a burst of input events, and libwayland 1.23 stalls
    /// a connection whose single message fills it (a 4 KiB title), leaving the client unanswered;
    /// 1 MiB, as sway and cage use, holds any message and a second of bursts.
    public static let maximumClientBufferSize = 1 << 20

    let raw: OpaquePointer
    public let eventLoop: EventLoop
    private var clients: [OpaquePointer: Client] = [:]
    private var clientCreated: OpaquePointer?
    private var strideCheck: OpaquePointer?
    /// Bytes per pixel of every wl_shm format served.
    private let shmBytesPerPixel: [UInt32: Int]
    private var serialNumber: UInt32 = 0
    /// Every wl_buffer seen so far, while it exists (see `Buffer.from`).
    var buffers: [OpaquePointer: Buffer] = [:]

    /// Called for every client that connects (through the socket or `createClient`).
    public var clientConnected: ((Client) -> Void)?
    /// Called once for every client that disconnects or is disconnected; its resources are gone.
    public var clientDisconnected: ((Client) -> Void)?
    /// Called when the listening sockets start refusing new clients for want of descriptors
    /// (EMFILE, ENFILE: each is accepted and closed at once, and connected clients are served as
    /// before), and when they accept clients again: once each, not per connection.
    public var clientRefusal: ((ClientRefusal) -> Void)?
    /// Decides whether `client` sees `global` in its registry and may bind it (nil: every client
    /// sees every global). A client that binds a global it was not shown gets libwayland's
    /// invalid-object error.
    public var globalFilter: ((_ client: Client, _ global: Global) -> Bool)?
    private var sockets: [ListeningSocket] = []
    /// The security contexts' sockets, accepting clients until their engines close them.
    var securityContextListeners: [SecurityContextListener] = []

    /// Creates the display with wl_shm serving ARGB8888 and XRGB8888 plus `shmFormats` (formats
    /// whose bytes per pixel Vitrine knows; the two mandatory ones need not be listed). A buffer
    /// whose rows are shorter than its width in pixels of its format is refused with
    /// wl_shm.error.invalid_stride on its pool.
    public init(shmFormats: [PixelFormat] = []) throws(SystemCallError) {
        guard let display = wl_display_create() else {
            throw SystemCallError.current("wl_display_create")
        }
        raw = display
        let served = Set(shmFormats + [.argb8888, .xrgb8888]).compactMap { format in format.bytesPerPixel.map { (format.shmCode, $0) } }
        shmBytesPerPixel = Dictionary(uniqueKeysWithValues: served)
        eventLoop = EventLoop(raw: wl_display_get_event_loop(display))
        wl_display_set_default_max_buffer_size(display, Self.maximumClientBufferSize)
        guard wl_display_init_shm(display) == 0 else {
            wl_display_destroy(display)
            throw SystemCallError.current("wl_display_init_shm")
        }
        // libwayland announces the mandatory two itself.
        for code in shmBytesPerPixel.keys.sorted() where code > 1 { _ = wl_display_add_shm_format(display, code) }
        let listener = vitrine_listener_create(Unmanaged.passUnretained(self).toOpaque()) { context, data in
            guard let context, let data else { return }
            Unmanaged<Display>.fromOpaque(context).takeUnretainedValue().register(OpaquePointer(data))
        }
        vitrine_display_add_client_created_listener(display, listener)
        clientCreated = listener
        wl_display_set_global_filter(display, { rawClient, rawGlobal, context in
            guard let rawClient, let rawGlobal, let context, let data = wl_global_get_user_data(rawGlobal) else { return true }
            let display = Unmanaged<Display>.fromOpaque(context).takeUnretainedValue()
            guard let filter = display.globalFilter, let global = Unmanaged<Global.Binder>.fromOpaque(data).takeUnretainedValue().global else {
                return true
            }
            return filter(display.client(for: rawClient), global)
        }, Unmanaged.passUnretained(self).toOpaque())
        strideCheck = vitrine_display_add_shm_stride_check(display, Unmanaged.passUnretained(self).toOpaque()) { context, format in
            guard let context else { return 0 }
            return Int32(Unmanaged<Display>.fromOpaque(context).takeUnretainedValue().shmBytesPerPixel[format] ?? 0)
        }
    }

    deinit {
        // Owners call `disconnectAllClients()` first, while everything the resources reference is
        // alive; this is the fallback, with no Swift callbacks left to run during deinit.
        clientConnected = nil
        clientDisconnected = nil
        sockets = []
        securityContextListeners = []
        for client in clients.values { client.forgetDestructionHandlers() }
        wl_display_destroy_clients(raw)
        vitrine_listener_destroy(clientCreated)
        vitrine_shm_stride_check_destroy(strideCheck)
        eventLoop.removeAllSources()
        wl_display_destroy(raw)
    }

    /// Disconnects every client (destroying their resources) while the display is still whole.
    public func disconnectAllClients() {
        wl_display_destroy_clients(raw)
    }

    /// Listens on `name` in `runtimeDirectory` (nil: `$XDG_RUNTIME_DIR`), or on the first free
    /// `wayland-N` when `name` is nil; returns the socket's name (the value clients need in
    /// WAYLAND_DISPLAY). Out of descriptors, new connections are refused without the loop spinning
    /// (`ListeningSocket`, `clientRefusal`).
    public func addSocket(named name: String? = nil, in runtimeDirectory: String? = nil) throws(SystemCallError) -> String {
        guard let directory = runtimeDirectory ?? getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !directory.isEmpty else {
            throw SystemCallError("XDG_RUNTIME_DIR is not set; listening", errno: .noSuchFileOrDirectory)
        }
        let socket = try ListeningSocket.make(named: name, runtimeDirectory: directory)
        try socket.serve(self) { [unowned self] change in clientRefusal?(change) }
        sockets.append(socket)
        return socket.name
    }

    /// Serves a client on an already connected socket (the display takes the descriptor).
    @discardableResult
    public func createClient(socket fileDescriptor: FileDescriptor) throws(SystemCallError) -> Client {
        guard let client = wl_client_create(raw, fileDescriptor.rawValue) else {
            throw SystemCallError.current("wl_client_create")
        }
        return self.client(for: client)
    }

    /// Creates a connected socket pair, serves one end as a new client and returns the other end
    /// (the caller owns it), as an in-process test harness needs.
    public func createClientSocket() throws(SystemCallError) -> (client: Client, socket: FileDescriptor) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw SystemCallError.current("socketpair")
        }
        do {
            let client = try createClient(socket: FileDescriptor(rawValue: pair[0]))
            return (client, FileDescriptor(rawValue: pair[1]))
        } catch {
            close(pair[0])
            close(pair[1])
            throw error
        }
    }

    /// Sends every client's queued events.
    public func flushClients() {
        wl_display_flush_clients(raw)
    }

    /// The next serial number for events that carry one (wl_display_next_serial).
    public func nextSerial() -> UInt32 {
        serialNumber = wl_display_next_serial(raw)
        return serialNumber
    }

    /// The most recently handed out serial.
    public var currentSerial: UInt32 { wl_display_get_serial(raw) }

    /// Every connected client.
    public var connectedClients: [Client] { Array(clients.values) }

    /// The Swift client for a libwayland client (created on first sight).
    func client(for raw: OpaquePointer) -> Client {
        if let known = clients[raw] { return known }
        register(raw)
        return clients[raw]!
    }

    private func register(_ rawClient: OpaquePointer) {
        guard clients[rawClient] == nil else { return }
        let client = Client(raw: rawClient, display: self)
        clients[rawClient] = client
        client.watchDestruction { [unowned self] in
            clients[rawClient] = nil
            clientDisconnected?(client)
        }
        clientConnected?(client)
    }
}
