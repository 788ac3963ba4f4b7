import AppProcesses
import BoardConfig
import Foundation
public import SystemCalls
import Glibc

/// Keeps the kiosk app running: starts it with the compositor's environment, notices when it
/// exits or crashes, and starts it again after a delay that doubles with every failure in a row
/// (so a crash loop costs little CPU) and falls back once the app has run steadily.
///
/// The supervisor is driven by the compositor's loop: `poll(now:)` is called every iteration with
/// the monotonic time, which keeps every decision on one thread and testable with chosen times.
public final class AppSupervisor {
    /// How long to wait before restarting.
    public struct Backoff: Sendable, Equatable {
        public var initial: Duration
        public var maximum: Duration
        /// A run at least this long resets the delay to `initial`.
        public var steadyRun: Duration

        public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(30), steadyRun: Duration = .seconds(60)) {
            self.initial = initial
            self.maximum = maximum
            self.steadyRun = steadyRun
        }

        /// The delay after `failures` failures in a row (1 for the first): initial × 2^(failures−1),
        /// at most `maximum`.
        public func delay(afterFailures failures: Int) -> Duration {
            var delay = initial
            for _ in 1..<max(1, failures) where delay < maximum { delay *= 2 }
            return min(delay, maximum)
        }
    }

    /// What happened during a `poll(now:)`.
    public enum Event: Equatable, Sendable {
        /// The app ended so; a restart is due at `restartAt` (monotonic ns).
        case exited(ProcessExit, restartAt: UInt64)
        /// The app was started again, as `pid`.
        case restarted(pid: pid_t)
        /// Starting it failed; another try is due at `retryAt`.
        case failedToStart(message: String, retryAt: UInt64)
    }

    public let app: AppConfiguration
    public let backoff: Backoff
    private let environment: [String: String]
    private let parentEnvironment: [String: String]
    private let withheld: [String]
    private var process: ClientProcess?
    /// When the app was last started (monotonic ns).
    public private(set) var startedAt: UInt64 = 0
    /// When the app that exited is started again (monotonic ns); nil while none is waiting.
    public private(set) var restartDue: UInt64?
    /// Failures in a row (exits after runs shorter than `backoff.steadyRun`).
    public private(set) var consecutiveFailures = 0
    /// How many times the app was started, the first included.
    public private(set) var launchCount = 0

    /// `environment` (WAYLAND_DISPLAY, XDG_RUNTIME_DIR…), then the app's configured variables, are
    /// added to `parentEnvironment` (Vitrine's own by default); systemd's notification variables
    /// are removed, so that the app never speaks for Vitrine, and so are those in `withheld`.
    public init(
        app: AppConfiguration, environment: [String: String], withheld: [String] = [],
        parentEnvironment: [String: String] = ProcessInfo.processInfo.environment, backoff: Backoff = Backoff()
    ) {
        self.app = app
        self.backoff = backoff
        self.environment = environment.merging(app.environment) { _, configured in configured }
        self.parentEnvironment = parentEnvironment
        self.withheld = withheld
    }

    /// The process id of the app as last started (nil before, after `stop()` or a failed start).
    public var pid: pid_t? { process?.pid }

    /// The pipe the app as last started prints to (standard output and error), for an
    /// `AppOutputForwarder`; it closes when the app is restarted or stopped.
    public var outputDescriptor: FileDescriptor? { process?.outputDescriptor }

    /// Readable once the app as last started has exited (see `ClientProcess.exitDescriptor`); nil
    /// before its start or where the kernel has no pidfds.
    public var exitDescriptor: FileDescriptor? { process?.exitDescriptor }

    /// Whether the owner's wakeup on `exitDescriptor` is still waiting, that is the app as last
    /// started has not exited: `isRunning` and `poll(now:)` then ask the kernel nothing (waitpid),
    /// where they did on every turn of the loop. Without such a wakeup (no pidfd), false: the
    /// exit is polled.
    public var exitWakeupIsWaiting: () -> Bool = { false }

    /// Whether the app is running now (not exited, not waiting for its restart).
    public var isRunning: Bool {
        guard let process else { return false }
        return exitWakeupIsWaiting() || !process.poll()
    }

    /// Starts the app for the first time.
    public func start(now: UInt64) throws {
        try launch(now: now)
    }

    /// Reaps the app if it exited and schedules its restart, or restarts it when that is due.
    public func poll(now: UInt64) -> Event? {
        if let process, restartDue == nil, !exitWakeupIsWaiting(), process.poll(), let exit = process.exit {
            let ran = Duration.nanoseconds(Int64(now &- startedAt))
            consecutiveFailures = ran >= backoff.steadyRun ? 1 : consecutiveFailures + 1
            let due = now + backoff.delay(afterFailures: consecutiveFailures).wholeNanoseconds
            restartDue = due
            return .exited(exit, restartAt: due)
        }
        guard let due = restartDue, now >= due else { return nil }
        do {
            try launch(now: now)
            return .restarted(pid: process!.pid)
        } catch {
            consecutiveFailures += 1
            let retry = now + backoff.delay(afterFailures: consecutiveFailures).wholeNanoseconds
            restartDue = retry
            return .failedToStart(message: "\(error)", retryAt: retry)
        }
    }

    /// Kills a hung app at once (SIGKILL, which even a stopped process cannot ignore); the next
    /// `poll(now:)` sees it exit and restarts it as after a crash.
    public func kill() {
        guard let process, !process.poll() else { return }
        process.signalGroup(SIGKILL)
    }

    /// Whether `pid` is the app or one of its descendants (a browser's helper processes, or the
    /// program a shell wrapper started), as /proc tells.
    public func owns(_ pid: pid_t) -> Bool {
        process?.owns(pid) ?? false
    }

    /// Ends the app (SIGTERM, then SIGKILL after a grace period, `wait` running meanwhile; see
    /// `ClientProcess.terminate`) and restarts nothing more.
    public func stop(waitingWith wait: () -> Void = { usleep(10_000) }) {
        restartDue = nil
        process?.terminate(waitingWith: wait)
        process = nil
    }

    private func launch(now: UInt64) throws {
        process = nil
        restartDue = nil
        process = try ClientProcess(
            arguments: try Self.command(for: app), environment: environment,
            removing: SystemdNotifier.environmentVariables + withheld, parentEnvironment: parentEnvironment, workingDirectory: app.workingDirectory,
            capturingOutput: true)
        startedAt = now
        launchCount += 1
    }

    /// The app's command, run as its configured user through setpriv (util-linux) when it names
    /// one: posix_spawn cannot change users, and only root can.
    static func command(for app: AppConfiguration) throws -> [String] {
        guard let user = app.user else { return app.command }
        guard geteuid() == 0 else { throw SupervisorError.userNeedsRoot(user) }
        guard let entry = getpwnam(user) else { throw SupervisorError.unknownUser(user) }
        return ["setpriv", "--reuid=\(entry.pointee.pw_uid)", "--regid=\(entry.pointee.pw_gid)", "--init-groups", "--"]
            + app.command
    }

}

extension Duration {
    /// A non-negative duration in whole nanoseconds (the monotonic clock's unit).
    public var wholeNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}

public enum SupervisorError: Error, Equatable, CustomStringConvertible {
    case userNeedsRoot(String)
    case unknownUser(String)

    public var description: String {
        switch self {
        case .userNeedsRoot(let user):
            "the app is configured to run as \(user), which needs Vitrine to run as root (or remove [app] user)"
        case .unknownUser(let user): "the app's user \(user) does not exist"
        }
    }
}
