/// wl_callback: a one-shot notification (frame callbacks, wl_display.sync).
public final class Callback: Resource, RequestHandler {
    init(client: Client, id: UInt32) {
        super.init(Callback.self, client: client, version: 1, id: id)
    }

    /// Sends `done` with `data` (a frame's time in milliseconds) and destroys the callback, as the protocol says.
    public func done(_ data: UInt32) {
        // wl_callback.done (opcode 0, since version 1), posted directly: every frame sends it.
        post(0, uint: data)
        destroy()
    }
}
