import AppProcesses
import Compositor
import Foundation
import Glibc
import Graphics
import Testing
import WaylandTestClient

/// Debian's screen capture and remote desktop clients on the headless compositor, allowed to
/// capture by a privilege rule for their executable.
@Suite(.serialized) struct CaptureClientTests {
    /// A 64×64 window of four quadrants (red, green, blue, white from the top left, clockwise),
    /// centred on the 640×480 output at 288…352 × 208…272, so that a flipped or shifted copy shows.
    @discardableResult
    private func showQuadrantWindow(in session: HeadlessSession) throws -> (client: SessionClient, surface: WlSurfaceProxy) {
        let app = try SessionClient(session)
        let (surface, _) = try app.makeToplevel()
        let buffer = try app.makeBuffer(width: 64, height: 64) { memory in
            let pixels = memory.assumingMemoryBound(to: UInt32.self)
            for y in 0..<64 {
                for x in 0..<64 {
                    pixels[y * 64 + x] = switch (x < 32, y < 32) {
                    case (true, true): 0xffff_0000
                    case (false, true): 0xff00_ff00
                    case (false, false): 0xff00_00ff
                    case (true, false): 0xffff_ffff
                    }
                }
            }
        }
        try app.show(buffer, on: surface)
        try app.client.roundtrip()
        #expect(try session.run(seconds: 20) { session.screen?.pixel(x: 300, y: 260) == white })
        return (app, surface)
    }

    /// Runs the session until its client process exits (or `seconds` pass).
    private func runUntilClientExits(_ session: HeadlessSession, seconds: Double = 30) throws -> ProcessExit? {
        try session.run(seconds: seconds) { session.client?.poll() == true }
        return session.client?.exit
    }

