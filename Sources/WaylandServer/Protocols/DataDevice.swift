public import SystemCalls
import WaylandProtocols

/// The seat's two selections: the clipboard (wl_data_device) and the primary selection, text
/// selected anywhere and pasted with the middle button (zwp_primary_selection_device_v1).
public enum SelectionKind: Sendable {
    case clipboard
    case primary
}

/// Data the compositor itself offers as one of the seat's selections, for clients to paste as
/// they paste another client's (X's selections, which the X window manager bridges). Called on
/// the compositor's thread.
public protocol SelectionProvider: AnyObject {
    /// The MIME types the data is offered in.
    var mimeTypes: [String] { get }
    /// A client asked for the data as `mimeType`: write it into `descriptor` (a pipe's writing end
    /// the provider now owns), then close it.
    func send(_ mimeType: String, into descriptor: OwnedFileDescriptor)
    /// The provider is no longer the selection.
    func selectionReplaced()
}

/// A client's source of a selection's data: wl_data_source or zwp_primary_selection_source_v1.
protocol SelectionSource: AnyObject {
    var mimeTypes: [String] { get }
    /// Asks the client to write `mimeType` into `fd` (libwayland sends a duplicate).
    func sendSend(_ mimeType: String, _ fd: FileDescriptor)
}

/// What one of the seat's selections is: a client's source, or the compositor's own data.
enum SelectionOwner<Source: SelectionSource> {
    case client(Source)
    case compositor(SelectionProvider)

    var mimeTypes: [String] {
        switch self {
        case .client(let source): source.mimeTypes
        case .compositor(let provider): Array(provider.mimeTypes.prefix(DataSource.maximumMimeTypes))
        }
    }

    func isSame(as other: SelectionOwner?) -> Bool {
        switch (self, other) {
        case (.client(let a), .client(let b)?): a === b
        case (.compositor(let a), .compositor(let b)?): a === b
        default: false
        }
    }

    var provider: SelectionProvider? {
        if case .compositor(let provider) = self { provider } else { nil }
    }

    /// Asks for the data as `mimeType`, written into `descriptor` (closed here once handed on).
    func send(_ mimeType: String, into descriptor: OwnedFileDescriptor) {
        switch self {
        case .client(let source):
            // libwayland sends a duplicate: ours is closed at once, so that the reader sees the
            // end of the data when the source closes its own.
            source.sendSend(mimeType, descriptor.fileDescriptor)
            descriptor.close()
        case .compositor(let provider):
            provider.send(mimeType, into: descriptor)
        }
    }
}

/// The seat's selection and drag.
struct DataState {
    var selection: SelectionOwner<DataSource>?
    /// The serial set_selection quoted for the current selection (older requests are ignored).
    var selectionSerial: UInt32 = 0
    var drag: Drag?
}

/// A drag-and-drop session: an implicit grab of the pointer button or touch point that started it.
final class Drag {
    enum Trigger {
        case pointer(button: UInt32)
        case touch(id: Int32)
    }

    let source: DataSource?
    /// The client that started the drag (the only one a drag without source enters).
    let client: Client
    let icon: Surface?
    let trigger: Trigger
    /// Strong, not weak (docs/architecture.md: a weak reference would give the surface, which
    /// every frame retains, a side table): let go of when the drag leaves it or ends.
    var focus: Surface?
    /// The focus client's data device and the offer made to it.
    var device: DataDevice?
    var offer: DataOffer?

    init(source: DataSource?, client: Client, icon: Surface?, trigger: Trigger) {
        self.source = source
        self.client = client
        self.icon = icon
        self.trigger = trigger
    }

    var isPointerDriven: Bool {
        if case .pointer = trigger { return true }
        return false
    }
}

extension SeatGlobal {
    /// Whether a drag and drop is in progress (pointer and touch input steer it, see `SeatHandler`).
    public var isDragging: Bool { data.drag != nil }

