import DisplayBackend
import Foundation
import Glibc
import Synchronization
import SystemCalls
import WaylandServer

/// The control socket of a running compositor (the protocol: see `ControlRequest`): a Unix stream
/// socket that only the compositor's user and root can reach (mode 0600, and each peer's
/// credentials checked), served on the compositor's event loop without ever blocking it. Requests
/// go to `handler`, which holds the policy (what a capture or status is); the server reads, frames
/// and writes, as fast as each client takes the bytes, and runs the handler's slow work (`.later`)
/// on another thread.
public final class ControlServer {
    /// Connections beyond this many are answered with an error and closed.
    public static let maximumConnections = 64

    public let path: String
    /// How long a client has, from connecting, to send its request; then it gets an error and is
    /// closed, so that idle connections cannot use up `maximumConnections`.
    public let requestTimeoutMilliseconds: Int32
    private let eventLoop: EventLoop
    private let handler: (ControlRequest) -> ControlResponse
    private let finishedWork: FinishedWork
    private var finishedWorkSource: FileDescriptorSource?
    private var nextConnectionID: UInt64 = 0
    private let listener: OwnedFileDescriptor
    private var listenerSource: FileDescriptorSource?
    private var connections: [FileDescriptor: Connection] = [:]
    private var isAcceptingPaused = false
    private var requestTimer: TimerSource?
    /// The socket file's identity, so that closing removes our file and not a successor's.
    private let fileIdentity: (device: UInt, inode: UInt)

    /// The default socket of the compositor whose Wayland socket is `display`: beside it, as
    /// `vitrine-<display>.control` (several instances coexist as their displays do).
    public static func defaultPath(forDisplay display: String, runtimeDirectory: String) -> String {
        if display.hasPrefix("/") {
            let slash = display.lastIndex(of: "/")!
            return String(display[..<slash]) + "/vitrine-" + display[display.index(after: slash)...] + ".control"
        }
        return runtimeDirectory + "/vitrine-" + display + ".control"
    }

    /// Listens on `path`, replacing a socket file a dead instance left there; fails when a live
    /// server answers on it, or when something that is not a socket is there.
    public init(
        path: String, eventLoop: EventLoop, requestTimeoutMilliseconds: Int32 = 5000, handler: @escaping (ControlRequest) -> ControlResponse
    ) throws(ControlProtocolError) {
        guard let address = UnixSocketAddress(path: path) else { throw .pathTooLong(path) }
        try Self.removeStaleSocket(at: path, address: address)
        let socket: OwnedFileDescriptor
        do throws(SystemCallError) {
            finishedWork = try FinishedWork()
            socket = try OwnedFileDescriptor.unixStreamSocket()
        } catch {
            throw .system(SystemCallError(error.operation, path: path, errno: error.errno))
        }
        // On Linux the socket file takes the socket inode's mode at bind: 0600 from the first
        // instant, without touching the process-wide umask under other threads.
        guard fchmod(socket.rawValue, 0o600) == 0,
            address.withSocketAddress({ bind(socket.rawValue, $0, $1) }) == 0
        else {
            let error = SystemCallError.current("bind", path: path)
            throw error.errno == .addressInUse ? .inUse(path) : .system(error)
        }
        func failure(_ operation: String) -> ControlProtocolError {
            let error = SystemCallError.current(operation, path: path)
            unlink(path)
            return .system(error)
        }
        guard listen(socket.rawValue, 16) == 0 else { throw failure("listen") }
        var status = stat()
        guard stat(path, &status) == 0 else { throw failure("stat") }
        self.path = path
        self.requestTimeoutMilliseconds = requestTimeoutMilliseconds
        self.eventLoop = eventLoop
        self.handler = handler
        listener = socket
        fileIdentity = (UInt(status.st_dev), UInt(status.st_ino))
        do {
            listenerSource = try eventLoop.addFileDescriptor(socket.fileDescriptor, events: .readable) { [unowned self] _ in acceptConnections() }
            requestTimer = try eventLoop.addTimer { [unowned self] in closeIdleConnections() }
            finishedWorkSource = try eventLoop.addFileDescriptor(finishedWork.readEnd.fileDescriptor, events: .readable) { [unowned self] _ in
                sendFinishedReplies()
            }
        } catch {
            unlink(path)
            throw .system(SystemCallError(error.operation, path: path, errno: error.errno))
        }
    }

    deinit {
        close()
    }

    /// Stops listening, drops every connection and removes the socket file. Safe to call twice.
    public func close() {
        guard let listenerSource else { return }
        listenerSource.remove()
        self.listenerSource = nil
        requestTimer?.remove()
        requestTimer = nil
        finishedWorkSource?.remove()
        finishedWorkSource = nil
        for fd in Array(connections.keys) { drop(fd) }
        listener.close()
        var status = stat()
        if stat(path, &status) == 0, UInt(status.st_dev) == fileIdentity.device, UInt(status.st_ino) == fileIdentity.inode {
            unlink(path)
        }
    }

