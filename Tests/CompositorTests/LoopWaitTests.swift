@testable import Compositor
import Testing

/// How long the compositor's loop sleeps between iterations: until the next deadline, rounded up
/// so that it wakes at or after it, and never more than a second.
struct LoopWaitTests {
    @Test func withoutADeadlineTheLoopSleepsTheLongestWait() {
        #expect(Compositor.waitMilliseconds(until: nil, now: 5_000_000_000) == 1000)
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

    @Test func aFarDeadlineWaitsAtMostASecond() {
        #expect(Compositor.waitMilliseconds(until: 65_000_000_000, now: 5_000_000_000) == 1000)
    }
}
