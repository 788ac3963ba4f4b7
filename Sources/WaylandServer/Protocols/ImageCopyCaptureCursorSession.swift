import WaylandProtocols

/// ext_image_copy_capture_cursor_session_v1: the pointer cursor's own image. Vitrine draws the
/// cursor into the output's picture (sessions with paint_cursors), so the capture session of a
/// cursor session stops at once, which the protocol's clients take as "not available"; no
/// enter, position or hotspot event is sent.
final class ImageCopyCaptureCursorSession: Resource, RequestHandler {
    private var madeSession = false

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .getCaptureSession(let id):
            guard !madeSession else {
                throw ProtocolError(ExtImageCopyCaptureCursorSessionV1Error.duplicateSession, "get_capture_session was sent already")
            }
            madeSession = true
            let session = ImageCopyCaptureSession(client: client, version: version, id: id, output: nil, handler: nil, paintsCursors: false)
            session.start()
        case .destroy:
            destroy()
        }
    }
}
