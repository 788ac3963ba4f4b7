import Foundation
import GoldenImages
import Graphics
import Testing
import WaylandServer

/// What an X client gets on a scale-2 output: X's screen is the output's logical size, and X
/// clients draw at scale 1, which the compositor scales up (docs/x11.md, "Scale"). The reason is
/// shown beside it: the same X client given the output's real pixels draws at half the size on
/// the same panel, because X apps do not know the scale.
@Suite(.serialized) struct XScaleTests {
    private static let golden = GoldenImages(besideFile: #filePath)

    /// Runs xterm printing a line on a 1280×960 panel at `scale`, and returns its window and what
    /// the panel shows once the line is drawn.
    private func xterm(scale: Double) throws -> (frame: IntRect, bufferScale: Int32, screen: Image) {
        let session = try XwaylandSession(width: 1280, height: 960, scale: scale)
        let xterm = try session.launch([
            "xterm", "-fa", "DejaVu Sans Mono", "-fs", "14", "-T", "vitrine-scale",
            "-e", "sh", "-c", "printf 'X11 on a 1280x960 panel at scale %s' \(Int(scale)); sleep 60",
        ], output: "/dev/null")
        defer { xterm.terminate(graceSeconds: 1) }
        #expect(try session.run(seconds: 60) { !session.shownWindows.isEmpty })
        let window = try #require(session.shownWindows.first)
        // The line is drawn once the top-left text row has dark pixels.
        let drawn = try session.run(seconds: 30) {
            guard let screen = session.compositor.capture() else { return false }
            return (0..<Int(60 * scale)).contains { x in screen.pixel(x: x, y: Int(8 * scale)).red < 100 }
        }
        #expect(drawn)
        try session.run(seconds: 0.5)
        let surface = try #require(window.surface)
        return (window.frame, surface.current.bufferScale, try #require(session.compositor.capture()))
    }

    @Test func anXClientOnAScale2OutputDrawsAtTheLogicalSizeAndIsScaledUp() throws {
        let (frame, bufferScale, screen) = try xterm(scale: 2)
        // X's screen is the output's 640×480 points; Xwayland's buffers have scale 1.
        #expect(frame == IntRect(x: 0, y: 0, width: 640, height: 480))
        #expect(bufferScale == 1)
        #expect(screen.width == 1280 && screen.height == 960)
        try Self.golden.check(screen, named: "x11-xterm-scale-2", tolerance: 16, maxDifferingShare: 0.01)
    }

    @Test func theSameXClientGivenThePanelsRealPixelsDrawsAtHalfTheSize() throws {
        let (frame, bufferScale, screen) = try xterm(scale: 1)
        #expect(frame == IntRect(x: 0, y: 0, width: 1280, height: 960))
        #expect(bufferScale == 1)
        try Self.golden.check(screen, named: "x11-xterm-real-pixels", tolerance: 16, maxDifferingShare: 0.01)
    }
}
