internal import CVitrineWayland

/// The wp_single_pixel_buffer_manager_v1 global (version 1): 1×1 buffers of one colour, which a
/// compositor shows as a solid fill (`Buffer.Storage.singlePixel`) scaled by wp_viewport.
public final class SinglePixelBufferManagerGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: vitrine_wp_single_pixel_buffer_manager_v1_interface(), version: 1) {
            client, version, id in
            _ = SinglePixelBufferManagerResource(client: client, version: version, id: id)
        }
    }
}

private final class SinglePixelBufferManagerResource: Resource {
    override init(client: Client, version: UInt32, id: UInt32) {
        super.init(client: client, interface: vitrine_wp_single_pixel_buffer_manager_v1_interface(), version: version, id: id)
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        switch opcode {
        case 0: destroy()
        case 1:
            _ = SinglePixelBuffer(
                client: client, id: arguments.newID(0),
                storage: .singlePixel(red: arguments.uint(1), green: arguments.uint(2), blue: arguments.uint(3), alpha: arguments.uint(4)))
        default: try super.handle(opcode, arguments)
        }
    }
}

/// A single-pixel wl_buffer. Like any buffer, it hears wl_buffer.release only when the compositor
/// calls `Buffer.release()` (once the buffer was replaced), never on its own.
private final class SinglePixelBuffer: Resource, BufferSource {
    let width: Int32 = 1
    let height: Int32 = 1
    let storage: Buffer.Storage

    init(client: Client, id: UInt32, storage: Buffer.Storage) {
        self.storage = storage
        super.init(client: client, interface: vitrine_wl_buffer_interface(), version: 1, id: id)
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        switch opcode {
        case 0: destroy()
        default: try super.handle(opcode, arguments)
        }
    }
}
