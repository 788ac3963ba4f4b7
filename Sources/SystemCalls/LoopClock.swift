/// CLOCK_MONOTONIC as one turn of an event loop sees it: read when first asked after the loop woke
/// (`nextTurn()`, called before it waits), and that instant shared by all that the turn does where
/// it serves (when a frame was asked for or started, a client's new buffer, the views' gestures,
/// the loop's deadlines), so that a turn reads the clock once, or not at all when nothing asks.
/// `read()` reads it anew where the time since the wakeup matters (a frame committed after it was
/// drawn); what the turn asks after that gets the newer time.
public final class LoopClock {
    /// The turn's time; 0 until read (no CLOCK_MONOTONIC reading is 0 once a system runs).
    @usableFromInline internal var turnTime: UInt64 = 0

    public init() {}

    /// The time of this turn: read now when nothing read it since the turn began. Inlined where
    /// it is asked (a dozen places a frame): a call into this module cost more than the clock.
    @inlinable
    public var now: UInt64 {
        turnTime != 0 ? turnTime : read()
    }

    /// Reads the clock: the turn's time from now on.
    @discardableResult
    public func read() -> UInt64 {
        turnTime = monotonicNanoseconds()
        return turnTime
    }

    /// The loop is about to wait: the next reader reads the clock again.
    public func nextTurn() {
        turnTime = 0
    }
}
