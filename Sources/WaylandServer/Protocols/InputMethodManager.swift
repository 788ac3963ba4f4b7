import WaylandProtocols

/// What the compositor does for client input methods (zwp_input_method_v2, such as squeekboard):
/// it steps its own keyboard aside while one serves a seat, and shows their popups near the text
/// being typed.
public protocol InputMethodHandler: AnyObject {
    /// `seat.inputMethod` changed: a client input method now serves the seat, or the one that did
    /// went away.
    func inputMethodChanged(_ seat: SeatGlobal)
    /// `popup` is to be shown, or its text input's cursor rectangle or its own size changed: show it
    /// near `popup.textInput`'s cursor rectangle (by the popup's surface's layer) and tell it where
    /// that rectangle lies with `setTextInputRectangle(_:)`.
    func inputPopupNeedsPlacing(_ popup: InputPopupSurface)
    /// `popup` is no longer to be shown: its input method was deactivated or went away, or the
    /// client unmapped or destroyed it.
    func inputPopupHidden(_ popup: InputPopupSurface)
}

/// The zwp_input_method_manager_v2 global (version 1): a client becomes a seat's input method,
/// which types into the text input (zwp_text_input_v3) enabled on that seat. One input method per
/// seat at a time: a later one is unavailable from the start.
public final class InputMethodManagerGlobal {
    private var global: Global?
    /// The compositor; set it before clients can bind the global. Unowned, not weak
    /// (docs/architecture.md: no weak references to what a frame touches): the handler clears it
    /// before it goes.
    public unowned var handler: InputMethodHandler?

    public init(display: Display) {
        global = Global(display: display, interface: InputMethodManagerResource.interface, version: 1) {
            [weak self] client, version, id in
            _ = InputMethodManagerResource(client: client, version: version, id: id, owner: self)
        }
    }
}

final class InputMethodManagerResource: Resource, RequestHandler {
    private weak var owner: InputMethodManagerGlobal?

    init(client: Client, version: UInt32, id: UInt32, owner: InputMethodManagerGlobal?) {
        self.owner = owner
        super.init(InputMethodManagerResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .getInputMethod(let seatResource, let id):
            let inputMethod = InputMethod(client: client, version: version, id: id, seat: SeatGlobal.owning(seatResource), owner: owner)
            inputMethod.start()
        case .destroy: destroy()
        }
    }
}
