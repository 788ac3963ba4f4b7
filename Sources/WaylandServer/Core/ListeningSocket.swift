internal import CWaylandServer
import Glibc
public import SystemCalls

/// A socket the display accepts clients on: its own, `$XDG_RUNTIME_DIR/NAME` with its lock file,
/// as libwayland's `wl_display_add_socket` makes it, or one a sandbox engine listens on for a
/// security context (`init(adopting:)`). It accepts clients itself: libwayland 1.21 leaves a
/// connection it cannot accept (EMFILE: no descriptor left) pending and only logs, so the socket
/// stays readable and the event loop spins at full CPU. Here such a connection is accepted into a
/// descriptor kept in reserve for it and closed at once: the client is refused, the loop goes
/// back to sleep, and clients are accepted again as soon as descriptors free up.
final class ListeningSocket {
    let name: String
    /// The socket file and its lock file, removed when the socket goes; nil for an adopted socket,
    /// whose file is its creator's.
    private let file: (path: String, lockPath: String, lock: OwnedFileDescriptor)?
    private let socket: OwnedFileDescriptor
    /// /dev/null, opened ahead: closed to make room for one refused connection at a time.
    private var reserve: OwnedFileDescriptor?
    private var source: FileDescriptorSource?
    /// Resumes watching a second after no descriptor could be found even for the reserve.
    private var pause: TimerSource?
    /// Connections refused since the descriptors ran out; nil while clients are accepted.
    private var refused: Int?

    /// Binds `name` (locked against another compositor) in `runtimeDirectory`; nil when its lock
    /// is held (the name is in use), a throw for any other failure.
    private init?(name: String, runtimeDirectory: String) throws(SystemCallError) {
        let path = runtimeDirectory + "/" + name
        let lockPath = path + ".lock"
        guard let address = UnixSocketAddress(path: path) else {
            throw SystemCallError("binding \(path)", errno: .fileNameTooLong)
        }
        let lock = try OwnedFileDescriptor.open(lockPath, flags: O_CREAT | O_RDWR, mode: S_IRUSR | S_IWUSR | S_IRGRP | S_IWGRP)
        guard flock(lock.rawValue, LOCK_EX | LOCK_NB) == 0 else { return nil }
        // The lock is ours, so a socket file left there is a dead compositor's.
        unlink(path)
        let socket = try OwnedFileDescriptor.unixStreamSocket()
        let bound = address.withSocketAddress { bind(socket.rawValue, $0, $1) }
        guard bound == 0, listen(socket.rawValue, 128) == 0 else {
            throw SystemCallError.current(bound == 0 ? "listen" : "bind", path: path)
        }
        self.name = name
        self.socket = socket
        file = (path, lockPath, lock)
        reserve = Self.openReserve()
    }

    /// Accepts on `socket`, which another process bound and listens on (made non-blocking here, so
    /// that a connection withdrawn before it is accepted cannot block the compositor's thread).
    init(adopting socket: OwnedFileDescriptor) throws(SystemCallError) {
        let flags = fcntl(socket.rawValue, F_GETFL)
        guard flags >= 0, fcntl(socket.rawValue, F_SETFL, flags | O_NONBLOCK) == 0 else { throw .current("fcntl") }
        name = ""
        self.socket = socket
        file = nil
        reserve = Self.openReserve()
    }

    private static func openReserve() -> OwnedFileDescriptor? {
        try? OwnedFileDescriptor.open("/dev/null", flags: O_RDONLY)
    }

    /// The socket `name`, or the first free `wayland-N` (N up to 32) when nil, in the runtime directory.
    static func make(named name: String?, runtimeDirectory: String) throws(SystemCallError) -> ListeningSocket {
        if let name {
            guard let socket = try ListeningSocket(name: name, runtimeDirectory: runtimeDirectory) else {
                throw SystemCallError("locking \(runtimeDirectory)/\(name).lock (another compositor?)", errno: .addressInUse)
            }
            return socket
        }
        for number in 0...32 {
            if let socket = try ListeningSocket(name: "wayland-\(number)", runtimeDirectory: runtimeDirectory) { return socket }
        }
        throw SystemCallError("finding a free wayland-N socket in \(runtimeDirectory)", errno: .addressInUse)
    }

