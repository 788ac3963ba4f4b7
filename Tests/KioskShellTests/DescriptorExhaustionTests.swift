import Foundation
import Glibc
import Testing

/// `vitrine run` out of file descriptors (RLIMIT_NOFILE lowered with prlimit): each new client is
/// refused (accepted and closed at once, so the listening socket does not stay readable and spin
/// the loop, as it does with libwayland 1.21's own accept), the log says so once rather than per
/// connection, connected clients are served throughout, and new clients are accepted again once
/// descriptors free up.
@Suite struct DescriptorExhaustionTests {
    /// A client speaking the wire protocol itself on a raw socket.
    final class RawClient {
        let fd: Int32
        private var nextID: UInt32 = 2

        init(path: String) throws {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            try #require(fd >= 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let connected = withUnsafePointer(to: address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            try #require(connected == 0, "connect: \(String(cString: strerror(errno)))")
        }

        deinit { close(fd) }

        enum Outcome: Equatable {
            /// The callback's done arrived.
            case answered
            /// The compositor closed the connection.
            case closed
            /// Neither within 30 s.
            case unanswered
        }

        /// wl_display.sync, then reads until its callback is done or the connection ends.
        func roundTrip() -> Outcome {
            let callback = nextID
            nextID += 1
            // wl_display (object 1), request 0: sync(new_id), 12 bytes in host byte order.
            let request: [UInt32] = [1, 12 << 16, callback]
            guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == 12 else { return .closed }
            let deadline = Date().addingTimeInterval(30)
            var received: [UInt8] = []
            while Date() < deadline {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = recv(fd, &chunk, chunk.count, 0)
                guard count > 0 else { return .closed }
                received += chunk.prefix(count)
                // Whole messages: sender, then size (high 16 bits) and opcode.
                while received.count >= 8 {
                    let words = received.withUnsafeBytes { (sender: $0.load(as: UInt32.self), sizeAndOpcode: $0.load(fromByteOffset: 4, as: UInt32.self)) }
                    let size = Int(words.sizeAndOpcode >> 16)
                    guard size >= 8, received.count >= size else { break }
                    received.removeFirst(size)
                    if words.sender == callback, words.sizeAndOpcode & 0xFFFF == 0 { return .answered }
                }
            }
            return .unanswered
        }
    }

    /// The log's lines that contain `text`.
    func lines(_ log: String, containing text: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.contains(text) }
    }

    /// A client takes two descriptors (the connection and libwayland's event source of it): with
    /// one limit the last one free goes to accept and libwayland cannot have its second, with the
    /// other accept itself finds none (EMFILE), which is where libwayland alone would spin.
    @Test(arguments: [64, 65])
    func outOfDescriptorsNewClientsAreRefusedLoggedOnceConnectedOnesServedAndAcceptedAgainOnceFreed(limit: Int) throws {
        let vitrine = try RunningVitrine(launcher: ["/usr/bin/prlimit", "--nofile=\(limit):\(limit)", "--"])
        defer { vitrine.stop() }
        try vitrine.waitUntilShowing()
        let path = vitrine.folder + "/" + vitrine.display
        var connected: [RawClient] = []
        var refusals = 0
        // Each client takes a descriptor or two of the 64: well before 64 of them, one is refused.
        while refusals == 0, connected.count < 64 {
            let client = try RawClient(path: path)
            switch client.roundTrip() {
            case .answered: connected.append(client)
            case .closed: refusals += 1
            case .unanswered: Issue.record("client \(connected.count + 1) was neither served nor refused: the loop left it pending")
                return
            }
        }
        try #require(refusals == 1, "64 clients were all accepted")
        for _ in 0..<5 {
            #expect(try RawClient(path: path).roundTrip() == .closed)
            refusals += 1
        }
        // The clients connected before are served as ever.
        for client in connected { #expect(client.roundTrip() == .answered) }

        // Three leave: a new client is accepted again (once the compositor has seen them go).
        connected.removeFirst(3)
        var accepted = false
        for _ in 0..<20 where !accepted {
            let client = try RawClient(path: path)
            switch client.roundTrip() {
            case .answered: accepted = true
            case .closed: refusals += 1
            case .unanswered: break
            }
        }
        #expect(accepted)
        #expect(vitrine.process.isRunning)
        let log = (try? String(contentsOfFile: vitrine.log, encoding: .utf8)) ?? ""
        let refusing = lines(log, containing: "refusing new clients")
        #expect(refusing.count == 1, "\(log)")
        #expect(refusing.first?.hasSuffix(" failed: Too many open files (errno 24): refusing new clients until descriptors free up; connected clients are served") == true, "\(refusing)")
        #expect(lines(log, containing: "accepting clients again; \(refusals) connection(s) were refused meanwhile").count == 1, "\(log)")
    }
}
