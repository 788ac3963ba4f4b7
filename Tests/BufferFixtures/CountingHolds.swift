import Buffers

/// A test's lent buffer that counts the holds on it, where `returned` hears each time the last
/// one ends (when a client hears wl_buffer.release).
public protocol CountingHolds: LentBuffer {
    var holds: Int { get set }
    var returned: () -> Void { get }
}

extension CountingHolds {
    public func hold() {
        holds += 1
    }

    public func endHold() {
        precondition(holds > 0, "a hold ended that was never taken")
        holds -= 1
        if holds == 0 { returned() }
    }
}
