import WaylandProtocols

/// The wp_single_pixel_buffer_manager_v1 global (version 1): 1×1 buffers of one colour, which a
/// compositor shows as a solid fill (`Buffer.Storage.singlePixel`) scaled by wp_viewport.
public final class SinglePixelBufferManagerGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: SinglePixelBufferManagerResource.interface, version: 1) {
            client, version, id in
            _ = SinglePixelBufferManagerResource(SinglePixelBufferManagerResource.self, client: client, version: version, id: id)
        }
    }
}

final class SinglePixelBufferManagerResource: Resource, RequestHandler {
    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        case .createU32RgbaBuffer(let id, let red, let green, let blue, let alpha):
            _ = SinglePixelBuffer(client: client, id: id, storage: .singlePixel(red: red, green: green, blue: blue, alpha: alpha))
        }
    }
}

/// A single-pixel wl_buffer. Like any buffer, it hears wl_buffer.release only when the compositor's
/// last hold on it ends (`Buffer.endHold()`, once the buffer was replaced), never on its own.
final class SinglePixelBuffer: Resource, RequestHandler, BufferSource {
    let width: Int32 = 1
    let height: Int32 = 1
    let storage: Buffer.Storage

    init(client: Client, id: UInt32, storage: Buffer.Storage) {
        self.storage = storage
        super.init(SinglePixelBuffer.self, client: client, version: 1, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        }
    }
}
