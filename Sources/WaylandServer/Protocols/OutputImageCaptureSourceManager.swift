import WaylandProtocols

/// The ext_output_image_capture_source_manager_v1 global (version 1): makes capture sources of
/// outputs, for ext_image_copy_capture_manager_v1.
public final class OutputImageCaptureSourceManagerGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: OutputImageCaptureSourceManager.interface, version: 1) { client, version, id in
            _ = OutputImageCaptureSourceManager(OutputImageCaptureSourceManager.self, client: client, version: version, id: id)
        }
    }
}

final class OutputImageCaptureSourceManager: Resource, RequestHandler {
    func handle(_ request: Request) {
        switch request {
        case .createSource(let id, let output):
            // A withdrawn output's source captures nothing: its sessions stop at once.
            _ = ImageCaptureSource(client: client, version: version, id: id, output: output.owner)
        case .destroy:
            destroy()
        }
    }
}
