import BoardConfig
import Compositor
import ControlSocket
import DisplayBackend
import Foundation
import Glibc
import LayerKit
import Logging
import Signals
import SystemCalls
import Views
import WaylandServer
public import Xwayland

/// The kiosk policy around a running compositor: the board's app under supervision, and systemd
/// told the truth (READY=1 once the first frame is on screen, WATCHDOG=1 from the main loop,
/// a STATUS= line for every start, exit and kill, STOPPING=1).
///
/// `tick(now:)` runs on the compositor's loop every iteration; everything happens there.
public final class KioskSession {
    private let compositor: Compositor
    private let notifier: SystemdNotifier
    private let logger: Logger
    private let supervisor: AppSupervisor?
    private var appOutput: AppOutputForwarder?
    /// Wakes the loop when the app exits, for `tick` to reap it; nil where its exit is polled.
    private var appExitWakeup: EventSource?
    private let watchdogPeriod: UInt64?
    private var nextWatchdog: UInt64
    private var nextPing: UInt64
    private var frameTimeoutReported = false
    private var isReady = false
    /// The session's hold on the compositor's presented frames, for its readiness.
    private var readinessListener: SignalListener?
    /// The supervisor's launch whose first frame was reported (0: none yet).
    private var firstFrameReportedForLaunch = 0
    private let overlay: KioskOverlay?
    /// The on-screen keyboard, when the board enables it.
    public let onScreenKeyboard: OnScreenKeyboardController?
    /// The board's external keyboard program, when it chose one over the built-in keyboard.
    private let externalKeyboard: ExternalKeyboard?
    /// The external keyboard's process id while it runs.
    public var externalKeyboardProcessID: pid_t? { externalKeyboard?.pid }
    private let idle: IdleConfiguration
    /// The X server of X11 apps, when X11 is on.
    private let xwayland: XwaylandServer?
    /// How many times Xwayland was started.
    private var xwaylandStarts = 0
    /// When the output was blanked (monotonic ns); nil while it is not.
    private var blankedAt: UInt64?
    private let start: UInt64

