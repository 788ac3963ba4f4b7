import BoardConfig
import Compositor
import DisplayBackend
import Foundation
import Glibc
import HeadlessBackend
import KioskShell
import Logging
import SystemCalls
import Testing
import WindowPolicy

/// A supervised app's exit wakes the compositor's loop through the app's pidfd: no timer polls
/// for it, so an idle kiosk sleeps until something happens.
@Suite struct AppExitWakeupTests {
    @Test func aSupervisedAppsExitWakesALoopThatHasNoDeadline() throws {
        let folder = NSTemporaryDirectory() + "vitrine-exit-\(getpid())"
        mkdir(folder, 0o700)
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(mode: OutputMode(width: 320, height: 240, refreshMillihertz: 60_000))])
        let compositor = try Compositor(backend: backend)
        compositor.windowPolicy = KioskWindowPolicy(compositor: compositor)
        let name = try compositor.listen(socketName: "vitrine-exit-\(UUID().uuidString.prefix(8))", in: folder)
        // The app closes its output at once, so that the end of its output pipe (which the session
        // also watches) comes long before its exit and cannot be what wakes the loop then.
        let session = try KioskSession(
            compositor: compositor, socketName: name, app: AppConfiguration(command: ["sh", "-c", "exec >&- 2>&-; sleep 0.3; exit 3"]),
            notifier: try SystemdNotifier(environment: [:]), outputs: "a test output", start: monotonicNanoseconds(),
            logger: Logger(label: "test"))
        defer {
            session.stop()
            compositor.shutdown()
        }
        // Each iteration sleeps up to a minute: one that ends sooner was woken by an event.
        let patience: Int32 = 60_000
        var iterations = 0
        while session.appStatus?.pid != nil, iterations < 1000 {
            #expect(session.nextDeadline == nil, "the session asks to wake at a deadline")
            let before = monotonicNanoseconds()
            try compositor.dispatch(timeoutMilliseconds: patience)
            session.tick(now: monotonicNanoseconds())
            #expect(monotonicNanoseconds() - before < UInt64(patience) * 1_000_000, "the loop slept its whole wait")
            iterations += 1
        }
        #expect(session.appStatus?.pid == nil)
        #expect(session.appStatus?.starts == 1)
        // Its restart is due in half a second (the supervisor's first back-off): a deadline now.
        #expect(session.nextDeadline != nil)
    }
}
