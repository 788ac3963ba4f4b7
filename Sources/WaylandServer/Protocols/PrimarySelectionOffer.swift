/// zwp_primary_selection_offer_v1: another client's primary selection as one client sees it.
/// Inert (receive does nothing) once its source stops being the selection.
final class PrimarySelectionOffer: Resource, RequestHandler {
    private weak var source: PrimarySelectionSource?

    /// Creates the offer in `device`'s client and announces it: data_offer, then its mime types.
    init(device: PrimarySelectionDevice, source: PrimarySelectionSource) {
        self.source = source
        super.init(client: device.client, version: device.version, id: 0)
        source.attach(self)
        device.send(.dataOffer(offer: self))
        for mimeType in source.mimeTypes { send(.offer(mimeType: mimeType)) }
    }

    func sourceWentAway() {
        source = nil
    }

    func handle(_ request: Request) {
        switch request {
        case .receive(let mimeType, let fd):
            // The descriptor is closed when `fd` goes, whatever happens here.
            source?.sendSend(mimeType, fd.fileDescriptor)
        case .destroy: destroy()
        }
    }
}
