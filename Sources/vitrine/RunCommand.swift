import AppProcesses
import ArgumentParser
import BoardConfig
import Compositor
import ControlSocket
import DisplayBackend
import FaultInjection
import Foundation
import Glibc
import HeadlessBackend
import Input
import KMSBackend
import KioskShell
import Logging
import Renderer
import Seat
import Signals
import SystemCalls
import WaylandServer
import WindowPolicy
import Xwayland

/// Runs the compositor on the headless backend or on a KMS device, optionally with an app, and
/// leaves a screenshot.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the compositor (headless, or on a display with --kms) and optionally an app on it.",
        discussion: """
            Example: vitrine run --headless 1920x1080@60 --screenshot out.png --after 2 -- weston-simple-shm
            On a display (as root, with no other compositor running): vitrine run --kms -- foot
            As a kiosk: vitrine run --kms --config /etc/vitrine/BOARD.toml (the board's app is started and restarted whenever it exits; under systemd, READY=1 follows the first frame on screen and WATCHDOG=1 the main loop)
            An app after -- that ends is logged as "exited (status N)" or "(signal N)", "before connecting" when no client of it ever connected; Vitrine then stops (after the screenshot, when one is asked for) and exits with the app's status: its exit code, or 128 + the signal. When Vitrine stops first (after the screenshot, or on SIGINT or SIGTERM), it ends the app (SIGTERM, then SIGKILL after 2 s), still serving it meanwhile, before it closes the display, and exits with 0.
            Clients find the compositor through WAYLAND_DISPLAY (printed at start) in XDG_RUNTIME_DIR.
            The control socket (printed at start; see `vitrine capture --help` and `vitrine status --help`) is XDG_RUNTIME_DIR/vitrine-WAYLAND_DISPLAY.control, readable and writable by this user only.
            """)

    @Option(help: "A board configuration (see board-configs/FORMAT.md): its first output's connector, mode, refresh and scale (headless too, unless --headless is given), and its app, supervised.")
    var config: String?

    @Option(help: "A headless output of this mode, WIDTHxHEIGHT[@HZ] (default: the board's first output's mode and refresh, or 1280x720@60).")
    var headless: String?

    @Flag(help: "Drive a real display through KMS/DRM instead of a headless output (needs root and no other DRM master).")
    var kms = false

    @Option(help: "With --kms: the DRM device (default: the first /dev/dri/card* with a connected display).")
    var device: String?

    @Option(help: "With --kms: the connector to light, e.g. HDMI-A-1 (default: every connected one).")
    var connector: String?

    @Option(help: "With --kms: the mode, WIDTHxHEIGHT[@HZ] (default: the connector's preferred mode).")
    var mode: String?

    @Flag(inversion: .prefixedNo, help: "With --kms: show the pointer cursor (the arrow, or a client's cursor surface that fits) on the CRTC's cursor plane where it has one (moving or changing it draws no frame), or draw it into the frames.")
    var hardwareCursor = true

    @Option(help: "With --kms: append one line per presented frame (output, sequence, CLOCK_MONOTONIC ns, flags, commit-to-flip ns, then how the frame was paced: when it was asked for, the predicted lead, the target refresh and its sequence, when drawing started and when it was committed) to this file.")
    var presentationLog: String?

    @Option(name: .customLong("input-device"), help: "Read input from this evdev node (repeatable; e.g. /dev/input/event0) instead of the seat's devices.")
    var inputDevices: [String] = []

    @Option(help: "With --kms: the seat whose input devices udev lists, hotplug included (default seat0; 'none' reads no input). Headless outputs read input only from --input-device.")
    var inputSeat = "seat0"

    @Option(help: "With --kms: how devices are opened: 'libseat' (seatd or logind, with VT switches), 'direct' (as root, no seat manager), or 'auto': libseat when seatd's socket or a logind session is there (default).")
    var seatManager = "auto"

    @Option(help: "On exit, write each input batch's time from libinput read to client flush (ns, one per line) to this file.")
    var inputLatencyLog: String?

    @Option(help: "What draws the frames: auto (Vulkan where the machine has a hardware Vulkan device, the CPU renderer otherwise), vulkan or cpu (default: the board's renderer, or auto).")
    var renderer: RendererSelection?

    @Option(help: "The output's scale factor (1, 1.5, 2…; default: the board's, or 1).")
    var scale: Double?

    @Option(help: "Turn the output's content before scan-out: 0, 90, 180, 270 (degrees counter-clockwise), flipped, flipped-90, flipped-180 or flipped-270 (default: the board's, or 0).")
    var rotation: String?

    @Option(help: "The socket name in XDG_RUNTIME_DIR (default: the first free wayland-N).")
    var socket: String?

    @Option(help: "The control socket's path (default: vitrine-<WAYLAND_DISPLAY>.control in XDG_RUNTIME_DIR).")
    var controlSocket: String?

    @Flag(help: "Open no control socket (no `vitrine capture` or `vitrine status` for this instance).")
    var noControlSocket = false

    @Flag(help: "No X11 apps: open no X display and give the app no DISPLAY (by default, and unless the board's [app] says x11 = false, Xwayland starts when the first X client connects).")
    var noX11 = false

    @Option(help: "How a window whose size does not match the output is shown: center (at its own size), scale (scaled to fit, keeping its aspect ratio) or fill (scaled to cover the output, cropped) (default: the board's fit, or center).")
    var fit: WindowFit?

    @Option(help: "Write what the output shows to this PNG file (after --after seconds).")
    var screenshot: String?

    @Option(help: "Seconds to wait before the screenshot.")
    var after = 2.0

    @Flag(help: "Keep running after the screenshot (by default Vitrine exits once it is written).")
    var keepRunning = false

    @Argument(parsing: .postTerminator, help: "The app to run on the compositor, after --.")
    var app: [String] = []

    func validate() throws {
        guard after >= 0 else { throw ValidationError("--after must not be negative") }
        if let mode, KMSModeRequest(parsing: mode) == nil {
            throw ValidationError("--mode must look like 1024x768 or 1920x1080@60, got '\(mode)'")
        }
        if let rotation, BoardConfig.OutputTransform(rawValue: rotation) == nil {
            throw ValidationError("--rotation must be one of \(BoardConfig.OutputTransform.allCases.map { $0.rawValue }.joined(separator: ", ")), got '\(rotation)'")
        }
        guard ["auto", "libseat", "direct"].contains(seatManager) else {
            throw ValidationError("--seat-manager must be auto, libseat or direct, got '\(seatManager)'")
        }
        if noControlSocket, controlSocket != nil {
            throw ValidationError("--control-socket and --no-control-socket exclude each other")
        }
        if !kms, device != nil || connector != nil || mode != nil || presentationLog != nil {
            throw ValidationError("--device, --connector, --mode and --presentation-log need --kms")
        }
    }

    func run() throws {
        // Block the stop signals before any thread starts (Vulkan's, the renderer's), so that every
        // thread inherits the mask and the event loop's signalfd receives them.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
        // Under systemd the journal gets each entry's priority and keeps its own timestamps.
        if JournalLogHandler.isJournalStream() {
            LoggingSystem.bootstrap { JournalLogHandler(label: $0) }
        } else {
            LoggingSystem.bootstrap(StreamLogHandler.standardError)
        }
        var logger = Logger(label: "vitrine")
        logger.logLevel = .info
        let startNanoseconds = monotonicNanoseconds()
        try armFaults(logger: logger)
        let board = try config.map(loadBoard)
        let output = board?.outputs.first
        let scale = self.scale ?? output?.scale ?? 1
        let turn = rotation.flatMap(BoardConfig.OutputTransform.init(rawValue:)) ?? output?.transform ?? .normal
        let notifier = try SystemdNotifier()
        try ensureRuntimeDirectory()
        let backend: any DisplayBackend
        let outputsDescription: String
        var presentationLogFile: UnsafeMutablePointer<FILE>?
        var seat: SeatSession?
        var kmsBackend: KMSBackend?
        // Chosen before the display opens: it decides which buffers the outputs draw into.
        let rendererChoice = renderer.map { RendererChoice.choose($0, namedBy: "--renderer", in: .current()) }
            ?? RendererChoice.choose(board?.renderer ?? .auto, namedBy: "the board's renderer", in: .current())
        logger.info("drawing with \(rendererChoice)")
        if kms {
            seat = try openSeat(logger: logger)
            var mode = mode.flatMap(KMSModeRequest.init(parsing:))
            if mode == nil, let exact = output?.mode.exact {
                mode = KMSModeRequest(width: exact.width, height: exact.height, refreshMillihertz: exact.refreshMillihertz)
            }
            let access = seat.map { seat in
                KMSDeviceAccess(open: { path in try seat.openDevice(path) }, close: { fd in seat.closeDevice(fd) })
            }
            var configuration = KMSOutputConfiguration(
                connector: connector, mode: mode, scaleFactor: scale, transform: .init(degrees: turn.degrees, flipped: turn.isFlipped) ?? .normal,
                hardwareCursor: hardwareCursor)
            configuration.mappedBuffersReason = rendererChoice.kind.mappedBuffersReason
            // The board's named outputs, each lit with its own settings when connected (the first
            // with the command line's overrides); --connector lights one alone.
            if connector == nil, let board {
                configuration.connectors = board.outputs.enumerated().compactMap { index, entry in
                    guard case .named(let name) = entry.connector else { return nil }
                    guard index > 0 else {
                        return KMSConnectorSettings(
                            connector: name, mode: mode, scaleFactor: scale, transform: configuration.transform, layout: OutputLayout(entry.placement))
                    }
                    let own = entry.mode.exact.map {
                        KMSModeRequest(width: $0.width, height: $0.height, refreshMillihertz: $0.refreshMillihertz)
                    }
                    return KMSConnectorSettings(
                        connector: name, mode: own, scaleFactor: entry.scale,
                        transform: .init(degrees: entry.transform.degrees, flipped: entry.transform.isFlipped) ?? .normal,
                        layout: OutputLayout(entry.placement))
                }
                // A "first-connected" output, alone, may still have a position.
                if case .firstConnected = output?.connector, let output { configuration.layout = OutputLayout(output.placement) }
            }
            let kms = try KMSBackend(devicePath: device, configuration: configuration, access: access)
            logger.info("\(kms.hotplugDescription)")
            if let waiting = kms.waitingForDisplay {
                logger.notice("\(waiting): waiting for a display to be plugged in; the app starts once it is lit")
            }
            kms.onHotplugMessage = { message in logger.info("\(message)") }
            kmsBackend = kms
            if let presentationLog {
                guard let file = fopen(presentationLog, "a") else {
                    throw ValidationError("\(SystemCallError.current("opening", path: presentationLog))")
                }
                presentationLogFile = file
            }
            backend = kms
            outputsDescription = kms.kmsOutputs.isEmpty ? "no display yet" : kms.kmsOutputs.map(\.description).joined(separator: ", ")
        } else {
            var configuration = try HeadlessOutputConfiguration(parsing: headless ?? "1280x720@60", scaleFactor: scale)
            // Without --headless, the board's output as it would be lit (60 Hz where it names no refresh).
            if headless == nil, let exact = output?.mode.exact {
                configuration.mode = OutputMode(width: exact.width, height: exact.height, refreshMillihertz: exact.refreshMillihertz ?? 60_000)
            }
            configuration.transform = .init(degrees: turn.degrees, flipped: turn.isFlipped) ?? .normal
            backend = try HeadlessBackend(outputs: [configuration])
            outputsDescription = "a headless \(configuration.mode) output"
        }
        defer { if let presentationLogFile { fclose(presentationLogFile) } }
        let compositor = try Compositor(backend: backend, renderer: rendererChoice.kind, logger: logger)
        let windowPolicy = KioskWindowPolicy(compositor: compositor)
        windowPolicy.fit = fit ?? board?.app.fit ?? .center
        compositor.windowPolicy = windowPolicy
        // Each KMS output logs its first frame and feeds the presentation log, those lit later (a
        // display plugged in) too; by connector, so that a display plugged in again replaces its
        // old output's listener.
        var presentationListeners: [String: SignalListener] = [:]
        for output in kmsBackend?.kmsOutputs ?? [] {
            presentationListeners[output.name] = observePresentations(of: output, since: startNanoseconds, log: presentationLogFile, logger: logger)
        }
        let outputAddedListener = kmsBackend?.outputAdded.listen { output in
            guard let output = output as? KMSOutput else { return }
            presentationListeners[output.name] = observePresentations(of: output, since: startNanoseconds, log: presentationLogFile, logger: logger)
        }
        defer {
            outputAddedListener?.cancel()
            presentationListeners = [:]
        }
        if let board {
            try BoardInput.apply(board, to: compositor)
            compositor.privilegeRules = try BoardPrivileges.rules(for: board.privileges)
            compositor.clientsWithoutWindowCapabilities = try BoardPrivileges.clientsWithoutWindowCapabilities(board.compatibility)
        }
        let deviceConfiguration = try board.map { try BoardInput.deviceConfiguration(for: $0.input) } ?? InputConfiguration()
        if !inputDevices.isEmpty {
            try compositor.attachInput(InputContext(devicePaths: inputDevices, configuration: deviceConfiguration))
        } else if kms, inputSeat != "none" {
            let opener = seat.map(SeatDeviceOpener.init) ?? DirectOpener() as any DeviceOpener
            try compositor.attachInput(InputContext(seat: inputSeat, configuration: deviceConfiguration, opener: opener))
        }
        var seatSource: EventSource?
        if let seat {
            seat.onDisable = {
                logger.info("session switched away: the display and input devices rest")
                kmsBackend?.suspend()
                compositor.suspendInput()
                do { try seat.acknowledgeDisable() } catch { logger.error("\(error)") }
            }
            seat.onEnable = {
                logger.info("session active again: setting the mode and reopening input devices")
                do { try kmsBackend?.resume() } catch { logger.error("cannot light the display again: \(error)") }
                compositor.resumeInput()
            }
            seatSource = try compositor.display.eventLoop.addFileDescriptor(seat.fileDescriptor, events: .readable) { _ in
                do { try seat.dispatch() } catch { logger.error("\(error)") }
            }
        }
        defer { seatSource?.remove() }
        defer { if let inputLatencyLog { writeLatencies(compositor.inputDeliveryLatencies, to: inputLatencyLog, logger: logger) } }
        let name = try compositor.listen(socketName: socket)
        logger.info("WAYLAND_DISPLAY=\(name) on \(outputsDescription) at scale \(scale)")
        if let problem = ShaderCache.current.problem() { logger.warning("\(problem)") }
        // The X display listens from the start; Xwayland runs only once an X client connects.
        let xwayland = try (noX11 || board?.app.x11 == false)
            ? nil : XwaylandServer(compositor: compositor, sockets: XDisplaySockets.open(), logger: logger)
        xwayland?.windowManagerHandler = windowPolicy
        if let xwayland { logger.info("DISPLAY=\(xwayland.displayName) (Xwayland starts with the first X client)") }
        // Opened before any app starts, so that a path in use stops Vitrine before it launches anything.
        let responder = ControlResponder(
            compositor: compositor, version: Vitrine.version, display: name, printer: board?.printer.map(Printer.init))
        var controlServer: ControlServer?
        if !noControlSocket {
            let path = controlSocket ?? ControlServer.defaultPath(forDisplay: name, runtimeDirectory: runtimeDirectory)
            controlServer = try ControlServer(path: path, eventLoop: compositor.display.eventLoop, handler: responder.response(to:))
            logger.info("control socket \(path)")
        }
        defer { controlServer?.close() }
        let state = RunState()
        // Read once: the loop's condition starts the apps, and an option's value read there made
        // it copy the whole command (its options) every turn of the loop.
        let app = self.app
        let command = app.joined(separator: " ")
        // Weak: the state holds the session, which holds the compositor and its display.
        compositor.display.clientConnected = { [weak state] client in
            if let state, state.process?.owns(client.processID) == true { state.appConnected = true }
        }
        // The app and the kiosk session (splash, overlays, keyboard) need an output to show on:
        // with no display connected at start they begin once the first one is lit. A closure, not
        // a nested function: the loop's condition, which may call it, copied everything it uses
        // (the board's configuration) every turn.
        let startApps = { () throws in
            if !app.isEmpty {
                let environment = ["WAYLAND_DISPLAY": name].merging(xwayland?.clientEnvironment ?? [:]) { $1 }
                let started = try ClientProcess(arguments: app, environment: environment, removing: xwayland == nil ? ["DISPLAY"] : [])
                state.process = started
                state.processExitWakeup = started.exitDescriptor.flatMap { try? compositor.display.eventLoop.addWakeup(whenReadable: $0) }
                logger.info("started \(command) as pid \(started.pid)")
            }
            // READY's status names the outputs lit by now (with none at start, the first plugged in).
            let shown = kmsBackend.map { $0.kmsOutputs.map(\.description).joined(separator: ", ") } ?? outputsDescription
            // The board's app, supervised, when no app was given after --.
            state.session = try KioskSession(
                compositor: compositor, socketName: name, app: app.isEmpty ? board?.app : nil, xwayland: xwayland, splash: board?.splash,
                idle: board?.idle ?? IdleConfiguration(), onScreenKeyboard: board?.onScreenKeyboard ?? OnScreenKeyboardSettings(),
                notifier: notifier, outputs: shown, start: startNanoseconds, logger: logger)
        }
        var waitingForDisplay = DisplayWait(notifier: notifier, logger: logger)
        if compositor.outputStatuses.isEmpty {
            waitingForDisplay.begin(now: monotonicNanoseconds())
        } else {
            try startApps()
        }
        responder.app = { [app] in
            state.session?.appStatus ?? state.process.map { ControlStatus.App(command: app, pid: $0.poll() ? nil : $0.pid, starts: 1) }
        }
        responder.x11 = { state.session?.x11Status }
        // SIGINT and SIGTERM end the session cleanly: the app is asked to stop, clients disconnected.
        let signalSources = try [SIGINT, SIGTERM].map { signal in
            try compositor.display.eventLoop.addSignal(signal) {
                logger.info("stopping on signal \(signal)")
                state.interrupted = true
            }
        }
        defer { signalSources.forEach { $0.remove() } }
        // When the screenshot is due (monotonic ns), for the loop to wake then.
        let screenshotDue = monotonicNanoseconds() + UInt64(after * 1e9)
        var screenshotTaken = false
        defer {
            // The app ends first, still served (a round trip of its shutdown is answered), and only
            // then are the clients disconnected: the other way round, an app writes to a closed
            // socket and fills the log with its errors.
            state.session?.stop()
            state.process?.terminate { try? compositor.dispatch(timeoutMilliseconds: 10) }
            xwayland?.stop { try? compositor.dispatch(timeoutMilliseconds: 10) }
            compositor.shutdown()
        }
        var startFailure: Error?
        // How the app ended, when it did before Vitrine stopped.
        var appExit: ProcessExit?
        // Read once: the loop asks every turn, and an option's value is looked up each time it is read.
        let screenshot = self.screenshot, keepRunning = self.keepRunning
        try compositor.run {
            if state.interrupted { return true }
            if state.session == nil {
                guard !compositor.outputStatuses.isEmpty else {
                    waitingForDisplay.tick(now: compositor.loopClock.now)
                    return false
                }
                logger.info("a display is lit: starting the app")
                do {
                    try startApps()
                } catch {
                    startFailure = error
                    return true
                }
            }
            state.session?.tick(now: compositor.loopClock.now)
            // An X app connects to Xwayland, not to Vitrine: a window of it shown counts.
            if !state.appConnected, let process = state.process, let windows = xwayland?.windowManager?.windows,
               windows.contains(where: { window in window.surface != nil && window.processID.map(process.owns) == true }) {
                state.appConnected = true
            }
            // With a wakeup for its exit, the app is reaped (waitpid) only once that fired, not
            // at every turn of the loop.
            if appExit == nil, let process = state.process, state.processExitWakeup?.isActive != true, process.poll(), let exit = process.exit {
                appExit = exit
                if state.appConnected {
                    logger.log(level: exit == .status(0) ? .info : .error, "\(command) exited (\(exit))")
                } else {
                    logger.error("\(command) exited (\(exit)) before connecting")
                }
            }
            // A screenshot asked for is still taken (of what the app left, or of clients started by hand).
            if appExit != nil, screenshot == nil || screenshotTaken { return true }
            guard let screenshot, !screenshotTaken, compositor.loopClock.now >= screenshotDue else { return false }
            screenshotTaken = true
            guard let image = compositor.capture() else {
                logger.error("no frame was shown yet: no screenshot")
                return !keepRunning
            }
            do {
                try image.writePNG(to: screenshot)
                logger.info("wrote \(screenshot) (\(image.width)×\(image.height))")
            } catch {
                logger.error("cannot write \(screenshot): \(error)")
            }
            return !keepRunning
        } nextDeadline: {
            let screenshotPending = screenshot != nil && !screenshotTaken
            let exitPolled = state.process != nil && appExit == nil && state.processExitWakeup == nil
            // The earliest of them, without building an array each turn.
            var deadline = state.session == nil ? waitingForDisplay.nextExtension : state.session?.nextDeadline
            func include(_ candidate: UInt64) { deadline = min(deadline ?? candidate, candidate) }
            if screenshotPending { include(screenshotDue) }
            if exitPolled { include(compositor.loopClock.now + KioskSession.exitPollingInterval) }
            return deadline
        }
        if let startFailure { throw startFailure }
        if let appExit { throw ExitCode(appExit.shellStatus) }
    }

    /// The seat session for --kms, by --seat-manager: with 'auto', only where a seat manager runs
    /// (seatd's socket, or a logind session), so that root on a bare system opens devices directly.
    private func openSeat(logger: Logger) throws -> SeatSession? {
        let environment = ProcessInfo.processInfo.environment
        let managerPresent = access(environment["SEATD_SOCK"] ?? "/run/seatd.sock", F_OK) == 0 || environment["XDG_SESSION_ID"] != nil
        guard seatManager == "libseat" || (seatManager == "auto" && managerPresent) else {
            logger.info("opening devices directly (no seat manager)")
            return nil
        }
        let seat = try SeatSession()
        logger.info("devices of \(seat.name) come through libseat")
        return seat
    }

    private func writeLatencies(_ latencies: [UInt64], to path: String, logger: Logger) {
        do {
            try latencies.map { "\($0)\n" }.joined().write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            logger.error("cannot write \(path): \(error)")
        }
    }

    /// Reads and validates the board file, printing every problem (file, line, fix) before failing.
    private func loadBoard(_ path: String) throws -> BoardConfiguration {
        switch BoardConfiguration.load(contentsOfFile: path) {
        case .success(let board): return board
        case .failure(let error):
            for diagnostic in error.diagnostics {
                FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
            }
            throw ExitCode.failure
        }
    }

    /// Logs when a KMS output first showed a frame (time from start to first flip), and every
    /// presented frame to `log` for cadence and latency measurements, while the returned listener
    /// is kept.
    private func observePresentations(
        of output: KMSOutput, since start: UInt64, log: UnsafeMutablePointer<FILE>?, logger: Logger
    ) -> SignalListener {
        var first = true
        output.onRecovery = { message in logger.warning("\(message)") }
        return output.presented.listen { [unowned output] timing in
            if first {
                first = false
                // Signed: vkms stamps the modeset's event with the vblank before its CRTC was
                // turned off, which may be before start.
                func sinceStart(_ nanoseconds: UInt64) -> Int64 { Int64(bitPattern: nanoseconds &- start) / 1_000_000 }
                let lit = output.modesetCompletedNanoseconds.map { "lit after \(sinceStart($0)) ms, " } ?? ""
                logger.info("\(output.name): \(lit)first frame shown \(sinceStart(timing.nanoseconds)) ms after start (vblank counter: \(output.hasVblankCounter))")
            }
            if let log {
                let latency = output.lastCommitToFlipNanoseconds.map(String.init) ?? "-"
                let pacing = output.frameScheduler.lastFramePacing.map {
                    " requested \($0.requestedNanoseconds) lead \($0.leadNanoseconds) target \($0.target.nanoseconds)"
                        + " target-sequence \($0.target.sequence) started \($0.startedNanoseconds) committed \($0.committedNanoseconds)"
                } ?? ""
                fputs("\(output.name) sequence \(timing.sequence) nanoseconds \(timing.nanoseconds) flags \(timing.flags) commit-to-flip \(latency)\(pacing)\n", log)
                fflush(log)
            }
        }
    }

    /// What `run()`'s loop shares with the closures it hands out (a client's connection, a signal,
    /// the control socket's status): one object, since a local variable that an escaping closure
    /// captures is boxed, and every access to the box is checked for exclusivity at run time,
    /// several times a loop turn; the optimizer, seeing all accesses to a private class's
    /// properties, checks none that never overlap.
    private final class RunState {
        var process: ClientProcess?
        /// Wakes the loop when the app exits, for the loop's condition to reap it.
        var processExitWakeup: EventSource?
        var session: KioskSession?
        /// Whether a client of the app (or of a program it started) ever connected.
        var appConnected = false
        var interrupted = false
    }

    /// Clients need XDG_RUNTIME_DIR; on a bare machine (CI, a root shell) make a private one.
    private func ensureRuntimeDirectory() throws {
        if let existing = environmentValue("XDG_RUNTIME_DIR"), !existing.isEmpty { return }
        let path = "/tmp/vitrine-runtime-\(getuid())"
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw ValidationError("\(SystemCallError.current("creating XDG_RUNTIME_DIR", path: path))")
        }
        setenv("XDG_RUNTIME_DIR", path, 1)
    }
}

