import DisplayBackend
import Testing

/// The render-time prediction and the refresh a frame aims at, shared by the headless and KMS
/// backends: exact values from given flip times, period and render times.
@Suite struct RefreshClockTests {
    /// 60 Hz as OutputMode computes it (10¹² / 60000 mHz).
    static let period: UInt64 = 16_666_666
    static let flip: UInt64 = 5_000_000_000

    var clock: RefreshClock { RefreshClock(anchorNanoseconds: Self.flip, anchorSequence: 500, period: Self.period) }

    @Test func withNoFramesYetTheLeadIsOneMillisecond() {
        #expect(RenderTimePredictor().leadNanoseconds == 1_000_000)
    }

    @Test func theLeadIsTheSlowestOfTheLastEightFramesPlusAQuarterAndAMillisecond() {
        var predictor = RenderTimePredictor()
        for milliseconds: UInt64 in [4, 8, 6] { predictor.record(milliseconds * 1_000_000) }
        #expect(predictor.leadNanoseconds == 8_000_000 + 2_000_000 + 1_000_000)
        // Seven frames after it the 8 ms frame is still among the last eight; the eighth forgets it.
        for _ in 0..<6 { predictor.record(2_000_000) }
        #expect(predictor.leadNanoseconds == 11_000_000)
        predictor.record(2_000_000)
        #expect(predictor.recentNanoseconds.sorted() == Array(repeating: 2_000_000, count: 7) + [6_000_000])
        #expect(predictor.leadNanoseconds == 6_000_000 + 1_500_000 + 1_000_000)
    }

    @Test func aFullWindowOverwritesItsOldestTimeInPlace() {
        var predictor = RenderTimePredictor()
        for milliseconds: UInt64 in 1...10 { predictor.record(milliseconds) }
        #expect(predictor.recentNanoseconds == [9, 10, 3, 4, 5, 6, 7, 8])
    }

    @Test func refreshesCountFromTheAnchorBothWays() {
        #expect(clock.refresh(atOrAfter: Self.flip) == Refresh(nanoseconds: Self.flip, sequence: 500))
        #expect(clock.refresh(after: Self.flip) == Refresh(nanoseconds: Self.flip + Self.period, sequence: 501))
        #expect(clock.refresh(atOrAfter: Self.flip + 1) == Refresh(nanoseconds: Self.flip + Self.period, sequence: 501))
        #expect(clock.refresh(atOrAfter: Self.flip + 3 * Self.period) == Refresh(nanoseconds: Self.flip + 3 * Self.period, sequence: 503))
        #expect(clock.refresh(atOrAfter: Self.flip - 1) == Refresh(nanoseconds: Self.flip, sequence: 500))
        #expect(clock.refresh(atOrAfter: Self.flip - Self.period - 1) == Refresh(nanoseconds: Self.flip - Self.period, sequence: 499))
    }

    @Test func aCommitThatFitsIsStartedItsLeadBeforeTheNextRefresh() {
        // A client commits 2 ms after the flip; frames take 11 ms with the margin.
        let schedule = clock.schedule(now: Self.flip + 2_000_000, lead: 11_000_000)
        #expect(schedule.target == Refresh(nanoseconds: 5_016_666_666, sequence: 501))
        #expect(schedule.startNanoseconds == 5_005_666_666)
    }

    @Test func aCommitTooLateForTheNextRefreshAimsAtTheOneAfter() {
        // 8 ms after the flip, 11 ms of work would end 2.3 ms after the next refresh.
        let schedule = clock.schedule(now: Self.flip + 8_000_000, lead: 11_000_000)
        #expect(schedule.target == Refresh(nanoseconds: 5_033_333_332, sequence: 502))
        #expect(schedule.startNanoseconds == 5_022_333_332)
    }

    @Test func workThatEndsExactlyAtARefreshAimsAtItAndStartsAtOnce() {
        let now = Self.flip + Self.period - 11_000_000
        let schedule = clock.schedule(now: now, lead: 11_000_000)
        #expect(schedule.target == Refresh(nanoseconds: Self.flip + Self.period, sequence: 501))
        #expect(schedule.startNanoseconds == now)
    }

    @Test func framesSlowerThanAPeriodAimAtTheFirstRefreshTheyCanMake() {
        // 40 ms of work asked for 1 ms after the flip: the third refresh, started 10 ms after the flip.
        let schedule = clock.schedule(now: Self.flip + 1_000_000, lead: 40_000_000)
        #expect(schedule.target == Refresh(nanoseconds: 5_049_999_998, sequence: 503))
        #expect(schedule.startNanoseconds == 5_009_999_998)
    }

