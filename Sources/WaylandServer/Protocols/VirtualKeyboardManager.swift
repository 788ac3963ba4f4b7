/// The zwp_virtual_keyboard_manager_v1 global (version 1): clients (on-screen keyboards such as
/// wvkbd and squeekboard) make keyboards whose keys reach the client with a seat's keyboard focus.
public final class VirtualKeyboardManagerGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: VirtualKeyboardManagerResource.interface, version: 1) { client, version, id in
            _ = VirtualKeyboardManagerResource(client: client, version: version, id: id)
        }
    }
}

final class VirtualKeyboardManagerResource: Resource, RequestHandler {
    init(client: Client, version: UInt32, id: UInt32) {
        super.init(VirtualKeyboardManagerResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .createVirtualKeyboard(let seatResource, let id):
            // A seat whose global is gone still gets a keyboard, one whose keys go nowhere.
            _ = VirtualKeyboard(client: client, version: version, id: id, seat: SeatGlobal.owning(seatResource))
        }
    }
}
