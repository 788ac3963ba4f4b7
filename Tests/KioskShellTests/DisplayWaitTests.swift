import Logging
import Testing

@testable import KioskShell

/// Vitrine waiting for its first display under systemd: the status says why READY=1 has not come,
/// and the start timeout is extended every 10 s from the loop.
@Suite struct DisplayWaitTests {
    @Test func theStatusSaysItWaitsAndTheStartTimeoutIsExtendedEveryTenSeconds() throws {
        let socket = try NotificationSocket(abstract: true)
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.name])
        var wait = DisplayWait(notifier: notifier, logger: Logger(label: "test"))
        wait.begin(now: 1_000_000_000)
        #expect(socket.receive() == "STATUS=waiting for a display to be plugged in")
        #expect(socket.receive() == "EXTEND_TIMEOUT_USEC=30000000")
        #expect(socket.receive() == nil)
        wait.tick(now: 10_999_999_999)
        #expect(socket.receive() == nil)
        wait.tick(now: 11_000_000_000)
        #expect(socket.receive() == "EXTEND_TIMEOUT_USEC=30000000")
        wait.tick(now: 20_000_000_000)
        #expect(socket.receive() == nil)
        wait.tick(now: 21_000_000_000)
        #expect(socket.receive() == "EXTEND_TIMEOUT_USEC=30000000")
    }
}