    @Test func aFrameAimsAfterTheRefreshThePreviousFrameAimedAt() {
        // The previous frame aimed at 520 but completed at once (no vblank): the clock re-anchored
        // near 500, and 11 ms of work would make 501.
        let schedule = clock.schedule(now: Self.flip + 1_000_000, lead: 11_000_000, after: Refresh(nanoseconds: 5_333_333_320, sequence: 520))
        #expect(schedule.target == Refresh(nanoseconds: 5_349_999_986, sequence: 521))
        #expect(schedule.startNanoseconds == 5_338_999_986)
        // An older previous target changes nothing.
        let unchanged = clock.schedule(now: Self.flip + 1_000_000, lead: 11_000_000, after: Refresh(nanoseconds: Self.flip, sequence: 500))
        #expect(unchanged.target == Refresh(nanoseconds: 5_016_666_666, sequence: 501))
    }

    /// Without vblanks a frame is shown when it completes, long before a target chosen with a
    /// slow frame's lead; when the lead shrinks, the next target would fall before the last one
    /// and animations would be sampled backwards. Eight 300 ms frames, then 100 ms ones.
    @Test func withoutACounterTargetsAdvanceWhenTheLeadShrinks() {
        var clock = clock
        var predictor = RenderTimePredictor()
        var completion = Self.flip
        var previous: Refresh?
        var targets: [Refresh] = []
        for frame in 0..<24 {
            let now = completion + 1_000_000
            let schedule = clock.schedule(now: now, lead: predictor.leadNanoseconds, after: previous)
            #expect(schedule.startNanoseconds >= now)
            let draw: UInt64 = frame < 8 ? 300_000_000 : 100_000_000
            completion = schedule.startNanoseconds + draw + 4_700_000
            predictor.record(draw)
            clock.flipCompleted(at: completion, sequence: nil, aimedAt: schedule.target)
            previous = schedule.target
            targets.append(schedule.target)
        }
        #expect(zip(targets, targets.dropFirst()).allSatisfy { $1.sequence > $0.sequence && $1.nanoseconds > $0.nanoseconds })
    }

    @Test func withAVblankCounterEachFlipSetsTheClock() {
        var clock = clock
        clock.flipCompleted(at: 5_017_100_000, sequence: 501, aimedAt: Refresh(nanoseconds: 5_016_666_666, sequence: 501))
        #expect(clock.anchorNanoseconds == 5_017_100_000)
        #expect(clock.anchorSequence == 501)
    }

    @Test func withoutACounterACompletionNearItsTargetKeepsTheClocksPhase() {
        var clock = clock
        let target = Refresh(nanoseconds: 5_016_666_666, sequence: 501)
        clock.flipCompleted(at: target.nanoseconds + 4_700_000, sequence: nil, aimedAt: target)
        #expect(clock == RefreshClock(anchorNanoseconds: 5_016_666_666, anchorSequence: 501, period: Self.period))
        clock.flipCompleted(at: 5_033_333_332 - 8_000_000, sequence: nil, aimedAt: Refresh(nanoseconds: 5_033_333_332, sequence: 502))
        #expect(clock == RefreshClock(anchorNanoseconds: 5_033_333_332, anchorSequence: 502, period: Self.period))
    }

    @Test func withoutACounterACompletionFarFromItsTargetStandsInForTheRefresh() {
        var clock = clock
        // A stall: the frame aimed at 501 completed 30 ms after it, nearest to refresh 503.
        clock.flipCompleted(at: 5_046_666_666, sequence: nil, aimedAt: Refresh(nanoseconds: 5_016_666_666, sequence: 501))
        #expect(clock == RefreshClock(anchorNanoseconds: 5_046_666_666, anchorSequence: 503, period: Self.period))
        // The first frame has no target: its completion is the refresh.
        clock.flipCompleted(at: 5_050_000_000, sequence: nil, aimedAt: nil)
        #expect(clock == RefreshClock(anchorNanoseconds: 5_050_000_000, anchorSequence: 503, period: Self.period))
    }

