internal import CWaylandServer
internal import CVitrineWayland
import Glibc

/// The wp_presentation global (version 1): clients ask, per commit, when its content was shown.
/// Timestamps are CLOCK_MONOTONIC; the compositor reports them through `PresentationFeedback`.
public final class PresentationGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: vitrine_wp_presentation_interface(), version: 1) { client, version, id in
            let resource = PresentationResource(client: client, version: version, id: id)
            resource.send(0, .uint(UInt32(CLOCK_MONOTONIC)))
        }
    }
}

private final class PresentationResource: Resource {
    init(client: Client, version: UInt32, id: UInt32) {
        super.init(client: client, interface: vitrine_wp_presentation_interface(), version: version, id: id)
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        switch opcode {
        case 0: destroy()
        case 1:
            let feedback = PresentationFeedback(client: client, id: arguments.newID(1))
            guard let surface = arguments.object(0, as: Surface.self) else {
                feedback.discarded()
                return
            }
            PresentationFeedbackQueue.of(surface).request(feedback, on: surface)
        default: try super.handle(opcode, arguments)
        }
    }
}

/// Runs `body` once when a resource is destroyed, before the resource's own `destroyed()` (so the
/// Swift object is still whole), unless the listener was released first. Extensions use it to
/// follow the surfaces they are attached to.
final class ResourceDestructionListener {
    private var listener: OpaquePointer?
    private let body: () -> Void

    init(_ resource: Resource, body: @escaping () -> Void) {
        self.body = body
        guard let raw = resource.raw else { return }
        // Unretained: the owner keeps this object alive, and deinit unhooks the listener.
        let listener = vitrine_listener_create(Unmanaged.passUnretained(self).toOpaque()) { context, _ in
            guard let context else { return }
            Unmanaged<ResourceDestructionListener>.fromOpaque(context).takeUnretainedValue().fire()
        }
        vitrine_resource_add_destroy_listener(raw, listener)
        self.listener = listener
    }

    deinit {
        vitrine_listener_destroy(listener)
    }

    private func fire() {
        vitrine_listener_destroy(listener)
        listener = nil
        body()
    }
}
