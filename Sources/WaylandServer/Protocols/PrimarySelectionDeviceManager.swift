/// The zwp_primary_selection_device_manager_v1 global (version 1): sources and per-seat devices
/// for the primary selection (text selected anywhere, pasted with the middle button). The seats
/// keep the selection; this only creates the objects.
public final class PrimarySelectionDeviceManagerGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: PrimarySelectionDeviceManagerResource.interface, version: 1) {
            client, version, id in
            _ = PrimarySelectionDeviceManagerResource(client: client, version: version, id: id)
        }
    }
}

final class PrimarySelectionDeviceManagerResource: Resource, RequestHandler {
    init(client: Client, version: UInt32, id: UInt32) {
        super.init(PrimarySelectionDeviceManagerResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .createSource(let id): _ = PrimarySelectionSource(client: client, version: version, id: id)
        case .getDevice(let id, let seatResource):
            // A seat whose global is gone still gets a (then inert) device for the client's id.
            let seat = SeatGlobal.owning(seatResource)
            let device = PrimarySelectionDevice(client: client, version: version, id: id, seat: seat)
            seat?.added(device)
        case .destroy: destroy()
        }
    }
}
