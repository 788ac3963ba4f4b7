internal import CWaylandServer
internal import CVitrineWayland

/// One connected client. Outlives its connection as long as Swift holds it (its resources do),
/// but after disconnection `isConnected` is false and nothing is sent.
public final class Client: Hashable {
    /// The most objects one client may hold: far more than any toolkit makes (a browser holds a
    /// few hundred), few enough that one client cannot take the compositor's memory.
    public static let maximumObjects: UInt32 = 32_768

    private(set) var raw: OpaquePointer?
    /// The display while the client is connected; nil once it disconnected. Unowned, not weak
    /// (docs/architecture.md: a weak reference would give the display, which every attach
    /// retains, a side table): a connected client is the display's, which disconnects every client
    /// before it goes (its deinit), and a disconnect clears this.
    public private(set) unowned(unsafe) var display: Display?
    private var destroyListener: OpaquePointer?
    private var destroyHandlers: [() -> Void] = []

    /// The peer's process, user and group, from the socket's credentials.
    public let processID: Int32
    public let userID: UInt32
    public let groupID: UInt32
    /// The security context the client connected through (wp_security_context_v1); nil for a
    /// client of the display's own sockets.
    public internal(set) var securityContext: SecurityContextMetadata?

    init(raw: OpaquePointer, display: Display) {
        self.raw = raw
        self.display = display
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        wl_client_get_credentials(raw, &pid, &uid, &gid)
        processID = pid
        userID = uid
        groupID = gid
        let listener = vitrine_listener_create(Unmanaged.passUnretained(self).toOpaque()) { context, _ in
            guard let context else { return }
            Unmanaged<Client>.fromOpaque(context).takeUnretainedValue().disconnected()
        }
        vitrine_client_add_destroy_listener(raw, listener)
        destroyListener = listener
        if vitrine_client_limit_objects(raw, Self.maximumObjects) != 0 { wl_client_post_no_memory(raw) }
    }

    deinit {
        vitrine_listener_destroy(destroyListener)
    }

    public var isConnected: Bool { raw != nil }

    /// Runs `body` when the client disconnects (before its resources are destroyed).
    public func watchDestruction(_ body: @escaping () -> Void) {
        destroyHandlers.append(body)
    }

    func forgetDestructionHandlers() {
        destroyHandlers = []
    }

    /// Disconnects the client, destroying all its resources.
    public func disconnect() {
        guard let raw else { return }
        wl_client_destroy(raw)
    }

    /// Reports a compositor-side failure to the client and disconnects it.
    public func postImplementationError(_ message: String) {
        guard let raw else { return }
        vitrine_client_post_implementation_error(raw, message)
    }

    /// Tells the client the compositor ran out of memory (the error is fatal for the client).
    public func postNoMemory() {
        guard let raw else { return }
        wl_client_post_no_memory(raw)
    }

    /// Sends queued events now.
    public func flush() {
        guard let raw else { return }
        wl_client_flush(raw)
    }

    /// The Swift resource that has `id` in this client, if it is one of Vitrine's own.
    public func resource(withID id: UInt32) -> Resource? {
        guard let raw, let resource = wl_client_get_object(raw, id) else { return nil }
        return Resource.own(resource)
    }

    private func disconnected() {
        vitrine_listener_destroy(destroyListener)
        destroyListener = nil
        raw = nil
        let handlers = destroyHandlers
        destroyHandlers = []
        for handler in handlers { handler() }
        display = nil
    }

    public static func == (lhs: Client, rhs: Client) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
