import Glibc
import Seat
import SystemCalls
import Testing

/// The libseat wrapper against the real libseat: its noop backend (devices opened directly)
/// stands in for seatd and logind, which this machine does not run. The
/// seat manager itself, with a VT switch, is checked in the QEMU rig (HILTests).
///
/// libseat takes its backend only from LIBSEAT_BACKEND in the environment, so each check runs in
/// a child process of its own (an exit test) that sets it there: suites running in parallel in
/// this process never see it.
@Suite struct SeatSessionTests {
    @Test func theNoopBackendOpensTheSeatAndGivesDevicesOut() async {
        await #expect(processExitsWith: .success) {
            setenv("LIBSEAT_BACKEND", "noop", 1)
            let seat = try SeatSession()
            // The noop backend names its seat after itself.
            #expect(seat.name == "noop")
            // (Debian's libseat 0.7 noop backend never sends enable_seat: its activity is not checked here.)
            #expect(seat.fileDescriptor.rawValue >= 0)
            let descriptor = try seat.openDevice("/dev/null")
            #expect(fcntl(descriptor.rawValue, F_GETFD) >= 0)
            seat.closeDevice(descriptor)
            #expect(fcntl(descriptor.rawValue, F_GETFD) == -1)
        }
    }

    @Test func aDeviceThatCannotBeOpenedIsAnErrorNamingIt() async {
        await #expect(processExitsWith: .success) {
            setenv("LIBSEAT_BACKEND", "noop", 1)
            let seat = try SeatSession()
            #expect(throws: SeatError.system(SystemCallError("libseat_open_device", path: "/dev/absent-device", errno: .noSuchFileOrDirectory))) {
                try seat.openDevice("/dev/absent-device")
            }
        }
    }

    @Test func anUnknownBackendIsUnavailable() async {
        await #expect(processExitsWith: .success) {
            setenv("LIBSEAT_BACKEND", "no-such-backend", 1)
            #expect {
                _ = try SeatSession()
            } throws: { error in
                if case SeatError.unavailable = error { return true }
                return false
            }
        }
    }
}
