import WaylandProtocols

/// What the compositor, acting as the input method (the on-screen keyboard), hears about text
/// input. At most one text input per seat is enabled at a time: the one whose client has keyboard
/// focus and committed an enable. Answer it with `TextInput.send(preedit:commitString:deleteBefore:deleteAfter:)`.
public protocol TextInputHandler: AnyObject {
    /// `textInput` was enabled by a commit; its `state` says what the field wants. Called again
    /// when the client enables it anew without disabling it first (focus moved to another field).
    func textInputEnabled(_ textInput: TextInput)
    /// Any later commit of the enabled `textInput`; its `state` holds the values just applied,
    /// which may equal the previous ones.
    func textInputStateChanged(_ textInput: TextInput)
    /// `textInput` is no longer enabled: the client disabled or destroyed it, keyboard focus left
    /// its surface, the surface was destroyed, the client disconnected, or its seat went away.
    func textInputDisabled(_ textInput: TextInput)
}

/// The zwp_text_input_manager_v3 global (version 1): clients get one zwp_text_input_v3 per seat
/// and text field group; its focus follows that seat's keyboard focus.
public final class TextInputManagerGlobal {
    private var global: Global?
    /// The compositor's input method (held weakly); set it before clients can bind the global.
    public weak var handler: TextInputHandler?

    public init(display: Display) {
        global = Global(display: display, interface: TextInputManagerResource.interface, version: 1) {
            [weak self] client, version, id in
            _ = TextInputManagerResource(client: client, version: version, id: id, owner: self)
        }
    }
}

final class TextInputManagerResource: Resource, RequestHandler {
    private weak var owner: TextInputManagerGlobal?

    init(client: Client, version: UInt32, id: UInt32, owner: TextInputManagerGlobal?) {
        self.owner = owner
        super.init(TextInputManagerResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        case .getTextInput(let id, let seatResource):
            // A wl_seat whose global is gone still gets a text input, one that never gains focus.
            let seat = SeatGlobal.owning(seatResource)
            let textInput = TextInput(client: client, version: version, id: id, seat: seat, owner: owner)
            seat?.added(textInput)
        }
    }
}
