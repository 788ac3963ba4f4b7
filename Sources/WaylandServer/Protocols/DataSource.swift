internal import CWaylandServer
internal import CVitrineWayland

/// wl_data_device_manager.dnd_action values.
enum DragAction {
    static let none: UInt32 = 0
    static let copy: UInt32 = 1
    static let move: UInt32 = 2
    static let ask: UInt32 = 4
    static let all: UInt32 = copy | move | ask
}

/// wl_data_source: data a client offers, as the selection or in a drag. Used once: a source that
/// became the selection or started a drag cannot be used again.
final class DataSource: Resource {
    /// More types than any app offers for one piece of data. Each is sent to every client the
    /// selection is offered to, so more would let one client flood the others' sockets.
    static let maximumMimeTypes = 64

    private(set) var mimeTypes: [String] = []
    /// What set_actions said (nil until then).
    private(set) var requestedActions: UInt32?
    private(set) var isUsed = false
    /// The seat it was used on, told when the source goes away.
    weak var seat: SeatGlobal?
    /// Offers made from this source that still speak for it.
    private var offers: [DataOffer] = []
    /// The drag action last sent (wl_data_source.action).
    private var action = DragAction.none
    private var isCancelled = false

    init(client: Client, version: UInt32, id: UInt32) {
        super.init(client: client, interface: vitrine_wl_data_source_interface(), version: version, id: id)
    }

    /// The drag actions the source allows; before version 3 a drag is a copy.
    var dragActions: UInt32 {
        version >= 3 ? (requestedActions ?? DragAction.none) : DragAction.copy
    }

    /// Marks the source used by set_selection (`forDrag` false) or start_drag; reusing it, or a
    /// source with drag actions as the selection, is wl_data_source.invalid_source (wayland 1.21
    /// has no used_source error).
    func use(forDrag: Bool) throws(ProtocolError) {
        let invalidSource = UInt32(WL_DATA_SOURCE_ERROR_INVALID_SOURCE.rawValue)
        if isUsed {
            throw ProtocolError(code: invalidSource, "wl_data_source@\(id) was already used", on: self)
        }
        if !forDrag, requestedActions != nil {
            throw ProtocolError(code: invalidSource, "wl_data_source@\(id) has drag actions and cannot be the selection", on: self)
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
        send(0, .string(mimeType))
    }

    /// Asks the client to write `mimeType` into `fd` (libwayland sends a duplicate; the caller closes its own).
    func sendSend(_ mimeType: String, _ fd: Int32) {
        send(1, .string(mimeType), .fileDescriptor(fd))
    }

    /// The source is no longer valid; before version 3 only a replaced selection says so (spec).
    func cancel(replaced: Bool) {
        guard !isCancelled, replaced || version >= 3 else { return }
        isCancelled = true
        send(2)
    }

    func sendDropPerformed() {
        if version >= 3 { send(3) }
    }

    func sendFinished() {
        if version >= 3 { send(4) }
    }

    func sendAction(_ newAction: UInt32) {
        guard newAction != action else { return }
        action = newAction
        if version >= 3 { send(5, .uint(newAction)) }
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        switch opcode {
        case 0:
            // Types past the limit are left out of the offer, as a repeated one is.
            if let mimeType = arguments.string(0), mimeTypes.count < Self.maximumMimeTypes, !mimeTypes.contains(mimeType) {
                mimeTypes.append(mimeType)
            }
        case 1: destroy()
        case 2: try setActions(arguments.uint(0))
        default: try super.handle(opcode, arguments)
        }
    }

    private func setActions(_ actions: UInt32) throws(ProtocolError) {
        if actions & ~DragAction.all != 0 {
            throw ProtocolError(code: UInt32(WL_DATA_SOURCE_ERROR_INVALID_ACTION_MASK.rawValue),
                                "drag action mask \(actions) has unknown bits")
        }
        let invalidSource = UInt32(WL_DATA_SOURCE_ERROR_INVALID_SOURCE.rawValue)
        if requestedActions != nil {
            throw ProtocolError(code: invalidSource, "set_actions may be sent once only")
        }
        if isUsed {
            throw ProtocolError(code: invalidSource, "set_actions after the source was used")
        }
        requestedActions = actions
    }

    override func destroyed() {
        detachOffers()
        seat?.sourceDestroyed(self)
    }
}
