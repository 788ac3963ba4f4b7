public import AppProcesses
public import Compositor
import Foundation
import Glibc
public import Logging
public import SystemCalls
public import WaylandServer
public import XWindowManager

/// Xwayland, the X server of Vitrine's X11 apps, started on demand as wlroots does: the display's
/// sockets listen from the start, and the first X client that connects starts Xwayland, which
/// takes the sockets over (the waiting client included) together with a Wayland connection of its
/// own (`WAYLAND_SOCKET`) and the window manager's X connection (`-wm`), on which Vitrine's
/// `XWindowManager` runs once Xwayland is ready (Xwayland accepts X clients only once a window
/// manager owns `WM_S0`). An Xwayland that exits or crashes is started again by the next
/// connection. Runs on the compositor's loop; `poll()` reaps
/// Xwayland and says what happened.
public final class XwaylandServer {
    /// What happened since the last `poll()`.
    public enum Event: Equatable, Sendable {
        /// An X client connected and Xwayland was started as `pid`.
        case started(pid: pid_t)
        /// Xwayland accepts clients (it wrote its display number), `milliseconds` after its start.
        case ready(milliseconds: UInt64)
        /// Xwayland ended so; the next X connection starts it again.
        case exited(ProcessExit)
        /// Xwayland could not be started; the X client that asked was refused.
        case failedToStart(String)
        /// The window manager could not take the display: X clients wait in vain.
        case windowManagerFailed(String)
    }

    public let sockets: XDisplaySockets
    /// The program run as the X server, looked up in `PATH`.
    public let executable: String
    private let compositor: Compositor
    private let logger: Logger
    private var display: Display { compositor.display }
    /// Who decides where X windows go (the window policy), given to each window manager.
    /// Unowned, not weak (docs/architecture.md: no weak references to what a frame touches): it
    /// must outlive the window managers, which `stop()` ends (Vitrine stops Xwayland before the
    /// compositor, which holds the policy, shuts down).
    public unowned var windowManagerHandler: XWindowManagerHandler? {
        didSet { windowManager?.handler = windowManagerHandler }
    }
    /// The window manager while Xwayland runs and is ready.
    public private(set) var windowManager: XWindowManager?
    /// Xwayland as last started, until it is reaped.
    public private(set) var process: ClientProcess?
    /// Wakes the loop when Xwayland exits, for `poll()` to reap it.
    private var exitWakeup: EventSource?
    /// Whether Xwayland runs with nothing to wake the loop at its exit (the kernel has no pidfds):
    /// the owner then calls `poll()` on a timer.
    public var pollsForExit: Bool { process != nil && exitWakeup == nil }
    /// Xwayland's Wayland connection while it lasts.
    public private(set) var client: Client?
    private var events: [Event] = []
    private var listening: [FileDescriptorSource] = []
    private var readiness: FileDescriptorSource?
    private var readinessPipe: OwnedFileDescriptor?
    /// Vitrine's end of the window manager's X connection, while Xwayland runs.
    private var windowManagerEnd: OwnedFileDescriptor?
    private var startedAt = monotonicNanoseconds()
    /// Whether the Xwayland as last started said it is ready.
    private var isReady = false

    /// Listens on `sockets` on `compositor`'s loop; nothing runs until an X client connects.
    public init(compositor: Compositor, sockets: XDisplaySockets, executable: String = "Xwayland", logger: Logger) throws(SystemCallError) {
        self.compositor = compositor
        self.logger = logger
        self.sockets = sockets
        self.executable = executable
        try listen()
    }

    deinit {
        stop()
    }

    /// `DISPLAY`'s value for X clients.
    public var displayName: String { sockets.displayName }

    /// What the kiosk app gets in its environment for X: `DISPLAY`, and
    /// `_JAVA_AWT_WM_NONREPARENTING=1`, since Java's AWT takes a window manager it does not know
    /// for one that reparents its windows into frames, and then neither lays out nor paints a
    /// window that Vitrine's (which does not reparent, as wlroots' does not) made fullscreen. A
    /// board's own `environment` can override either.
    public var clientEnvironment: [String: String] {
        ["DISPLAY": displayName, "_JAVA_AWT_WM_NONREPARENTING": "1"]
    }

    /// Xwayland's pid while it runs.
    public var pid: pid_t? { process.flatMap { $0.poll() ? nil : $0.pid } }

    /// Reaps an Xwayland that ended (listening again for the next X client) and returns what
    /// happened since the last call.
    public func poll() -> [Event] {
        if let process, process.poll(), let exit = process.exit {
            self.process = nil
            exitWakeup = nil
            endConnections()
            events.append(.exited(exit))
            do {
                try listen()
            } catch {
                events.append(.failedToStart("cannot listen for X clients again: \(error)"))
            }
        }
        defer { events = [] }
        return events
    }

