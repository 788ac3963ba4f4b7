internal import CVitrineWayland

/// The wl_data_device_manager global (version 3): data sources and per-seat data devices, for
/// copy and paste and drag and drop. The seats do the work; this only creates the objects.
public final class DataDeviceManagerGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: vitrine_wl_data_device_manager_interface(), version: 3) { client, version, id in
            _ = DataDeviceManagerResource(client: client, version: version, id: id)
        }
    }
}

private final class DataDeviceManagerResource: Resource {
    init(client: Client, version: UInt32, id: UInt32) {
        super.init(client: client, interface: vitrine_wl_data_device_manager_interface(), version: version, id: id)
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        switch opcode {
        case 0: _ = DataSource(client: client, version: version, id: arguments.newID(0))
        case 1:
            // A seat whose global is gone still gets a (then inert) device for the client's id.
            let seat = arguments.object(1, as: SeatResource.self)?.seat
            let device = DataDevice(client: client, version: version, id: arguments.newID(0), seat: seat)
            seat?.added(device)
        default: try super.handle(opcode, arguments)
        }
    }
}
