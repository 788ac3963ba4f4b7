import Compositor
import ControlSocket
import Foundation
import Glibc
import Graphics
import Testing

/// A `vitrine run --headless 320x240` of the real command, in a runtime folder of its own.
final class RunningVitrine {
    let folder: String
    let display: String
    let process = Process()
    let log: String

    /// Starts vitrine with `options` (after `run --headless 320x240@60 --socket NAME`) and `app`
    /// after `--`; `folder` is its XDG_RUNTIME_DIR (a new one when nil). `launcher` (a command
    /// that runs the rest, such as prlimit) comes first when given.
    init(options: [String] = [], app: [String] = [], folder: String? = nil, launcher: [String] = []) throws {
        try #require(FileManager.default.isExecutableFile(atPath: KioskSessionTests.vitrine), "build vitrine first: swift build --product vitrine")
        if let folder {
            self.folder = folder
        } else {
            self.folder = try Self.makeFolder()
        }
        display = "vitrine-control-\(UUID().uuidString.prefix(8))"
        log = self.folder + "/\(display).log"
        let command = [KioskSessionTests.vitrine, "run", "--headless", "320x240@60", "--socket", display] + options + (app.isEmpty ? [] : ["--"] + app)
        process.executableURL = URL(fileURLWithPath: (launcher + command)[0])
        process.arguments = Array((launcher + command).dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = self.folder
        process.environment = environment
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    static func makeFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-control-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return folder
    }

    /// The default control socket of this instance.
    var controlSocket: String { folder + "/vitrine-\(display).control" }

    /// Waits (at most 30 s) until the instance answers status on `socket` with a frame on its
    /// output and, with `app`, the app running, and, with `window`, a window of that name shown (a
    /// frame and a running app may still be the splash on a loaded machine); returns that status.
    @discardableResult
    func waitUntilShowing(app: Bool = false, window: String? = nil, socket: String? = nil) throws -> ControlStatus {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning {
            if case .success(_, let body) = try? ControlClient.send(ControlRequest(command: .status), to: socket ?? controlSocket, timeoutSeconds: 5),
                let status = try? JSONDecoder().decode(ControlStatus.self, from: Data(body)),
                status.outputs.first?.hasFrame == true, !app || status.app?.pid != nil,
                window.map({ isShowing(window: $0, socket: socket) }) ?? true
            {
                return status
            }
            usleep(50_000)
        }
        let log = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw ControlTestFailure("vitrine did not show a frame within 30 s; its log:\n\(log)")
    }

    private func isShowing(window: String, socket: String?) -> Bool {
        let capture = ControlRequest(command: .capture, format: .png, output: 0, layer: window)
        if case .success = try? ControlClient.send(capture, to: socket ?? controlSocket, timeoutSeconds: 5) { return true }
        return false
    }

    /// Ends the instance (SIGTERM), and removes its folder when the test made it.
    func stop(removingFolder: Bool = true) {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        if removingFolder { try? FileManager.default.removeItem(atPath: folder) }
    }

    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Runs the vitrine command with `arguments` in this instance's environment.
    func command(_ arguments: [String]) throws -> (status: Int32, output: Data, error: String) {
        try runVitrine(arguments, runtimeFolder: folder, display: display)
    }
}

struct ControlTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `tool` (an absolute path) and returns its standard output; a failure exit is an error.
func runTool(_ tool: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    // The tools this runs write a line or two there: it cannot fill the pipe meanwhile.
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw ControlTestFailure("\(tool) \(arguments) exited with \(process.terminationStatus): \(message)")
    }
    return String(decoding: data, as: UTF8.self)
}

