import Glibc
public import SystemCalls

/// Opens and closes device nodes for libinput. A session manager (libseat, logind) plugs in here,
/// so that an unprivileged compositor gets the fds it may use and loses them on VT switch.
public protocol DeviceOpener {
    /// Opens `path` with `flags` as libinput asks; the descriptor belongs to libinput until `close`.
    func open(path: String, flags: Int32) throws(InputError) -> FileDescriptor
    func close(_ descriptor: FileDescriptor)
}

/// Opens nodes directly with `open(2)`: enough when running as root or in the `input` group.
public struct DirectOpener: DeviceOpener, Sendable {
    public init() {}

    public func open(path: String, flags: Int32) throws(InputError) -> FileDescriptor {
        // Non-blocking because libinput reads until EAGAIN; close-on-exec so the kiosk app never inherits input.
        let fd = Glibc.open(path, flags | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .current("open", path: path) }
        return FileDescriptor(rawValue: fd)
    }

    public func close(_ descriptor: FileDescriptor) {
        try? descriptor.close()
    }
}