    /// virtio-gpu: a frame completes 4.7 ms after its commit, whatever the refresh. Over 120
    /// frames asked for 1 ms after each completion and drawn in 10 ms (13.5 ms predicted), the
    /// targets advance by one refresh per frame and every completion stays 1.2 ms after its
    /// target: re-anchored at each completion, the clock would slip 1.2 ms a frame.
    @Test func withoutACounterFramesFollowTheModesRateWithoutDrift() {
        var clock = clock
        var predictor = RenderTimePredictor()
        predictor.record(10_000_000)
        var completion = Self.flip
        var targets: [Refresh] = []
        for _ in 0..<120 {
            let schedule = clock.schedule(now: completion + 1_000_000, lead: predictor.leadNanoseconds)
            completion = schedule.startNanoseconds + 10_000_000 + 4_700_000
            #expect(completion == schedule.target.nanoseconds + 1_200_000)
            predictor.record(10_000_000)
            clock.flipCompleted(at: completion, sequence: nil, aimedAt: schedule.target)
            targets.append(schedule.target)
        }
        #expect(targets.first == Refresh(nanoseconds: Self.flip + Self.period, sequence: 501))
        #expect(targets.last == Refresh(nanoseconds: Self.flip + 120 * Self.period, sequence: 620))
        #expect(zip(targets, targets.dropFirst()).allSatisfy {
            $1.sequence == $0.sequence + 1 && $1.nanoseconds - $0.nanoseconds == Self.period
        })
    }

    /// A virtual clock (headless) that showed its last refresh 40 ms ago: a frame asked for now
    /// starts at once, at a refresh numbered as the old phase's next, and the frames that follow
    /// it keep the period from there.
    @Test func afterAnIdleSpellAVirtualClockRestartsAtTheFrameAskedFor() {
        let lastShown = Refresh(nanoseconds: Self.flip, sequence: 500)
        let asked = Self.flip + 40_000_000
        let restarted = clock.restarted(at: asked, lastUsed: lastShown)
        #expect(restarted == RefreshClock(anchorNanoseconds: asked, anchorSequence: 503, period: Self.period))
        let first = restarted.schedule(now: asked, lead: 0, after: lastShown)
        #expect(first == FrameSchedule(startNanoseconds: asked, target: Refresh(nanoseconds: asked, sequence: 503)))
        // The client commits its next frame 3 ms after this one was shown: within the period, so
        // the clock keeps the new phase.
        let next = asked + 3_000_000
        let kept = restarted.restarted(at: next, lastUsed: first.target)
        #expect(kept == restarted)
        let second = kept.schedule(now: next, lead: 0, after: first.target)
        #expect(second == FrameSchedule(startNanoseconds: 5_056_666_666, target: Refresh(nanoseconds: 5_056_666_666, sequence: 504)))
        let third = kept.restarted(at: 5_060_000_000, lastUsed: second.target).schedule(now: 5_060_000_000, lead: 0, after: second.target)
        #expect(third.target == Refresh(nanoseconds: 5_073_333_332, sequence: 505))
    }

    /// Frames that follow each other within a period keep the cadence: the next one waits for its
    /// refresh. From a whole period on, the restarted refresh is the old phase's own.
    @Test func aVirtualClockThatShowedAFrameWithinAPeriodKeepsItsPhase() {
        let lastShown = Refresh(nanoseconds: Self.flip, sequence: 500)
        let late = Self.flip + Self.period - 1
        #expect(clock.restarted(at: late, lastUsed: lastShown) == clock)
        #expect(clock.restarted(at: late, lastUsed: lastShown).schedule(now: late, lead: 0, after: lastShown)
            == FrameSchedule(startNanoseconds: Self.flip + Self.period, target: Refresh(nanoseconds: Self.flip + Self.period, sequence: 501)))
        let onTheRefresh = Self.flip + Self.period
        #expect(clock.restarted(at: onTheRefresh, lastUsed: lastShown).schedule(now: onTheRefresh, lead: 0, after: lastShown)
            == FrameSchedule(startNanoseconds: onTheRefresh, target: Refresh(nanoseconds: onTheRefresh, sequence: 501)))
    }

    @Test func aVirtualClockThatShowedNothingYetStartsTheFirstFrameAtOnce() {
        let asked = Self.flip + 5_000_000
        #expect(clock.restarted(at: asked, lastUsed: nil) == RefreshClock(anchorNanoseconds: asked, anchorSequence: 501, period: Self.period))
    }

    @Test func aVirtualClockIsIdleAPeriodAfterItsLastUsedRefreshOrBeforeItsFirst() {
        let lastShown = Refresh(nanoseconds: Self.flip, sequence: 500)
        #expect(!clock.isIdle(at: Self.flip + Self.period - 1, lastUsed: lastShown))
        #expect(clock.isIdle(at: Self.flip + Self.period, lastUsed: lastShown))
        #expect(clock.isIdle(at: Self.flip, lastUsed: nil))
    }

    /// The clock woke at 5.000 s for a frame nobody waited for (the compositor's own first one);
    /// a frame asked for 10 ms later (an app's first) restarts it once more at once, numbered one
    /// after the wake, where an awaited wake keeps the phase and waits for 5.0167 s.
    @Test func aVirtualClockRestartsOnceMoreWithinAPeriodOfAWakeNobodyWaitedFor() {
        let wake = Refresh(nanoseconds: Self.flip, sequence: 500)
        let asked = Self.flip + 10_000_000
        let again = clock.restarted(at: asked, lastUsed: wake, lastUsedWasUnawaitedWake: true)
        #expect(again == RefreshClock(anchorNanoseconds: asked, anchorSequence: 501, period: Self.period))
        #expect(again.schedule(now: asked, lead: 0, after: wake) == FrameSchedule(startNanoseconds: asked, target: Refresh(nanoseconds: asked, sequence: 501)))
        let kept = clock.restarted(at: asked, lastUsed: wake)
        #expect(kept == clock)
        #expect(kept.schedule(now: asked, lead: 0, after: wake)
            == FrameSchedule(startNanoseconds: Self.flip + Self.period, target: Refresh(nanoseconds: Self.flip + Self.period, sequence: 501)))
        // Asked at the wake's own time, the new refresh still comes after it in number.
        #expect(clock.restarted(at: Self.flip, lastUsed: wake, lastUsedWasUnawaitedWake: true)
            == RefreshClock(anchorNanoseconds: Self.flip, anchorSequence: 501, period: Self.period))
    }
}
