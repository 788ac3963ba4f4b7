internal import CWaylandServer
internal import CVitrineWayland
import Glibc

/// wl_data_offer: another client's data source as one client sees it, for the selection or for
/// the surface a drag is over. Inert (requests do nothing) once its source stops backing it.
final class DataOffer: Resource {
    enum Kind {
        case selection
        case drag
    }

    let kind: Kind
    private(set) weak var source: DataSource?
    private(set) var acceptedMimeType: String?
    private var actions: UInt32
    private var preferredAction: UInt32
    /// The negotiated drag action, as last sent.
    private(set) var action = DragAction.none
    private(set) var isDropped = false
    private var isFinished = false

    /// Creates the offer in `device`'s client (announce it with `introduce`).
    init(device: DataDevice, source: DataSource, kind: Kind) {
        self.kind = kind
        self.source = source
        // Before version 3 a destination cannot state actions: it takes a copy.
        actions = device.version >= 3 ? DragAction.none : DragAction.copy
        preferredAction = actions
        super.init(client: device.client, interface: vitrine_wl_data_offer_interface(), version: device.version, id: 0)
        source.attach(self)
    }

    /// Sends the source's mime types (and, for a drag, its actions) right after data_offer.
    func introduce() {
        guard let source else { return }
        for mimeType in source.mimeTypes { send(0, .string(mimeType)) }
        if kind == .drag, version >= 3 { send(1, .uint(source.dragActions)) }
    }

    /// Whether a drop on this offer goes ahead: an action was agreed and, from version 3 on, a mime
    /// type accepted (earlier, accept is only feedback).
    var acceptsDrop: Bool {
        action != DragAction.none && (version < 3 || acceptedMimeType != nil)
    }

    func dropped() {
        isDropped = true
    }

    /// Matches source and destination actions: the destination's preference when both allow it,
    /// otherwise the first common action in bit order; action events go out on change.
    func negotiate() {
        guard kind == .drag, let source else { return }
        let common = source.dragActions & actions
        let chosen: UInt32
        if common & preferredAction != 0 {
            chosen = preferredAction
        } else {
            chosen = common & (~common &+ 1)
        }
        if chosen != action, version >= 3 { send(2, .uint(chosen)) }
        action = chosen
        source.sendAction(chosen)
    }

    /// The source no longer backs this offer.
    func sourceWentAway() {
        source = nil
    }

    /// Stops backing this offer from its source (the drag left the surface).
    func detachFromSource() {
        source?.detach(self)
        source = nil
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        switch opcode {
        case 0:
            try requireUnfinished("accept")
            acceptedMimeType = arguments.string(1)
            if kind == .drag { source?.sendTarget(acceptedMimeType) }
        case 1:
            let fd = arguments.fileDescriptor(1)
            defer { close(fd) }
            try requireUnfinished("receive")
            if let mimeType = arguments.string(0), let source { source.sendSend(mimeType, fd) }
        case 2: destroy()
        case 3: try finish()
        case 4: try setActions(arguments.uint(0), preferred: arguments.uint(1))
        default: try super.handle(opcode, arguments)
        }
    }

    private func requireUnfinished(_ request: String) throws(ProtocolError) {
        if isFinished {
            throw ProtocolError(code: UInt32(WL_DATA_OFFER_ERROR_INVALID_OFFER.rawValue), "\(request) after finish")
        }
    }

    private func finish() throws(ProtocolError) {
        let invalidFinish = UInt32(WL_DATA_OFFER_ERROR_INVALID_FINISH.rawValue)
        guard kind == .drag else { throw ProtocolError(code: invalidFinish, "finish on a selection offer") }
        guard !isFinished else { throw ProtocolError(code: invalidFinish, "finish twice") }
        guard isDropped else { throw ProtocolError(code: invalidFinish, "finish before the drop") }
        guard acceptedMimeType != nil else { throw ProtocolError(code: invalidFinish, "finish without an accepted mime type") }
        guard action == DragAction.copy || action == DragAction.move else {
            throw ProtocolError(code: invalidFinish, "finish with action \(action) (copy or move must be chosen)")
        }
        isFinished = true
        source?.sendFinished()
        detachFromSource()
    }

    private func setActions(_ requested: UInt32, preferred: UInt32) throws(ProtocolError) {
        guard kind == .drag else {
            throw ProtocolError(code: UInt32(WL_DATA_OFFER_ERROR_INVALID_OFFER.rawValue), "set_actions on a selection offer")
        }
        try requireUnfinished("set_actions")
        if requested & ~DragAction.all != 0 {
            throw ProtocolError(code: UInt32(WL_DATA_OFFER_ERROR_INVALID_ACTION_MASK.rawValue),
                                "drag action mask \(requested) has unknown bits")
        }
        if preferred & ~DragAction.all != 0 || preferred.nonzeroBitCount > 1 || (preferred != 0 && preferred & requested == 0) {
            throw ProtocolError(code: UInt32(WL_DATA_OFFER_ERROR_INVALID_ACTION.rawValue),
                                "preferred action \(preferred) is not one action of the mask \(requested)")
        }
        actions = requested
        preferredAction = preferred
        negotiate()
    }

    /// A dropped offer that goes away unfinished ends the transfer: a version 3 destination gave
    /// up (cancelled), an older one cannot say finish, so its destruction is the finish.
    override func destroyed() {
        guard let source else { return }
        source.detach(self)
        self.source = nil
        guard kind == .drag, isDropped, !isFinished else { return }
        if version >= 3 { source.cancel(replaced: false) } else { source.sendFinished() }
    }
}
