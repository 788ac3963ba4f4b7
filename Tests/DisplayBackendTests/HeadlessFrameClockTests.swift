import DisplayBackend
import Glibc
import Graphics
import HeadlessBackend
import SystemCalls
import Testing

/// The headless output's frame clock: frames start at a refresh and are shown at it, presented
/// when they are committed, in the refresh's one wakeup; after an idle spell the refreshes restart
/// at the frame asked for.
@Suite struct HeadlessFrameClockTests {
    @Test func aFrameStartsAtItsTargetRefreshAndIsPresentedAtItWhenCommitted() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@60")])
        let output = backend.headlessOutput(0)
        let period = output.mode.refreshNanoseconds
        var checked = 0
        var request: FrameRequest?
        var started: UInt64 = 0
        var isCommitting = false
        output.frameScheduler.onFrame = { frame in
            request = frame
            started = monotonicNanoseconds()
            isCommitting = true
            _ = try? output.commit(OutputState(buffer: .swapchain(output.nextBuffer()!)))
            isCommitting = false
        }
        let presented = output.presented.listen { timing in
            guard let frame = request else { return }
            // Started at its refresh (a timer never fires early), presented during its commit.
            #expect(started >= frame.targetPresentationNanoseconds)
            #expect(isCommitting)
            // Shown at the refresh it was started at: its target, or a later one where the
            // machine was slow to start it.
            #expect(timing.sequence >= frame.sequence)
            #expect(timing.nanoseconds == frame.targetPresentationNanoseconds + (timing.sequence - frame.sequence) * period)
            #expect(timing.nanoseconds <= monotonicNanoseconds() && started < timing.nanoseconds + period)
            #expect(timing.flags == 0x1)  // vsync
            #expect(timing.refreshNanoseconds == period)
            checked += 1
            if checked < 10 { output.scheduleFrame() }
        }
        defer { presented.cancel() }
        output.scheduleFrame()
        backend.dispatchEvents(forAtMost: 10) { checked == 10 }
        #expect(checked == 10)
        #expect(!output.hasFrameWaitingToShow)
    }

    /// Its refreshes are a timer: a frame asked for with nothing shown yet, or after an idle spell
    /// of more than a period, starts at once, at a refresh at the moment it was asked for (between
    /// the clock's reads around `scheduleFrame()`), and the frame asked for right after it, by a
    /// client told of it (as the compositor marks a presentation that answered frame callbacks),
    /// keeps the cadence (`expectCadence`).
    @Test func aFrameAskedForAfterAnIdleSpellStartsAtOnceAndTheNextAPeriodLater() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@60")])
        let output = backend.headlessOutput(0)
        let period = output.mode.refreshNanoseconds
        var requests: [FrameRequest] = []
        output.frameScheduler.onFrame = { frame in
            requests.append(frame)
            _ = try? output.commit(OutputState(buffer: .swapchain(output.nextBuffer()!)))
        }
        var presentations: [PresentationTiming] = []
        let presented = output.presented.listen { timing in
            presentations.append(timing)
            output.frameScheduler.markPresentationAwaited()
        }
        defer { presented.cancel() }
        /// Asks for a frame and the one right after its presentation; returns when each was asked for.
        func askForTwoFrames() -> (first: ClosedRange<UInt64>, second: ClosedRange<UInt64>) {
            let before = monotonicNanoseconds()
            output.scheduleFrame()
            let after = monotonicNanoseconds()
            let shown = presentations.count
            backend.dispatchEvents(forAtMost: 10) { presentations.count == shown + 1 }
            let secondBefore = monotonicNanoseconds()
            output.scheduleFrame()
            let secondAfter = monotonicNanoseconds()
            backend.dispatchEvents(forAtMost: 10) { presentations.count == shown + 2 }
            return (before...after, secondBefore...secondAfter)
        }
        for spell in 0..<2 {
            // The first time nothing was shown yet; the second, nothing for 50 ms (three periods).
            if spell == 1 { backend.dispatchEvents(forAtMost: 0.05) { false } }
            let asked = askForTwoFrames()
            try #require(requests.count == 2 * spell + 2 && presentations.count == 2 * spell + 2)
            let first = requests[2 * spell], second = requests[2 * spell + 1]
            #expect(asked.first.contains(first.targetPresentationNanoseconds))
            #expect(presentations[2 * spell].nanoseconds == first.targetPresentationNanoseconds)
            #expect(presentations[2 * spell].sequence == first.sequence)
            let lead = try #require(output.frameScheduler.lastFramePacing).leadNanoseconds
            expectCadence(of: second, askedIn: asked.second, after: first, period: period, lead: lead)
            #expect(presentations[2 * spell + 1].nanoseconds == second.targetPresentationNanoseconds)
        }
        // Numbers keep increasing across the idle spell: three refreshes passed unused.
        #expect(requests[2].sequence >= requests[1].sequence + 3)
    }

    /// The first frame, which nothing waited for (the compositor's own at its start), does not hold
    /// back a frame asked for within its period (an app's first): that one starts at once too,
    /// and the frame after it keeps the cadence although nothing waited for either. A frame asked
    /// for while the first is presented, or after a first that clients were told of, keeps the
    /// cadence. (`expectCadence` allows for a loaded machine that asks late.)
    @Test func aFrameAskedForRightAfterAFirstFrameNobodyWaitedForStartsAtOnce() throws {
        /// The first three frames of a new output, each asked for as soon as the last was shown
        /// (the second, with `duringPresentation`, by the first's presentation listener), with
        /// the times each was asked between; `awaited`: the first's presentation was marked so.
        func threeFrames(askedDuringPresentation duringPresentation: Bool = false, awaited: Bool = false) throws
            -> (requests: [FrameRequest], asked: [ClosedRange<UInt64>], lead: UInt64)
        {
            let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@60")])
            let output = backend.headlessOutput(0)
            var requests: [FrameRequest] = []
            output.frameScheduler.onFrame = { frame in
                requests.append(frame)
                _ = try? output.commit(OutputState(buffer: .swapchain(output.nextBuffer()!)))
            }
            var asked: [ClosedRange<UInt64>] = []
            func ask() {
                let before = monotonicNanoseconds()
                output.scheduleFrame()
                asked.append(before...monotonicNanoseconds())
            }
            var shown = 0
            let presented = output.presented.listen { _ in
                shown += 1
                if shown == 1 && awaited { output.frameScheduler.markPresentationAwaited() }
                if shown == 1 && duringPresentation { ask() }
            }
            defer { presented.cancel() }
            ask()
            for count in 1...2 {
                backend.dispatchEvents(forAtMost: 10) { shown == count }
                if count == 2 || !duringPresentation { ask() }
            }
            backend.dispatchEvents(forAtMost: 10) { shown == 3 }
            try #require(requests.count == 3)
            return (requests, asked, try #require(output.frameScheduler.lastFramePacing).leadNanoseconds)
        }
        let period = try HeadlessOutputConfiguration(parsing: "64x48@60").mode.refreshNanoseconds
        let unawaited = try threeFrames()
        let (first, second, third) = (unawaited.requests[0], unawaited.requests[1], unawaited.requests[2])
        #expect(unawaited.asked[1].contains(second.targetPresentationNanoseconds))
        if unawaited.asked[1].upperBound < first.targetPresentationNanoseconds + period {
            #expect(second.sequence == first.sequence + 1)
            expectCadence(of: third, askedIn: unawaited.asked[2], after: second, period: period, lead: unawaited.lead)
        } else {
            // Asked a period late on a loaded machine: the second frame woke the output after an
            // idle spell, nothing waited for it either, and the third starts at once too.
            #expect(unawaited.asked[2].contains(third.targetPresentationNanoseconds))
        }
        for held in [try threeFrames(askedDuringPresentation: true), try threeFrames(awaited: true)] {
            expectCadence(of: held.requests[1], askedIn: held.asked[1], after: held.requests[0], period: period, lead: held.lead)
        }
    }

    /// The frame timer's expiry is read, or cleared by setting the timer again, in the turn that
    /// handles it: its descriptor is never left readable, which would wake the event loop at once,
    /// turn after turn. After a frame nobody waited for, and after a skipped one, it is read. After
    /// a presentation that clients were told of, the timer is set for the next refresh instead (a
    /// frame they ask for before then starts at it, with no other timerfd_settime); at that
    /// refresh, with no frame asked for, its expiry draws nothing and is read.
    @Test func theFrameTimerIsNeverLeftReadableAndWaitsForTheNextRefreshAfterAnAwaitedPresentation() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@60")])
        let output = backend.headlessOutput(0)
        let scheduler = output.frameScheduler
        let period = output.mode.refreshNanoseconds
        var frames = 0
        var skipping = false
        scheduler.onFrame = { _ in
            frames += 1
            if skipping {
                scheduler.frameSkipped()
            } else {
                _ = try? output.commit(OutputState(buffer: .swapchain(output.nextBuffer()!)))
            }
        }
        var awaited = false
        var presentations: [PresentationTiming] = []
        let presented = output.presented.listen { timing in
            presentations.append(timing)
            if awaited { scheduler.markPresentationAwaited() }
        }
        defer { presented.cancel() }
        func timerIsReadable(withinMilliseconds milliseconds: Int32 = 0) -> Bool {
            var entry = pollfd(fd: scheduler.timer.fileDescriptor.rawValue, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, milliseconds) == 1
        }
        for (skip, told) in [(false, false), (true, false), (false, true)] {
            (skipping, awaited) = (skip, told)
            let drawn = frames
            output.scheduleFrame()
            backend.dispatchEvents(forAtMost: 10) { frames == drawn + 1 }
            try #require(frames == drawn + 1)
            if !told { #expect(!timerIsReadable()) }
        }
        try #require(presentations.count == 2)
        // Set for the refresh after the awaited presentation: it expires then (never early).
        #expect(timerIsReadable(withinMilliseconds: Int32(3 * period / 1_000_000)))
        #expect(monotonicNanoseconds() >= presentations[1].nanoseconds + period)
        scheduler.timerExpired()
        #expect(frames == 3)
        #expect(!timerIsReadable())
    }

    /// A frame asked for while one is drawn, and again by a listener of that one's presentation
    /// (as the compositor asks when its tree changed meanwhile), is one frame, not two.
    @Test func aFrameAskedForWhileDrawnAndAgainAtItsPresentationIsDrawnOnce() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@60")])
        let output = backend.headlessOutput(0)
        var frames = 0
        output.frameScheduler.onFrame = { _ in
            frames += 1
            if frames == 1 { output.scheduleFrame() }
            _ = try? output.commit(OutputState(buffer: .swapchain(output.nextBuffer()!)))
        }
        var presentations = 0
        let presented = output.presented.listen { _ in
            presentations += 1
            if presentations == 1 { output.scheduleFrame() }
        }
        defer { presented.cancel() }
        output.scheduleFrame()
        backend.dispatchEvents(forAtMost: 10) { presentations == 2 }
        // Six refreshes more (16.7 ms each): no third frame.
        backend.dispatchEvents(forAtMost: 0.1) { false }
        #expect(frames == 2)
        #expect(presentations == 2)
    }

    @Test func slowFramesStillStartAtTheirRefresh() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@100")])
        let output = backend.headlessOutput(0)
        var frames = 0
        var earlyStarts = 0
        output.frameScheduler.onFrame = { frame in
            if monotonicNanoseconds() < frame.targetPresentationNanoseconds { earlyStarts += 1 }
            usleep(4000)
            _ = try? output.commit(OutputState(buffer: .swapchain(output.nextBuffer()!)))
        }
        let presented = output.presented.listen { _ in
            frames += 1
            if frames < 3 { output.scheduleFrame() }
        }
        defer { presented.cancel() }
        output.scheduleFrame()
        backend.dispatchEvents(forAtMost: 10) { frames == 3 }
        #expect(frames == 3)
        #expect(earlyStarts == 0)
        // 4 ms a frame would start a KMS frame 6 ms before its refresh; this display waits for none.
        #expect(output.frameScheduler.renderTimes.recentNanoseconds.allSatisfy { $0 >= 4_000_000 })
        #expect(output.frameScheduler.leadNanoseconds == 0)
    }

    /// A frame committed with an acquire fence that has not signalled is held, refresh after
    /// refresh, and shown at the first refresh after it signals (a pipe's read end stands for the
    /// sync_file: both read as readable once signalled).
    @Test func aFrameWaitsForItsAcquireFence() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@100")])
        let output = backend.headlessOutput(0)
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let fence = OwnedFileDescriptor(rawValue: ends[0])
        let signal = OwnedFileDescriptor(rawValue: ends[1])
        var presentations: [UInt64] = []
        output.frameScheduler.onFrame = { _ in
            _ = try? output.commit(OutputState(buffer: .swapchain(output.nextBuffer()!), acquireFence: fence))
        }
        let presented = output.presented.listen { timing in presentations.append(timing.nanoseconds) }
        defer { presented.cancel() }
        output.scheduleFrame()
        // Ten refreshes (10 ms each) with the fence pending: nothing is shown.
        backend.dispatchEvents(forAtMost: 0.1) { false }
        #expect(presentations.isEmpty)
        #expect(output.hasFrameWaitingToShow)
        let signalled = monotonicNanoseconds()
        #expect(write(signal.rawValue, "s", 1) == 1)
        backend.dispatchEvents(forAtMost: 5) { !presentations.isEmpty }
        try #require(presentations.count == 1)
        // By the first refresh after the signal (a refresh that passed while the test wrote may
        // be the one, so no lower bound closer than the ten held ones).
        #expect(presentations[0] <= signalled + output.mode.refreshNanoseconds)
        #expect(!output.hasFrameWaitingToShow)
    }

    /// The scheduler reads the output's refreshes through a reference that is not checked (every
    /// frame asked for reads them): the output takes its reader away when it goes, so that a
    /// scheduler kept beyond it never reads a freed output.
    @Test func aSchedulerKeptBeyondItsOutputNoLongerReadsTheOutputsRefreshes() throws {
        var backend: HeadlessBackend? = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@60")])
        let scheduler = try #require(backend).headlessOutput(0).frameScheduler
        weak let output = backend?.headlessOutput(0)
        #expect(scheduler.latestRefresh != nil)
        backend = nil
        #expect(output == nil)
        #expect(scheduler.latestRefresh == nil)
    }
}

/// Expects `next`, asked for between the times of `asked`, to keep the cadence after `previous`:
/// exactly a period later when asked in time for that refresh; where a loaded machine asked too
/// late for it, the refresh after; and, a period or more late, at once (the output idled a period).
private func expectCadence(
    of next: FrameRequest, askedIn asked: ClosedRange<UInt64>, after previous: FrameRequest, period: UInt64, lead: UInt64
) {
    let nextRefresh = previous.targetPresentationNanoseconds + period
    if asked.upperBound + lead <= nextRefresh {
        #expect(next.targetPresentationNanoseconds == nextRefresh)
        #expect(next.sequence == previous.sequence + 1)
    } else if asked.lowerBound >= nextRefresh {
        #expect(asked.contains(next.targetPresentationNanoseconds))
        #expect(next.sequence > previous.sequence)
    } else {
        #expect(next.targetPresentationNanoseconds == nextRefresh + period)
        #expect(next.sequence == previous.sequence + 2)
    }
}
