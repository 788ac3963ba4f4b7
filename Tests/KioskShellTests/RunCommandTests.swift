import Foundation
import Glibc
import Graphics
import Testing

/// `vitrine run`, the real command on a headless output.
@Suite struct RunCommandTests {
    @Test func aBoardsModeAndRefreshMakeTheHeadlessOutputWhenHeadlessIsNotGiven() throws {
        try #require(FileManager.default.isExecutableFile(atPath: KioskSessionTests.vitrine), "build vitrine first: swift build --product vitrine")
        let folder = try RunningVitrine.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let board = folder + "/board.toml"
        try """
            [[output]]
            connector = "Virtual-1"
            mode = "400x300"
            refresh = 30

            [app]
            command = ["sleep", "60"]
            """.write(toFile: board, atomically: true, encoding: .utf8)
        let screenshot = folder + "/shot.png"
        let display = "vitrine-board-\(UUID().uuidString.prefix(8))"
        let result = try runVitrine(
            ["run", "--config", board, "--socket", display, "--no-control-socket", "--screenshot", screenshot, "--after", "0.2"],
            runtimeFolder: folder, display: display)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("WAYLAND_DISPLAY=\(display) on a headless 400x300@30.0 output at scale 1.0\n"), "\(result.error)")
        let image = try Image(contentsOfPNGFile: screenshot)
        #expect(image.width == 400)
        #expect(image.height == 300)
    }
}
