import WaylandProtocols

/// The zwlr_screencopy_manager_v1 global (version 3). Frames are offered as XRGB8888 wl_shm
/// buffers only.
public final class ScreencopyManagerGlobal {
    private var global: Global?
    /// The compositor's handler; without one every frame fails. Unowned, not weak
    /// (docs/architecture.md: no weak references to what a frame touches): the compositor clears
    /// it before the handler goes.
    public unowned var handler: OutputCaptureHandler?

    public init(display: Display) {
        global = Global(display: display, interface: ScreencopyManager.interface, version: 3) { [weak self] client, version, id in
            _ = ScreencopyManager(client: client, version: version, id: id, owner: self)
        }
    }
}

/// zwlr_screencopy_manager_v1: makes frames; damage is reported relative to its own last copy.
final class ScreencopyManager: Resource, RequestHandler {
    private weak var owner: ScreencopyManagerGlobal?

    init(client: Client, version: UInt32, id: UInt32, owner: ScreencopyManagerGlobal?) {
        self.owner = owner
        super.init(ScreencopyManager.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .captureOutput(let frame, let overlayCursor, let output):
            capture(frame, overlayCursor: overlayCursor, output: output, region: nil)
        case .captureOutputRegion(let frame, let overlayCursor, let output, let x, let y, let width, let height):
            capture(frame, overlayCursor: overlayCursor, output: output,
                    region: ClientCoordinate.rectangle(x: x, y: y, width: width, height: height))
        case .destroy:
            destroy()
        }
    }

    private func capture(_ id: UInt32, overlayCursor: Int32, output: OutputResource, region: IntRect?) {
        let frame = ScreencopyFrame(
            client: client, version: version, id: id, handler: owner?.handler, session: ObjectIdentifier(self),
            includesCursor: overlayCursor != 0)
        let rect = output.owner.flatMap { output in owner?.handler?.captureRect(of: output, region: region).map { (output, $0) } }
        frame.offer(output: rect?.0, rect: rect?.1)
    }

    override func destroyed() {
        owner?.handler?.sessionEnded(ObjectIdentifier(self))
    }
}
