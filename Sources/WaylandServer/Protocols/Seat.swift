import WaylandProtocols

/// The input devices a seat has (wl_seat.capability: pointer, keyboard, touch).
public typealias SeatCapabilities = WlSeatCapability

/// What the compositor decides or draws for a seat. Focus is not asked for: the compositor pushes
/// it through the seat's `pointerEnter`, `keyboardEnter` and `touchDown`. Every method has an empty
/// default.
public protocol SeatHandler: AnyObject {
    /// The client with pointer focus set its cursor: draw `surface`'s committed contents with its
    /// top-left corner at the pointer position minus the hotspot, or hide the pointer when `surface`
    /// is nil. Called again when a commit of the cursor surface moves the hotspot. Until the client
    /// sets a cursor after `pointerEnter`, the image is the compositor's choice.
    func cursorRequested(_ seat: SeatGlobal, surface: Surface?, hotspotX: Int32, hotspotY: Int32)
    /// A drag and drop started: draw `icon` (if any) above everything with its top-left corner at
    /// the pointer (or dragging touch point) plus `seat.dragIconOffset`, until `dragEnded`. Keep
    /// reporting what is under the pointer with `pointerEnter`/`pointerLeave`/`pointerMotion`
    /// (they steer the drag); for a touch drag use `dragEnter`/`dragLeave` and `touchMotion`.
    func dragStarted(_ seat: SeatGlobal, icon: Surface?)
    /// The drag ended (dropped or cancelled): stop drawing the icon and enter the pointer into the
    /// surface under it again (`pointerFocus` is nil after a pointer drag).
    func dragEnded(_ seat: SeatGlobal)
    /// The `kind` selection changed; `seat.selectionMimeTypes(kind)` describes the new one.
    func selectionChanged(_ seat: SeatGlobal, kind: SelectionKind)
    /// The seat's keymap, compiled when first needed, did not compile: its keyboards get
    /// no_keymap until `setKeymap` gives it one.
    func keymapUnavailable(_ seat: SeatGlobal, error: KeymapError)
}

extension SeatHandler {
    public func cursorRequested(_ seat: SeatGlobal, surface: Surface?, hotspotX: Int32, hotspotY: Int32) {}
    public func dragStarted(_ seat: SeatGlobal, icon: Surface?) {}
    public func dragEnded(_ seat: SeatGlobal) {}
    public func selectionChanged(_ seat: SeatGlobal, kind: SelectionKind) {}
    public func keymapUnavailable(_ seat: SeatGlobal, error: KeymapError) {}
}

/// A wl_seat global (version 9: scrolls say their physical direction): one group of input devices
/// with one pointer focus, one keyboard focus and one selection. The compositor drives it with the methods in Pointer.swift,
/// Keyboard.swift, Touch.swift and DataDevice.swift; events reach every wl_pointer, wl_keyboard,
/// wl_touch and wl_data_device of the focused client for this seat.
public final class SeatGlobal {
    public let name: String
    /// The compositor. Unowned, not weak (docs/architecture.md: no weak references to what a frame
    /// touches): the handler clears it before it goes.
    public unowned var handler: SeatHandler?
    let display: Display
    private var global: Global?
    /// Every capability advertised so far: clients may still ask for those devices (spec).
    private var advertised: SeatCapabilities
    private var clients: [ObjectIdentifier: SeatClient] = [:]

    /// Device state, kept beside each device's protocol.
    var pointer = PointerState()
    var keyboard: KeyboardState
    var touch = TouchState()
    var data = DataState()
    var primarySelection = PrimarySelectionState()
    var textInput = TextInputFocusState()
    /// The client input method serving the seat (InputMethod.swift), if any.
    public internal(set) weak var inputMethod: InputMethod?

    /// The devices the seat has; every bound wl_seat hears about a change.
    public var capabilities: SeatCapabilities {
        didSet {
            guard capabilities != oldValue else { return }
            advertised.formUnion(capabilities)
            for client in clients.values {
                for resource in client.seats { resource.send(.capabilities(capabilities: capabilities)) }
            }
        }
    }

