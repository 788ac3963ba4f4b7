import Glibc

/// A filesystem Unix socket address (`sockaddr_un`): the Wayland socket's, the control server's
/// and its client's.
public struct UnixSocketAddress {
    private var storage = sockaddr_un()

    /// Nil when `path` does not fit in `sun_path` with its terminating zero.
    public init?(path: String) {
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else { return nil }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
    }

    /// Calls `body` with the address as `bind` and `connect` take it.
    public func withSocketAddress<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}

/// A new non-blocking, close-on-exec Unix stream socket, or -1 (errno set).
public func makeUnixStreamSocket(blocking: Bool = false) -> Int32 {
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (blocking ? 0 : Int32(SOCK_NONBLOCK.rawValue))
    return socket(AF_UNIX, type, 0)
}
