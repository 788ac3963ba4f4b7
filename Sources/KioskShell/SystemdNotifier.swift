import Foundation
import Glibc
public import SystemCalls

/// Tells systemd how the service is doing, with the `sd_notify` protocol spoken directly (no
/// libsystemd): each message is one datagram of newline-separated `KEY=VALUE` assignments sent to
/// the `AF_UNIX` socket named by `$NOTIFY_SOCKET`, a path or, with a leading `@`, an abstract name.
///
/// Without `$NOTIFY_SOCKET` (not started by systemd, or not `Type=notify`), every call does nothing.
/// Sending never blocks: a full socket is reported as an error instead of stalling the main loop.
public final class SystemdNotifier: Sendable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// `$NOTIFY_SOCKET` is neither an absolute path nor an `@` abstract name that fits a socket address.
        case invalidSocketAddress(String)
        /// `$WATCHDOG_USEC` or `$WATCHDOG_PID` is not a positive decimal number.
        case invalidWatchdogSetting(variable: String, value: String)
        case system(SystemCallError)

        public var description: String {
            switch self {
            case .invalidSocketAddress(let value):
                "NOTIFY_SOCKET '\(value)' is not an absolute path or an @abstract socket name of at most 107 bytes"
            case .invalidWatchdogSetting(let variable, let value):
                "\(variable) '\(value)' is not a positive decimal number"
            case .system(let error):
                error.description
            }
        }
    }

    /// The variables through which systemd talks to this process; the supervisor leaves them out
    /// of the kiosk app's environment so that the app never speaks for Vitrine.
    public static let environmentVariables = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]

    private let socket: OwnedFileDescriptor?
    /// `sun_path`'s bytes: the path and its terminating NUL, or a NUL and the abstract name.
    private let address: [UInt8]

    /// The service's `WatchdogSec=` when the watchdog is meant for this process: the time after
    /// which systemd kills it unless `WATCHDOG=1` arrived.
    public let watchdogInterval: Duration?

    /// How often to send `WATCHDOG=1`: half the interval, as systemd recommends.
    public var watchdogPingInterval: Duration? { watchdogInterval.map { $0 / 2 } }

    /// Whether messages go anywhere.
    public var isEnabled: Bool { socket != nil }

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`.
    public init(environment: [String: String] = environmentValues(SystemdNotifier.environmentVariables)) throws(Failure) {
        watchdogInterval = try Self.watchdogInterval(in: environment)

        guard let name = environment["NOTIFY_SOCKET"], !name.isEmpty else {
            socket = nil
            address = []
            return
        }
        var bytes = Array(name.utf8)
        guard !bytes.contains(0) else { throw .invalidSocketAddress(name) }
        switch bytes.first {
        case UInt8(ascii: "/"): bytes.append(0)
        case UInt8(ascii: "@"): bytes[0] = 0
        default: throw .invalidSocketAddress(name)
        }
        guard bytes.count <= MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw .invalidSocketAddress(name)
        }
        address = bytes

        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(.current("socket(AF_UNIX, SOCK_DGRAM)")) }
        socket = OwnedFileDescriptor(rawValue: descriptor)
    }

    private static func watchdogInterval(in environment: [String: String]) throws(Failure) -> Duration? {
        func positiveNumber(_ variable: String) throws(Failure) -> UInt64? {
            guard let value = environment[variable] else { return nil }
            guard !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let number = UInt64(value), number > 0
            else { throw .invalidWatchdogSetting(variable: variable, value: value) }
            return number
        }
        guard let microseconds = try positiveNumber("WATCHDOG_USEC") else { return nil }
        // A watchdog set for another process (the variables were inherited) is not ours to feed.
        if let owner = try positiveNumber("WATCHDOG_PID"), owner != UInt64(getpid()) { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }

    /// `READY=1`: start-up is finished (for Vitrine: the first frame is on the screen).
    public func notifyReady(status: String? = nil) throws(Failure) {
        try send(["READY=1"] + (status.map { ["STATUS=" + Self.singleLine($0)] } ?? []))
    }

    /// `STATUS=…`: a line `systemctl status` shows; line breaks become spaces.
    public func notifyStatus(_ status: String) throws(Failure) {
        try send(["STATUS=" + Self.singleLine(status)])
    }

    /// `WATCHDOG=1`: the main loop is alive.
    public func notifyWatchdog() throws(Failure) {
        try send(["WATCHDOG=1"])
    }

    /// `STOPPING=1`: shutting down on purpose.
    public func notifyStopping() throws(Failure) {
        try send(["STOPPING=1"])
    }

    /// Sends the assignments as one datagram, one per line.
    public func send(_ assignments: [String]) throws(Failure) {
        guard let socket else { return }
        let message = Array(assignments.joined(separator: "\n").utf8)
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        let length = socklen_t(pathOffset + address.count)
        let sent = withUnsafeMutableBytes(of: &storage) { raw in
            raw.baseAddress!.advanced(by: pathOffset).copyMemory(from: address, byteCount: address.count)
            return message.withUnsafeBytes { body in
                raw.baseAddress!.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    var result: Int
                    repeat {
                        result = sendto(
                            socket.rawValue, body.baseAddress, body.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL), socketAddress,
                            length)
                    } while result < 0 && errno == EINTR
                    return result
                }
            }
        }
        guard sent >= 0 else { throw .system(.current("sendto", path: "NOTIFY_SOCKET")) }
    }

    private static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
