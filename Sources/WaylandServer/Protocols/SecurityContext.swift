import WaylandProtocols
import SystemCalls

/// What a sandbox engine said about the clients that connect through its security context; each
/// field is nil where it was not set.
public struct SecurityContextMetadata: Sendable, Equatable {
    /// The engine, reverse-DNS style (`org.flatpak`).
    public var sandboxEngine: String?
    public var appID: String?
    public var instanceID: String?

    public init(sandboxEngine: String? = nil, appID: String? = nil, instanceID: String? = nil) {
        self.sandboxEngine = sandboxEngine
        self.appID = appID
        self.instanceID = instanceID
    }
}

/// wp_security_context_v1: the metadata of a security context, set once each, then `commit`, from
/// which on the display accepts clients on the listening socket (`SecurityContextListener`) until
/// its close descriptor hangs up, whether or not this object or its client still exist.
final class SecurityContext: Resource, RequestHandler {
    private var metadata = SecurityContextMetadata()
    /// The two descriptors, until `commit` hands them to the listener.
    private var descriptors: (listen: OwnedFileDescriptor, close: OwnedFileDescriptor)?

    init(client: Client, version: UInt32, id: UInt32, listenFD: OwnedFileDescriptor, closeFD: OwnedFileDescriptor) {
        descriptors = (listenFD, closeFD)
        super.init(SecurityContext.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .setSandboxEngine(let name): try set(\.sandboxEngine, to: name, "sandbox engine")
        case .setAppID(let appID): try set(\.appID, to: appID, "app id")
        case .setInstanceID(let instanceID): try set(\.instanceID, to: instanceID, "instance id")
        case .commit: try commit()
        case .destroy: destroy()
        }
    }

    private func set(_ field: WritableKeyPath<SecurityContextMetadata, String?>, to value: String, _ name: String) throws(ProtocolError) {
        _ = try uncommittedDescriptors()
        guard metadata[keyPath: field] == nil else { throw ProtocolError(WpSecurityContextV1Error.alreadySet, "the \(name) is already set") }
        metadata[keyPath: field] = value
    }

    private func commit() throws(ProtocolError) {
        let descriptors = try uncommittedDescriptors()
        self.descriptors = nil
        guard let display = client.display else { return }
        guard display.securityContextListeners.count < SecurityContextListener.maximumCount else {
            // Each listener holds descriptors for as long as its engine wants.
            return client.postNoMemory()
        }
        do {
            let listener = try SecurityContextListener(
                display: display, socket: descriptors.listen, closeDescriptor: descriptors.close, metadata: metadata)
            display.securityContextListeners.append(listener)
        } catch {
            client.postImplementationError("security context: \(error)")
        }
    }

    private func uncommittedDescriptors() throws(ProtocolError) -> (listen: OwnedFileDescriptor, close: OwnedFileDescriptor) {
        guard let descriptors else { throw ProtocolError(WpSecurityContextV1Error.alreadyUsed, "the security context was committed") }
        return descriptors
    }
}

/// Accepts the clients of one committed security context on the engine's listening socket, each
/// with the context's metadata, until the engine's close descriptor hangs up.
final class SecurityContextListener {
    /// The most security contexts listening at once: each holds three descriptors.
    static let maximumCount = 256

    private let socket: ListeningSocket
    private let closeDescriptor: OwnedFileDescriptor
    private var closeSource: FileDescriptorSource?

    init(display: Display, socket listening: OwnedFileDescriptor, closeDescriptor: OwnedFileDescriptor, metadata: SecurityContextMetadata) throws(SystemCallError) {
        socket = try ListeningSocket(adopting: listening)
        self.closeDescriptor = closeDescriptor
        try socket.serve(display) { [unowned display] change in display.clientRefusal?(change) } accepted: { client in
            client.securityContext = metadata
        }
        // Hang-ups and errors are always reported, whatever events are asked for.
        closeSource = try display.eventLoop.addFileDescriptor(closeDescriptor.fileDescriptor, events: []) { [unowned self, unowned display] _ in
            closeSource?.remove()
            closeSource = nil
            display.securityContextListeners.removeAll { $0 === self }
        }
    }

    deinit {
        closeSource?.remove()
    }
}
