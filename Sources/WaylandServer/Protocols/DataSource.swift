import SystemCalls
import WaylandProtocols

/// Drag and drop actions (wl_data_device_manager.dnd_action: copy, move, ask).
typealias DragActions = WlDataDeviceManagerDndAction

/// wl_data_source: data a client offers, as the selection or in a drag. Used once: a source that
/// became the selection or started a drag cannot be used again.
final class DataSource: Resource, RequestHandler, SelectionSource {
    /// More types than any app offers for one piece of data. Each is sent to every client the
    /// selection is offered to, so more would let one client flood the others' sockets.
    static let maximumMimeTypes = 64

    private(set) var mimeTypes: [String] = []
    /// What set_actions said (nil until then).
    private(set) var requestedActions: DragActions?
    private(set) var isUsed = false
    /// The seat it was used on, told when the source goes away.
    weak var seat: SeatGlobal?
    /// Offers made from this source that still speak for it.
    private var offers: [DataOffer] = []
    /// The drag action last sent (wl_data_source.action).
    private var action: DragActions = []
    private var isCancelled = false

    init(client: Client, version: UInt32, id: UInt32) {
        super.init(DataSource.self, client: client, version: version, id: id)
    }

    /// The drag actions the source allows; before version 3 a drag is a copy.
    var dragActions: DragActions {
        version >= 3 ? (requestedActions ?? []) : .copy
    }

    /// Marks the source used by set_selection (`forDrag` false) or start_drag; reusing it, or a
    /// source with drag actions as the selection, is wl_data_source.invalid_source (wayland 1.21
    /// has no used_source error).
    func use(forDrag: Bool) throws(ProtocolError) {
        if isUsed {
            throw ProtocolError(WlDataSourceError.invalidSource, "wl_data_source@\(id) was already used", on: self)
        }
        if !forDrag, requestedActions != nil {
            throw ProtocolError(WlDataSourceError.invalidSource, "wl_data_source@\(id) has drag actions and cannot be the selection", on: self)
        }
        isUsed = true
    }

    func attach(_ offer: DataOffer) {
        offers.append(offer)
    }

    func detach(_ offer: DataOffer) {
        offers.removeAll { $0 === offer }
    }

    /// Makes every offer inert: the source no longer backs them (replaced selection, ended drag).
    func detachOffers() {
        let detached = offers
        offers = []
        for offer in detached { offer.sourceWentAway() }
    }

    func sendTarget(_ mimeType: String?) {
        send(.target(mimeType: mimeType))
    }

    /// Asks the client to write `mimeType` into `fd` (libwayland sends a duplicate; the caller closes its own).
    func sendSend(_ mimeType: String, _ fd: FileDescriptor) {
        send(.send(mimeType: mimeType, fd: fd))
    }

    /// The source is no longer valid; before version 3 only a replaced selection says so (spec).
    func cancel(replaced: Bool) {
        guard !isCancelled, replaced || version >= 3 else { return }
        isCancelled = true
        send(.cancelled)
    }

    func sendDropPerformed() {
        send(.dndDropPerformed)
    }

    func sendFinished() {
        send(.dndFinished)
    }

    func sendAction(_ newAction: DragActions) {
        guard newAction != action else { return }
        action = newAction
        send(.action(dndAction: newAction))
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .offer(let mimeType):
            // Types past the limit are left out of the offer, as a repeated one is.
            if mimeTypes.count < Self.maximumMimeTypes, !mimeTypes.contains(mimeType) { mimeTypes.append(mimeType) }
        case .destroy: destroy()
        case .setActions(let actions): try setActions(actions)
        }
    }

    private func setActions(_ actions: DragActions) throws(ProtocolError) {
        if !actions.isKnown {
            throw ProtocolError(WlDataSourceError.invalidActionMask, "drag action mask \(actions.rawValue) has unknown bits")
        }
        if requestedActions != nil {
            throw ProtocolError(WlDataSourceError.invalidSource, "set_actions may be sent once only")
        }
        if isUsed {
            throw ProtocolError(WlDataSourceError.invalidSource, "set_actions after the source was used")
        }
        requestedActions = actions
    }

    override func destroyed() {
        detachOffers()
        seat?.sourceDestroyed(self)
    }
}
