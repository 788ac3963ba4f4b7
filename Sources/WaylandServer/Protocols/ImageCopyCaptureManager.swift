import WaylandProtocols

/// The ext_image_copy_capture_manager_v1 global (version 1): capture sessions of outputs, and
/// of the pointer cursor over them, into XRGB8888 wl_shm buffers, through the same copies as
/// wlr-screencopy (`OutputCaptureHandler`).
public final class ImageCopyCaptureManagerGlobal {
    private var global: Global?
    /// The compositor's handler; without one every session stops. Unowned, not weak
    /// (docs/architecture.md: no weak references to what a frame touches): the compositor clears
    /// it before the handler goes.
    public unowned var handler: OutputCaptureHandler?
    /// Every session not destroyed, to be stopped or told new constraints when its output changes.
    private var sessions: [WeakSession] = []
    private struct WeakSession {
        weak var session: ImageCopyCaptureSession?
    }
    private var cursorSessions: [WeakCursorSession] = [] {
        didSet { hasCursorSessions = !cursorSessions.isEmpty }
    }
    /// Whether a cursor session may be live: the compositor reads this stored field every loop
    /// turn, and calls `cursorMayHaveChanged()` only when it is true.
    public private(set) var hasCursorSessions = false
    private struct WeakCursorSession {
        weak var session: ImageCopyCaptureCursorSession?
    }

    public init(display: Display) {
        // Unowned, not weak (a side table would slow the retains of this object, which the
        // compositor reaches every loop turn): the global, which calls this, goes with `self`.
        global = Global(display: display, interface: ImageCopyCaptureManager.interface, version: 1) { [unowned self] client, version, id in
            _ = ImageCopyCaptureManager(client: client, version: version, id: id, owner: self)
        }
    }

    /// `output` is gone: its sessions stop, and their frames fail.
    public func outputRemoved(_ output: Output) {
        for session in liveSessions where session.output === output || session.output == nil { session.stop() }
    }

    /// `output`'s picture changed size: its sessions hear their new buffer constraints.
    public func outputChanged(_ output: Output) {
        for session in liveSessions where session.output === output { session.sendConstraints() }
    }

    /// The pointer cursor may have moved, changed or left: cursor sessions tell their clients.
    /// Nothing to do without any (`hasCursorSessions`).
    public func cursorMayHaveChanged() {
        // Not on an empty list: removing from the shared empty array allocates one.
        guard hasCursorSessions else { return }
        cursorSessions.removeAll { $0.session?.isAlive != true }
        for entry in cursorSessions { entry.session?.update() }
    }

    private var liveSessions: [ImageCopyCaptureSession] {
        sessions.removeAll { $0.session?.isAlive != true }
        return sessions.compactMap(\.session)
    }

    func add(_ session: ImageCopyCaptureSession) {
        sessions.append(WeakSession(session: session))
    }

    fileprivate func add(_ session: ImageCopyCaptureCursorSession) {
        cursorSessions.append(WeakCursorSession(session: session))
    }
}

/// ext_image_copy_capture_manager_v1: makes capture sessions of a source.
final class ImageCopyCaptureManager: Resource, RequestHandler {
    private weak var owner: ImageCopyCaptureManagerGlobal?

    init(client: Client, version: UInt32, id: UInt32, owner: ImageCopyCaptureManagerGlobal?) {
        self.owner = owner
        super.init(ImageCopyCaptureManager.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .createSession(let id, let source, let options):
            let known = ExtImageCopyCaptureManagerV1Options.paintCursors.rawValue
            guard options.rawValue & ~known == 0 else {
                throw ProtocolError(ExtImageCopyCaptureManagerV1Error.invalidOption, "options \(options.rawValue) has unknown bits")
            }
            let session = ImageCopyCaptureSession(
                client: client, version: version, id: id, output: source.output, handler: owner?.handler,
                paintsCursors: options.rawValue & known != 0)
            owner?.add(session)
            session.start()
        case .createPointerCursorSession(let id, let source, _):
            let session = ImageCopyCaptureCursorSession(
                client: client, version: version, id: id, output: source.output, handler: owner?.handler, owner: owner)
            owner?.add(session)
            session.update()
        case .destroy:
            destroy()
        }
    }
}
