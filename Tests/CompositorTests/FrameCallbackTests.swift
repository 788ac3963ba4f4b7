import Compositor
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
}
