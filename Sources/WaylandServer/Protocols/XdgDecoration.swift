internal import CWaylandServer
internal import CVitrineWayland

/// The zxdg_decoration_manager_v1 global. Kiosk windows have no decorations at all, so the mode is
/// always server_side: the client draws none and the compositor draws none either.
public final class XdgDecorationGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: vitrine_zxdg_decoration_manager_v1_interface(), version: 1) { client, version, id in
            _ = XdgDecorationManager(client: client, version: version, id: id)
        }
    }
}

private final class XdgDecorationManager: Resource {
    override init(client: Client, version: UInt32, id: UInt32) {
        super.init(client: client, interface: vitrine_zxdg_decoration_manager_v1_interface(), version: version, id: id)
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        switch opcode {
        case 0: destroy()
        case 1:
            let decoration = XdgToplevelDecoration(client: client, version: version, id: arguments.newID(0))
            guard let toplevel = arguments.object(1, as: XdgToplevel.self) else { return }
            if let existing = toplevel.decoration, existing.isAlive {
                throw ProtocolError(code: UInt32(ZXDG_TOPLEVEL_DECORATION_V1_ERROR_ALREADY_CONSTRUCTED.rawValue),
                                    "xdg_toplevel@\(toplevel.id) already has a decoration object", on: decoration)
            }
            let surface = toplevel.surface
            if surface.current.buffer != nil || (surface.pending.attached && surface.pending.buffer != nil) {
                throw ProtocolError(code: UInt32(ZXDG_TOPLEVEL_DECORATION_V1_ERROR_UNCONFIGURED_BUFFER.rawValue),
                                    "xdg_toplevel@\(toplevel.id) has a buffer before its decoration was configured", on: decoration)
            }
            decoration.attach(to: toplevel)
        default: try super.handle(opcode, arguments)
        }
    }
}

/// zxdg_toplevel_decoration_v1: answers every mode request with server_side.
final class XdgToplevelDecoration: Resource {
    private weak var toplevel: XdgToplevel?

    override init(client: Client, version: UInt32, id: UInt32) {
        super.init(client: client, interface: vitrine_zxdg_toplevel_decoration_v1_interface(), version: version, id: id)
    }

    func attach(to toplevel: XdgToplevel) {
        self.toplevel = toplevel
        toplevel.decoration = self
        sendMode()
    }

    /// Sends the mode; a toplevel already configured gets a new xdg_surface.configure to end the
    /// sequence, one not yet configured gets it with its initial configure.
    private func sendMode() {
        send(0, .uint(UInt32(ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE.rawValue)))
        toplevel?.reconfigure()
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        switch opcode {
        case 0: destroy()
        case 1, 2: sendMode()
        default: try super.handle(opcode, arguments)
        }
    }

    override func destroyed() {
        if toplevel?.decoration === self { toplevel?.decoration = nil }
    }
}
