import Compositor
import Glibc
import LayerKit

/// The policy behind a running Vitrine's control socket: which command does what. Captures and
/// output state come from the compositor, the app's state from `app` (the supervised kiosk app, or
/// the one given on the command line), the version from the command.
public final class ControlResponder {
    private let compositor: Compositor
    private let version: String
    private let display: String
    /// The kiosk app's state now, nil when none runs.
    public var app: () -> ControlStatus.App?
    /// The board's printer, nil when it has none.
    public var printer: Printer?

    public init(
        compositor: Compositor, version: String, display: String, printer: Printer? = nil,
        app: @escaping () -> ControlStatus.App? = { nil }
    ) {
        self.compositor = compositor
        self.version = version
        self.display = display
        self.printer = printer
        self.app = app
    }

    public func response(to request: ControlRequest) -> ControlResponse {
        switch request.command {
        case .capture:
            return compositor.captureResponse(to: request)
        case .print:
            return printResponse(to: request)
        case .status:
            return .now(.json(ControlStatus(
                version: version, display: display, outputs: compositor.outputStatuses, mirrors: compositor.mirrorStatuses,
                clients: compositor.connectedClientCount, app: app())))
        #if DEBUG
        case .hang:
            // What a stuck main loop looks like from outside: no reply, no frames, no watchdog.
            while true { sleep(3600) }
        #endif
        }
    }

    /// A PDF of the output (or the named layer) on the printer's paper, queued with lp off the
    /// compositor's thread; the reply is lp's answer.
    private func printResponse(to request: ControlRequest) -> ControlResponse {
        guard let printer else { return .now(.failure(PrintError.noPrinter.description)) }
        let index = request.output ?? 0
        guard index >= 0, index < compositor.outputStatuses.count else {
            return .now(.failure("no output \(index): this instance has \(compositor.outputStatuses.count)"))
        }
        let layer: Layer
        switch compositor.exportedLayer(named: request.layer, onOutputAt: index) {
        case .success(let found): layer = found
        case .failure(let error): return .now(.failure(error.description))
        }
        let pdf: [UInt8]
        do {
            pdf = try printer.document(of: layer)
        } catch {
            return .now(.failure("cannot lay out \(request.layer ?? "output \(index)") for printing: \(error)"))
        }
        let title = request.title ?? "vitrine \(display) " + (request.layer ?? "output \(index)")
        return .later {
            do {
                return .success(mediaType: "text/plain", body: Array(try printer.submit(pdf, title: title).utf8))
            } catch {
                return .failure("\(error)")
            }
        }
    }
}
