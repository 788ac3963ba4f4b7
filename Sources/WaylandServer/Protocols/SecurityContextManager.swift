import WaylandProtocols
import SystemCalls

/// The wp_security_context_manager_v1 global (version 1): a sandbox engine (Flatpak, for one)
/// hands the compositor a socket it listens on, and every client that connects through it is in
/// that security context (`Client.securityContext`), which the compositor's privileges consult.
public final class SecurityContextManagerGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: SecurityContextManagerResource.interface, version: 1) { client, version, id in
            _ = SecurityContextManagerResource(client: client, version: version, id: id)
        }
    }
}

final class SecurityContextManagerResource: Resource, RequestHandler {
    init(client: Client, version: UInt32, id: UInt32) {
        super.init(SecurityContextManagerResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .createListener(let id, let listenFD, let closeFD):
            // A sandboxed client making a context of its own could hand its clients a wider one.
            guard client.securityContext == nil else {
                throw ProtocolError(WpSecurityContextManagerV1Error.nested, "a client in a security context cannot create another")
            }
            guard listenFD.isListeningUnixStreamSocket else {
                throw ProtocolError(WpSecurityContextManagerV1Error.invalidListenFd, "listen_fd is not a listening Unix stream socket")
            }
            _ = SecurityContext(client: client, version: version, id: id, listenFD: listenFD, closeFD: closeFD)
        case .destroy: destroy()
        }
    }
}
