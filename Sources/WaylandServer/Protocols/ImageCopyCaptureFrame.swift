import Buffers
import WaylandProtocols

/// ext_image_copy_capture_frame_v1: one copy of a session's output into a client's buffer. The
/// client attaches a buffer and says which parts of it are stale (Vitrine writes the whole
/// buffer, which covers any), then captures once; the frame ends with ready (after the transform,
/// the damage since the session's last ready frame and the presentation time) or failed. A buffer
/// that does not match the session's constraints fails the frame (`buffer_constraints`), as the
/// protocol asks, rather than being an error.
final class ImageCopyCaptureFrame: Resource, RequestHandler, OutputCaptureFrame {
    private weak var captureSession: ImageCopyCaptureSession?
    /// The manager's handler when this was made. Unowned, not weak (see the manager's): the
    /// handler outlives its clients' objects (the compositor disconnects them before it goes).
    private unowned var handler: OutputCaptureHandler?
    let session: ObjectIdentifier
    private(set) weak var output: Output?
    private(set) var rect = IntRect(x: 0, y: 0, width: 0, height: 0)
    /// After the session's first ready frame, a capture waits for the picture to change.
    private(set) var waitsForDamage = false
    let reportsDamage = true
    var includesCursor: Bool { captureSession?.paintsCursors ?? false }
    var capturesCursorImage: Bool { captureSession?.copiesCursor ?? false }
    /// Whether attach_buffer was sent, and the buffer it named if it is one Vitrine knows.
    private var hasAttached = false
    private var buffer: Buffer?
    private enum Phase { case attaching, copying, finished }
    private var phase = Phase.attaching

    init(client: Client, version: UInt32, id: UInt32, session: ImageCopyCaptureSession, handler: OutputCaptureHandler?) {
        captureSession = session
        self.session = ObjectIdentifier(session)
        self.handler = handler
        super.init(ImageCopyCaptureFrame.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .attachBuffer(let buffer):
            try checkNotCaptured("attach_buffer")
            hasAttached = true
            self.buffer = client.display.flatMap { Buffer.from(buffer.raw, display: $0) }
        case .damageBuffer(let x, let y, let width, let height):
            try checkNotCaptured("damage_buffer")
            guard x >= 0, y >= 0, width > 0, height > 0 else {
                throw ProtocolError(ExtImageCopyCaptureFrameV1Error.invalidBufferDamage,
                                    "damage_buffer(\(x), \(y), \(width), \(height)) has a negative corner or an empty size")
            }
        case .capture:
            try checkNotCaptured("capture")
            guard hasAttached else {
                throw ProtocolError(ExtImageCopyCaptureFrameV1Error.noBuffer, "capture without an attached buffer")
            }
            phase = .copying
            capture()
        case .destroy:
            destroy()
        }
    }

    private func checkNotCaptured(_ request: String) throws(ProtocolError) {
        guard phase == .attaching else {
            throw ProtocolError(ExtImageCopyCaptureFrameV1Error.alreadyCaptured, "\(request) after capture")
        }
    }

    private func capture() {
        guard let session = captureSession, !session.isStopped, let output = session.output, let handler else {
            return fail(.stopped)
        }
        guard handler.pixelSize(of: output) != nil else { return fail(.stopped) }
        // A cursor session's frame while no cursor is over the output has nothing to copy.
        guard let size = session.pictureSize() else { return fail(.unknown) }
        guard let buffer, case .shm(let format) = buffer.storage, format == ImageCopyCaptureSession.format,
              buffer.width == Int(size.width), buffer.height == Int(size.height),
              let stride = buffer.withShmContents(\.stride), stride >= Int(size.width) * 4 else {
            // The picture may have changed size since the client last heard: it hears it now.
            session.sendConstraints()
            return fail(.bufferConstraints)
        }
        self.output = output
        rect = IntRect(x: 0, y: 0, width: size.width, height: size.height)
        waitsForDamage = session.hasCaptured
        handler.copyRequested(self)
    }

    func writePixels(_ body: (UnsafeMutableRawPointer, _ bytesPerRow: Int) -> Void) -> Bool {
        buffer?.writeShmPixels(body) ?? false
    }

    func ready(damage: [IntRect], presentedNanoseconds: UInt64) {
        guard phase == .copying, let output else { return }
        phase = .finished
        captureSession?.hasCaptured = true
        // An output's copy is the panel's scanout, turned as the output is; a cursor's is upright.
        send(.transform(transform: capturesCursorImage ? .normal : output.state.transform.protocolValue))
        for rect in damage { send(.damage(x: rect.x, y: rect.y, width: rect.width, height: rect.height)) }
        let seconds = presentedNanoseconds / 1_000_000_000
        send(.presentationTime(tvSecHi: UInt32(seconds >> 32), tvSecLo: UInt32(truncatingIfNeeded: seconds),
                               tvNsec: UInt32(presentedNanoseconds % 1_000_000_000)))
        send(.ready)
    }

    func fail() {
        let stopped = captureSession.map { $0.isStopped || $0.output == nil } ?? true
        fail(stopped ? .stopped : .unknown)
    }

    /// The session stopped: a copy in progress fails, and the handler forgets it; a frame not
    /// captured yet fails when it is.
    func sessionStopped() {
        guard phase == .copying else { return }
        fail(.stopped)
        handler?.copyAbandoned(self)
    }

    private func fail(_ reason: ExtImageCopyCaptureFrameV1FailureReason) {
        guard phase == .copying, isAlive else { return }
        phase = .finished
        send(.failed(reason: reason))
    }

    override func destroyed() {
        if phase == .copying { handler?.copyAbandoned(self) }
        phase = .finished
    }
}