    deinit {
        source?.remove()
        pause?.remove()
        if let file {
            unlink(file.path)
            unlink(file.lockPath)
        }
    }

    /// Accepts clients on `display`'s loop from now on, each told to `accepted` before it can send
    /// anything; `refusals` hears when connections start being refused for want of descriptors,
    /// and when they are accepted again.
    func serve(
        _ display: Display, refusals: @escaping (ClientRefusal) -> Void, accepted: @escaping (Client) -> Void = { _ in }
    ) throws(SystemCallError) {
        source = try display.eventLoop.addFileDescriptor(socket.fileDescriptor, events: .readable) { [unowned self, unowned display] _ in
            acceptAll(into: display, refusals: refusals, accepted: accepted)
        }
        // Made now: a timer is a descriptor too, which cannot be had once they ran out.
        pause = try display.eventLoop.addTimer { [unowned self, unowned display] in
            source?.update(events: .readable)
            acceptAll(into: display, refusals: refusals, accepted: accepted)
        }
    }

    private func acceptAll(into display: Display, refusals: (ClientRefusal) -> Void, accepted: (Client) -> Void) {
        while true {
            let client = acceptConnection()
            if client >= 0 {
                // libwayland takes a second descriptor for the client (its event source's).
                if let raw = wl_client_create(display.raw, client) {
                    accepted(display.client(for: raw))
                    if let count = refused {
                        refused = nil
                        refusals(.ended(refused: count))
                    }
                } else {
                    let error = SystemCallError.current("wl_client_create")
                    close(client)
                    noteRefusal(error, refusals: refusals)
                }
                continue
            }
            switch errno {
            case EINTR, ECONNABORTED:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                let error = SystemCallError.current("accept")
                guard refuseOne() else {
                    pauseWatching()
                    return
                }
                noteRefusal(error, refusals: refusals)
            default:
                // EAGAIN: none pending. Anything else concerns one connection, which is gone.
                return
            }
        }
    }

    /// Counts a refused connection; the first of a spell is reported with its cause.
    private func noteRefusal(_ error: SystemCallError, refusals: (ClientRefusal) -> Void) {
        if refused == nil { refusals(.started(error)) }
        refused = (refused ?? 0) + 1
    }

    /// The next pending connection, close-on-exec; -1 with errno set when there is none to have.
    private func acceptConnection() -> Int32 {
        let client = accept(socket.rawValue, nil, nil)
        // Children are spawned on the compositor's thread only: setting the flag after accept
        // races no exec.
        if client >= 0 { _ = fcntl(client, F_SETFD, FD_CLOEXEC) }
        return client
    }

    /// Accepts one pending connection into the reserve's descriptor and closes it; false when
    /// even that could not be done.
    private func refuseOne() -> Bool {
        guard let reserve else { return false }
        reserve.close()
        let client = acceptConnection()
        if client >= 0 { close(client) }
        self.reserve = Self.openReserve()
        return client >= 0
    }

    /// No descriptor at all: stops watching the socket (which stays readable) for a second, then
    /// accepts or refuses what is pending.
    private func pauseWatching() {
        if reserve == nil { reserve = Self.openReserve() }
        source?.update(events: [])
        pause?.arm(milliseconds: 1000)
    }
}

/// The listening socket ran out of descriptors for new clients, or has them again.
public enum ClientRefusal: Sendable, Equatable {
    /// Connections are refused (accepted and closed at once) from now on; the error says why.
    case started(SystemCallError)
    /// Clients are accepted again; `refused` connections were refused meanwhile.
    case ended(refused: Int)
}
