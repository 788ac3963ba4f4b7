import WaylandProtocols

/// ext_image_copy_capture_cursor_session_v1: the pointer cursor over one output. It tells the
/// client when the cursor enters the output (is shown there) and leaves it, where its hotspot is
/// and what the hotspot is in the image; its capture session copies the cursor's image (sized as
/// the image is, in the output's pixels, upright).
final class ImageCopyCaptureCursorSession: Resource, RequestHandler {
    private(set) weak var output: Output?
    /// The manager's handler when this was made. Unowned, not weak (see the manager's): the
    /// handler outlives its clients' objects (the compositor disconnects them before it goes).
    private unowned var handler: OutputCaptureHandler?
    private weak var owner: ImageCopyCaptureManagerGlobal?
    private(set) weak var captureSession: ImageCopyCaptureSession?
    private var madeSession = false
    /// What the client was last told; nil while the cursor is not over the output.
    private var reported: CapturedCursor?

    init(client: Client, version: UInt32, id: UInt32, output: Output?, handler: OutputCaptureHandler?, owner: ImageCopyCaptureManagerGlobal?) {
        self.output = output
        self.handler = handler
        self.owner = owner
        super.init(ImageCopyCaptureCursorSession.self, client: client, version: version, id: id)
    }

    /// Tells the client what changed about the cursor since it last heard: enter (before the
    /// rest) or leave, its position, its hotspot; the capture session's constraints follow the
    /// image's size.
    func update() {
        guard isAlive else { return }
        let cursor = output.flatMap { handler?.cursor(on: $0) }
        defer { reported = cursor }
        guard let cursor else {
            if reported != nil { send(.leave) }
            return
        }
        if reported == nil { send(.enter) }
        if reported.map({ ($0.x, $0.y) != (cursor.x, cursor.y) }) ?? true { send(.position(x: cursor.x, y: cursor.y)) }
        if reported.map({ ($0.hotspotX, $0.hotspotY) != (cursor.hotspotX, cursor.hotspotY) }) ?? true {
            send(.hotspot(x: cursor.hotspotX, y: cursor.hotspotY))
        }
        captureSession?.sendConstraints()
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .getCaptureSession(let id):
            guard !madeSession else {
                throw ProtocolError(ExtImageCopyCaptureCursorSessionV1Error.duplicateSession, "get_capture_session was sent already")
            }
            madeSession = true
            let session = ImageCopyCaptureSession(
                client: client, version: version, id: id, output: output, handler: handler, paintsCursors: false, cursorSession: self)
            captureSession = session
            owner?.add(session)
            session.start()
        case .destroy:
            destroy()
        }
    }
}
