import Compositor
import ControlSocket
import Glibc
import Graphics
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
    /// X11 support's state now, nil when it is off.
    public var x11: () -> ControlStatus.X11? = { nil }
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
            return captureResponse(to: request)
        case .print:
            return printResponse(to: request)
        case .status:
            return .now(.json(ControlStatus(
                version: version, display: display, outputs: compositor.outputStatuses,
                mirrors: compositor.mirrorStatuses,
                clients: compositor.connectedClientCount, app: app(), x11: x11())))
        #if DEBUG
        case .hang:
            // What a stuck main loop looks like from outside: no reply, no frames, no watchdog.
            while true { sleep(3600) }
        #endif
        }
    }

    /// A PNG of a whole output at its own scale is the last frame it showed (what the display
    /// got); anything else (a layer, another scale, PDF or SVG) is drawn from the output's layer
    /// tree through `Layer.render(in:)`, vector where it was drawn, client surfaces as the images
    /// they are. PNG encoding runs off the compositor's thread.
    private func captureResponse(to request: ControlRequest) -> ControlResponse {
        let format = request.format ?? .png
        let index = request.output ?? 0
        let outputs = compositor.outputStatuses
        guard outputs.indices.contains(index) else {
            return .now(.failure("no output \(index): this instance has \(outputs.count) output\(outputs.count == 1 ? "" : "s") (0…\(outputs.count - 1))"))
        }
        if let scale = request.scale, !(scale > 0 && scale <= 16) {
            return .now(.failure("scale \(scale) is outside the range above 0 and up to 16"))
        }
        if format == .png && request.layer == nil && request.scale == nil {
            guard let image = compositor.capture(outputAt: index) else {
                return .now(.failure("output \(index) has shown no frame yet"))
            }
            return .later { Self.pngReply(image) }
        }
        let layer: Layer
        switch compositor.exportedLayer(named: request.layer, onOutputAt: index) {
        case .success(let found): layer = found
        case .failure(let message): return .now(.failure(message.description))
        }
        // A whole output shows black where nothing is drawn, as on its display.
        let background: Color? = request.layer == nil ? Color(white: 0) : nil
        do {
            switch format {
            case .png:
                let image = try layer.renderedImage(scale: request.scale ?? outputs[index].scale, background: background)
                return .later { Self.pngReply(image) }
            case .pdf:
                return .now(.success(mediaType: format.mediaType, body: try layer.exportData(as: .pdf(page: nil), background: background)))
            case .svg:
                return .now(.success(mediaType: format.mediaType, body: try layer.exportData(as: .svg, background: background)))
            }
        } catch {
            return .now(.failure("cannot draw \(request.layer.map { "the layer \($0)" } ?? "output \(index)") as \(format.rawValue): \(error)"))
        }
    }

    private static func pngReply(_ image: Image) -> ControlReply {
        do {
            return .success(mediaType: CaptureFormat.png.mediaType, body: try image.pngData())
        } catch {
            return .failure("cannot encode the image as PNG: \(error)")
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
