import Buffers
import WaylandProtocols

/// ext_image_copy_capture_session_v1: repeated copies of one output, or of the pointer cursor
/// over it (a cursor session's). It tells the client the buffer to make (XRGB8888 wl_shm, the
/// output's picture size or the cursor image's) again whenever that changes, has one frame at a
/// time, and stops for good when its output goes.
final class ImageCopyCaptureSession: Resource, RequestHandler {
    /// The only buffer format offered, as for wlr-screencopy.
    static let format = PixelFormat.xrgb8888

    private(set) weak var output: Output?
    /// The manager's handler when this was made. Unowned, not weak (see the manager's): the
    /// handler outlives its clients' objects (the compositor disconnects them before it goes).
    private unowned var handler: OutputCaptureHandler?
    /// Whether the client asked for the pointer cursor in the copies.
    let paintsCursors: Bool
    /// The cursor session whose cursor image this session copies; nil for an output's session.
    private(set) weak var cursorSession: ImageCopyCaptureCursorSession?
    let copiesCursor: Bool
    private(set) var isStopped = false
    /// The buffer size last advertised, in pixels.
    private(set) var bufferSize: SurfaceSize?
    /// Whether a frame of the session was ready: later frames wait for a change.
    var hasCaptured = false
    private weak var frame: ImageCopyCaptureFrame?

    init(client: Client, version: UInt32, id: UInt32, output: Output?, handler: OutputCaptureHandler?, paintsCursors: Bool,
         cursorSession: ImageCopyCaptureCursorSession? = nil) {
        self.output = output
        self.handler = handler
        self.paintsCursors = paintsCursors
        self.cursorSession = cursorSession
        copiesCursor = cursorSession != nil
        super.init(ImageCopyCaptureSession.self, client: client, version: version, id: id)
    }

    /// Sends the first constraints, or stops at once when there is nothing to capture.
    func start() {
        sendConstraints()
    }

    /// The size of what the frames copy now: the output's picture, or the cursor's image (nil
    /// while no cursor is over the output).
    func pictureSize() -> SurfaceSize? {
        guard let output, let handler else { return nil }
        guard copiesCursor else { return handler.pixelSize(of: output) }
        return handler.cursor(on: output).map { SurfaceSize(width: $0.width, height: $0.height) }
    }

    /// Advertises the buffer the frames need (again after the output's picture or the cursor's
    /// image changed size). A cursor session's waits for a cursor to show over its output.
    func sendConstraints() {
        guard !isStopped else { return }
        guard let output, let handler, handler.pixelSize(of: output) != nil else {
            stop()
            return
        }
        guard let size = pictureSize(), size.width > 0, size.height > 0, size != bufferSize else { return }
        bufferSize = size
        send(.shmFormat(format: WlShmFormat(rawValue: Self.format.shmCode)))
        send(.bufferSize(width: UInt32(size.width), height: UInt32(size.height)))
        send(.done)
    }

    /// The session ends for good: the client hears `stopped`, and a frame in progress fails.
    func stop() {
        guard !isStopped, isAlive else { return }
        isStopped = true
        send(.stopped)
        frame?.sessionStopped()
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .createFrame(let id):
            if let frame, frame.isAlive {
                throw ProtocolError(ExtImageCopyCaptureSessionV1Error.duplicateFrame,
                                    "ext_image_copy_capture_frame_v1@\(frame.id) of this session is not destroyed")
            }
            frame = ImageCopyCaptureFrame(client: client, version: version, id: id, session: self, handler: handler)
        case .destroy:
            destroy()
        }
    }

    override func destroyed() {
        handler?.sessionEnded(ObjectIdentifier(self))
    }
}
