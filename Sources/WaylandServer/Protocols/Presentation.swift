import Glibc
import WaylandProtocols

/// The wp_presentation global (version 1): clients ask, per commit, when its content was shown.
/// Timestamps are CLOCK_MONOTONIC; the compositor reports them through `PresentationFeedback`.
public final class PresentationGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: PresentationResource.interface, version: 1) { client, version, id in
            let resource = PresentationResource(PresentationResource.self, client: client, version: version, id: id)
            resource.send(.clockID(clkID: UInt32(CLOCK_MONOTONIC)))
        }
    }
}

final class PresentationResource: Resource, RequestHandler {
    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        case .feedback(let surface, let id):
            PresentationFeedbackQueue.of(surface).request(PresentationFeedback(client: client, id: id), on: surface)
        }
    }
}
