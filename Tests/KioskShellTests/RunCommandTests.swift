import Foundation
import Glibc
import Graphics
import Testing

/// `vitrine run`, the real command on a headless output: how the end of an app after `--` is
/// logged and becomes Vitrine's exit status, how Vitrine ends the app when it stops first, and the
/// output a board makes.
@Suite struct RunCommandTests {
    static let roundTripClient = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Clients/round_trip_on_sigterm.py").path

    /// Runs `vitrine run --headless 320x240@60` with `options` and `app` after `--` until it exits.
    func run(_ options: [String], app: [String]) throws -> (status: Int32, error: String) {
        try #require(FileManager.default.isExecutableFile(atPath: KioskSessionTests.vitrine), "build vitrine first: swift build --product vitrine")
        let folder = try RunningVitrine.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let display = "vitrine-run-\(UUID().uuidString.prefix(8))"
        let result = try runVitrine(
            ["run", "--headless", "320x240@60", "--socket", display, "--no-control-socket"] + options + ["--"] + app,
            runtimeFolder: folder, display: display)
        return (result.status, result.error)
    }

    /// The log's lines that say something `exited`, without their timestamps.
    func exitLines(_ log: String) -> [String] {
        log.split(separator: "\n").filter { $0.contains(" exited (") }.map { String($0.split(separator: " ", maxSplits: 1)[1]) }
    }

    @Test func anAppsExitCodeIsLoggedAsStatusAndBecomesVitrinesExitStatus() throws {
        // wayland-info connects for the shell that started it, which then exits with 4.
        let result = try run([], app: ["sh", "-c", "wayland-info > /dev/null; exit 4"])
        #expect(result.status == 4)
        #expect(exitLines(result.error) == ["error vitrine: [vitrine] sh -c wayland-info > /dev/null; exit 4 exited (status 4)"])
    }

    @Test func anAppKilledByASignalMakesVitrineExitWith128PlusTheSignal() throws {
        let result = try run([], app: ["sh", "-c", "kill -9 $$"])
        #expect(result.status == 128 + 9)
        #expect(exitLines(result.error) == ["error vitrine: [vitrine] sh -c kill -9 $$ exited (signal 9) before connecting"])
    }

    @Test func anAppThatExitsBeforeConnectingIsLoggedAtOnceWhileTheScreenshotWaits() throws {
        let folder = try RunningVitrine.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let screenshot = folder + "/shot.png"
        let result = try run(["--screenshot", screenshot, "--after", "1"], app: ["sh", "-c", "exit 3"])
        #expect(result.status == 3)
        #expect(exitLines(result.error) == ["error vitrine: [vitrine] sh -c exit 3 exited (status 3) before connecting"])
        // Logged when it happened, before the screenshot that Vitrine still takes.
        let exited = try #require(result.error.range(of: " exited (status 3)"))
        let wrote = try #require(result.error.range(of: "wrote \(screenshot) (320×240)"), "\(result.error)")
        #expect(exited.lowerBound < wrote.lowerBound)
        #expect(try Image(contentsOfPNGFile: screenshot).width == 320)
    }

    @Test func onSIGTERMVitrineEndsTheAppWhileStillServingItAndExitsWithZero() throws {
        let folder = try RunningVitrine.makeFolder()
        let record = folder + "/record"
        let vitrine = try RunningVitrine(options: ["--no-control-socket"], app: ["/usr/bin/python3", Self.roundTripClient, record], folder: folder)
        defer { vitrine.stop() }
        func recorded() -> String { (try? String(contentsOfFile: record, encoding: .utf8)) ?? "" }
        let deadline = Date().addingTimeInterval(30)
        while recorded().isEmpty, vitrine.process.isRunning, Date() < deadline { usleep(20_000) }
        let log = (try? String(contentsOfFile: vitrine.log, encoding: .utf8)) ?? ""
        try #require(recorded() == "connected\n", "\(log)")

        vitrine.process.terminate()
        vitrine.process.waitUntilExit()
        // The app's round trip after its SIGTERM was answered: the display was still open.
        #expect(recorded() == "connected\nanswered\n")
        #expect(vitrine.process.terminationStatus == 0)
        #expect(exitLines(try String(contentsOfFile: vitrine.log, encoding: .utf8)) == [])
    }

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