    /// Ends Xwayland (SIGTERM, then SIGKILL after a grace period, `wait` running meanwhile) and
    /// listens no more.
    public func stop(waitingWith wait: () -> Void = { usleep(10_000) }) {
        listening.forEach { $0.remove() }
        listening = []
        process?.terminate(waitingWith: wait)
        process = nil
        exitWakeup = nil
        endConnections()
    }

    private func listen() throws(SystemCallError) {
        listening = try sockets.sockets.map { socket throws(SystemCallError) in
            try display.eventLoop.addFileDescriptor(socket.fileDescriptor, events: .readable) { [unowned self] _ in
                start(connectionOn: socket)
            }
        }
    }

    private func start(connectionOn socket: OwnedFileDescriptor) {
        listening.forEach { $0.remove() }
        listening = []
        do {
            try launch()
        } catch {
            events.append(.failedToStart("\(error)"))
            endConnections()
            // The client that asked is refused, or it would wake the loop again at once.
            let refused = accept(socket.rawValue, nil, nil)
            if refused >= 0 { close(refused) }
            do {
                try listen()
            } catch {
                events.append(.failedToStart("cannot listen for X clients again: \(error)"))
            }
        }
    }

    private func launch() throws {
        let (client, waylandSocket) = try display.createClientSocket()
        self.client = client
        // The one client that sees xwayland_shell_v1, and whose surfaces X windows are.
        compositor.xwaylandClient = client
        client.watchDestruction { [weak self, unowned client] in
            if self?.client === client { self?.client = nil }
        }
        let wayland = OwnedFileDescriptor(waylandSocket)
        let (windowManager, server) = try Self.socketPair()
        var ends: [Int32] = [-1, -1]
        try SystemCallError.check(pipe(&ends), "pipe")
        let readEnd = OwnedFileDescriptor(rawValue: ends[0])
        let writeEnd = OwnedFileDescriptor(rawValue: ends[1])
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        let passed = [sockets.sockets[0], sockets.sockets[1], wayland, server, writeEnd]
        let numbers = ClientProcess.inheritedDescriptorNumbers(count: passed.count)
        let arguments = [
            executable, displayName, "-rootless", "-listenfd", "\(numbers[0])", "-listenfd", "\(numbers[1])",
            "-wm", "\(numbers[3])", "-displayfd", "\(numbers[4])",
        ]
        startedAt = monotonicNanoseconds()
        isReady = false
        let process = try ClientProcess(
            arguments: arguments, environment: ["WAYLAND_SOCKET": "\(numbers[2])"], removing: ["WAYLAND_DISPLAY", "DISPLAY"],
            passing: passed.map(\.fileDescriptor))
        self.process = process
        exitWakeup = process.exitDescriptor.flatMap { try? display.eventLoop.addWakeup(whenReadable: $0) }
        windowManagerEnd = windowManager
        readinessPipe = readEnd
        readiness = try display.eventLoop.addFileDescriptor(readEnd.fileDescriptor, events: .readable) { [unowned self] _ in
            readinessReported()
        }
        events.append(.started(pid: process.pid))
    }

    /// Xwayland writes its display number and a newline (in two writes) when it accepts
    /// clients, then closes the pipe; the pipe is read to its end, as Xwayland treats a write
    /// that fails as fatal. End of file without the newline means it failed, which `poll()` then
    /// reaps.
    private func readinessReported() {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = buffer.withUnsafeMutableBytes { read(readinessPipe?.rawValue ?? -1, $0.baseAddress, $0.count) }
        if count < 0, errno == EAGAIN || errno == EINTR { return }
        guard count > 0 else {
            readiness?.remove()
            readiness = nil
            readinessPipe = nil
            return
        }
        guard !isReady, buffer[..<count].contains(UInt8(ascii: "\n")) else { return }
        isReady = true
        events.append(.ready(milliseconds: (monotonicNanoseconds() - startedAt) / 1_000_000))
        guard let connection = windowManagerEnd, client != nil else { return }
        windowManagerEnd = nil
        do {
            let manager = try XWindowManager(connection: connection, compositor: compositor, logger: logger)
            manager.handler = windowManagerHandler
            windowManager = manager
        } catch {
            events.append(.windowManagerFailed("\(error)"))
        }
    }

    private func endConnections() {
        readiness?.remove()
        readiness = nil
        readinessPipe = nil
        windowManagerEnd = nil
        windowManager = nil
        client?.disconnect()
        client = nil
    }

    private static func socketPair() throws(SystemCallError) -> (OwnedFileDescriptor, OwnedFileDescriptor) {
        var pair: [Int32] = [-1, -1]
        try SystemCallError.check(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair), "socketpair")
        return (OwnedFileDescriptor(rawValue: pair[0]), OwnedFileDescriptor(rawValue: pair[1]))
    }
}
