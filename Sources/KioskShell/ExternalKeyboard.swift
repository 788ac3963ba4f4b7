import AppProcesses
import BoardConfig
import Foundation
import Glibc
import Logging
import WaylandServer

/// The board's external on-screen keyboard (`keyboard = "external"`): a client program, such as
/// squeekboard or wvkbd, started beside the app on the compositor's socket and restarted with the
/// app's backoff when it exits. It needs its privileges granted by the board (check-config says so).
/// What it prints goes to the log under its program's name.
final class ExternalKeyboard {
    private let supervisor: AppSupervisor
    private let logger: Logger
    private let eventLoop: EventLoop
    private var output: AppOutputForwarder?
    /// Wakes the loop when the keyboard exits (its pidfd); nil where there is none.
    private var exitWakeup: EventSource?
    private var name: String { supervisor.app.command.joined(separator: " ") }

    init(command: [String], environment: [String: String], eventLoop: EventLoop, logger: Logger) {
        supervisor = AppSupervisor(app: AppConfiguration(command: command), environment: environment, withheld: ["DISPLAY"])
        self.eventLoop = eventLoop
        self.logger = logger
    }

    /// The running keyboard's process id; nil while it is not running.
    var pid: pid_t? { supervisor.isRunning ? supervisor.pid : nil }

    /// When it is restarted (monotonic ns); nil while none is waiting.
    var restartDue: UInt64? { supervisor.restartDue }

    /// Whether its exit must be polled: it runs and no pidfd wakes the loop when it ends.
    var pollsForExit: Bool { supervisor.isRunning && exitWakeup == nil }

    func start(now: UInt64) {
        do {
            try supervisor.start(now: now)
            started()
            logger.info("running the external keyboard \(name) as pid \(supervisor.pid ?? 0)")
        } catch {
            logger.error("cannot start the external keyboard: \(error)")
        }
    }

    /// Reaps and restarts it.
    func poll(now: UInt64) {
        switch supervisor.poll(now: now) {
        case .exited(let exit, let restartAt)?:
            ended()
            logger.warning("the external keyboard \(name) ended with \(exit); restarting in \((restartAt - now) / 1_000_000) ms")
        case .restarted(let pid)?:
            started()
            logger.info("running the external keyboard \(name) as pid \(pid) (start \(supervisor.launchCount))")
        case .failedToStart(let message, _)?:
            logger.error("cannot start the external keyboard: \(message)")
        case nil:
            break
        }
    }

    /// Ends it (see `AppSupervisor.stop`).
    func stop(waitingWith wait: () -> Void) {
        ended()
        supervisor.stop(waitingWith: wait)
    }

    /// Its output to the log, and its exit waking the loop.
    private func started() {
        if let descriptor = supervisor.outputDescriptor, let program = supervisor.app.command.first {
            do {
                output = try AppOutputForwarder(fileDescriptor: descriptor, name: (program as NSString).lastPathComponent, eventLoop: eventLoop)
            } catch {
                logger.error("cannot forward the external keyboard's output: \(error)")
            }
        }
        if let descriptor = supervisor.exitDescriptor {
            do {
                exitWakeup = try eventLoop.addWakeup(whenReadable: descriptor)
            } catch {
                logger.error("cannot watch the external keyboard's exit, polling it instead: \(error)")
            }
        }
    }

    /// Stops reading its output and watching its exit, before its descriptors close.
    private func ended() {
        output?.finish()
        output = nil
        exitWakeup?.remove()
        exitWakeup = nil
    }
}
