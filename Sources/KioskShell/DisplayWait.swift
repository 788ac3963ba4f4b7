import Logging

/// Vitrine runs with no display lit yet (a kiosk booted before its screen was plugged in or
/// powered): READY=1 waits for the first frame, so systemd hears why in the STATUS= line, and its
/// start timeout is extended from the main loop while it waits. A loop that hangs stops
/// extending it, and systemd's timeout ends the start as it would have.
public struct DisplayWait {
    /// How often the start timeout is extended, and by how much each time.
    public static let extensionIntervalNanoseconds: UInt64 = 10_000_000_000
    public static let extensionMicroseconds: UInt64 = 30_000_000

    private let notifier: SystemdNotifier
    private let logger: Logger
    /// When the next extension goes out (monotonic ns), once the wait began.
    public private(set) var nextExtension: UInt64?

    public init(notifier: SystemdNotifier, logger: Logger) {
        self.notifier = notifier
        self.logger = logger
    }

    /// The wait begins: the status line says so, and the first extension goes out.
    public mutating func begin(now: UInt64) {
        do { try notifier.notifyStatus("waiting for a display to be plugged in") } catch { logger.error("sd_notify: \(error)") }
        extend(now: now)
    }

    /// One loop iteration while the wait lasts.
    public mutating func tick(now: UInt64) {
        guard let nextExtension, now >= nextExtension else { return }
        extend(now: now)
    }

    private mutating func extend(now: UInt64) {
        do { try notifier.send(["EXTEND_TIMEOUT_USEC=\(Self.extensionMicroseconds)"]) } catch { logger.error("sd_notify: \(error)") }
        nextExtension = now + Self.extensionIntervalNanoseconds
    }
}
