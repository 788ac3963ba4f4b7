import ArgumentParser
import ControlSocket
import Foundation
import Glibc
import SystemCalls

/// Where a running Vitrine's control socket is: `--socket`, or the default beside `--display`.
struct ControlSocketOptions: ParsableArguments {
    @Option(help: "The control socket's path (default: vitrine-<display>.control in XDG_RUNTIME_DIR).")
    var socket: String?

    @Option(help: "The instance's Wayland display name (default: $WAYLAND_DISPLAY, then wayland-0).")
    var display: String?

    @Option(help: "Seconds to wait for the reply.")
    var timeout = 10.0

    func validate() throws {
        if socket != nil, display != nil { throw ValidationError("give --socket or --display, not both") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive, got \(timeout)") }
    }

    var path: String {
        if let socket { return socket }
        let environment = ProcessInfo.processInfo.environment
        let display = display ?? environment["WAYLAND_DISPLAY"].flatMap { $0.isEmpty ? nil : $0 } ?? "wayland-0"
        return ControlServer.defaultPath(forDisplay: display, runtimeDirectory: runtimeDirectory)
    }

    /// Sends `request`, printing an error reply (or a failure to reach the socket) and exiting 1.
    func send(_ request: ControlRequest) throws -> (mediaType: String, body: [UInt8]) {
        do {
            switch try ControlClient.send(request, to: path, timeoutSeconds: timeout) {
            case .success(let mediaType, let body): return (mediaType, body)
            case .failure(let message): throw CommandFailure("vitrine answered: \(message)")
            }
        } catch let error as ControlProtocolError {
            throw CommandFailure(error.description)
        }
    }
}

/// XDG_RUNTIME_DIR, or the private folder `vitrine run` makes under /tmp when it is unset.
var runtimeDirectory: String {
    if let value = environmentValue("XDG_RUNTIME_DIR"), !value.isEmpty { return value }
    return "/tmp/vitrine-runtime-\(getuid())"
}

/// A failure reported as one line on standard error, with exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Writes an image of what a running Vitrine shows, taken through its control socket.
struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Capture what a running vitrine shows, through its control socket.",
        discussion: """
            Example: vitrine capture -o screen.png (the instance on $WAYLAND_DISPLAY); vitrine capture --display wayland-1 > screen.png
            A window as a PDF: vitrine capture --format pdf --layer org.example.tickets -o ticket.pdf
            Only the user vitrine runs as (and root) can use its control socket. A PNG of a whole output at its own scale is the last frame it showed; anything else is drawn again from its layers.
            """)

    @OptionGroup var connection: ControlSocketOptions

    @Option(help: "The output's index (see vitrine status).")
    var outputIndex = 0

    @Option(help: "png, pdf or svg. PDF and SVG keep paths and text as vectors; client windows are images.")
    var format = "png"

    @Option(help: "Only this layer and its sublayers: a layer's name, or a window's app ID or title.")
    var layer: String?

    @Option(help: "Pixels per point of the image (default: the output's).")
    var scale: Double?

    @Option(name: .short, help: ArgumentHelp("The file to write (default: standard output, when it is not a terminal).", valueName: "file"))
    var output: String?

    func validate() throws {
        guard CaptureFormat(rawValue: format) != nil else {
            throw ValidationError("--format must be one of \(CaptureFormat.allCases.map(\.rawValue).joined(separator: ", ")), got '\(format)'")
        }
        guard outputIndex >= 0 else { throw ValidationError("--output-index must not be negative") }
        if let scale, !(scale > 0) { throw ValidationError("--scale must be positive, got \(scale)") }
        if output == nil, isatty(STDOUT_FILENO) != 0 {
            throw ValidationError("standard output is a terminal: give -o FILE, or redirect it")
        }
    }

    func run() throws {
        let request = ControlRequest(command: .capture, format: CaptureFormat(rawValue: format), output: outputIndex, layer: layer, scale: scale)
        let (_, body) = try connection.send(request)
        if let output {
            do {
                try Data(body).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw CommandFailure("cannot write \(output): \(error.localizedDescription)")
            }
        } else {
            FileHandle.standardOutput.write(Data(body))
        }
    }
}

