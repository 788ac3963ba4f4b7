import Compositor
import DisplayBackend
import HeadlessBackend
import KioskShell
import Logging
@testable import Signals
import SystemCalls
import Testing

/// A kiosk session waits for the first presented frame to tell systemd it is ready, and only for
/// that one.
@Suite struct ReadinessTests {
    @Test func theSessionStopsHearingOfPresentedFramesOnceTheFirstIsOnScreen() throws {
        // No client comes: the session's socket is only named (it is for the app it has not).
        let compositor = try Compositor(backend: HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@60")]))
        let session = try KioskSession(
            compositor: compositor, socketName: "vitrine-ready", app: nil, notifier: try SystemdNotifier(environment: [:]),
            outputs: "a test output", start: monotonicNanoseconds(), logger: Logger(label: "test"))
        defer {
            session.stop()
            compositor.shutdown()
        }
        var presented = 0
        let counter = compositor.framePresented.listen { _ in presented += 1 }
        defer { counter.cancel() }
        // The session's listener and the test's.
        #expect(compositor.framePresented.listeners.count == 2)
        var iterations = 0
        while presented == 0, iterations < 200 {
            try compositor.dispatch(timeoutMilliseconds: 20)
            session.tick(now: monotonicNanoseconds())
            iterations += 1
        }
        #expect(presented == 1)
        // The test's alone: the session's went with the first frame it heard of.
        #expect(compositor.framePresented.listeners.count == 1)
    }
}
