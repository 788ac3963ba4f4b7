import Glibc
import SystemCalls

/// A client's end of a Wayland socket, non-blocking: bytes go out in order, each chunk's
/// descriptors with its first byte (SCM_RIGHTS); what comes in is read with the descriptors the
/// compositor attached, which are closed at once (the fuzzer never uses them).
final class WaylandSocket {
    private var socket: OwnedFileDescriptor?
    private var outgoing: [(bytes: [UInt8], fds: [Int32])] = []
    /// Bytes of the first outgoing chunk already written (its descriptors went with the first).
    private var written = 0

    /// Connects to `path`; throws when nothing listens there.
    init(path: String) throws(SystemCallError) {
        guard let address = UnixSocketAddress(path: path) else {
            throw SystemCallError("connect", path: path, errno: .fileNameTooLong)
        }
        let socket = try OwnedFileDescriptor.unixStreamSocket()
        // A non-blocking connect to a listening Unix socket completes at once, or is refused.
        guard address.withSocketAddress({ connect(socket.rawValue, $0, $1) }) == 0 else {
            throw .current("connect", path: path)
        }
        self.socket = socket
    }

    /// The descriptor to poll: -1, which poll skips, once closed.
    var fd: Int32 { socket?.rawValue ?? -1 }
    var isOpen: Bool { socket != nil }
    var hasPendingOutput: Bool { !outgoing.isEmpty }

    func close() {
        socket = nil
    }

    /// Queues bytes (with descriptors that stay the caller's: the kernel duplicates them).
    func enqueue(_ bytes: [UInt8], fds: [Int32] = []) {
        outgoing.append((bytes, fds))
    }

    enum Progress: Equatable { case flushed, blocked, closed }

    /// Writes what it can: `.blocked` when the compositor's socket buffer is full, `.closed` when the
    /// compositor closed the connection.
    func flush() -> Progress {
        while let chunk = outgoing.first {
            let fds = written == 0 ? chunk.fds : []
            let sent = chunk.bytes.withUnsafeBytes { bytes in
                send(bytes: UnsafeRawBufferPointer(rebasing: bytes[written...]), fds: fds)
            }
            if sent < 0 {
                if errno == EAGAIN || errno == EINTR { return .blocked }
                return .closed
            }
            written += sent
            if written == chunk.bytes.count {
                outgoing.removeFirst()
                written = 0
            }
        }
        return .flushed
    }

    private func send(bytes: UnsafeRawBufferPointer, fds: [Int32]) -> Int {
        var vector = iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count)
        let header = MemoryLayout<cmsghdr>.size
        let space = fds.isEmpty ? 0 : header + (fds.count * 4 + 7) & ~7
        var control = [UInt8](repeating: 0, count: space)
        return control.withUnsafeMutableBytes { control in
            var message = msghdr()
            return withUnsafeMutablePointer(to: &vector) { vector in
                message.msg_iov = vector
                message.msg_iovlen = 1
                if !fds.isEmpty {
                    let cmsg = control.baseAddress!.assumingMemoryBound(to: cmsghdr.self)
                    cmsg.pointee.cmsg_len = header + fds.count * 4
                    cmsg.pointee.cmsg_level = SOL_SOCKET
                    cmsg.pointee.cmsg_type = Int32(SCM_RIGHTS)
                    fds.withUnsafeBytes { (control.baseAddress! + header).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                    message.msg_control = control.baseAddress
                    message.msg_controllen = control.count
                }
                return sendmsg(fd, &message, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
        }
    }

    enum Input { case bytes([UInt8]), wouldBlock, closed }

    /// Reads what is there; descriptors that came with it are closed.
    func receive() -> Input {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var control = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { buffer in
            control.withUnsafeMutableBytes { control in
                var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
                return withUnsafeMutablePointer(to: &vector) { vector in
                    var message = msghdr()
                    message.msg_iov = vector
                    message.msg_iovlen = 1
                    message.msg_control = control.baseAddress
                    message.msg_controllen = control.count
                    let count = recvmsg(fd, &message, Int32(MSG_DONTWAIT) | Int32(MSG_CMSG_CLOEXEC))
                    if count >= 0 { closeDescriptors(in: UnsafeRawBufferPointer(rebasing: control[..<message.msg_controllen])) }
                    return count
                }
            }
        }
        if count > 0 { return .bytes(Array(buffer[..<count])) }
        if count < 0, errno == EAGAIN || errno == EINTR { return .wouldBlock }
        return .closed
    }

    private func closeDescriptors(in control: UnsafeRawBufferPointer) {
        let header = MemoryLayout<cmsghdr>.size
        var offset = 0
        while offset + header <= control.count {
            let cmsg = control.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self)
            guard cmsg.cmsg_len >= header, offset + cmsg.cmsg_len <= control.count else { return }
            if cmsg.cmsg_level == SOL_SOCKET, cmsg.cmsg_type == Int32(SCM_RIGHTS) {
                for index in 0..<(cmsg.cmsg_len - header) / 4 {
                    Glibc.close(control.loadUnaligned(fromByteOffset: offset + header + index * 4, as: Int32.self))
                }
            }
            offset += (cmsg.cmsg_len + 7) & ~7
        }
    }
}
