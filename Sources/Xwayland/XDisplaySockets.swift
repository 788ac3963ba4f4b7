import Glibc
public import SystemCalls

/// The listening sockets of an X display `:N`, as X servers make them: its lock file
/// `/tmp/.XN-lock` (the owner's pid), a socket in Linux's abstract namespace and one at
/// `/tmp/.X11-unix/XN`. Vitrine holds them from its start, so that `DISPLAY` is valid before any X
/// server runs, and hands them to each Xwayland it starts; they go when this object goes.
public final class XDisplaySockets {
    /// N of `:N`.
    public let number: Int
    /// The abstract socket's and the file's, listening.
    public let sockets: [OwnedFileDescriptor]
    private let lockPath: String
    private let socketPath: String

    public static let socketDirectory = "/tmp/.X11-unix"

    /// `DISPLAY`'s value for X clients.
    public var displayName: String { ":\(number)" }

    /// Takes the first display number from `range` whose lock file Vitrine can make (one left by a
    /// process that is gone is taken over) and whose sockets no one else holds.
    public static func open(numbers range: ClosedRange<Int> = 0...32) throws(XwaylandError) -> XDisplaySockets {
        for number in range {
            do {
                if let sockets = try open(number: number) { return sockets }
            } catch {
                throw .system(error)
            }
        }
        throw .noFreeDisplay(range)
    }

    private init(number: Int, sockets: [OwnedFileDescriptor], lockPath: String, socketPath: String) {
        self.number = number
        self.sockets = sockets
        self.lockPath = lockPath
        self.socketPath = socketPath
    }

    deinit {
        unlink(socketPath)
        unlink(lockPath)
    }

    /// The display's sockets, or nil when another process holds its lock or its sockets.
    private static func open(number: Int) throws(SystemCallError) -> XDisplaySockets? {
        let lockPath = "/tmp/.X\(number)-lock"
        guard try lock(lockPath) else { return nil }
        let socketPath = "\(socketDirectory)/X\(number)"
        do throws(SystemCallError) {
            // A server that bound the abstract name without a lock file still owns the display.
            guard let abstract = try listen(on: UnixSocketAddress(abstractName: socketPath)!, path: socketPath) else {
                unlink(lockPath)
                return nil
            }
            if mkdir(socketDirectory, 0o1777) == 0 {
                // mkdir's mode passes through the umask; the directory is everyone's, sticky.
                chmod(socketDirectory, 0o1777)
            } else if errno != EEXIST {
                throw SystemCallError.current("mkdir", path: socketDirectory)
            }
            // Under our lock, a socket file left there is a dead server's.
            unlink(socketPath)
            guard let address = UnixSocketAddress(path: socketPath), let file = try listen(on: address, path: socketPath) else {
                unlink(lockPath)
                return nil
            }
            return XDisplaySockets(number: number, sockets: [abstract, file], lockPath: lockPath, socketPath: socketPath)
        } catch {
            unlink(lockPath)
            throw error
        }
    }

    /// Makes the lock file with our pid as X servers write it ("%10d\n"); false when a live process
    /// holds it. A lock whose process is gone is removed and made again.
    private static func lock(_ path: String) throws(SystemCallError) -> Bool {
        for _ in 0..<2 {
            let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o444)
            if descriptor >= 0 {
                let pid = String(getpid())
                let text = Array((String(repeating: " ", count: max(0, 10 - pid.count)) + pid + "\n").utf8)
                let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                close(descriptor)
                guard written == text.count else {
                    let error = SystemCallError.current("write", path: path)
                    unlink(path)
                    throw error
                }
                return true
            }
            guard errno == EEXIST else { throw .current("open", path: path) }
            guard let owner = owner(ofLock: path), kill(owner, 0) != 0, errno == ESRCH else { return false }
            unlink(path)
        }
        return false
    }

    /// The pid a lock file names: X servers write "%10d\n", wlroots and others the ten characters
    /// and a NUL. Read with one read(2) and parsed here: Foundation's file reading and the standard
    /// library's generic integer parsing page in code that a start otherwise never runs.
    private static func owner(ofLock path: String) -> pid_t? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0, count < bytes.count else { return nil }
        // Spaces, up to nine digits, then only newlines or NULs (parsed here: the standard
        // library's generic integer parsing is code a start would otherwise page in for this).
        var owner: pid_t = 0, digits = 0, ended = false
        for byte in bytes[..<count] {
            if !ended, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                guard digits < 9 else { return nil }
                owner = owner * 10 + pid_t(byte - UInt8(ascii: "0"))
                digits += 1
            } else if byte == UInt8(ascii: " "), digits == 0 {
                continue
            } else if byte == UInt8(ascii: "\n") || byte == 0, digits > 0 {
                ended = true
            } else {
                return nil
            }
        }
        return owner > 0 ? owner : nil
    }

    /// A listening socket at `address`; nil when the address is in use.
    private static func listen(on address: UnixSocketAddress, path: String) throws(SystemCallError) -> OwnedFileDescriptor? {
        let socket = try OwnedFileDescriptor.unixStreamSocket(blocking: true)
        let bound = address.withSocketAddress { bind(socket.rawValue, $0, $1) }
        if bound != 0 {
            if errno == EADDRINUSE { return nil }
            throw .current("bind", path: path)
        }
        try SystemCallError.check(Glibc.listen(socket.rawValue, SOMAXCONN), "listen", path: path)
        return socket
    }
}

public enum XwaylandError: Error, Equatable, CustomStringConvertible {
    case system(SystemCallError)
    /// Every display number of the range is held by another X server.
    case noFreeDisplay(ClosedRange<Int>)

    public var description: String {
        switch self {
        case .system(let error): "\(error)"
        case .noFreeDisplay(let range): "no free X display among :\(range.lowerBound)…:\(range.upperBound)"
        }
    }
}