    /// Starts `app` (when given) on `compositor`, whose socket is `socketName` in `runtimeDirectory`
    /// (nil: `$XDG_RUNTIME_DIR`), both given to the app; `outputs` says
    /// what READY's status line shows, `start` is when Vitrine started (monotonic ns). With a
    /// `splash`, the first output shows it until the app's first frame, and while the app restarts.
    /// `idle` blanks the output after its time without input (when a splash overlay exists), unless a
    /// visible client inhibits idling. `onScreenKeyboard`, when enabled, types into the focused
    /// app's text fields, under the overlay. With `xwayland`, the app gets its `DISPLAY` (without,
    /// Vitrine's own `DISPLAY` is withheld), and Xwayland's starts and ends are reported as the
    /// app's are.
    public init(
        compositor: Compositor, socketName: String, runtimeDirectory: String? = nil, app: AppConfiguration?,
        xwayland: XwaylandServer? = nil, splash: SplashConfiguration? = nil,
        idle: IdleConfiguration = IdleConfiguration(), onScreenKeyboard: OnScreenKeyboardSettings = OnScreenKeyboardSettings(),
        notifier: SystemdNotifier, outputs: String, start: UInt64, logger: Logger
    ) throws {
        self.compositor = compositor
        self.idle = idle
        self.start = start
        self.xwayland = xwayland
        // The keyboard goes directly above the windows, so the overlay covers it whatever the order.
        let usesBuiltIn = onScreenKeyboard.isEnabled && onScreenKeyboard.keyboard == .builtIn
        self.onScreenKeyboard = usesBuiltIn ? OnScreenKeyboardController(compositor: compositor, settings: onScreenKeyboard) : nil
        let runtime = runtimeDirectory ?? environmentValue("XDG_RUNTIME_DIR") ?? ""
        externalKeyboard = onScreenKeyboard.isEnabled && onScreenKeyboard.keyboard == .external
            ? ExternalKeyboard(command: onScreenKeyboard.externalCommand,
                               environment: ["WAYLAND_DISPLAY": socketName, "XDG_RUNTIME_DIR": runtime],
                               eventLoop: compositor.display.eventLoop, logger: logger)
            : nil
        overlay = splash.map { KioskOverlay(compositor: compositor, splash: $0, logger: logger) }
        self.notifier = notifier
        self.logger = logger
        watchdogPeriod = notifier.watchdogPingInterval.map(\.wholeNanoseconds)
        nextWatchdog = monotonicNanoseconds()
        nextPing = nextWatchdog
        if let app, !app.command.isEmpty {
            let environment = ["WAYLAND_DISPLAY": socketName, "XDG_RUNTIME_DIR": runtime].merging(xwayland?.clientEnvironment ?? [:]) { $1 }
            supervisor = AppSupervisor(app: app, environment: environment, withheld: xwayland == nil ? ["DISPLAY"] : [])
        } else {
            supervisor = nil
        }
        // Ready once the first frame is on screen: systemd starts what depends on the kiosk then.
        readinessListener = compositor.framePresented.listen { [unowned self] _ in
            guard !isReady else { return }
            isReady = true
            // Heard once: listening on, every presented frame would call this to do nothing.
            readinessListener = nil
            logger.info("first frame on screen \((monotonicNanoseconds() - start) / 1_000_000) ms after start")
            do { try notifier.notifyReady(status: "showing \(outputs)") } catch { logger.error("sd_notify: \(error)") }
        }
        // Before the app, so that it is there for the app's first text field.
        externalKeyboard?.start(now: monotonicNanoseconds())
        guard let supervisor else { return }
        // A hung app (pings unanswered for the board's unresponsive-after) is killed and restarted.
        let timeout = supervisor.app.unresponsiveTimeout
        compositor.pingTimeoutMilliseconds = Int32(clamping: timeout.wholeNanoseconds / 1_000_000)
        compositor.clientUnresponsive = { [unowned self, unowned supervisor] pid in
            guard supervisor.owns(pid) else { return }
            report("\(command) did not answer a ping within \(timeout); killing it")
            supervisor.kill()
        }
        // The app's exit wakes the loop: until it fired, the app is not reaped (waitpid) every turn.
        supervisor.exitWakeupIsWaiting = { [unowned self] in appExitWakeup?.isActive == true }
        try supervisor.start(now: monotonicNanoseconds())
        appExitWakeup = watchExit(supervisor.exitDescriptor)
        appOutput = try forwardOutput(of: supervisor)
        report("running \(command) as pid \(supervisor.pid ?? 0)")
    }

    private var command: String { supervisor?.app.command.joined(separator: " ") ?? "" }

    /// One loop iteration's work: the watchdog, pings, the no-frame check and the app's restarts.
    public func tick(now: UInt64) {
        // WATCHDOG=1 comes from the main loop itself, so a loop that hangs stops sending it.
        if let watchdogPeriod, now >= nextWatchdog {
            do { try notifier.notifyWatchdog() } catch { logger.error("sd_notify: \(error)") }
            nextWatchdog = now + watchdogPeriod
        }
        // Both have nothing to do without an overlay (no splash): not called then, every turn.
        if overlay != nil {
            updateOverlay()
            updateBlanking(now: now)
        }
        onScreenKeyboard?.tick(now: Double(now) / 1e9)
        if let xwayland { for event in xwayland.poll() { reportX11(event, of: xwayland) } }
        externalKeyboard?.poll(now: now)
        guard let supervisor else { return }
        // How long the app takes to show something, at boot and after every restart.
        if supervisor.launchCount != firstFrameReportedForLaunch, supervisor.isRunning,
           let drawn = compositor.lastNewBufferNanoseconds(where: supervisor.owns), drawn > supervisor.startedAt {
            firstFrameReportedForLaunch = supervisor.launchCount
            report("\(command) drew its first frame \((drawn - supervisor.startedAt) / 1_000_000) ms after its start")
        }
        // One ping a second, to the app's Wayland clients and its X windows; a ping still
        // unanswered keeps its first deadline.
        if now >= nextPing {
            compositor.pingClients(where: supervisor.owns)
            xwayland?.windowManager?.ping(where: supervisor.owns)
            nextPing = now + 1_000_000_000
        }
        // An app that draws nothing new for the board's no-frame-after is killed and restarted.
        if let timeout = supervisor.app.frameTimeout, supervisor.isRunning, !frameTimeoutReported {
            let last = max(supervisor.startedAt, compositor.lastNewBufferNanoseconds(where: supervisor.owns) ?? 0)
            if now > last + timeout.wholeNanoseconds {
                frameTimeoutReported = true
                report("\(command) presented no frame for \(timeout); killing it")
                supervisor.kill()
            }
        }
        switch supervisor.poll(now: now) {
        case .exited(let exit, let restartAt):
            appOutput?.finish()
            appOutput = nil
            report("\(command) exited (\(exit)); restarting in \((restartAt - now) / 1_000_000) ms")
            overlay?.show(.restarting)
        case .restarted(let pid):
            frameTimeoutReported = false
            appExitWakeup = watchExit(supervisor.exitDescriptor)
            do {
                appOutput = try forwardOutput(of: supervisor)
            } catch {
                logger.error("cannot forward the app's output: \(error)")
            }
            report("running \(command) as pid \(pid) (start \(supervisor.launchCount))")
        case .failedToStart(let message, let retryAt):
            report("cannot start \(command): \(message); retrying in \((retryAt - now) / 1_000_000) ms")
        case nil:
            break
        }
    }

