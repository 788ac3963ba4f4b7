internal import CLinux
import Glibc
public import SystemPackage

/// A CLOCK_MONOTONIC timerfd, non-blocking and close-on-exec: readable once it has expired, so an
/// event loop can watch `fileDescriptor`. The timer owns its descriptor.
public final class MonotonicTimer {
    private let descriptor: OwnedFileDescriptor

    public init() throws(SystemCallError) {
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard fd >= 0 else { throw .current("timerfd_create") }
        descriptor = OwnedFileDescriptor(rawValue: fd)
    }

    public var fileDescriptor: FileDescriptor { descriptor.fileDescriptor }

    /// Expires once, when CLOCK_MONOTONIC reaches `nanoseconds`.
    public func arm(at nanoseconds: UInt64) {
        set(nanoseconds, flags: Int32(TFD_TIMER_ABSTIME))
    }

    /// Expires once, `nanoseconds` from now.
    public func arm(after nanoseconds: UInt64) {
        set(nanoseconds, flags: 0)
    }

    public func disarm() {
        set(0, flags: 0)
    }

    /// Takes the expirations since the last call: false when the timer has not expired (a stale
    /// readiness after `disarm()` or a new `arm`).
    public func acknowledgeExpiration() -> Bool {
        var expirations: UInt64 = 0
        return read(descriptor.rawValue, &expirations, 8) == 8
    }

    private func set(_ nanoseconds: UInt64, flags: Int32) {
        var spec = itimerspec()
        spec.it_value = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        // Setting a valid timerfd with a valid time cannot fail.
        _ = timerfd_settime(descriptor.rawValue, flags, &spec, nil)
    }
}