/// Prints a layer of a running kiosk on the board's printer.
struct Print: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Print what a running vitrine shows (or one layer of it) on its board's printer, through CUPS.",
        discussion: """
            Example: vitrine print --layer org.example.tickets --title "Ticket 42"
            The board config's [printer] table names the CUPS queue and the paper; the page is a PDF whose text and paths stay vectors.
            """)

    @OptionGroup var connection: ControlSocketOptions

    @Option(help: "The output's index (see vitrine status).")
    var outputIndex = 0

    @Option(help: "Only this layer and its sublayers: a layer's name, or a window's app ID or title.")
    var layer: String?

    @Option(help: "The job's title in the print queue.")
    var title: String?

    func run() throws {
        let (_, body) = try connection.send(ControlRequest(command: .print, output: outputIndex, layer: layer, title: title))
        print(String(decoding: body, as: UTF8.self))
    }
}

/// Prints what a running Vitrine reports about itself.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the state of a running vitrine (version, outputs, clients, app), through its control socket.")

    @OptionGroup var connection: ControlSocketOptions

    @Flag(help: "Print the reply's JSON as it came.")
    var json = false

    func run() throws {
        let (_, body) = try connection.send(ControlRequest(command: .status))
        if json {
            print(String(decoding: body, as: UTF8.self))
            return
        }
        let status: ControlStatus
        do {
            status = try JSONDecoder().decode(ControlStatus.self, from: Data(body))
        } catch {
            throw CommandFailure("the status reply is not what this vitrine command reads (another version?): \(error)")
        }
        print(Self.describe(status))
    }

    /// The status in lines for people.
    static func describe(_ status: ControlStatus) -> String {
        var lines = ["vitrine \(status.version) on \(status.display)"]
        for (index, output) in status.outputs.enumerated() {
            let refresh = Double(output.refreshMillihertz) / 1000
            let frame = output.hasFrame
                ? (output.isScanningOutDirectly ? ", showing a client's buffer directly" : "") : ", no frame shown yet"
            lines.append("output \(index): \(output.name) \(output.width)x\(output.height)@\(refresh) scale \(output.scale) transform \(output.transform) at \(output.x),\(output.y)\(frame)")
        }
        for mirror in status.mirrors {
            let refresh = Double(mirror.refreshMillihertz) / 1000
            let shown = mirror.isShowingSource ? "" : " (not lit: black)"
            lines.append("mirror: \(mirror.name) \(mirror.width)x\(mirror.height)@\(refresh) transform \(mirror.transform) shows \(mirror.source)\(shown)")
        }
        lines.append("clients: \(status.clients)")
        if let app = status.app {
            let state = app.pid.map { "running as pid \($0)" } ?? "not running"
            lines.append("app: \(app.command.joined(separator: " ")), \(state), started \(app.starts) time\(app.starts == 1 ? "" : "s")")
        } else {
            lines.append("app: none")
        }
        if let x11 = status.x11 {
            let server = x11.pid.map { "Xwayland running as pid \($0)" } ?? "Xwayland not running"
            lines.append("x11: DISPLAY=\(x11.display), \(server), started \(x11.starts) time\(x11.starts == 1 ? "" : "s")")
            for window in x11.windows {
                let name = window.title.map { " '\($0)'" } ?? ""
                let kind = [window.instanceName, window.className].compactMap { $0 }.joined(separator: ", ")
                let owner = window.pid.map { " of pid \($0)" } ?? ""
                let placed = window.isOverrideRedirect ? " (override-redirect)" : ""
                lines.append("x11 window 0x\(String(window.id, radix: 16))\(name)\(kind.isEmpty ? "" : " (\(kind))")\(owner) at \(window.x),\(window.y) \(window.width)x\(window.height)\(placed)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
