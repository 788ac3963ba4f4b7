import Foundation
import Glibc
import SystemCalls
import WaylandServer

/// The client side of the control socket (`vitrine capture`, `vitrine status`, tests): one request,
/// one reply, blocking, with a time limit on each wait for the server.
public enum ControlClient {
    /// Sends `request` to the server at `path` and returns its reply.
    public static func send(_ request: ControlRequest, to path: String, timeoutSeconds: Double = 10) throws(ControlProtocolError) -> ControlReply {
        let line: [UInt8]
        do {
            line = try request.encodedLine()
        } catch {
            throw .malformedRequest("\(error)")
        }
        return try exchange(line, with: path, timeoutSeconds: timeoutSeconds)
    }

    /// Sends `bytes` as they are (a request line, or anything a test wants the server to see) and
    /// returns the reply.
    public static func exchange(_ bytes: [UInt8], with path: String, timeoutSeconds: Double = 10) throws(ControlProtocolError) -> ControlReply {
        guard let address = UnixSocketAddress(path: path) else { throw .pathTooLong(path) }
        let socket: OwnedFileDescriptor
        do throws(SystemCallError) {
            socket = try OwnedFileDescriptor.unixStreamSocket(blocking: true)
        } catch {
            throw .system(SystemCallError(error.operation, path: path, errno: error.errno))
        }
        // The socket is closed when this exchange ends, not at its last mention.
        defer { withExtendedLifetime(socket) {} }
        let fd = socket.rawValue
        var limit = timeval(tv_sec: Int(timeoutSeconds), tv_usec: Int((timeoutSeconds - timeoutSeconds.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard address.withSocketAddress({ connect(fd, $0, $1) }) == 0 else {
            switch errno {
            case ENOENT: throw .noSocket(path)
            case EACCES, EPERM: throw .permissionDenied(path)
            case ECONNREFUSED: throw .refused(path)
            case let code: throw .system(SystemCallError("connect", path: path, errno: Errno(rawValue: code)))
            }
        }
        var reader = Reader(fd: fd, path: path, timeoutSeconds: timeoutSeconds)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count >= 0 else {
                if errno == EINTR { continue }
                // A server that refuses a request closes early; its reply says why.
                if errno == EPIPE || errno == ECONNRESET { break }
                throw reader.failure(operation: "send")
            }
            sent += count
        }
        shutdown(fd, Int32(SHUT_WR))
        let headerLine = try reader.line()
        let header: ControlReplyHeader
        do {
            header = try JSONDecoder().decode(ControlReplyHeader.self, from: Data(headerLine))
        } catch {
            throw .malformedReply("the header is not JSON: \(String(decoding: headerLine, as: UTF8.self))")
        }
        guard header.ok else { return .failure(header.error ?? "the server gave no reason") }
        guard let length = header.length, length >= 0, let mediaType = header.mediaType else {
            throw .malformedReply("a success without length or mediaType")
        }
        return .success(mediaType: mediaType, body: try reader.bytes(length))
    }

    /// Buffered reads with the socket's time limit.
    private struct Reader {
        let fd: Int32
        let path: String
        let timeoutSeconds: Double
        var buffer: [UInt8] = []

        func failure(operation: String) -> ControlProtocolError {
            errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut(path, seconds: timeoutSeconds) : .system(.current(operation, path: path))
        }

        /// Reads more; false at the end of the stream.
        mutating func fill() throws(ControlProtocolError) -> Bool {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0 {
                    if errno == EINTR { continue }
                    if errno == ECONNRESET { return false }
                    throw failure(operation: "recv")
                }
                buffer += chunk[..<count]
                return count > 0
            }
        }

        mutating func line() throws(ControlProtocolError) -> [UInt8] {
            var searched = 0
            while true {
                if let newline = buffer[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                    let line = Array(buffer[..<newline])
                    buffer.removeSubrange(...newline)
                    return line
                }
                searched = buffer.count
                guard try fill() else {
                    throw .malformedReply(buffer.isEmpty ? "the server closed the connection without a reply" : "the header line has no end")
                }
            }
        }

        mutating func bytes(_ count: Int) throws(ControlProtocolError) -> [UInt8] {
            buffer.reserveCapacity(count)
            while buffer.count < count {
                guard try fill() else { throw .malformedReply("the body ended after \(buffer.count) of \(count) bytes") }
            }
            return Array(buffer.prefix(count))
        }
    }
}
