import DisplayBackend
import Glibc
import Graphics
import Testing

/// The headless output's frame clock: frames are requested just in time for a refresh and shown
/// at the first refresh after they are presented.
@Suite struct HeadlessFrameClockTests {
    /// Runs the output's timer until `done`, for at most `seconds`.
    func pump(_ backend: HeadlessBackend, seconds: Double, until done: () -> Bool) {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        let fd = backend.fileDescriptors[0]
        while !done(), monotonicNanoseconds() < deadline {
            var entry = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 50) > 0 { backend.dispatch(fileDescriptor: fd) }
        }
    }

    @Test func aFrameIsShownAtItsTargetRefreshWhenItIsPresentedBeforeIt() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@60")])
        let output = backend.outputs[0]
        let period = output.mode.refreshNanoseconds
        let image = Image(width: 64, height: 48, fill: .clear)
        var checked = 0
        var request: FrameRequest?
        var presentedAt: UInt64 = 0
        output.onFrame = { frame in
            request = frame
            presentedAt = monotonicNanoseconds()
            try? output.present(image, for: frame)
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
        pump(backend, seconds: 10) { checked == 10 }
        #expect(checked == 10)
    }

    @Test func slowFramesAreRequestedEarlierAndAFrameSlowerThanAPeriodStartsAtOnce() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@100")])
        let output = backend.headlessOutput(0)
        let image = Image(width: 64, height: 48, fill: .clear)
        #expect(output.renderMarginNanoseconds == 1_000_000)
        var renderMilliseconds: UInt32 = 4
        var frames = 0
        output.onFrame = { frame in
            usleep(renderMilliseconds * 1000)
            try? output.present(image, for: frame)
        }
        let presented = output.presented.listen { _ in
            frames += 1
            if frames < 2 { output.scheduleFrame() }
        }
        defer { presented.cancel() }
        output.scheduleFrame()
        pump(backend, seconds: 10) { frames == 2 }
        // At least 4 ms a frame, plus a quarter and a millisecond.
        #expect(output.renderMarginNanoseconds >= 6_000_000)

        renderMilliseconds = 15
        output.scheduleFrame()
        pump(backend, seconds: 10) { frames == 3 }
        #expect(output.renderMarginNanoseconds == 10_000_000)  // capped at the 10 ms period
    }
}