/// Runs `vitrine arguments` with XDG_RUNTIME_DIR, WAYLAND_DISPLAY and `extra` set (as the user and
/// group `user`, through setpriv, when given); returns its exit status, standard output and standard error.
func runVitrine(
    _ arguments: [String], runtimeFolder: String, display: String, user: UInt32? = nil, environment extra: [String: String] = [:]
) throws -> (status: Int32, output: Data, error: String) {
    let process = Process()
    if let user {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", KioskSessionTests.vitrine] + arguments
    } else {
        process.executableURL = URL(fileURLWithPath: KioskSessionTests.vitrine)
        process.arguments = arguments
    }
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_RUNTIME_DIR"] = runtimeFolder
    environment["WAYLAND_DISPLAY"] = display
    environment.merge(extra) { $1 }
    process.environment = environment
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    // Read both before waiting: a capture to standard output is bigger than a pipe holds.
    let errorData = Box<Data>(Data())
    let errorReader = Thread { errorData.value = error.fileHandleForReading.readDataToEndOfFile() }
    errorReader.start()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !errorReader.isFinished { usleep(1000) }
    return (process.terminationStatus, outputData, String(decoding: errorData.value, as: UTF8.self))
}

final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// `vitrine run`'s control socket and the `vitrine capture` and `vitrine status` commands, against
/// the real command on a headless output.
@Suite(.serialized) struct ControlSocketTests {
    static let black = PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)
    static let white = PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255)

    @Test func captureWritesTheFrameTheOutputShowsAsPNG() throws {
        let folder = try RunningVitrine.makeFolder()
        let screenshot = folder + "/screenshot.png"
        let vitrine = try RunningVitrine(
            options: ["--screenshot", screenshot, "--after", "6", "--keep-running"], app: ["weston-simple-shm"], folder: folder)
        defer { vitrine.stop() }
        let status = try vitrine.waitUntilShowing(app: true, window: "simple-shm")
        let app = try #require(status.app?.pid)
        // simple-shm animates: frozen, it leaves one frame on the output, which both the
        // screenshot (taken later) and the capture must be.
        usleep(500_000)
        Glibc.kill(app, SIGSTOP)
        defer { Glibc.kill(app, SIGCONT) }
        try #require(!FileManager.default.fileExists(atPath: screenshot), "the screenshot was taken before the app was frozen")
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: screenshot), Date() < deadline { usleep(100_000) }

        let result = try vitrine.command(["capture", "-o", folder + "/capture.png"])
        #expect(result.status == 0)
        #expect(result.error == "")
        let capture = try Image(contentsOfPNGFile: folder + "/capture.png")
        #expect(capture.width == 320)
        #expect(capture.height == 240)
        #expect(capture.countOfPixelsDiffering(from: try Image(contentsOfPNGFile: screenshot), byMoreThan: 0) == 0)
        // The output's black around simple-shm's 250×250 window (centred: x 35…284, y -5…244),
        // whose 20-pixel border is white.
        #expect(capture.pixel(x: 0, y: 0) == Self.black)
        #expect(capture.pixel(x: 34, y: 120) == Self.black)
        #expect(capture.pixel(x: 36, y: 120) == Self.white)
        #expect(capture.pixel(x: 283, y: 120) == Self.white)
        #expect(capture.pixel(x: 286, y: 120) == Self.black)

        // Without -o, and standard output not a terminal, the PNG goes there.
        let piped = try vitrine.command(["capture"])
        #expect(piped.status == 0)
        #expect(piped.output == (try Data(contentsOf: URL(fileURLWithPath: folder + "/capture.png"))))
    }

    @Test func statusTellsTheVersionOutputsClientsAndApp() throws {
        let vitrine = try RunningVitrine(app: ["weston-simple-shm"])
        defer { vitrine.stop() }
        let status = try vitrine.waitUntilShowing(app: true)
        let pid = try #require(status.app?.pid)
        // X11 is on, but with no X client no Xwayland runs.
        let x = try #require(status.x11?.display)
        #expect(status == ControlStatus(
            version: "0.1.0", display: vitrine.display,
            outputs: [OutputStatus(name: "HEADLESS-1", width: 320, height: 240, refreshMillihertz: 60000, scale: 1, transform: 0, hasFrame: true)],
            clients: 1, app: ControlStatus.App(command: ["weston-simple-shm"], pid: pid, starts: 1),
            x11: ControlStatus.X11(display: x, pid: nil, starts: 0)))
        let text = try vitrine.command(["status"])
        #expect(text.status == 0)
        #expect(String(decoding: text.output, as: UTF8.self) == """
            vitrine 0.1.0 on \(vitrine.display)
            output 0: HEADLESS-1 320x240@60.0 scale 1.0 transform 0 at 0,0
            clients: 1
            app: weston-simple-shm, running as pid \(pid), started 1 time
            x11: DISPLAY=\(x), Xwayland not running, started 0 times

            """)
        let json = try vitrine.command(["status", "--json"])
        #expect(try JSONDecoder().decode(ControlStatus.self, from: json.output) == status)
    }

    @Test func statusNamesTheXWindowsOfAnX11App() throws {
        let vitrine = try RunningVitrine(app: ["xterm", "-T", "status-xterm", "-e", "sleep", "60"])
        defer { vitrine.stop() }
        let pid = try #require(try vitrine.waitUntilShowing(app: true).app?.pid)
        var status: ControlStatus?
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let json = try vitrine.command(["status", "--json"])
            status = try? JSONDecoder().decode(ControlStatus.self, from: json.output)
            if status?.x11?.windows.isEmpty == false { break }
            usleep(100_000)
        }
        let x11 = try #require(status?.x11)
        let xwayland = try #require(x11.pid)
        let window = try #require(x11.windows.first)
        #expect(x11.windows == [ControlStatus.X11.Window(
            id: window.id, title: "status-xterm", className: "XTerm", instanceName: "xterm", pid: pid, x: 0, y: 0, width: 320,
            height: 240, isOverrideRedirect: false)])
        let text = String(decoding: try vitrine.command(["status"]).output, as: UTF8.self)
        #expect(text.hasSuffix("""
            x11: DISPLAY=\(x11.display), Xwayland running as pid \(xwayland), started 1 time
            x11 window 0x\(String(window.id, radix: 16)) 'status-xterm' (xterm, XTerm) of pid \(pid) at 0,0 320x240

            """))
    }

    @Test func twoInstancesEachAnswerOnTheirOwnSocket() throws {
        let first = try RunningVitrine()
        defer { first.stop() }
        let path = first.folder + "/second.control"
        let second = try RunningVitrine(options: ["--control-socket", path], folder: first.folder)
        defer { second.stop(removingFolder: false) }
        #expect(try first.waitUntilShowing().display == first.display)
        #expect(try second.waitUntilShowing(socket: path).display == second.display)
        // The second one's default path stays free: it listens where it was told only.
        #expect(!FileManager.default.fileExists(atPath: second.controlSocket))
        let viaPath = try runVitrine(["status", "--json", "--socket", path], runtimeFolder: first.folder, display: first.display)
        #expect(try JSONDecoder().decode(ControlStatus.self, from: viaPath.output).display == second.display)
    }

    @Test func malformedRequestsGetErrorsAndTheNextCaptureIsAnswered() throws {
        let vitrine = try RunningVitrine()
        defer { vitrine.stop() }
        try vitrine.waitUntilShowing()
        let path = vitrine.controlSocket
        #expect(try ControlClient.exchange(line("not json"), with: path) == .failure("malformed request: not a line of JSON"))
        #expect(try ControlClient.exchange(line(#"{"command":"reboot"}"#), with: path)
            == .failure(#"malformed request: unknown command "reboot" (known: \#(ControlCommand.allCases.map(\.rawValue).joined(separator: ", ")))"#))
        #expect(try ControlClient.exchange(line(#"{"format":"png"}"#), with: path)
            == .failure(#"malformed request: no "command" in the request"#))
        #expect(try ControlClient.send(ControlRequest(command: .capture, output: 1), to: path)
            == .failure("no output 1: this instance has 1 output (0…0)"))
        // A client that disappears after its request, before reading the reply, harms nothing.
        try sendAndHangUp(line(#"{"command":"capture"}"#), to: path)
        guard case .success(let mediaType, let body) = try ControlClient.send(ControlRequest(command: .capture), to: path) else {
            Issue.record("the capture after the bad requests failed")
            return
        }
        #expect(mediaType == "image/png")
        let image = try Image(pngData: body)
        #expect(image.width == 320)
        #expect(image.height == 240)
    }

    @Test func aRequestOverTheSizeLimitIsRefused() throws {
        let vitrine = try RunningVitrine()
        defer { vitrine.stop() }
        try vitrine.waitUntilShowing()
        let oversize = [UInt8](repeating: UInt8(ascii: "a"), count: ControlRequest.maximumLength + 4096)
        #expect(try ControlClient.exchange(oversize, with: vitrine.controlSocket) == .failure("request longer than 65536 bytes"))
        // The limit is exact: a status request padded with spaces to 65536 bytes is read, one more byte is not.
        let request = Array(#"{"command":"status"}"#.utf8)
        let padding = [UInt8](repeating: UInt8(ascii: " "), count: ControlRequest.maximumLength - request.count)
        guard case .success("application/json", _) = try ControlClient.exchange(padding + request + [0x0A], with: vitrine.controlSocket) else {
            Issue.record("a request of exactly the limit was not answered")
            return
        }
        #expect(try ControlClient.exchange([0x20] + padding + request + [0x0A], with: vitrine.controlSocket)
            == .failure("request longer than 65536 bytes"))
        // The compositor goes on answering.
        guard case .success(let mediaType, _) = try ControlClient.send(ControlRequest(command: .status), to: vitrine.controlSocket) else {
            Issue.record("the status after the oversize request failed")
            return
        }
        #expect(mediaType == "application/json")
    }

    @Test func manyClientsAtOnceEachGetTheWholeCapture() throws {
        let vitrine = try RunningVitrine()
        defer { vitrine.stop() }
        try vitrine.waitUntilShowing()
        let path = vitrine.controlSocket
        let replies = Box<[ControlReply?]>(Array(repeating: nil, count: 12))
        let lock = NSLock()
        let threads = (0..<12).map { index in
            Thread {
                let reply = try? ControlClient.send(ControlRequest(command: .capture), to: path, timeoutSeconds: 30)
                lock.withLock { replies.value[index] = reply }
            }
        }
        threads.forEach { $0.start() }
        while threads.contains(where: { !$0.isFinished }) { usleep(10_000) }
        let sizes = try replies.value.map { reply -> [Int] in
            guard case .success("image/png", let body) = reply else { return [] }
            let image = try Image(pngData: body)
            return [image.width, image.height]
        }
        #expect(sizes == Array(repeating: [320, 240], count: 12))
    }

    @Test func aStaleSocketFileIsReplaced() throws {
        let folder = try RunningVitrine.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/kiosk.control"
        let dead = try RunningVitrine(options: ["--control-socket", path], folder: folder)
        try dead.waitUntilShowing(socket: path)
        dead.kill()
        // Killed, it could not remove its socket: nobody answers there now.
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(throws: ControlProtocolError.refused(path)) { try ControlClient.send(ControlRequest(command: .status), to: path) }
        let next = try RunningVitrine(options: ["--control-socket", path], folder: folder)
        defer { next.stop(removingFolder: false) }
        #expect(try next.waitUntilShowing(socket: path).display == next.display)
    }

    @Test func aSecondRunOnALiveControlSocketFailsWithTheReason() throws {
        let first = try RunningVitrine()
        defer { first.stop() }
        try first.waitUntilShowing()
        let second = try RunningVitrine(options: ["--control-socket", first.controlSocket], folder: first.folder)
        second.process.waitUntilExit()
        #expect(second.process.terminationStatus == 1)
        let log = try String(contentsOfFile: second.log, encoding: .utf8)
        #expect(log.hasSuffix("Error: another vitrine is listening on \(first.controlSocket); stop it, or give this one another --control-socket\n"))
        #expect(try first.waitUntilShowing().display == first.display)
    }

    @Test func theSocketIsTheUsersAloneAndGoneAfterExit() throws {
        let vitrine = try RunningVitrine()
        defer { vitrine.stop() }
        try vitrine.waitUntilShowing()
        var status = stat()
        #expect(stat(vitrine.controlSocket, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFSOCK)
        #expect(status.st_mode & 0o7777 == 0o600)
        #expect(status.st_uid == geteuid())
        vitrine.stop(removingFolder: false)
        #expect(vitrine.process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: vitrine.controlSocket))
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run a client as another user"))
    func anotherUsersClientIsRefusedByTheFileModeAndByItsCredentials() throws {
        // In /tmp rather than a private runtime folder, so that the other user reaches the file.
        let path = "/tmp/vitrine-peer-\(UUID().uuidString.prefix(8)).control"
        let vitrine = try RunningVitrine(options: ["--control-socket", path])
        defer { vitrine.stop() }
        try vitrine.waitUntilShowing(socket: path)
        let nobody: UInt32 = 65534
        let denied = try runVitrine(["status", "--socket", path], runtimeFolder: vitrine.folder, display: vitrine.display, user: nobody)
        #expect(denied.status == 1)
        #expect(denied.error == "Error: permission denied on \(path): the control socket belongs to the user vitrine runs as (use that user, or root)\n")
        // Past a mode opened by mistake, the peer's credentials still keep it out.
        #expect(chmod(path, 0o666) == 0)
        let refused = try runVitrine(["status", "--socket", path], runtimeFolder: vitrine.folder, display: vitrine.display, user: nobody)
        #expect(refused.status == 1)
        #expect(refused.error == "Error: vitrine answered: uid 65534 may not use this socket (it belongs to uid 0)\n")
        vitrine.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// simple-shm frozen on the headless output, so that every capture sees the same frame.
    func frozenSimpleShm() throws -> (RunningVitrine, pid_t) {
        let vitrine = try RunningVitrine(app: ["weston-simple-shm"])
        let status = try vitrine.waitUntilShowing(app: true, window: "simple-shm")
        let app = try #require(status.app?.pid)
        usleep(500_000)
        Glibc.kill(app, SIGSTOP)
        // A frame drawn while the app was being stopped is shown before the captures start.
        usleep(500_000)
        return (vitrine, app)
    }

    @Test func aWindowOrTheWholeOutputIsDrawnAgainAsPDFSVGOrAScaledPNG() throws {
        let (vitrine, app) = try frozenSimpleShm()
        defer {
            Glibc.kill(app, SIGCONT)
            vitrine.stop()
        }
        let frame = vitrine.folder + "/frame.png"
        #expect(try vitrine.command(["capture", "-o", frame]).status == 0)

        // The whole output as PDF: a 320×240 point page that poppler draws as the frame.
        let pdf = vitrine.folder + "/output.pdf"
        let result = try vitrine.command(["capture", "--format", "pdf", "-o", pdf])
        #expect(result.status == 0 && result.error == "")
        let info = try runTool("/usr/bin/pdfinfo", [pdf])
        #expect(info.split(separator: "\n").contains { $0.split(separator: " ").joined(separator: " ") == "Page size: 320 x 240 pts" }, "\(info)")
        // Read back by poppler (drawn with cairo: pdftoppm's own image scaler smooths images),
        // the page is the frame the output showed, within 0.5% of pixels off by more than 2.
        _ = try runTool("/usr/bin/pdftocairo", ["-png", "-r", "72", "-singlefile", pdf, vitrine.folder + "/page"])
        let page = try Image(contentsOfPNGFile: vitrine.folder + "/page.png")
        let differing = try #require(page.countOfPixelsDiffering(from: try Image(contentsOfPNGFile: frame), byMoreThan: 2))
        #expect(differing <= 320 * 240 / 200, "\(differing) pixels differ")

        // One window by its app ID, twice as dense: its 250×250 surface as 500×500 pixels.
        let window = vitrine.folder + "/window.png"
        #expect(try vitrine.command(["capture", "--layer", "org.freedesktop.weston.simple-shm", "--scale", "2", "-o", window]).status == 0)
        let image = try Image(contentsOfPNGFile: window)
        #expect(image.width == 500 && image.height == 500)
        #expect(image.pixel(x: 10, y: 250) == Self.white)  // the window's white border, 20 points wide

        let svg = try vitrine.command(["capture", "--format", "svg", "--layer", "simple-shm"])
        #expect(svg.status == 0)
        let text = String(decoding: svg.output, as: UTF8.self)
        #expect(text.contains("<svg") && text.contains("width=\"250pt\"") && text.contains("<image"))
    }

    @Test func anUnknownLayerOrScaleIsRefusedNamingTheWindows() throws {
        let (vitrine, app) = try frozenSimpleShm()
        defer {
            Glibc.kill(app, SIGCONT)
            vitrine.stop()
        }
        let missing = try vitrine.command(["capture", "--layer", "clock", "-o", vitrine.folder + "/out.png"])
        #expect(missing.status == 1)
        #expect(
            missing.error
                == "Error: vitrine answered: no layer or window named \"clock\" on output 0; windows: \"org.freedesktop.weston.simple-shm\", \"simple-shm\"\n")
        #expect(!FileManager.default.fileExists(atPath: vitrine.folder + "/out.png"))
        let scale = try vitrine.command(["capture", "--scale", "40", "-o", vitrine.folder + "/out.png"])
        #expect(scale.error == "Error: vitrine answered: scale 40.0 is outside the range above 0 and up to 16\n")
        let print = try vitrine.command(["print"])
        #expect(print.status == 1)
        #expect(print.error == "Error: vitrine answered: this board has no printer: add a [printer] table with the CUPS queue (see board-configs/FORMAT.md)\n")
    }

    @Test func captureWithoutARunningVitrineSaysWhereItLooked() throws {
        let folder = try RunningVitrine.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try runVitrine(["capture", "-o", folder + "/out.png"], runtimeFolder: folder, display: "wayland-77")
        #expect(result.status == 1)
        let path = folder + "/vitrine-wayland-77.control"
        #expect(result.error == "Error: no control socket at \(path): is vitrine running? looked for \(path)\n")
    }

    #if DEBUG
    @Test func hangStopsTheLoopSoStatusGoesUnanswered() throws {
        let vitrine = try RunningVitrine()
        defer { vitrine.stop() }
        try vitrine.waitUntilShowing()
        #expect(throws: ControlProtocolError.timedOut(vitrine.controlSocket, seconds: 1)) {
            try ControlClient.send(ControlRequest(command: .hang), to: vitrine.controlSocket, timeoutSeconds: 1)
        }
        let status = try vitrine.command(["status", "--timeout", "1"])
        #expect(status.status == 1)
        #expect(status.error == "Error: no reply from \(vitrine.controlSocket) within 1.0 s (is the compositor's loop stuck?)\n")
        // Its signals are read by the loop that no longer runs: only SIGKILL ends it.
        vitrine.kill()
    }
    #endif

    /// `text` and a newline, as a request line travels.
    func line(_ text: String) -> [UInt8] {
        Array((text + "\n").utf8)
    }

    /// Connects, sends `bytes`, and closes without reading the reply.
    func sendAndHangUp(_ bytes: [UInt8], to path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let connected = withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(connected == 0)
        #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }
}

@Suite struct VersionCommandTests {
    @Test func versionNamesTheBuildLibwaylandAndTheVulkanDevice() throws {
        let lines = try runTool(KioskSessionTests.vitrine, ["version"]).split(separator: "\n")
        #expect(lines.count == 4, "\(lines)")
        #expect(lines.first == "vitrine 0.1.0")
        // Tests run a debug build.
        #expect(lines.dropFirst().first?.hasPrefix("build: debug, Swift 6.") == true, "\(lines)")
        #expect(lines.dropFirst(2).first == "libwayland-server: 1.23.0", "bookworm-backports' libwayland")
        // lavapipe here; a GPU's name where there is one.
        #expect(lines.last?.hasPrefix("Vulkan device: ") == true && lines.last?.contains("none usable") == false, "\(lines)")
    }
}