    /// The drag's icon surface, if the client gave one (and still has it).
    public var dragIcon: Surface? {
        guard let icon = data.drag?.icon, icon.isAlive else { return nil }
        return icon
    }

    /// Where the icon's top-left corner sits relative to the pointer: its commits' offsets, summed.
    public var dragIconOffset: (x: Int32, y: Int32) {
        guard let role = data.drag?.icon?.extensions[ObjectIdentifier(DragIconRole.self)] as? DragIconRole else { return (0, 0) }
        return (role.offsetX, role.offsetY)
    }

    /// The mime types of the clipboard, nil when there is none.
    public var selectionMimeTypes: [String]? { data.selection?.mimeTypes }

    /// The mime types of the `kind` selection, nil when there is none.
    public func selectionMimeTypes(_ kind: SelectionKind) -> [String]? {
        switch kind {
        case .clipboard: data.selection?.mimeTypes
        case .primary: primarySelection.owner?.mimeTypes
        }
    }

    /// Clears the `kind` selection (its source is cancelled; the focused client hears of none).
    public func clearSelection(_ kind: SelectionKind = .clipboard) {
        switch kind {
        case .clipboard: replaceSelection(with: nil)
        case .primary: replacePrimarySelection(with: nil)
        }
    }

    /// Makes the compositor's `provider` the `kind` selection, offered to clients as a client's
    /// would be (the client source it replaces is cancelled).
    public func setSelection(_ provider: SelectionProvider, kind: SelectionKind = .clipboard) {
        switch kind {
        case .clipboard: replaceSelection(with: .compositor(provider))
        case .primary: replacePrimarySelection(with: .compositor(provider))
        }
    }

    /// The compositor's provider while it is the clipboard; nil while a client's source (or
    /// nothing) is.
    public var selectionProvider: SelectionProvider? { selectionProvider(.clipboard) }

    /// The compositor's provider while it is the `kind` selection; nil while a client's source
    /// (or nothing) is.
    public func selectionProvider(_ kind: SelectionKind) -> SelectionProvider? {
        switch kind {
        case .clipboard: data.selection?.provider
        case .primary: primarySelection.owner?.provider
        }
    }

    /// Asks the `kind` selection for its data as `mimeType`, written into `descriptor` (closed
    /// here once handed on); without a selection it is closed at once, which the reader sees as
    /// no data.
    public func receiveSelection(_ mimeType: String, kind: SelectionKind = .clipboard, into descriptor: OwnedFileDescriptor) {
        switch kind {
        case .clipboard: if let owner = data.selection { owner.send(mimeType, into: descriptor) } else { descriptor.close() }
        case .primary: if let owner = primarySelection.owner { owner.send(mimeType, into: descriptor) } else { descriptor.close() }
        }
    }

    /// Moves a touch drag onto `surface` at surface-local (`x`, `y`); pointer drags follow
    /// `pointerEnter` instead. A drag without a data source only enters its own client's surfaces.
    public func dragEnter(_ surface: Surface, x: Double, y: Double) {
        guard let drag = data.drag else { return }
        if let focus = drag.focus, focus.isAlive, focus === surface { return }
        dragLeave()
        guard drag.source != nil || surface.client === drag.client else { return }
        drag.focus = surface
        guard let device = existingSeatClient(for: surface.client)?.dataDevices.first else { return }
        drag.device = device
        let serial = display.nextSerial()
        seatClient(for: surface.client).record(serial)
        var offer: DataOffer?
        if let source = drag.source {
            let made = DataOffer(device: device, source: source, kind: .drag)
            device.send(.dataOffer(id: made))
            made.introduce()
            offer = made
        }
        drag.offer = offer
        device.send(.enter(serial: serial, surface: surface, x: x, y: y, id: offer))
        offer?.negotiate()
    }

