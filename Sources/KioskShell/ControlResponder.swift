import Compositor
import Glibc

/// The policy behind a running Vitrine's control socket: which command does what. Captures and
/// output state come from the compositor, the app's state from `app` (the supervised kiosk app, or
/// the one given on the command line), the version from the command.
public final class ControlResponder {
    private let compositor: Compositor
    private let version: String
    private let display: String
    /// The kiosk app's state now, nil when none runs.
    public var app: () -> ControlStatus.App?

    public init(compositor: Compositor, version: String, display: String, app: @escaping () -> ControlStatus.App? = { nil }) {
        self.compositor = compositor
        self.version = version
        self.display = display
        self.app = app
    }

    public func response(to request: ControlRequest) -> ControlResponse {
        switch request.command {
        case .capture:
            return compositor.captureResponse(to: request)
        case .status:
            return .now(.json(ControlStatus(
                version: version, display: display, outputs: compositor.outputStatuses,
                clients: compositor.connectedClientCount, app: app())))
        #if DEBUG
        case .hang:
            // What a stuck main loop looks like from outside: no reply, no frames, no watchdog.
            while true { sleep(3600) }
        #endif
        }
    }
}
