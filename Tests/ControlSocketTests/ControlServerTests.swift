import ControlSocket
import Foundation
import Glibc
import Testing
import WaylandServer

/// The control server in-process, on a real libwayland event loop that the test dispatches, with
/// clients on threads of their own.
@Suite struct ControlServerTests {
    @Test func repliesBiggerThanTheSocketBufferArriveWholeToEachClientWhileTheLoopGoesOn() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/server.control"
        let display = try Display()
        // 8 MiB, far more than a socket buffer holds: the reply goes out as each client reads.
        let body = (0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) }
        var requests: [ControlRequest] = []
        let server = try ControlServer(path: path, eventLoop: display.eventLoop) { request in
            requests.append(request)
            return .now(.success(mediaType: "application/octet-stream", body: body))
        }
        let replies = Box<[ControlReply?]>([nil, nil, nil])
        let lock = NSLock()
        var threads = (0..<3).map { index in
            Thread {
                let reply = try? ControlClient.send(ControlRequest(command: .capture, output: index), to: path, timeoutSeconds: 30)
                lock.withLock { replies.value[index] = reply }
            }
        }
        // A client that reads a little of its reply and leaves.
        threads.append(Thread { _ = Self.rawExchange(path: path, sending: Array(#"{"command":"status"}"#.utf8) + [0x0A], readingAtMost: 1000) })
        threads.forEach { $0.start() }
        var longestDispatch: TimeInterval = 0
        let deadline = Date().addingTimeInterval(60)
        while threads.contains(where: { !$0.isFinished }), Date() < deadline {
            let start = Date()
            try display.eventLoop.dispatch(timeoutMilliseconds: 10)
            longestDispatch = max(longestDispatch, Date().timeIntervalSince(start))
        }
        #expect(replies.value == Array(repeating: .success(mediaType: "application/octet-stream", body: body), count: 3))
        #expect(Set(requests.map(\.output)) == [0, 1, 2, nil])
        // Nothing waited on a slow client: each iteration only moved what the sockets took.
        #expect(longestDispatch < 1, "a loop iteration took \(longestDispatch) s")
        server.close()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aPathThatIsNotASocketIsLeftAloneWithTheReason() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/notes.txt"
        try "keep me".write(toFile: path, atomically: true, encoding: .utf8)
        let display = try Display()
        #expect(throws: ControlProtocolError.notASocket(path)) {
            try ControlServer(path: path, eventLoop: display.eventLoop) { _ in .now(.failure("unused")) }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
        let long = folder + "/" + String(repeating: "x", count: 120)
        #expect(throws: ControlProtocolError.pathTooLong(long)) {
            try ControlServer(path: long, eventLoop: display.eventLoop) { _ in .now(.failure("unused")) }
        }
    }

    @Test func slowWorkRunsOffTheLoopWhileLaterClientsAreAnswered() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/server.control"
        let display = try Display()
        let server = try ControlServer(path: path, eventLoop: display.eventLoop) { request in
            guard request.command == .capture else { return .now(.success(mediaType: "text/plain", body: Array("quick".utf8))) }
            return .later {
                usleep(1_000_000)
                return .success(mediaType: "text/plain", body: Array("slow".utf8))
            }
        }
        defer { server.close() }
        let arrivals = Box<[(ControlReply?, Date)]>([])
        let lock = NSLock()
        func client(_ command: ControlCommand) -> Thread {
            Thread {
                let reply = try? ControlClient.send(ControlRequest(command: command), to: path)
                lock.withLock { arrivals.value.append((reply, Date())) }
            }
        }
        let slow = client(.capture), quick = client(.status)
        slow.start()
        let quickStart = Date().addingTimeInterval(0.2)
        let deadline = Date().addingTimeInterval(10)
        // Started once: a thread is marked executing only once it runs, and a second start() traps.
        var quickStarted = false
        while !(slow.isFinished && quick.isFinished), Date() < deadline {
            if Date() > quickStart, !quickStarted {
                quick.start()
                quickStarted = true
            }
            try display.eventLoop.dispatch(timeoutMilliseconds: 10)
        }
        // The quick reply came while the slow one was still being made.
        #expect(arrivals.value.map(\.0) == [
            .success(mediaType: "text/plain", body: Array("quick".utf8)),
            .success(mediaType: "text/plain", body: Array("slow".utf8)),
        ])
    }

    @Test func aClientThatSendsNothingIsAnsweredAndClosedAfterTheRequestTimeout() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/server.control"
        let display = try Display()
        let server = try ControlServer(path: path, eventLoop: display.eventLoop, requestTimeoutMilliseconds: 200) { _ in .now(.failure("unused")) }
        defer { server.close() }
        let received = Box<[UInt8]>([])
        let silent = Thread { received.value = Self.rawExchange(path: path, sending: [], readingAtMost: nil) }
        silent.start()
        let deadline = Date().addingTimeInterval(10)
        while !silent.isFinished, Date() < deadline { try display.eventLoop.dispatch(timeoutMilliseconds: 10) }
        #expect(String(decoding: received.value, as: UTF8.self) == #"{"error":"no request line within 0.2 s","ok":false}"# + "\n")
    }

    /// A folder of the test's own (mode 0700) for the socket, with a path short enough for one.
    static func makeFolder() throws -> String {
        var template = Array("/tmp/vitrine-control-XXXXXX".utf8CString)
        return try template.withUnsafeMutableBufferPointer { buffer in
            guard let folder = mkdtemp(buffer.baseAddress!) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            return String(cString: folder)
        }
    }

    /// Connects to `path`, sends `bytes` (keeping its side open), and returns what it reads until the
    /// server closes, or until it has `limit` bytes (then it leaves without reading the rest).
    static func rawExchange(path: String, sending bytes: [UInt8], readingAtMost limit: Int?) -> [UInt8] {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let connected = withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { return [] }
        if !bytes.isEmpty { _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while limit.map({ received.count < $0 }) ?? true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return received
    }
}

/// What the test's client threads leave for it to check (behind a lock of the test's).
private final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
