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
        let (_, socket) = try session.compositor.display.createClientSocket()
        let client = try TestClient(socket: socket) { try? session.compositor.dispatch(timeoutMilliseconds: 0) }
        let compositor = try client.bind("wl_compositor", version: 5)
        let shell = try client.bind("xdg_wm_base", version: 4)
        let surface = try compositor.send(0, [.newID], interface: "wl_surface")
        let xdgSurface = try shell.send(2, [.newID, .object(surface)], interface: "xdg_surface")
        _ = try xdgSurface.send(1, [.newID], interface: "xdg_toplevel")
        try surface.send(6)
        try client.roundtrip()
        guard case .uint(let serial) = xdgSurface.events(named: "configure").last?.arguments.first else {
            Issue.record("no configure")
            return
        }
        try xdgSurface.send(4, [.uint(serial)])
        let shm = try client.bind("wl_shm", version: 1)
        let fd = anonymousFile(size: 32 * 32 * 4)
        let pool = try shm.send(0, [.newID, .fileDescriptor(fd), .int(32 * 32 * 4)], interface: "wl_shm_pool")
        close(fd)
        let buffer = try pool.send(0, [.newID, .int(0), .int(32), .int(32), .int(128), .uint(0)], interface: "wl_buffer")
        try surface.send(1, [.object(buffer), .int(0), .int(0)])
        let callback = try surface.send(3, [.newID], interface: "wl_callback")
        let presentedBefore = output.presentedFrameCount
        try surface.send(6)
        try client.roundtrip()
        // Committed, but no refresh has shown it yet.
        #expect(callback.events.isEmpty)
        #expect(output.presentedFrameCount == presentedBefore)
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