    /// When `tick(now:)` next has work that no event announces (monotonic ns): the watchdog, the
    /// next ping, the app's no-frame deadline and restart, blanking, a held backspace's repeat.
    /// Nil when nothing is due: the loop then sleeps until something happens.
    public var nextDeadline: UInt64? {
        // The earliest of them, without building an array every turn of the loop.
        var earliest: UInt64?
        func include(_ due: UInt64) { earliest = min(earliest ?? due, due) }
        if watchdogPeriod != nil { include(nextWatchdog) }
        if let supervisor {
            // Pinging nobody is no reason to wake.
            if compositor.connectedClientCount > 0 { include(nextPing) }
            if let restart = supervisor.restartDue { include(restart) }
            if let timeout = supervisor.app.frameTimeout, supervisor.isRunning, !frameTimeoutReported {
                let last = max(supervisor.startedAt, compositor.lastNewBufferNanoseconds(where: supervisor.owns) ?? 0)
                include(last + timeout.wholeNanoseconds + 1)
            }
        }
        // An inhibitor's end comes with a client's request or a frame, either of which runs an iteration.
        if overlay != nil, let blankAfter = idle.blankAfter, blankedAt == nil, !compositor.isIdleInhibited {
            include(max(start, compositor.lastInputNanoseconds(includingTouch: true)) + blankAfter.wholeNanoseconds)
        }
        if let seconds = onScreenKeyboard?.nextTickTime { include(UInt64((seconds * 1e9).rounded(.up))) }
        if let restart = externalKeyboard?.restartDue { include(restart) }
        // A child's exit without a pidfd to wake the loop is polled.
        if supervisor?.isRunning == true && appExitWakeup == nil || xwayland?.pollsForExit == true
            || externalKeyboard?.pollsForExit == true {
            include(monotonicNanoseconds() + Self.exitPollingInterval)
        }
        return earliest
    }

    /// How often a child's exit is polled where the kernel has no pidfds (Linux before 5.3).
    public static let exitPollingInterval: UInt64 = 1_000_000_000

    /// A wakeup of the loop when the process whose `exitDescriptor` this is exits; nil (its exit
    /// then polled) without one, or when the loop cannot watch it.
    private func watchExit(_ exitDescriptor: FileDescriptor?) -> EventSource? {
        guard let exitDescriptor else { return nil }
        do {
            return try compositor.display.eventLoop.addWakeup(whenReadable: exitDescriptor)
        } catch {
            logger.error("cannot watch the app's exit, polling it instead: \(error)")
            return nil
        }
    }

    /// Xwayland's start, readiness and end, in the log and systemd's status.
    private func reportX11(_ event: XwaylandServer.Event, of xwayland: XwaylandServer) {
        switch event {
        case .started(let pid):
            xwaylandStarts += 1
            report("an X client connected to \(xwayland.displayName): running Xwayland as pid \(pid) (start \(xwaylandStarts))")
        case .ready(let milliseconds):
            report("Xwayland on \(xwayland.displayName) ready \(milliseconds) ms after its start")
        case .exited(let exit):
            report("Xwayland exited (\(exit)); the next X client starts it again")
        case .failedToStart(let message):
            report("cannot start Xwayland: \(message)")
        case .windowManagerFailed(let message):
            report("the X window manager cannot run on \(xwayland.displayName): \(message)")
        }
    }

