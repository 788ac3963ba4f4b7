/// The wl_data_device_manager global (version 3): data sources and per-seat data devices, for
/// copy and paste and drag and drop. The seats do the work; this only creates the objects.
public final class DataDeviceManagerGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: DataDeviceManagerResource.interface, version: 3) { client, version, id in
            _ = DataDeviceManagerResource(client: client, version: version, id: id)
        }
    }
}

final class DataDeviceManagerResource: Resource, RequestHandler {
    init(client: Client, version: UInt32, id: UInt32) {
        super.init(DataDeviceManagerResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .createDataSource(let id): _ = DataSource(client: client, version: version, id: id)
        case .getDataDevice(let id, let seatResource):
            // A seat whose global is gone still gets a (then inert) device for the client's id.
            let seat = seatResource.seat
            let device = DataDevice(client: client, version: version, id: id, seat: seat)
            seat?.added(device)
        }
    }
}
