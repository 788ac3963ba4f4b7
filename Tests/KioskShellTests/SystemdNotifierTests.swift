import Foundation
import Glibc
import SystemCalls
import Testing

@testable import KioskShell

/// A datagram socket bound by the test, standing in for systemd's notification socket.
final class NotificationSocket {
    let descriptor: Int32
    /// What to put in NOTIFY_SOCKET.
    let name: String
    private let path: String?

    /// Binds a file-system socket in a fresh directory, or, with `abstract`, an abstract name.
    init(abstract: Bool) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(descriptor >= 0)
        let unique = "vitrine-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var bytes: [UInt8]
        if abstract {
            path = nil
            name = "@" + unique
            bytes = [0] + Array(unique.utf8)
        } else {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(unique).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            path = directory + "/notify"
            name = path!
            bytes = Array(name.utf8) + [0]
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let offset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        let result = withUnsafeMutableBytes(of: &address) { raw in
            raw.baseAddress!.advanced(by: offset).copyMemory(from: &bytes, byteCount: bytes.count)
            return raw.baseAddress!.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(offset + bytes.count))
            }
        }
        try #require(result == 0, "bind: \(String(cString: strerror(errno)))")
    }

    deinit {
        close(descriptor)
        if let path {
            unlink(path)
            rmdir((path as NSString).deletingLastPathComponent)
        }
    }

    /// The next datagram; a unix datagram is queued by the time sendto returns, so none waiting
    /// means none was sent.
    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}

@Suite struct SystemdNotifierTests {
    @Test func readyStatusWatchdogAndStoppingArriveAsExactDatagrams() throws {
        let socket = try NotificationSocket(abstract: false)
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.name])
        #expect(notifier.isEnabled)

        try notifier.notifyStatus("Waiting for the first frame")
        try notifier.notifyReady()
        try notifier.notifyWatchdog()
        try notifier.notifyReady(status: "Showing cog on HDMI-A-1")
        try notifier.notifyStopping()

        #expect(socket.receive() == "STATUS=Waiting for the first frame")
        #expect(socket.receive() == "READY=1")
        #expect(socket.receive() == "WATCHDOG=1")
        #expect(socket.receive() == "READY=1\nSTATUS=Showing cog on HDMI-A-1")
        #expect(socket.receive() == "STOPPING=1")
        #expect(socket.receive() == nil)
    }

    @Test func anAtSignNamesAnAbstractSocket() throws {
        let socket = try NotificationSocket(abstract: true)
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.name])
        try notifier.notifyReady()
        #expect(socket.receive() == "READY=1")
    }

    @Test func statusLineBreaksBecomeSpacesSoTheyCannotStartNewAssignments() throws {
        let socket = try NotificationSocket(abstract: false)
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.name])
        try notifier.notifyStatus("app exited\nREADY=1")
        #expect(socket.receive() == "STATUS=app exited READY=1")
    }

    @Test func withoutNotifySocketEveryCallDoesNothing() throws {
        let notifier = try SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        #expect(notifier.watchdogInterval == nil)
        try notifier.notifyReady(status: "ignored")
        try notifier.notifyWatchdog()
        try notifier.notifyStopping()
        #expect(!(try SystemdNotifier(environment: ["NOTIFY_SOCKET": ""]).isEnabled))
    }

    @Test func aSocketNobodyListensOnIsAnErrorWithErrno() throws {
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/vitrine/notify"])
        #expect(throws: SystemdNotifier.Failure.system(SystemCallError("sendto", path: "NOTIFY_SOCKET", errno: .noSuchFileOrDirectory))) {
            try notifier.notifyReady()
        }
    }

    @Test func aRelativeOrOverlongSocketNameIsRejected() {
        #expect(throws: SystemdNotifier.Failure.invalidSocketAddress("notify")) {
            try SystemdNotifier(environment: ["NOTIFY_SOCKET": "notify"])
        }
        let long = "/" + String(repeating: "a", count: 107)
        #expect(throws: SystemdNotifier.Failure.invalidSocketAddress(long)) {
            try SystemdNotifier(environment: ["NOTIFY_SOCKET": long])
        }
        #expect(
            SystemdNotifier.Failure.invalidSocketAddress("notify").description
                == "NOTIFY_SOCKET 'notify' is not an absolute path or an @abstract socket name of at most 107 bytes")
    }

    @Test func watchdogIntervalComesFromWatchdogUsecForThisProcessOnly() throws {
        let ours = try SystemdNotifier(environment: ["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "\(getpid())"])
        #expect(ours.watchdogInterval == .seconds(10))
        #expect(ours.watchdogPingInterval == .seconds(5))
        let anyProcess = try SystemdNotifier(environment: ["WATCHDOG_USEC": "2500"])
        #expect(anyProcess.watchdogInterval == .microseconds(2500))
        let inherited = try SystemdNotifier(environment: ["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "\(getpid() + 1)"])
        #expect(inherited.watchdogInterval == nil)
        #expect(throws: SystemdNotifier.Failure.invalidWatchdogSetting(variable: "WATCHDOG_USEC", value: "10s")) {
            try SystemdNotifier(environment: ["WATCHDOG_USEC": "10s"])
        }
        #expect(throws: SystemdNotifier.Failure.invalidWatchdogSetting(variable: "WATCHDOG_USEC", value: "0")) {
            try SystemdNotifier(environment: ["WATCHDOG_USEC": "0"])
        }
    }
}
