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
    /// the clock's reads around `scheduleFrame()`), and the frame asked for right after it is
    /// shown exactly a period later (where a loaded machine asks for it too late for that refresh:
    /// at the one after, or, a period or more late, at once again).
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
        let presented = output.presented.listen { presentations.append($0) }
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
            let nextRefresh = first.targetPresentationNanoseconds + period
            if asked.second.upperBound + lead <= nextRefresh {
                #expect(second.targetPresentationNanoseconds == nextRefresh)
                #expect(second.sequence == first.sequence + 1)
            } else if asked.second.lowerBound >= nextRefresh {
                // A machine so loaded that a period passed before the test asked again: the
                // output idled a period, so this frame also starts at once.
                #expect(asked.second.contains(second.targetPresentationNanoseconds))
                #expect(second.sequence > first.sequence)
            } else {
                // Asked too late for the next refresh: the one after it.
                #expect(second.targetPresentationNanoseconds == nextRefresh + period)
                #expect(second.sequence == first.sequence + 2)
            }
            #expect(presentations[2 * spell + 1].nanoseconds == second.targetPresentationNanoseconds)
        }
        // Numbers keep increasing across the idle spell: three refreshes passed unused.
        #expect(requests[2].sequence >= requests[1].sequence + 3)
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
}
