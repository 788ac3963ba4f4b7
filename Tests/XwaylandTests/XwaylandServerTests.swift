import AppProcesses
import Compositor
import DisplayBackend
import Foundation
import Glibc
import HeadlessBackend
import Logging
import Testing
import WindowPolicy
import Xwayland

/// A compositor on a headless output with Xwayland on demand, all in this process.
final class XwaylandSession {
    let compositor: Compositor
    let windowPolicy: KioskWindowPolicy
    let xwayland: XwaylandServer
    /// Every event `poll()` returned so far.
    private(set) var events: [XwaylandServer.Event] = []
    /// The socket Wayland clients of the session connect to, once one was started.
    var waylandSocket: String?

    init(width: Int = 640, height: Int = 480, scale: Double = 1) throws {
        let backend = try HeadlessBackend(outputs: [
            HeadlessOutputConfiguration(mode: OutputMode(width: width, height: height, refreshMillihertz: 60_000), scaleFactor: scale)
        ])
        compositor = try Compositor(backend: backend)
        windowPolicy = KioskWindowPolicy(compositor: compositor)
        compositor.windowPolicy = windowPolicy
        xwayland = try XwaylandServer(compositor: compositor, sockets: XDisplaySockets.open(numbers: 600...699), logger: Logger(label: "x11"))
        xwayland.windowManagerHandler = windowPolicy
    }

    deinit {
        xwayland.stop()
        compositor.shutdown()
        outputFiles.forEach { unlink($0) }
    }

    /// Files the session's clients printed to, removed with it.
    private var outputFiles: [String] = []

    /// Starts an X client on the session's display, with the environment the kiosk app gets for
    /// X and `environment` added; its standard output and error go to `output`.
    func launch(_ arguments: [String], environment: [String: String] = [:], output: String? = nil) throws -> ClientProcess {
        try ClientProcess(
            arguments: arguments, environment: environment.merging(xwayland.clientEnvironment) { _, forX in forX },
            removing: ["WAYLAND_DISPLAY"], standardOutput: output)
    }

    /// Starts an X client and returns it with what it printed so far (standard output and error).
    func launchPrinting(_ arguments: [String], environment: [String: String] = [:]) throws -> (process: ClientProcess, printed: () -> String) {
        let path = NSTemporaryDirectory() + "x11-client-\(UUID().uuidString).txt"
        outputFiles.append(path)
        let process = try launch(arguments, environment: environment, output: path)
        return (process, { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" })
    }

    /// The path of a test client in Tests/XwaylandTests/Clients.
    static func client(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/\(name)").path
    }

    /// What an X client run to its end printed, the compositor serving meanwhile.
    func output(of arguments: [String]) throws -> String {
        let (process, printed) = try launchPrinting(arguments)
        try run(seconds: 30) { process.poll() }
        return printed()
    }

    /// Runs the compositor and polls Xwayland until `condition` holds or `seconds` pass.
    @discardableResult
    func run(seconds: Double, until condition: () -> Bool = { false }) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            events += xwayland.poll()
            if condition() { return true }
            try compositor.dispatch(timeoutMilliseconds: 10)
        }
        events += xwayland.poll()
        return condition()
    }
}

@Suite(.serialized) struct XwaylandServerTests {
    @Test func xwaylandStartsWithTheFirstXClientAndAgainAfterACrash() throws {
        let session = try XwaylandSession()
        // No X client yet: no Xwayland.
        try session.run(seconds: 0.3)
        #expect(session.events.isEmpty)
        #expect(session.xwayland.pid == nil)

        let outputPath = NSTemporaryDirectory() + "xdpyinfo-\(getpid()).txt"
        defer { unlink(outputPath) }
        let first = try session.launch(["xdpyinfo"], output: outputPath)
        #expect(try session.run(seconds: 60) { first.poll() })
        #expect(first.exit == .status(0))
        let info = try String(contentsOfFile: outputPath, encoding: .utf8)
        #expect(info.contains("name of display:    \(session.xwayland.displayName)"))
        let pid = try #require(session.xwayland.pid)
        #expect(session.events.first == .started(pid: pid))
        #expect(session.events.contains { if case .ready = $0 { true } else { false } })
        #expect(session.xwayland.client?.isConnected == true)

        kill(pid, SIGKILL)
        #expect(try session.run(seconds: 10) { session.events.contains(.exited(.signal(SIGKILL))) })
        #expect(session.xwayland.pid == nil)
        #expect(session.xwayland.client == nil)

        let second = try session.launch(["xdpyinfo"], output: outputPath)
        #expect(try session.run(seconds: 60) { second.poll() })
        #expect(second.exit == .status(0))
        let restarted = try #require(session.xwayland.pid)
        #expect(restarted != pid)
        #expect(session.events.filter { if case .started = $0 { true } else { false } } == [.started(pid: pid), .started(pid: restarted)])
    }

    @Test func anXServerThatCannotStartRefusesTheClientAndIsTriedAgainByTheNext() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(mode: OutputMode(width: 64, height: 64, refreshMillihertz: 60_000))])
        let compositor = try Compositor(backend: backend)
        defer { compositor.shutdown() }
        let xwayland = try XwaylandServer(
            compositor: compositor, sockets: XDisplaySockets.open(numbers: 600...699), executable: "/nonexistent/Xwayland", logger: Logger(label: "x11"))
        var events: [XwaylandServer.Event] = []
        for _ in 0..<2 {
            let client = try ClientProcess(arguments: ["xdpyinfo"], environment: ["DISPLAY": xwayland.displayName], standardOutput: "/dev/null")
            let deadline = Date().addingTimeInterval(30)
            while !client.poll(), Date() < deadline {
                try compositor.dispatch(timeoutMilliseconds: 10)
                events += xwayland.poll()
            }
            // Refused: the connection is closed before the setup is answered. xdpyinfo then says
            // it cannot open the display (status 1), or, when the close came before it wrote its
            // setup request, dies of that write (SIGPIPE).
            #expect(client.exit == .status(1) || client.exit == .signal(SIGPIPE))
        }
        #expect(events == [
            .failedToStart("cannot start /nonexistent/Xwayland: No such file or directory"),
            .failedToStart("cannot start /nonexistent/Xwayland: No such file or directory"),
        ])
    }
}
