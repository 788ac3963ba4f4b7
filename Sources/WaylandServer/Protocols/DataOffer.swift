import SystemCalls
import WaylandProtocols

/// wl_data_offer: another client's data source as one client sees it, for the selection or for
/// the surface a drag is over. Inert (requests do nothing) once its source stops backing it.
final class DataOffer: Resource, RequestHandler {
    enum Kind {
        case selection
        case drag
    }

    let kind: Kind
    private(set) weak var source: DataSource?
    /// The compositor's data behind a selection offer, and the seat whose selection it was: the
    /// offer speaks for it only while it is still that seat's selection.
    private weak var provider: SelectionProvider?
    private weak var seat: SeatGlobal?
    private(set) var acceptedMimeType: String?
    private var actions: DragActions
    private var preferredAction: DragActions
    /// The negotiated drag action, as last sent.
    private(set) var action: DragActions = []
    private(set) var isDropped = false
    private var isFinished = false

    /// Creates the offer in `device`'s client (announce it with `introduce`).
    init(device: DataDevice, source: DataSource, kind: Kind) {
        self.kind = kind
        self.source = source
        // Before version 3 a destination cannot state actions: it takes a copy.
        actions = device.version >= 3 ? [] : .copy
        preferredAction = actions
        super.init(DataOffer.self, client: device.client, version: device.version, id: 0)
        source.attach(self)
    }

    /// Creates a selection offer in `device`'s client for `selection` (announce it with `introduce`).
    convenience init(device: DataDevice, selection: SelectionOwner<DataSource>) {
        switch selection {
        case .client(let source):
            self.init(device: device, source: source, kind: .selection)
        case .compositor(let provider):
            self.init(device: device, provider: provider)
        }
    }

    private init(device: DataDevice, provider: SelectionProvider) {
        kind = .selection
        self.provider = provider
        seat = device.seat
        actions = []
        preferredAction = []
        super.init(DataOffer.self, client: device.client, version: device.version, id: 0)
    }

    /// Sends the source's mime types (and, for a drag, its actions) right after data_offer.
    func introduce() {
        if let provider {
            for mimeType in SelectionOwner<DataSource>.compositor(provider).mimeTypes { send(.offer(mimeType: mimeType)) }
            return
        }
        guard let source else { return }
        for mimeType in source.mimeTypes { send(.offer(mimeType: mimeType)) }
        if kind == .drag { send(.sourceActions(sourceActions: source.dragActions)) }
    }

    /// Whether a drop on this offer goes ahead: an action was agreed and, from version 3 on, a mime
    /// type accepted (earlier, accept is only feedback).
    var acceptsDrop: Bool {
        !action.isEmpty && (version < 3 || acceptedMimeType != nil)
    }

    func dropped() {
        isDropped = true
    }

    /// Matches source and destination actions: the destination's preference when both allow it,
    /// otherwise the first common action in bit order; action events go out on change.
    func negotiate() {
        guard kind == .drag, let source else { return }
        let common = source.dragActions.intersection(actions)
        let chosen: DragActions
        if !common.isDisjoint(with: preferredAction) {
            chosen = preferredAction
        } else {
            chosen = DragActions(rawValue: common.rawValue & (~common.rawValue &+ 1))
        }
        if chosen != action { send(.action(dndAction: chosen)) }
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

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .accept(_, let mimeType):
            try requireUnfinished("accept")
            acceptedMimeType = mimeType
            if kind == .drag { source?.sendTarget(acceptedMimeType) }
        case .receive(let mimeType, let fd):
            // The descriptor is closed when `fd` goes, whatever happens here.
            try requireUnfinished("receive")
            source?.sendSend(mimeType, fd.fileDescriptor)
            if let provider, provider === seat?.selectionProvider, let copy = try? fd.fileDescriptor.duplicate() {
                provider.send(mimeType, into: OwnedFileDescriptor(copy))
            }
        case .destroy: destroy()
        case .finish: try finish()
        case .setActions(let actions, let preferred): try setActions(actions, preferred: preferred)
        }
    }

    private func requireUnfinished(_ request: String) throws(ProtocolError) {
        if isFinished {
            throw ProtocolError(WlDataOfferError.invalidOffer, "\(request) after finish")
        }
    }

    private func finish() throws(ProtocolError) {
        let invalidFinish = WlDataOfferError.invalidFinish
        guard kind == .drag else { throw ProtocolError(invalidFinish, "finish on a selection offer") }
        guard !isFinished else { throw ProtocolError(invalidFinish, "finish twice") }
        guard isDropped else { throw ProtocolError(invalidFinish, "finish before the drop") }
        guard acceptedMimeType != nil else { throw ProtocolError(invalidFinish, "finish without an accepted mime type") }
        guard action == .copy || action == .move else {
            throw ProtocolError(invalidFinish, "finish with action \(action.rawValue) (copy or move must be chosen)")
        }
        isFinished = true
        source?.sendFinished()
        detachFromSource()
    }

    private func setActions(_ requested: DragActions, preferred: DragActions) throws(ProtocolError) {
        guard kind == .drag else {
            throw ProtocolError(WlDataOfferError.invalidOffer, "set_actions on a selection offer")
        }
        try requireUnfinished("set_actions")
        if !requested.isKnown {
            throw ProtocolError(WlDataOfferError.invalidActionMask, "drag action mask \(requested.rawValue) has unknown bits")
        }
        if !preferred.isKnown || preferred.rawValue.nonzeroBitCount > 1 || (!preferred.isEmpty && preferred.isDisjoint(with: requested)) {
            throw ProtocolError(WlDataOfferError.invalidAction,
                                "preferred action \(preferred.rawValue) is not one action of the mask \(requested.rawValue)")
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
