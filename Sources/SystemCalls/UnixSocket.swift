import Glibc

/// A Unix socket address (`sockaddr_un`): a file (the Wayland socket's, the control server's and
/// its client's) or a name in the abstract namespace (the X display's).
public struct UnixSocketAddress {
    private var storage = sockaddr_un()
    /// The length `bind` and `connect` are given: all of `sockaddr_un` for a file, the family and
    /// the name for an abstract address, whose name is every byte of that length.
    private var length = socklen_t(MemoryLayout<sockaddr_un>.size)

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

    /// An address in Linux's abstract namespace: `name` after a zero byte, bound to no file (nil
    /// when it does not fit).
    public init?(abstractName name: String) {
        let bytes = [0] + Array(name.utf8)
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard bytes.count > 1, bytes.count <= capacity else { return nil }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
    }

    /// Calls `body` with the address as `bind` and `connect` take it.
    public func withSocketAddress<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

extension OwnedFileDescriptor {
    /// Whether the descriptor is a Unix stream socket that listens (bound, `listen` called).
    public var isListeningUnixStreamSocket: Bool {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(rawValue, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        return option(SO_DOMAIN) == AF_UNIX && option(SO_TYPE) == Int32(SOCK_STREAM.rawValue) && option(SO_ACCEPTCONN) == 1
    }

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
