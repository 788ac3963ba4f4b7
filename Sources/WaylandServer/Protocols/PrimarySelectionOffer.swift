import SystemCalls

/// zwp_primary_selection_offer_v1: another client's primary selection (or the compositor's own
/// data) as one client sees it. Inert (receive does nothing) once its source stops being the
/// selection.
final class PrimarySelectionOffer: Resource, RequestHandler {
    private weak var source: PrimarySelectionSource?
    /// The compositor's data behind the offer, and the seat whose selection it was: the offer
    /// speaks for it only while it is still that seat's primary selection.
    private weak var provider: SelectionProvider?
    private weak var seat: SeatGlobal?

    /// Creates the offer in `device`'s client and announces it: data_offer, then its mime types.
    init(device: PrimarySelectionDevice, owner: SelectionOwner<PrimarySelectionSource>) {
        super.init(PrimarySelectionOffer.self, client: device.client, version: device.version, id: 0)
        switch owner {
        case .client(let source):
            self.source = source
            source.attach(self)
        case .compositor(let provider):
            self.provider = provider
            seat = device.seat
        }
        device.send(.dataOffer(offer: self))
        for mimeType in owner.mimeTypes { send(.offer(mimeType: mimeType)) }
    }

    func sourceWentAway() {
        source = nil
    }

    func handle(_ request: Request) {
        switch request {
        case .receive(let mimeType, let fd):
            // The descriptor is closed when `fd` goes, whatever happens here.
            source?.sendSend(mimeType, fd.fileDescriptor)
            if let provider, provider === seat?.selectionProvider(.primary), let copy = try? fd.fileDescriptor.duplicate() {
                provider.send(mimeType, into: OwnedFileDescriptor(copy))
            }
        case .destroy: destroy()
        }
    }
}