extension ModeSelection {
    /// An exact mode's size and refresh in millihertz (nil where the board names none); nil for
    /// "preferred".
    var exact: (width: Int, height: Int, refreshMillihertz: Int?)? {
        guard case .exact(let width, let height, let hertz) = self else { return nil }
        return (width, height, hertz.map { Int(($0 * 1000).rounded()) })
    }
}

extension OutputLayout {
    /// The board's `position` or `mirror` of an output, for the display backend.
    init(_ placement: OutputPlacement) {
        switch placement {
        case .automatic: self = .automatic
        case .position(let x, let y): self = .origin(x: Int32(x), y: Int32(y))
        case .mirror(let source): self = .mirror(of: source)
        }
    }
}

/// libinput's devices through the seat manager.
struct SeatDeviceOpener: DeviceOpener {
    let seat: SeatSession

    func open(path: String, flags: Int32) throws(InputError) -> FileDescriptor {
        do {
            return try seat.openDevice(path)
        } catch {
            if case .system(let failure) = error { throw .system(failure) }
            throw .deviceRejected(path: path, reason: "\(error)")
        }
    }

    func close(_ descriptor: FileDescriptor) {
        seat.closeDevice(descriptor)
    }
}

extension Run {
    /// Arms the failures `VITRINE_FAULTS` asks for (the QEMU rig's and soak runs' fault
    /// injection, see docs/robustness.md), saying so in the log; a rule that does not parse
    /// or names an unknown result stops Vitrine before it starts.
    func armFaults(logger: Logger) throws {
        let plan: FaultPlan?
        do {
            plan = try FaultInjection.armFromEnvironment()
        } catch {
            throw ValidationError("VITRINE_FAULTS: \(error)")
        }
        guard let plan else { return }
        let unknown = Renderer.unknownResults(in: plan)
        guard unknown.isEmpty else {
            FaultInjection.arm(nil)
            throw ValidationError("VITRINE_FAULTS names results Vulkan does not have: \(unknown.joined(separator: ", "))")
        }
        logger.warning("injecting faults (VITRINE_FAULTS): \(plan)")
    }
}

// The values each takes are its raw values, as the argument parser's default would list them; its
// default builds them through a generic key path, which the runtime instantiates on every start
// (2 million instructions for the two).
extension RendererSelection: ExpressibleByArgument {
    public static var allValueStrings: [String] { allCases.map { $0.rawValue } }
}

extension WindowFit: ExpressibleByArgument {
    public static var allValueStrings: [String] { allCases.map { $0.rawValue } }
}
