import AppProcesses
import Compositor
import Foundation
import Glibc
import Graphics
import Testing

/// Debian's screen capture and remote desktop clients on the headless compositor, allowed to
/// capture by a privilege rule for their executable.
@Suite(.serialized) struct CaptureClientTests {
    /// A 64×64 window of four quadrants (red, green, blue, white from the top left, clockwise),
    /// centred on the 640×480 output at 288…352 × 208…272, so that a flipped or shifted copy shows.
    private func showQuadrantWindow(in session: HeadlessSession) throws -> SessionClient {
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
        return app
    }

    /// Runs the session until its client process exits (or `seconds` pass).
    private func runUntilClientExits(_ session: HeadlessSession, seconds: Double = 30) throws -> ProcessExit? {
        try session.run(seconds: seconds) { session.client?.poll() == true }
        return session.client?.exit
    }

    @Test func grimSavesExactlyWhatTheOutputShows() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [PrivilegeRule(.executable("/usr/bin/grim"), privileges: [.screenCapture])]
        let app = try showQuadrantWindow(in: session)
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
        let app = try showQuadrantWindow(in: session)
        let path = session.outputPath + ".png"
        defer { unlink(path) }
        try session.launch(["grim", path])
        #expect(try runUntilClientExits(session) == .status(1))
        #expect(session.clientOutput.contains("screencopy"), "grim printed: \(session.clientOutput)")
        #expect(access(path, F_OK) != 0)
        _ = app
    }
}
