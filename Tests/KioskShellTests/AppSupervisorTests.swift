import BoardConfig
import Foundation
import Glibc
import Testing

@testable import KioskShell

/// The kiosk app is restarted whenever it exits, after delays that double while it keeps failing.
@Suite struct AppSupervisorTests {
    static let millisecond: UInt64 = 1_000_000

    /// Polls at the fixed time `now` until the supervisor reports something (the real process has
    /// to exit first), for at most 10 s of real time.
    func waitForEvent(_ supervisor: AppSupervisor, now: UInt64) -> AppSupervisor.Event? {
        for _ in 0..<1000 {
            if let event = supervisor.poll(now: now) { return event }
            usleep(10_000)
        }
        return nil
    }

    @Test func delaysDoubleFromHalfASecondUpToThirtySeconds() {
        let backoff = AppSupervisor.Backoff()
        #expect((1...9).map { backoff.delay(afterFailures: $0) } == [
            .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30),
            .seconds(30), .seconds(30),
        ])
    }

    @Test func anExitingAppIsRestartedAfterTheBackoffAndASteadyRunResetsIt() throws {
        let supervisor = AppSupervisor(app: AppConfiguration(command: ["sh", "-c", "exit 3"]), environment: [:])
        let second: UInt64 = 1000 * Self.millisecond
        try supervisor.start(now: 0)
        let first = supervisor.pid
        #expect(first != nil && supervisor.launchCount == 1)

        // Exit status 3 noticed at t = 1 s: the restart is due half a second later.
        #expect(waitForEvent(supervisor, now: second) == .exited(.status(3), restartAt: second + 500 * Self.millisecond))
        #expect(supervisor.poll(now: second + 499 * Self.millisecond) == nil)
        guard case .restarted(let pid) = supervisor.poll(now: second + 500 * Self.millisecond) else {
            Issue.record("no restart when it was due")
            return
        }
        #expect(pid != first && supervisor.launchCount == 2)

        // It fails again at once: one second this time.
        let t2 = 2 * second
        #expect(waitForEvent(supervisor, now: t2) == .exited(.status(3), restartAt: t2 + second))
        _ = supervisor.poll(now: t2 + second)
        // After a run of a minute or more, the next failure counts as the first again.
        let t3 = t2 + second + 61 * second
        #expect(waitForEvent(supervisor, now: t3) == .exited(.status(3), restartAt: t3 + 500 * Self.millisecond))
        supervisor.stop()
        #expect(supervisor.poll(now: t3 + 10 * second) == nil)
    }

    @Test func theAppGetsTheSessionEnvironmentItsOwnVariablesAndFolderButNotSystemdsSocket() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-app-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = AppConfiguration(
            command: ["sh", "-c", "pwd > report; echo \"$WAYLAND_DISPLAY|$KIOSK_URL|${NOTIFY_SOCKET-unset}\" >> report"],
            environment: ["KIOSK_URL": "http://localhost:8080/"], workingDirectory: folder)
        // Vitrine's own environment as systemd gives it, without changing this process's.
        let supervisor = AppSupervisor(
            app: app, environment: ["WAYLAND_DISPLAY": "wayland-7"],
            parentEnvironment: ProcessInfo.processInfo.environment.merging(["NOTIFY_SOCKET": "/run/systemd/notify"]) { $1 })
        try supervisor.start(now: 0)
        #expect(waitForEvent(supervisor, now: 1) == .exited(.status(0), restartAt: 1 + 500 * Self.millisecond))
        supervisor.stop()
        let report = try String(contentsOfFile: folder + "/report", encoding: .utf8)
        #expect(report == "\(folder)\nwayland-7|http://localhost:8080/|unset\n")
    }

    @Test func anAppWithAUserRunsAsThatUserWhichNeedsRoot() throws {
        let app = AppConfiguration(command: ["sh", "-c", "id -u"], user: "nobody")
        guard geteuid() == 0 else {
            #expect(throws: SupervisorError.userNeedsRoot("nobody")) { try AppSupervisor.command(for: app) }
            return
        }
        #expect(try AppSupervisor.command(for: app) == [
            "setpriv", "--reuid=65534", "--regid=65534", "--init-groups", "--", "sh", "-c", "id -u",
        ])
        #expect(throws: SupervisorError.unknownUser("no-such-user-here")) {
            try AppSupervisor.command(for: AppConfiguration(command: ["true"], user: "no-such-user-here"))
        }
    }

    @Test func anAppThatCannotStartIsTriedAgainWithTheBackoff() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-app-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let supervisor = AppSupervisor(
            app: AppConfiguration(command: ["sh", "-c", "exit 1"], workingDirectory: folder), environment: [:])
        try supervisor.start(now: 0)
        let due = 1 + 500 * Self.millisecond
        #expect(waitForEvent(supervisor, now: 1) == .exited(.status(1), restartAt: due))
        // Its folder is gone: the restart fails, and the next try waits twice as long.
        try FileManager.default.removeItem(atPath: folder)
        #expect(supervisor.poll(now: due) == .failedToStart(
            message: "cannot start sh: No such file or directory", retryAt: due + 1000 * Self.millisecond))
        #expect(supervisor.pid == nil)
        supervisor.stop()
    }

    @Test func anExitedAppIsNotReapedUntilItsExitWakeupFired() throws {
        let supervisor = AppSupervisor(app: AppConfiguration(command: ["sh", "-c", "exit 3"]), environment: [:])
        var wakeupWaits = true
        supervisor.exitWakeupIsWaiting = { wakeupWaits }
        try supervisor.start(now: 0)
        let descriptor = try #require(supervisor.exitDescriptor)
        var entry = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
        #expect(Glibc.poll(&entry, 1, 10_000) == 1)
        // It has exited, but the loop has not run the wakeup yet: no waitpid, nothing to report.
        #expect(supervisor.poll(now: 1) == nil)
        #expect(supervisor.isRunning)
        wakeupWaits = false
        #expect(supervisor.poll(now: 1) == .exited(.status(3), restartAt: 1 + 500 * Self.millisecond))
        #expect(!supervisor.isRunning)
        supervisor.stop()
    }
}
