@testable import Compositor
import Testing

/// How long the compositor's loop sleeps between iterations: until the next deadline, rounded up
/// so that it wakes at or after it, and without one until something happens.
struct LoopWaitTests {
    @Test func withoutADeadlineTheLoopSleepsUntilSomethingHappens() {
        #expect(Compositor.waitMilliseconds(until: nil, now: 5_000_000_000) == -1)
    }

    /// The common turn has no deadline: the clock is not read for it.
    @Test func theClockIsReadOnlyForADeadline() {
        var reads = 0
        func clock() -> UInt64 {
            reads += 1
            return 5_000_000_000
        }
        #expect(Compositor.waitMilliseconds(until: nil, now: clock()) == -1)
        #expect(reads == 0)
        #expect(Compositor.waitMilliseconds(until: 5_250_000_000, now: clock()) == 250)
        #expect(reads == 1)
    }

    @Test func aDeadlineThatPassedDoesNotWait() {
        #expect(Compositor.waitMilliseconds(until: 4_000_000_000, now: 5_000_000_000) == 0)
        #expect(Compositor.waitMilliseconds(until: 5_000_000_000, now: 5_000_000_000) == 0)
    }

    @Test func aDeadlineAheadIsWaitedForRoundedUpToAMillisecond() {
        #expect(Compositor.waitMilliseconds(until: 5_000_000_001, now: 5_000_000_000) == 1)
        #expect(Compositor.waitMilliseconds(until: 5_250_000_000, now: 5_000_000_000) == 250)
        #expect(Compositor.waitMilliseconds(until: 5_250_400_000, now: 5_000_000_000) == 251)
    }

    @Test func aFarDeadlineIsWaitedForInFull() {
        #expect(Compositor.waitMilliseconds(until: 65_000_000_000, now: 5_000_000_000) == 60_000)
        #expect(Compositor.waitMilliseconds(until: UInt64.max, now: 5_000_000_000) == Int32.max)
    }
}
