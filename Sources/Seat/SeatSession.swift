internal import CSeat
import Glibc
public import SystemCalls

/// Why the seat could not be opened or used.
public enum SeatError: Error, Equatable, CustomStringConvertible {
    /// No seat manager answered (no seatd socket, no logind, and not allowed to run one in-process).
    case unavailable(reason: String)
    /// A libseat call failed (libseat reports through errno).
    case system(SystemCallError)

    static func current(_ operation: String) -> SeatError {
        .system(.current(operation))
    }

    public var description: String {
        switch self {
        case .unavailable(let reason): "no seat: \(reason)"
        case .system(let error): error.description
        }
    }
}

/// A session on a seat through libseat (seatd, logind, or seatd embedded when running as root):
/// it opens the seat's devices (the DRM node with master rights, input nodes) for an
/// unprivileged process, and tells when the session is switched away (a VT switch), when the
/// devices must rest, and back. Events arrive through `fileDescriptor` and `dispatch()`.
public final class SeatSession {
    private final class Callbacks {
        var onDisable: () -> Void = {}
        var onEnable: () -> Void = {}
        var isEnabled = false
    }

    private let handle: OpaquePointer
    private let callbacks = Callbacks()
    private let listener: UnsafeMutablePointer<libseat_seat_listener>
    /// libseat's device ids by file descriptor, to close what was opened.
    private var devices: [FileDescriptor: Int32] = [:]

    /// Opens the seat (the session's seat, usually seat0). Blocks until the seat manager answers.
    public init() throws(SeatError) {
        libseat_set_log_level(LIBSEAT_LOG_LEVEL_ERROR)
        listener = UnsafeMutablePointer<libseat_seat_listener>.allocate(capacity: 1)
        listener.initialize(to: libseat_seat_listener(
            enable_seat: { _, userData in
                let callbacks = Unmanaged<Callbacks>.fromOpaque(userData!).takeUnretainedValue()
                callbacks.isEnabled = true
                callbacks.onEnable()
            },
            disable_seat: { _, userData in
                let callbacks = Unmanaged<Callbacks>.fromOpaque(userData!).takeUnretainedValue()
                callbacks.isEnabled = false
                callbacks.onDisable()
            }))
        guard let handle = libseat_open_seat(listener, Unmanaged.passUnretained(callbacks).toOpaque()) else {
            let error = SystemCallError.current("libseat_open_seat")
            listener.deinitialize(count: 1)
            listener.deallocate()
            throw .unavailable(reason: "\(error.operation): \(error.errno)")
        }
        self.handle = handle
        // The seat is usable once the manager enables it, which follows the open at once on an
        // active session: wait for it a little, so that devices can be opened right away.
        for _ in 0..<20 where !callbacks.isEnabled {
            guard libseat_dispatch(handle, 100) >= 0 else { break }
        }
    }

    deinit {
        for id in devices.values { _ = libseat_close_device(handle, id) }
        for descriptor in devices.keys { try? descriptor.close() }
        _ = libseat_close_seat(handle)
        listener.deinitialize(count: 1)
        listener.deallocate()
    }

    /// The seat's name (seat0).
    public var name: String { String(cString: libseat_seat_name(handle)) }

    /// Whether the session is active: the devices may be used.
    public var isEnabled: Bool { callbacks.isEnabled }

    /// Called when the session is switched away: stop using the devices, then call
    /// `acknowledgeDisable()`.
    public var onDisable: () -> Void {
        get { callbacks.onDisable }
        set { callbacks.onDisable = newValue }
    }

    /// Called when the session is active again: devices work again (input devices must be
    /// reopened; the DRM node keeps its descriptor and regains master).
    public var onEnable: () -> Void {
        get { callbacks.onEnable }
        set { callbacks.onEnable = newValue }
    }

    /// Readable when `dispatch()` has events.
    public var fileDescriptor: FileDescriptor { FileDescriptor(rawValue: libseat_get_fd(handle)) }

    /// Handles what the seat manager sent (calling `onDisable`/`onEnable`).
    public func dispatch() throws(SeatError) {
        guard libseat_dispatch(handle, 0) >= 0 else { throw .current("libseat_dispatch") }
    }

    /// Tells the seat manager the devices are at rest after `onDisable`.
    public func acknowledgeDisable() throws(SeatError) {
        guard libseat_disable_seat(handle) == 0 else { throw .current("libseat_disable_seat") }
    }

    /// Opens a device of the seat (a DRM node, an evdev node) and returns its descriptor, which
    /// the session owns until `closeDevice(_:)`.
    public func openDevice(_ path: String) throws(SeatError) -> FileDescriptor {
        var fd: Int32 = -1
        let id = libseat_open_device(handle, path, &fd)
        guard id >= 0, fd >= 0 else { throw .system(.current("libseat_open_device", path: path)) }
        let descriptor = FileDescriptor(rawValue: fd)
        devices[descriptor] = id
        return descriptor
    }

    /// Closes a device opened with `openDevice(_:)`.
    public func closeDevice(_ descriptor: FileDescriptor) {
        if let id = devices.removeValue(forKey: descriptor) { _ = libseat_close_device(handle, id) }
        try? descriptor.close()
    }

    /// Switches to another session (VT `number`).
    public func switchSession(to number: Int32) throws(SeatError) {
        guard libseat_switch_session(handle, number) == 0 else { throw .current("libseat_switch_session(\(number))") }
    }
}
