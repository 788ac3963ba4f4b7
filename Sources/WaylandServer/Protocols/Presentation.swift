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
    override init(client: Client, version: UInt32, id: UInt32) {
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