    /// Creates the seat with the keymap of `keymapLayout` (nil: xkbcommon's default layout),
    /// compiled when first needed (the handler hears when it does not compile); `setKeymap`
    /// replaces it.
    public init(display: Display, name: String, capabilities: SeatCapabilities = [], keymapLayout: String? = nil) {
        self.display = display
        self.name = name
        self.capabilities = capabilities
        advertised = capabilities
        keyboard = KeyboardState(layout: keymapLayout)
        global = Global(display: display, interface: SeatResource.interface, version: 9) { [weak self] client, version, id in
            let resource = SeatResource(client: client, version: version, id: id, seat: self)
            guard let self else { return }
            seatClient(for: client).seats.append(resource)
            resource.send(.capabilities(capabilities: self.capabilities))
            resource.send(.name(name: name))
        }
    }

    deinit {
        endTextInputs()
        inputMethod?.seatEnded()
    }

    /// Withdraws the global; bound objects stay valid but get no more events from new bindings.
    public func remove() {
        global?.remove()
        global = nil
    }

    /// The seat a client's wl_seat object belongs to (requests of other protocols, such as
    /// xdg_popup.grab, name a seat by its wl_seat), nil for anything else.
    public static func owning(_ resource: Resource) -> SeatGlobal? {
        (resource as? SeatResource)?.seat
    }

    /// Whether `serial` is one of the recent input event serials (enter, button, key, touch) this seat
    /// sent to `client`: requests that quote one (grabs, interactive moves) check it with this.
    public func isRecentInputSerial(_ serial: UInt32, of client: Client) -> Bool {
        existingSeatClient(for: client)?.serials.contains(serial) ?? false
    }

    /// The seat's record of `client`, created on first use and dropped when the client leaves.
    func seatClient(for client: Client) -> SeatClient {
        let key = ObjectIdentifier(client)
        if let known = clients[key] { return known }
        let record = SeatClient()
        clients[key] = record
        client.watchDestruction { [weak self] in self?.clients[key] = nil }
        return record
    }

    /// The seat's record of `client` when it has one (it bound the seat or got input).
    func existingSeatClient(for client: Client) -> SeatClient? {
        clients[ObjectIdentifier(client)]
    }

    fileprivate func mayCreate(_ capability: SeatCapabilities) -> Bool {
        advertised.contains(capability)
    }
}

/// What a seat keeps about one client: its objects for this seat and the input serials it was sent.
final class SeatClient {
    var seats: [SeatResource] = []
    var pointers: [PointerResource] = []
    var keyboards: [KeyboardResource] = []
    var touches: [TouchResource] = []
    var dataDevices: [DataDevice] = []
    var primarySelectionDevices: [PrimarySelectionDevice] = []
    var textInputs: [TextInput] = []
    /// The serial of the last wl_pointer.enter this client got (wl_pointer.set_cursor must match it).
    var pointerEnterSerial: UInt32?
    /// The most recent input event serials sent to this client, oldest first.
    private(set) var serials: [UInt32] = []

    /// Remembers a serial sent to the client so that requests quoting it can be checked.
    func record(_ serial: UInt32) {
        serials.append(serial)
        if serials.count > 32 { serials.removeFirst() }
    }
}

/// One client's wl_seat.
final class SeatResource: Resource, RequestHandler {
    private(set) weak var seat: SeatGlobal?

    init(client: Client, version: UInt32, id: UInt32, seat: SeatGlobal?) {
        self.seat = seat
        super.init(SeatResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .getPointer(let id):
            try requireCapability(.pointer, "get_pointer")
            let pointer = PointerResource(client: client, version: version, id: id, seat: seat)
            seat?.added(pointer)
        case .getKeyboard(let id):
            try requireCapability(.keyboard, "get_keyboard")
            let keyboard = KeyboardResource(client: client, version: version, id: id, seat: seat)
            seat?.added(keyboard)
        case .getTouch(let id):
            try requireCapability(.touch, "get_touch")
            let touch = TouchResource(client: client, version: version, id: id, seat: seat)
            seat?.added(touch)
        case .release: destroy()
        }
    }

    /// Devices the seat has now or had before are always created (a capability may vanish while the
    /// request is in flight); one it never had is the spec's missing_capability error.
    private func requireCapability(_ capability: SeatCapabilities, _ request: String) throws(ProtocolError) {
        guard let seat, !seat.mayCreate(capability) else { return }
        throw ProtocolError(WlSeatError.missingCapability, "\(request) on seat \"\(seat.name)\", which never had that capability")
    }

    override func destroyed() {
        seat?.existingSeatClient(for: client)?.seats.removeAll { $0 === self }
    }
}