    @Test func grimSavesExactlyWhatTheOutputShows() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [PrivilegeRule(.executable("/usr/bin/grim"), privileges: [.screenCapture])]
        let app = try showQuadrantWindow(in: session).client
        let path = session.outputPath + ".png"
        defer { unlink(path) }
        try session.launch(["grim", path])
        #expect(try runUntilClientExits(session) == .status(0), "grim printed: \(session.clientOutput)")
        let saved = try Image(contentsOfPNGFile: path)
        let screen = try #require(session.screen)
        #expect(saved.width == 640 && saved.height == 480)
        #expect(saved.countOfPixelsDiffering(from: screen, byMoreThan: 0) == 0)
        #expect(saved.pixel(x: 300, y: 220) == PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(saved.pixel(x: 340, y: 220) == PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255))
        #expect(saved.pixel(x: 340, y: 260) == PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255))
        #expect(saved.pixel(x: 300, y: 260) == white)
        #expect(saved.pixel(x: 287, y: 207) == black)
        _ = app
    }

    @Test func grimFindsNoScreencopyWithoutTheCapturePrivilege() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [PrivilegeRule(.executable("/usr/bin/grim"), privileges: [.virtualInput])]
        let app = try showQuadrantWindow(in: session).client
        let path = session.outputPath + ".png"
        defer { unlink(path) }
        try session.launch(["grim", path])
        #expect(try runUntilClientExits(session) == .status(1))
        #expect(session.clientOutput.contains("screencopy"), "grim printed: \(session.clientOutput)")
        #expect(access(path, F_OK) != 0)
        _ = app
    }

    /// Whether the VNC client's copy of the screen is what the output shows, pixel for pixel.
    private func remoteMatchesScreen(_ rfb: RFBClient, _ session: HeadlessSession) -> Bool {
        guard let screen = session.screen, rfb.width == screen.width, rfb.height == screen.height else { return false }
        for y in 0..<screen.height {
            for x in 0..<screen.width {
                let shown = screen.pixel(x: x, y: y)
                let expected = UInt32(shown.red) << 16 | UInt32(shown.green) << 8 | UInt32(shown.blue)
                if rfb.framebuffer[y * rfb.width + x] != expected { return false }
            }
        }
        return true
    }

    @Test func wayvncShowsAVncClientTheScreenAndThenOnlyWhatChanged() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [PrivilegeRule(.executable("/usr/bin/wayvnc"), privileges: [.screenCapture])]
        let (app, surface) = try showQuadrantWindow(in: session)
        let socket = session.outputPath + ".vnc"
        defer { unlink(socket) }
        // Only the picture: remote input is the click test's.
        try session.launch(["wayvnc", "--disable-input", "--unix-socket", socket])
        var remote: RFBClient?
        let connected = try session.run(seconds: 30) {
            if remote == nil { remote = RFBClient(socketPath: socket) }
            remote?.receive()
            return remote?.isConnected == true
        }
        let rfb = try #require(remote, "wayvnc printed: \(session.clientOutput)")
        #expect(connected, "\(rfb.failure ?? "") wayvnc printed: \(session.clientOutput)")
        #expect(rfb.width == 640 && rfb.height == 480)
        rfb.requestUpdate(incremental: false)
        #expect(try session.run(seconds: 30) {
            rfb.receive()
            return !rfb.updates.isEmpty && remoteMatchesScreen(rfb, session)
        }, "wayvnc printed: \(session.clientOutput)")
        #expect(rfb.framebuffer[220 * 640 + 300] == 0xff_0000)
        #expect(rfb.framebuffer[260 * 640 + 340] == 0x00_00ff)

        // The window's top-left quadrant turns black: the updates that follow cover little more.
        let updatesBefore = rfb.updates.count
        try surface.attach(buffer: app.makeBuffer(width: 64, height: 64) { memory in
            let pixels = memory.assumingMemoryBound(to: UInt32.self)
            for y in 0..<64 {
                for x in 0..<64 { pixels[y * 64 + x] = x < 32 && y < 32 ? 0xff00_0000 : 0xff00_ff00 }
            }
        }, x: 0, y: 0)
        try surface.damageBuffer(x: 0, y: 0, width: 64, height: 64)
        try surface.commit()
        try app.client.roundtrip()
        rfb.requestUpdate(incremental: true)
        #expect(try session.run(seconds: 30) {
            let count = rfb.updates.count
            rfb.receive()
            if rfb.updates.count > count { rfb.requestUpdate(incremental: true) }
            return rfb.framebuffer[220 * 640 + 300] == 0 && remoteMatchesScreen(rfb, session)
        }, "wayvnc printed: \(session.clientOutput)")
        let sent = rfb.updates.dropFirst(updatesBefore).joined().reduce(0) { $0 + $1.width * $1.height }
        // The window is 64×64 = 4,096 pixels; the screen 307,200.
        #expect(sent > 0 && sent <= 64 * 64 * 4, "pixels sent after the change: \(sent)")
    }

    /// Debian's libvncclient (through Python's ctypes, `Clients/vnc_click.py`) clicks at (300, 220)
    /// of the remote screen; wayvnc turns it into its virtual pointer, and the window there hears
    /// the pointer arrive at that point and the left button go down and up.
    @Test func aClickOfAVncClientThroughWayvncReachesTheWindowUnderIt() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [PrivilegeRule(.executable("/usr/bin/wayvnc"), privileges: [.screenCapture, .virtualInput])]
        let window = try InputWindow(session)
        let socket = session.outputPath + ".vnc"
        defer { unlink(socket) }
        try session.launch(["wayvnc", "--unix-socket", socket])
        #expect(try session.run(seconds: 30) { access(socket, F_OK) == 0 }, "wayvnc printed: \(session.clientOutput)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/vnc_click.py").path
        let printed = session.outputPath + ".click"
        defer { unlink(printed) }
        let viewer = try ClientProcess(arguments: ["/usr/bin/python3", script, socket, "300", "220"], environment: [:], standardOutput: printed)
        defer { viewer.terminate() }
        let released = { window.pointer.events.contains { event in
            if case .button(_, _, 272, .released) = event { return true }
            return false
        } }
        #expect(try session.run(seconds: 30) { (try? window.client.client.roundtrip()) != nil && released() },
                "the viewer printed: \((try? String(contentsOfFile: printed, encoding: .utf8)) ?? "") wayvnc printed: \(session.clientOutput)")
        // The white 64×64 window's corner is at (288, 208): the click is at its (12, 12).
        let seen = window.pointer.events.compactMap { event -> String? in
            switch event {
            case .enter(_, _, let x, let y): "enter \(x),\(y)"
            case .motion(_, let x, let y): "motion \(x),\(y)"
            case .button(_, _, let button, let state): "button \(button) \(state == .pressed ? "down" : "up")"
            default: nil
            }
        }
        #expect(seen.suffix(2) == ["button 272 down", "button 272 up"])
        #expect(seen.dropLast(2).last == "motion 12.0,12.0" || seen.dropLast(2).last == "enter 12.0,12.0")
    }
}
