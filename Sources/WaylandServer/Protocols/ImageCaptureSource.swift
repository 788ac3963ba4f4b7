import WaylandProtocols

/// ext_image_capture_source_v1: what a capture session copies; Vitrine's sources are outputs.
final class ImageCaptureSource: Resource, RequestHandler {
    /// The output captured; nil when it was gone already or is gone since.
    private(set) weak var output: Output?

    init(client: Client, version: UInt32, id: UInt32, output: Output?) {
        self.output = output
        super.init(ImageCaptureSource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        }
    }
}
