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

extension OwnedFileDescriptor {
    /// A new close-on-exec Unix stream socket, non-blocking unless `blocking`.
    public static func unixStreamSocket(blocking: Bool = false) throws(SystemCallError) -> OwnedFileDescriptor {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (blocking ? 0 : Int32(SOCK_NONBLOCK.rawValue))
        let fd = socket(AF_UNIX, type, 0)
        guard fd >= 0 else { throw .current("socket") }
        return OwnedFileDescriptor(rawValue: fd)
    }

    /// Opens `path` with `flags` (close-on-exec added).
    public static func open(_ path: String, flags: Int32, mode: mode_t = 0) throws(SystemCallError) -> OwnedFileDescriptor {
        let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .current("open", path: path) }
        return OwnedFileDescriptor(rawValue: fd)
    }
}
