import Testing
@testable import LayerKit

/// AnimationTiming against the formulas of ca-semantics M1–M5:
/// a = (tp − beginTime)·speed; D = repeatDuration or duration·max(repeatCount, 1)·(autoreverses ? 2 : 1);
/// t = a + timeOffset (wrapped into D); k = ⌊t / cycle⌋; progress = (t − k·cycle) / duration, reflected
/// in the second half of a cycle when autoreversing.
@Suite struct AnimationTimingTests {
    @Test func activeOnlyBetweenBeginAndEndWithTheDefaultRemovedFill() throws {
        let t = AnimationTiming(beginTime: 10, duration: 2)
        #expect(t.sample(atParentTime: 9.99) == nil)
        #expect(try #require(t.sample(atParentTime: 11)).progress == 0.5)  // (11 − 10) / 2
        #expect(t.sample(atParentTime: 12) == nil)
        #expect(t.hasFinished(atParentTime: 12) && !t.hasFinished(atParentTime: 11.9))
        #expect(t.endTime == 12)
    }

    @Test func fillModesHoldTheStartBeforeAndTheEndAfter() throws {
        let forwards = AnimationTiming(beginTime: 10, duration: 2, fillMode: .forwards)
        #expect(forwards.sample(atParentTime: 9) == nil)
        #expect(try #require(forwards.sample(atParentTime: 50)).progress == 1)
        let backwards = AnimationTiming(beginTime: 10, duration: 2, fillMode: .backwards)
        #expect(try #require(backwards.sample(atParentTime: 9)).progress == 0)
        #expect(backwards.sample(atParentTime: 13) == nil)
        let both = AnimationTiming(beginTime: 10, duration: 2, fillMode: .both)
        #expect(try #require(both.sample(atParentTime: 0)).progress == 0)
        #expect(try #require(both.sample(atParentTime: 20)).progress == 1)
    }

    @Test func fractionalRepeatCountEndsPartWayThroughTheLastCycle() throws {
        let t = AnimationTiming(duration: 1, repeatCount: 2.5, fillMode: .forwards)
        #expect(t.activeDuration == 2.5)
        let mid = try #require(t.sample(atParentTime: 1.25))
        #expect(mid.progress == 0.25 && mid.repeatIndex == 1)
        let end = try #require(t.sample(atParentTime: 3))
        #expect(end.progress == 0.5 && end.repeatIndex == 2)
    }

    @Test func autoreversePlaysBackwardsInTheSecondHalfOfEachCycle() throws {
        let t = AnimationTiming(duration: 1, autoreverses: true, fillMode: .forwards)
        #expect(t.activeDuration == 2)
        #expect(try #require(t.sample(atParentTime: 0.25)).progress == 0.25)
        #expect(try #require(t.sample(atParentTime: 1.5)).progress == 0.5)
        #expect(try #require(t.sample(atParentTime: 1.75)).progress == 0.25)
        #expect(try #require(t.sample(atParentTime: 5)).progress == 0)  // ends where it began
    }

    @Test func speedScalesTheAnimationsOwnTime() throws {
        let t = AnimationTiming(duration: 1, speed: 2)
        #expect(try #require(t.sample(atParentTime: 0.25)).progress == 0.5)  // (0.25 − 0)·2 / 1
        #expect(t.hasFinished(atParentTime: 0.5) && t.endTime == 0.5)
        let paused = AnimationTiming(duration: 1, speed: 0, timeOffset: 0.3)
        #expect(try #require(paused.sample(atParentTime: 1000)).progress == 0.3)
        #expect(!paused.hasFinished(atParentTime: 1000) && paused.endTime == .infinity)
    }

    @Test func timeOffsetShiftsWithinTheCycleAndWrapsWhileRunningTheFullDuration() throws {
        let t = AnimationTiming(duration: 1, timeOffset: 0.5)
        #expect(try #require(t.sample(atParentTime: 0)).progress == 0.5)
        #expect(isClose(try #require(t.sample(atParentTime: 0.6)).progress, 0.1))  // (0.6 + 0.5) mod 1
        #expect(t.sample(atParentTime: 1) == nil)
    }

    @Test func repeatDurationSetsTheActiveDuration() throws {
        let t = AnimationTiming(duration: 1, repeatDuration: 1.5)
        #expect(t.activeDuration == 1.5)
        #expect(try #require(t.sample(atParentTime: 1.25)).progress == 0.25)
        #expect(t.sample(atParentTime: 1.5) == nil)
    }

    @Test func infiniteRepeatNeverFinishes() throws {
        let t = AnimationTiming(duration: 2, repeatCount: .infinity)
        #expect(!t.hasFinished(atParentTime: 1e9))
        let s = try #require(t.sample(atParentTime: 1001))
        #expect(s.progress == 0.5 && s.repeatIndex == 500)
    }
}
