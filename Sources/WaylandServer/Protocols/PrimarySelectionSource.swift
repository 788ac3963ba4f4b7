import SystemCalls

/// zwp_primary_selection_source_v1: text a client offers as the primary selection. Like a
/// wl_data_source it is used once, and offers at most `DataSource.maximumMimeTypes` types.
final class PrimarySelectionSource: Resource, RequestHandler, SelectionSource {
    private(set) var mimeTypes: [String] = []
    private(set) var isUsed = false
    /// The seat whose selection it is, told when the source goes away.
    weak var seat: SeatGlobal?
    /// Offers made from this source that still speak for it.
    private var offers: [PrimarySelectionOffer] = []

    init(client: Client, version: UInt32, id: UInt32) {
        super.init(PrimarySelectionSource.self, client: client, version: version, id: id)
    }

    func attach(_ offer: PrimarySelectionOffer) {
        offers.append(offer)
    }

    /// The source stops being the selection: its offers go inert and its client hears it is cancelled.
    func cancel() {
        let detached = offers
        offers = []
        for offer in detached { offer.sourceWentAway() }
        send(.cancelled)
    }

    /// Asks the client to write `mimeType` into `fd` (libwayland sends a duplicate; the caller closes its own).
    func sendSend(_ mimeType: String, _ fd: FileDescriptor) {
        send(.send(mimeType: mimeType, fd: fd))
    }

    /// The protocol defines no error: a source set as the selection again is ignored.
    func use() -> Bool {
        defer { isUsed = true }
        return !isUsed
    }

    func handle(_ request: Request) {
        switch request {
        case .offer(let mimeType):
            if mimeTypes.count < DataSource.maximumMimeTypes, !mimeTypes.contains(mimeType) { mimeTypes.append(mimeType) }
        case .destroy: destroy()
        }
    }

    override func destroyed() {
        for offer in offers { offer.sourceWentAway() }
        offers = []
        seat?.primarySourceDestroyed(self)
    }
}