    /// Takes the drag off its surface (leave); its offer is no longer backed by the source.
    public func dragLeave() {
        guard let drag = data.drag else { return }
        if drag.focus?.isAlive == true, let device = drag.device { device.send(.leave) }
        if let offer = drag.offer {
            if offer.acceptedMimeType != nil { drag.source?.sendTarget(nil) }
            offer.detachFromSource()
        }
        drag.source?.sendAction([])
        drag.focus = nil
        drag.device = nil
        drag.offer = nil
    }

    /// The drag moved to (`x`, `y`) in its focus surface's coordinates.
    func dragMotion(time: UInt32, x: Double, y: Double) {
        guard let drag = data.drag, drag.focus?.isAlive == true, let device = drag.device else { return }
        device.send(.motion(time: time, x: x, y: y))
    }

    /// Ends the drag without a drop (the source is cancelled).
    public func cancelDrag() {
        guard let drag = data.drag else { return }
        dragLeave()
        drag.source?.cancel(replaced: false)
        endDrag()
    }

    /// The grab was released: drop where the drag is when the destination accepted, otherwise
    /// cancel; then leave and end the drag. A dropped offer stays with its source for receive and finish.
    func dropDrag() {
        guard let drag = data.drag else { return }
        if drag.focus?.isAlive == true, let device = drag.device {
            if let source = drag.source {
                if let offer = drag.offer, offer.isAlive, offer.acceptsDrop {
                    device.send(.drop)
                    offer.dropped()
                    source.sendDropPerformed()
                } else {
                    drag.offer?.detachFromSource()
                    source.cancel(replaced: false)
                }
            } else {
                device.send(.drop)
            }
            device.send(.leave)
        } else {
            drag.source?.cancel(replaced: false)
        }
        drag.focus = nil
        drag.device = nil
        drag.offer = nil
        endDrag()
    }

    private func endDrag() {
        data.drag = nil
        handler?.dragEnded(self)
    }

    fileprivate func startDrag(source: DataSource?, origin: Surface, icon: Surface?, serial: UInt32, from device: DataDevice) {
        guard data.drag == nil, let (trigger, x, y) = grab(of: origin, serial: serial) else {
            source?.cancel(replaced: false)
            return
        }
        source?.seat = self
        if let role = icon?.extensions[ObjectIdentifier(DragIconRole.self)] as? DragIconRole {
            role.offsetX = 0
            role.offsetY = 0
        }
        data.drag = Drag(source: source, client: device.client, icon: icon, trigger: trigger)
        if case .pointer = trigger, let focus = pointerFocus {
            sendPointerLeave(focus, frame: true)
            pointer.focus = nil
        }
        handler?.dragStarted(self, icon: icon)
        dragEnter(origin, x: x, y: y)
    }

    /// The implicit grab `serial` names on `origin`: a pressed button of the pointer focused there,
    /// or a touch point down on it; with the position the drag starts at.
    private func grab(of origin: Surface, serial: UInt32) -> (Drag.Trigger, Double, Double)? {
        if pointerFocus === origin, let button = pointer.buttons.first(where: { $0.value == serial })?.key {
            return (.pointer(button: button), pointer.x, pointer.y)
        }
        if let (id, point) = touch.points.first(where: { $0.value.serial == serial && $0.value.surface === origin }) {
            return (.touch(id: id), point.x, point.y)
        }
        return nil
    }

    /// set_selection: the serial must be one of the client's recent input serials and not older
    /// than the current selection's; otherwise the request is ignored (the spec defines no error)
    /// and the source stays unused.
    fileprivate func setSelection(_ source: DataSource?, serial: UInt32, from device: DataDevice) throws(ProtocolError) {
        guard isRecentInputSerial(serial, of: device.client) else { return }
        if data.selection != nil, serial &- data.selectionSerial > UInt32.max / 2 { return }
        try source?.use(forDrag: false)
        data.selectionSerial = serial
        replaceSelection(with: source.map { .client($0) })
    }

