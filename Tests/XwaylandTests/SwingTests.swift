import GoldenImages
import Testing

/// A Java Swing app through Xwayland: Debian's OpenJDK 17 running `SwingForm.java` with its
/// source launcher, on a headless 640×480 output, with the environment the kiosk app gets for X
/// (without `_JAVA_AWT_WM_NONREPARENTING=1` the window stays grey and laid out at 300×200).
@Suite(.serialized) struct SwingTests {
    private static let golden = GoldenImages(besideFile: #filePath)

    @Test func aSwingAppIsFullscreenAndGetsTypingAndClicks() throws {
        let session = try XwaylandSession(width: 640, height: 480)
        // The JVM compiles the source first.
        let app = try session.runFormApp(["java", XwaylandSession.client("SwingForm.java")], title: "vitrine-swing")
        defer { app.terminate(graceSeconds: 1) }
        try session.run(seconds: 1)
        let screen = try #require(session.compositor.capture())
        try Self.golden.check(screen, named: "x11-swing", tolerance: 16, maxDifferingShare: 0.01)
    }
}