    /// A socket file nobody answers on is a dead instance's: removed. A live one, or a file that
    /// is not a socket, stays, and the caller learns why.
    private static func removeStaleSocket(at path: String, address: UnixSocketAddress) throws(ControlProtocolError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path) }
        let probe: OwnedFileDescriptor
        do throws(SystemCallError) {
            probe = try OwnedFileDescriptor.unixStreamSocket()
        } catch {
            throw .system(SystemCallError(error.operation, path: path, errno: error.errno))
        }
        defer { withExtendedLifetime(probe) {} }
        if address.withSocketAddress({ connect(probe.rawValue, $0, $1) }) == 0 || errno == EAGAIN || errno == EINPROGRESS {
            throw .inUse(path)
        }
        guard errno == ECONNREFUSED else { throw .system(.current("connect", path: path)) }
        unlink(path)
    }

    // MARK: - Connections

    private final class Connection {
        /// Tells this connection from a later one on the same descriptor, for work finishing late.
        let id: UInt64
        let socket: OwnedFileDescriptor
        /// When the request must be complete (monotonic ns).
        let requestDeadline: UInt64
        var source: FileDescriptorSource?
        var request: [UInt8] = []
        var reply: [UInt8] = []
        var written = 0
        /// Whether the request is complete and only the reply remains.
        var isReplying = false

        init(id: UInt64, socket: OwnedFileDescriptor, requestDeadline: UInt64) {
            self.id = id
            self.socket = socket
            self.requestDeadline = requestDeadline
        }
    }

    private func acceptConnections() {
        while true {
            let accepted = accept(listener.rawValue, nil, nil)
            guard accepted >= 0 else {
                // Out of descriptors: the waiting client would make the level-triggered loop spin,
                // so stop accepting until a connection ends.
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    isAcceptingPaused = true
                    listenerSource?.update(events: [])
                }
                return
            }
            // Children are spawned on this thread only, so setting the flags after accept races nothing.
            _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
            _ = fcntl(accepted, F_SETFL, O_NONBLOCK)
            let socket = OwnedFileDescriptor(rawValue: accepted)
            let fd = socket.fileDescriptor
            nextConnectionID += 1
            let connection = Connection(
                id: nextConnectionID, socket: socket, requestDeadline: monotonicNanoseconds() + UInt64(requestTimeoutMilliseconds) * 1_000_000)
            do {
                connection.source = try eventLoop.addFileDescriptor(fd, events: .readable) { [unowned self] _ in serve(fd) }
            } catch {
                continue
            }
            connections[fd] = connection
            if let refusal = refusal(of: fd) {
                respond(on: fd, with: .failure(refusal))
            } else if connections.values.filter({ !$0.isReplying }).count == 1 {
                requestTimer?.arm(milliseconds: requestTimeoutMilliseconds)
            }
        }
    }

    /// Answers the connections whose request is overdue, and waits for the next deadline.
    private func closeIdleConnections() {
        let now = monotonicNanoseconds()
        let seconds = Double(requestTimeoutMilliseconds) / 1000
        for (fd, connection) in connections where !connection.isReplying && connection.requestDeadline <= now {
            respond(on: fd, with: .failure("no request line within \(seconds) s"))
        }
        if let next = connections.values.filter({ !$0.isReplying }).map(\.requestDeadline).min() {
            requestTimer?.arm(milliseconds: Int32(clamping: (next - min(next, now)) / 1_000_000 + 1))
        }
    }

    /// The request timeout runs only while a connection waits for its request line: left armed,
    /// it would wake an idle kiosk once for nothing.
    private func stopRequestTimerUnlessAConnectionWaits() {
        if !connections.values.contains(where: { !$0.isReplying }) { requestTimer?.disarm() }
    }

    /// Why the peer on `fd` may not use the socket: another user than ours (root excepted), or too
    /// many connections already.
    private func refusal(of fd: FileDescriptor) -> String? {
        // struct ucred is { pid_t pid; uid_t uid; gid_t gid; } (Glibc's module leaves it out).
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd.rawValue, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
            return "cannot read the peer's credentials: \(SystemCallError.current("getsockopt").errno)"
        }
        let owner = geteuid()
        guard credentials.uid == owner || credentials.uid == 0 else {
            return "uid \(credentials.uid) may not use this socket (it belongs to uid \(owner))"
        }
        guard connections.count <= Self.maximumConnections else {
            return "too many connections (\(Self.maximumConnections) at most); try again"
        }
        return nil
    }

    private func serve(_ fd: FileDescriptor) {
        guard let connection = connections[fd] else { return }
        if connection.isReplying {
            writeReply(on: fd, connection)
        } else {
            readRequest(on: fd, connection)
        }
    }

    private func readRequest(on fd: FileDescriptor, _ connection: Connection) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd.rawValue, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { return }
                drop(fd)
                return
            }
            let searchStart = connection.request.count
            connection.request += chunk[..<count]
            if let newline = connection.request[searchStart...].firstIndex(of: UInt8(ascii: "\n")), newline <= ControlRequest.maximumLength {
                handle(Array(connection.request[..<newline]), on: fd)
                return
            }
            if connection.request.count > ControlRequest.maximumLength {
                respond(on: fd, with: .failure("request longer than \(ControlRequest.maximumLength) bytes"))
                return
            }
            if count == 0 {
                // The client shut its side down: what it sent is the request, if anything.
                if connection.request.isEmpty { drop(fd) } else { handle(connection.request, on: fd) }
                return
            }
        }
    }

    private func handle(_ line: [UInt8], on fd: FileDescriptor) {
        let response: ControlResponse
        do {
            response = handler(try ControlRequest.decode(line: line))
        } catch {
            response = .now(.failure(error.description))
        }
        switch response {
        case .now(let reply):
            respond(on: fd, with: reply)
        case .later(let work):
            guard let connection = connections[fd] else { return }
            // Nothing to read or write until the work is done; the request timeout no longer applies.
            connection.isReplying = true
            stopRequestTimerUnlessAConnectionWaits()
            connection.source?.update(events: [])
            let id = connection.id
            let finishedWork = finishedWork
            // A thread of its own, not libdispatch's pool: the pool's first worker starts a
            // monitor that wakes the process every second from then on.
            Thread.detachNewThread {
                finishedWork.add(work(), for: fd, connection: id)
            }
        }
    }

    /// Sends the replies that work on other threads finished, to the connections still there.
    private func sendFinishedReplies() {
        for (fd, id, reply) in finishedWork.take() where connections[fd]?.id == id {
            respond(on: fd, with: reply)
        }
    }

    /// Sends `reply` (as much as the socket takes now, the rest as it becomes writable), then closes.
    private func respond(on fd: FileDescriptor, with reply: ControlReply) {
        guard let connection = connections[fd] else { return }
        connection.isReplying = true
        stopRequestTimerUnlessAConnectionWaits()
        connection.request = []
        connection.reply = reply.encoded()
        connection.source?.update(events: .writable)
        writeReply(on: fd, connection)
    }

    private func writeReply(on fd: FileDescriptor, _ connection: Connection) {
        while connection.written < connection.reply.count {
            let count = connection.reply.withUnsafeBytes { bytes in
                send(fd.rawValue, bytes.baseAddress! + connection.written, bytes.count - connection.written, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { return }
                // The client went away (EPIPE, ECONNRESET): nothing more to do for it.
                break
            }
            connection.written += count
        }
        drop(fd)
    }

    /// Replies made on other threads, handed to the loop's thread through a pipe that wakes it.
    /// The pipe lives as long as any work that may write to it.
    private final class FinishedWork: Sendable {
        let readEnd: OwnedFileDescriptor
        private let writeEnd: OwnedFileDescriptor
        private let replies = Mutex<[(fd: FileDescriptor, id: UInt64, reply: ControlReply)]>([])

        init() throws(SystemCallError) {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw .current("pipe") }
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
            readEnd = OwnedFileDescriptor(rawValue: ends[0])
            writeEnd = OwnedFileDescriptor(rawValue: ends[1])
        }

        func add(_ reply: ControlReply, for fd: FileDescriptor, connection id: UInt64) {
            replies.withLock { $0.append((fd, id, reply)) }
            var byte: UInt8 = 1
            _ = write(writeEnd.rawValue, &byte, 1)
        }

        /// The finished replies, emptying the pipe's wake-up bytes first so none is missed.
        func take() -> [(fd: FileDescriptor, id: UInt64, reply: ControlReply)] {
            var drain = [UInt8](repeating: 0, count: 64)
            while drain.withUnsafeMutableBytes({ read(readEnd.rawValue, $0.baseAddress, $0.count) }) > 0 {}
            return replies.withLock { replies in
                defer { replies = [] }
                return replies
            }
        }
    }

    private func drop(_ fd: FileDescriptor) {
        guard let connection = connections.removeValue(forKey: fd) else { return }
        connection.source?.remove()
        connection.socket.close()
        stopRequestTimerUnlessAConnectionWaits()
        if isAcceptingPaused {
            isAcceptingPaused = false
            listenerSource?.update(events: .readable)
        }
    }
}