    private func replaceSelection(with new: SelectionOwner<DataSource>?) {
        let previous = data.selection
        if let new, new.isSame(as: previous) { return }
        if new == nil, previous == nil { return }
        data.selection = new
        if case .client(let source)? = new { source.seat = self }
        switch previous {
        case .client(let source)?:
            source.detachOffers()
            source.cancel(replaced: true)
        case .compositor(let provider)?:
            provider.selectionReplaced()
        case nil:
            break
        }
        if let focus = keyboardFocus { sendSelection(to: focus.client) }
        handler?.selectionChanged(self, kind: .clipboard)
    }

    /// Offers the selection (or none) to every data device of `client`.
    func sendSelection(to client: Client) {
        for device in existingSeatClient(for: client)?.dataDevices ?? [] { device.offerSelection(data.selection) }
    }

    func sourceDestroyed(_ source: DataSource) {
        if case .client(let selection)? = data.selection, selection === source {
            data.selection = nil
            if let focus = keyboardFocus { sendSelection(to: focus.client) }
            handler?.selectionChanged(self, kind: .clipboard)
        }
        if let drag = data.drag, drag.source === source { cancelDrag() }
    }

    /// The client's new data device gets the selection when the client has keyboard focus.
    func added(_ device: DataDevice) {
        seatClient(for: device.client).dataDevices.append(device)
        if keyboardFocus?.client === device.client { device.offerSelection(data.selection) }
    }
}

/// One client's wl_data_device for a seat.
final class DataDevice: Resource, RequestHandler {
    private(set) weak var seat: SeatGlobal?

    init(client: Client, version: UInt32, id: UInt32, seat: SeatGlobal?) {
        self.seat = seat
        super.init(DataDevice.self, client: client, version: version, id: id)
    }

    /// data_offer, its mime types, then selection; or selection with no offer.
    func offerSelection(_ selection: SelectionOwner<DataSource>?) {
        guard let selection else {
            send(.selection(id: nil))
            return
        }
        let offer = DataOffer(device: self, selection: selection)
        send(.dataOffer(id: offer))
        offer.introduce()
        send(.selection(id: offer))
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .startDrag(let source, let origin, let icon, let serial):
            try startDrag(source: source, origin: origin, icon: icon, serial: serial)
        case .setSelection(let source, let serial): try seat?.setSelection(source, serial: serial, from: self)
        case .release: destroy()
        }
    }

    private func startDrag(source: DataSource?, origin: Surface, icon: Surface?, serial: UInt32) throws(ProtocolError) {
        if let icon { try DragIconRole.give(to: icon, errorOn: self) }
        try source?.use(forDrag: true)
        guard let seat else {
            source?.cancel(replaced: false)
            return
        }
        seat.startDrag(source: source, origin: origin, icon: icon, serial: serial, from: self)
    }

    override func destroyed() {
        seat?.existingSeatClient(for: client)?.dataDevices.removeAll { $0 === self }
    }
}

/// The "wl_data_device-icon" role: the drag icon, moved by its commits' offsets.
final class DragIconRole: SurfaceRole {
    let roleName = "wl_data_device-icon"
    var offsetX: Int32 = 0
    var offsetY: Int32 = 0

    /// Gives `surface` the role on first use (it keeps it for later drags).
    static func give(to surface: Surface, errorOn resource: Resource) throws(ProtocolError) {
        let key = ObjectIdentifier(DragIconRole.self)
        guard surface.extensions[key] == nil else { return }
        let role = DragIconRole()
        try surface.setRole(role, errorOn: resource, code: WlDataDeviceError.role)
        surface.extensions[key] = role
    }

    func validateCommit(_ surface: Surface, _ pending: PendingSurfaceState) throws(ProtocolError) {}

    func surfaceDidCommit(_ surface: Surface) {
        offsetX = ClientCoordinate.sum(offsetX, surface.current.offsetX)
        offsetY = ClientCoordinate.sum(offsetY, surface.current.offsetY)
    }
}
