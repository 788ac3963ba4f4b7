import WaylandProtocols

/// The zxdg_decoration_manager_v1 global. Kiosk windows have no decorations at all, so the mode is
/// always server_side: the client draws none and the compositor draws none either.
public final class XdgDecorationGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: XdgDecorationManager.interface, version: 1) { client, version, id in
            _ = XdgDecorationManager(XdgDecorationManager.self, client: client, version: version, id: id)
        }
    }
}

final class XdgDecorationManager: Resource, RequestHandler {
    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy: destroy()
        case .getToplevelDecoration(let id, let toplevel):
            let decoration = XdgToplevelDecoration(XdgToplevelDecoration.self, client: client, version: version, id: id)
            if let existing = toplevel.decoration, existing.isAlive {
                throw ProtocolError(ZxdgToplevelDecorationV1Error.alreadyConstructed,
                                    "xdg_toplevel@\(toplevel.id) already has a decoration object", on: decoration)
            }
            let surface = toplevel.surface
            if surface.current.buffer != nil || (surface.pending.attached && surface.pending.buffer != nil) {
                throw ProtocolError(ZxdgToplevelDecorationV1Error.unconfiguredBuffer,
                                    "xdg_toplevel@\(toplevel.id) has a buffer before its decoration was configured", on: decoration)
            }
            decoration.attach(to: toplevel)
        }
    }
}

/// zxdg_toplevel_decoration_v1: answers every mode request with server_side.
final class XdgToplevelDecoration: Resource, RequestHandler {
    /// Strong, not weak (docs/architecture.md: a weak reference would give the toplevel, which
    /// every commit of its surface retains, a side table): let go of when either is destroyed.
    private var toplevel: XdgToplevel?

    func attach(to toplevel: XdgToplevel) {
        self.toplevel = toplevel
        toplevel.decoration = self
        sendMode()
    }

    /// Sends the mode; a toplevel already configured gets a new xdg_surface.configure to end the
    /// sequence, one not yet configured gets it with its initial configure.
    private func sendMode() {
        send(.configure(mode: .serverSide))
        toplevel?.reconfigure()
    }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        case .setMode, .unsetMode: sendMode()
        }
    }

    /// Its toplevel was destroyed (the client then has an orphaned decoration, an error).
    func toplevelDestroyed() {
        toplevel = nil
    }

    override func destroyed() {
        if toplevel?.decoration === self { toplevel?.decoration = nil }
        toplevel = nil
    }
}
