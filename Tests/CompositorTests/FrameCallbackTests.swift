import Compositor
import DisplayBackend
import Foundation
import Glibc
import Testing
import WaylandTestClient

/// Frame callbacks follow the display: they fire only once a frame showing the surface was
/// presented, and an idle screen presents nothing.
@Suite(.serialized) struct FrameCallbackTests {
    @Test func frameCallbackFiresOnlyAfterThePresentedFrameAndAnIdleScreenPresentsNothing() throws {
        let session = try HeadlessSession()
        let output = session.backend.headlessOutput(0)
        let sessionClient = try SessionClient(session)
        let client = sessionClient.client
        let (surface, _) = try sessionClient.makeToplevel()
        let buffer = try sessionClient.makeBuffer(width: 32, height: 32)
        try surface.attach(buffer: buffer, x: 0, y: 0)
        let callback = try surface.frame()
        let presentedBefore = output.presentedFrameCount
        try surface.commit()
        try client.roundtrip()
        // The output may have drawn and presented the commit while the client waited (a frame
        // asked for after an idle spell starts at once); the callback never fires before that.
        #expect(callback.events.isEmpty || output.presentedFrameCount > presentedBefore)
        #expect(try session.run(seconds: 30) {
            try? client.pump()
            return !callback.events.isEmpty
        })
        // It fired once a refresh showed the commit (a frame for the earlier role commit may come first).
        #expect(output.presentedFrameCount >= presentedBefore + 1)
        #expect(callback.events.map(\.name) == ["done"])
        // Frames asked for by earlier changes may still be on their way; once they are shown and
        // nothing changes, no refresh presents anything.
        try session.run(seconds: 1)
        let idleCount = output.presentedFrameCount
        try session.run(seconds: 1)
        #expect(output.presentedFrameCount == idleCount)
    }

    /// An app's first frame starts as soon as it is committed, also right after the compositor's
    /// own first frame (which no client waited for), and a client that redraws at each frame
    /// callback then gets its callbacks a period apart or more (16 ms: 16.7 less their times'
    /// millisecond truncation); so too when the app's first frame comes after an idle spell
    /// (50 ms, three periods), the frame callbacks it answers holding the next frame to the cadence.
    @Test(arguments: [0, 0.05])
    func anAppsFirstFrameStartsWhenCommittedAndItsNextOnesKeepThePeriod(idleSeconds: Double) throws {
        let session = try HeadlessSession(renderer: .cpu)
        let output = session.backend.headlessOutput(0)
        // Each presented frame's pacing, and the millisecond of its presentation (callbacks' time).
        var paced: [(pacing: FramePacing, milliseconds: UInt32)] = []
        let presented = output.presented.listen { timing in
            if let pacing = output.frameScheduler.lastFramePacing {
                paced.append((pacing, UInt32(truncatingIfNeeded: timing.nanoseconds / 1_000_000)))
            }
        }
        defer { presented.cancel() }
        #expect(try session.runFrames(1))
        try session.run(seconds: idleSeconds)
        let sessionClient = try SessionClient(session)
        let (surface, _) = try sessionClient.makeToplevel()
        // The times of four frame callbacks, each asked for with a new buffer once the last came.
        var times: [UInt32] = []
        for _ in 0..<4 {
            let callback = try sessionClient.commitNewBuffer(on: surface, andRun: session)
            guard case .done(let time)? = callback.events.first else { throw TestClientError.timedOut }
            times.append(time)
        }
        // The frame that answered the first callback, presented at its time.
        let first = try #require(paced.last { $0.milliseconds == times[0] }?.pacing)
        #expect(first.target.nanoseconds == first.requestedNanoseconds)
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(later &- earlier >= 16)
        }
    }

    /// A client told of a frame likely draws again: the frame timer is set for the next refresh
    /// instead of its expiry being read. When the client does not, that expiry is read in the turn
    /// that handles it: the loop does not spin on a readable timer, it sleeps out its timeouts.
    @Test func theLoopSleepsAfterAFrameCallbackThatNoFrameFollows() throws {
        let session = try HeadlessSession(renderer: .cpu)
        let sessionClient = try SessionClient(session)
        let (surface, _) = try sessionClient.makeToplevel()
        _ = try sessionClient.commitNewBuffer(on: surface, andRun: session)
        // 200 ms (twelve refreshes) of turns that wait up to 10 ms each.
        var turns = 0
        let end = Date().addingTimeInterval(0.2)
        while Date() < end {
            try session.compositor.dispatch(timeoutMilliseconds: 10)
            turns += 1
        }
        // Twenty, and a few for the timer's one expiry and frames earlier commits asked for: a loop
        // woken at once by a readable timer turns thousands of times.
        #expect(turns < 100)
    }

    /// A loop turn reads the clock once for all that asks: a client's new buffer and the frame it
    /// asks for (with nothing on its way) are stamped with the same time.
    @Test func aNewBufferAndTheFrameItAsksForTakeTheTimeOfTheirLoopTurn() throws {
        let session = try HeadlessSession(renderer: .cpu)
        let output = session.backend.headlessOutput(0)
        let sessionClient = try SessionClient(session)
        let (surface, _) = try sessionClient.makeToplevel()
        // Frames asked for by the compositor's start and the role's commit are shown by now.
        try session.run(seconds: 0.1)
        _ = try sessionClient.commitNewBuffer(on: surface, andRun: session)
        let pacing = try #require(output.frameScheduler.lastFramePacing)
        let newBuffer = try #require(session.compositor.lastNewBufferNanoseconds { _ in true })
        #expect(pacing.requestedNanoseconds == newBuffer)
    }
}

extension SessionClient {
    /// Commits a new 32×32 buffer on `surface` with a frame callback, and runs `session` until the
    /// callback fired; returns it.
    fileprivate func commitNewBuffer(on surface: WlSurfaceProxy, andRun session: HeadlessSession) throws -> WlCallbackProxy {
        try surface.attach(buffer: makeBuffer(width: 32, height: 32), x: 0, y: 0)
        let callback = try surface.frame()
        try surface.commit()
        try #require(try session.run(seconds: 30) {
            try? client.pump()
            return !callback.events.isEmpty
        })
        return callback
    }
}
