/// The seat's primary selection.
struct PrimarySelectionState {
    var owner: SelectionOwner<PrimarySelectionSource>?
    /// The serial set_selection quoted for the current selection (older requests are ignored).
    var serial: UInt32 = 0
}

extension SeatGlobal {
    /// The mime types of the primary selection, nil when there is none.
    public var primarySelectionMimeTypes: [String]? { primarySelection.owner?.mimeTypes }

    /// set_selection follows wl_data_device's rule: the serial must be one of the client's recent
    /// input serials and not older than the current selection's, else the request is ignored (the
    /// protocol defines no error), so that a client in the background cannot replace it.
    fileprivate func setPrimarySelection(_ source: PrimarySelectionSource?, serial: UInt32, from device: PrimarySelectionDevice) {
        guard isRecentInputSerial(serial, of: device.client) else { return }
        if primarySelection.owner != nil, serial &- primarySelection.serial > UInt32.max / 2 { return }
        if let source, !source.use() { return }
        primarySelection.serial = serial
        replacePrimarySelection(with: source.map { .client($0) })
    }

    func replacePrimarySelection(with new: SelectionOwner<PrimarySelectionSource>?) {
        let previous = primarySelection.owner
        if let new, new.isSame(as: previous) { return }
        if new == nil, previous == nil { return }
        primarySelection.owner = new
        if case .client(let source)? = new { source.seat = self }
        switch previous {
        case .client(let source)?: source.cancel()
        case .compositor(let provider)?: provider.selectionReplaced()
        case nil: break
        }
        if let focus = keyboardFocus { sendPrimarySelection(to: focus.client) }
        handler?.selectionChanged(self, kind: .primary)
    }

    /// Offers the primary selection (or none) to every primary selection device of `client`.
    func sendPrimarySelection(to client: Client) {
        for device in existingSeatClient(for: client)?.primarySelectionDevices ?? [] { device.offerSelection(primarySelection.owner) }
    }

    func primarySourceDestroyed(_ source: PrimarySelectionSource) {
        guard case .client(let selection)? = primarySelection.owner, selection === source else { return }
        primarySelection.owner = nil
        if let focus = keyboardFocus { sendPrimarySelection(to: focus.client) }
        handler?.selectionChanged(self, kind: .primary)
    }

    /// The client's new device gets the primary selection when the client has keyboard focus.
    func added(_ device: PrimarySelectionDevice) {
        seatClient(for: device.client).primarySelectionDevices.append(device)
        if keyboardFocus?.client === device.client { device.offerSelection(primarySelection.owner) }
    }
}

/// One client's zwp_primary_selection_device_v1 for a seat.
final class PrimarySelectionDevice: Resource, RequestHandler {
    private(set) weak var seat: SeatGlobal?

    init(client: Client, version: UInt32, id: UInt32, seat: SeatGlobal?) {
        self.seat = seat
        super.init(PrimarySelectionDevice.self, client: client, version: version, id: id)
    }

    /// data_offer and the offer's mime types, then selection; or selection with no offer.
    func offerSelection(_ owner: SelectionOwner<PrimarySelectionSource>?) {
        send(.selection(id: owner.map { PrimarySelectionOffer(device: self, owner: $0) }))
    }

    func handle(_ request: Request) {
        switch request {
        case .setSelection(let source, let serial): seat?.setPrimarySelection(source, serial: serial, from: self)
        case .destroy: destroy()
        }
    }

    override func destroyed() {
        seat?.existingSeatClient(for: client)?.primarySelectionDevices.removeAll { $0 === self }
    }
}
