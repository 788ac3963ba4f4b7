import DisplayBackend
import Glibc
import Graphics
import HeadlessBackend
import SystemCalls
import Testing

/// The headless output's frame clock: frames are requested just in time for a refresh and shown
/// at the first refresh after they are committed.
@Suite struct HeadlessFrameClockTests {
    @Test func aFrameIsShownAtItsTargetRefreshWhenItIsPresentedBeforeIt() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@60")])
        let output = backend.outputs[0]
        let period = output.mode.refreshNanoseconds
        var checked = 0
        var request: FrameRequest?
        var presentedAt: UInt64 = 0
        output.frameScheduler.onFrame = { frame in
            request = frame
            presentedAt = monotonicNanoseconds()
            _ = try? output.commit(OutputState(buffer: .swapchain(output.nextBuffer()!)))
        }
        let presented = output.presented.listen { timing in
            guard let frame = request else { return }
            // On time: at the target. Late (a busy machine): at the first refresh after presenting.
            if presentedAt < frame.targetPresentationNanoseconds {
                #expect(timing.sequence == frame.sequence)
                #expect(timing.nanoseconds == frame.targetPresentationNanoseconds)
            } else {
                #expect(timing.nanoseconds > presentedAt && timing.nanoseconds <= presentedAt + period)
            }
            #expect(timing.refreshNanoseconds == period)
            checked += 1
            if checked < 10 { output.scheduleFrame() }
        }
        defer { presented.cancel() }
        output.scheduleFrame()
        backend.dispatchEvents(forAtMost: 10) { checked == 10 }
        #expect(checked == 10)
    }

    @Test func slowFramesAreRequestedEarlierAndAFrameSlowerThanAPeriodStartsAtOnce() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@100")])
        let output = backend.headlessOutput(0)
        #expect(output.frameScheduler.leadNanoseconds == 1_000_000)
        var renderMilliseconds: UInt32 = 4
        var frames = 0
        output.frameScheduler.onFrame = { _ in
            usleep(renderMilliseconds * 1000)
            _ = try? output.commit(OutputState(buffer: .swapchain(output.nextBuffer()!)))
        }
        let presented = output.presented.listen { _ in
            frames += 1
            if frames < 2 { output.scheduleFrame() }
        }
        defer { presented.cancel() }
        output.scheduleFrame()
        backend.dispatchEvents(forAtMost: 10) { frames == 2 }
        // At least 4 ms a frame, plus a quarter and a millisecond.
        #expect(output.frameScheduler.leadNanoseconds >= 6_000_000)

        renderMilliseconds = 15
        output.scheduleFrame()
        backend.dispatchEvents(forAtMost: 10) { frames == 3 }
        #expect(output.frameScheduler.leadNanoseconds == 10_000_000)  // capped at the 10 ms period
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