    /// X11 as the control socket's `status` shows it; nil when it is off.
    public var x11Status: ControlStatus.X11? {
        xwayland.map { xwayland in
            let windows = (xwayland.windowManager?.windows ?? []).filter { $0.isMapped && $0.surface != nil }.map { window in
                ControlStatus.X11.Window(
                    id: window.id, title: window.title, className: window.className, instanceName: window.instanceName,
                    pid: window.processID, x: window.frame.x, y: window.frame.y, width: window.frame.width, height: window.frame.height,
                    isOverrideRedirect: window.isOverrideRedirect)
            }
            return ControlStatus.X11(display: xwayland.displayName, pid: xwayland.pid, starts: xwaylandStarts, windows: windows)
        }
    }

    /// The supervised app as the control socket's `status` shows it; nil without one.
    public var appStatus: ControlStatus.App? {
        guard let supervisor else { return nil }
        return ControlStatus.App(
            command: supervisor.app.command, pid: supervisor.isRunning ? supervisor.pid : nil, starts: supervisor.launchCount)
    }

    /// Whether the splash or "restarting" overlay is on the screen (fading in included).
    public var isShowingOverlay: Bool { overlay.map { $0.state != .hidden } ?? false }

    /// The overlay gives way once the app (or, without a supervised app, any client) drew a frame
    /// since it started.
    private func updateOverlay() {
        guard let overlay, overlay.state != .hidden else { return }
        let drew: Bool
        if let supervisor {
            drew = supervisor.isRunning && (compositor.lastNewBufferNanoseconds(where: supervisor.owns) ?? 0) > supervisor.startedAt
        } else {
            drew = compositor.lastNewBufferNanoseconds(where: { _ in true }) != nil
        }
        if drew { overlay.show(.hidden) }
    }

    /// Whether the output is blanked for idleness.
    public var isBlanked: Bool { blankedAt != nil }

    /// Blanks after the board's blank-after without input (unless a visible client inhibits it);
    /// wakes on input since the blanking (a touch only when the board says touches wake).
    private func updateBlanking(now: UInt64) {
        guard let overlay, let blankAfter = idle.blankAfter else { return }
        if let blankedAt {
            guard compositor.lastInputNanoseconds(includingTouch: idle.wakesOnTouch) > blankedAt else {
                // Once the black is on screen the panel and its backlight go off (DPMS).
                if compositor.outputsArePoweredOn, compositor.outputsAreSettled {
                    compositor.setOutputsPowered(false)
                    if !compositor.outputsArePoweredOn { report("display off (DPMS)") }
                }
                return
            }
            self.blankedAt = nil
            compositor.setOutputsPowered(true)
            overlay.setBlanked(false)
            report("woken by input")
        } else {
            let lastInput = max(start, compositor.lastInputNanoseconds(includingTouch: true))
            guard now >= lastInput + blankAfter.wholeNanoseconds, !compositor.isIdleInhibited else { return }
            blankedAt = now
            overlay.setBlanked(true)
            report("blanked after \(blankAfter) without input")
        }
    }

    /// Tells systemd Vitrine is stopping and ends the app, still serving it while it shuts down:
    /// call it before the compositor disconnects its clients.
    public func stop() {
        try? notifier.notifyStopping()
        appOutput?.finish()
        appOutput = nil
        supervisor?.stop { try? compositor.dispatch(timeoutMilliseconds: 10) }
        externalKeyboard?.stop { try? compositor.dispatch(timeoutMilliseconds: 10) }
        xwayland?.stop { try? compositor.dispatch(timeoutMilliseconds: 10) }
    }

    /// Logs the supervised app's output under the name of its program.
    private func forwardOutput(of supervisor: AppSupervisor) throws -> AppOutputForwarder? {
        guard let descriptor = supervisor.outputDescriptor, let program = supervisor.app.command.first else { return nil }
        return try AppOutputForwarder(
            fileDescriptor: descriptor, name: (program as NSString).lastPathComponent, eventLoop: compositor.display.eventLoop)
    }

    /// Logs `status` and tells systemd (`STATUS=`).
    private func report(_ status: String) {
        logger.info("\(status)")
        do { try notifier.notifyStatus(status) } catch { logger.error("sd_notify: \(error)") }
    }
}
