import Foundation
import Glibc
import Graphics
import LayerKit
import Testing

/// The board's splash covers the screen until the app's first frame, gives way to the app, and
/// comes back with a spinning indicator while the app restarts: the real command, screenshots
/// of a headless output.
@Suite struct KioskOverlayTests {
    /// The splash colour of the boards below (#1D3557).
    static let splash = PremultipliedPixel(red: 0x1D, green: 0x35, blue: 0x57, alpha: 255)

    /// What a 640×400 headless output showed `after` seconds into a kiosk session of `app`.
    func screenshot(app: String, after seconds: Double) throws -> Image {
        try #require(FileManager.default.isExecutableFile(atPath: KioskSessionTests.vitrine), "build vitrine first: swift build --product vitrine")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-overlay-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try """
            [[output]]
            connector = "Virtual-1"

            [app]
            command = \(app)

            [splash]
            background = "#1D3557"
            """.write(toFile: folder + "/board.toml", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: KioskSessionTests.vitrine)
        process.arguments = [
            "run", "--headless", "640x400@60", "--config", folder + "/board.toml", "--socket", "vitrine-overlay-\(UUID().uuidString.prefix(8))",
            "--screenshot", folder + "/screen.png", "--after", String(seconds),
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = folder
        process.environment = environment
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return try Image(contentsOfPNGFile: folder + "/screen.png")
    }

    /// Pixels of the indicator's square (a 48-point ring centred at (320, 333)) that are not the splash.
    func indicatorPixels(_ screen: Image) -> Int {
        var count = 0
        for y in 309..<358 { for x in 296..<345 where screen.pixel(x: x, y: y) != Self.splash { count += 1 } }
        return count
    }

    /// Pixels of the "Restarting…" line (centred 48 points below the indicator) that are not the splash.
    func labelPixels(_ screen: Image) -> Int {
        var count = 0
        for y in 366..<396 { for x in 200..<440 where screen.pixel(x: x, y: y) != Self.splash { count += 1 } }
        return count
    }

    @Test func theSplashCoversTheScreenUntilTheAppDrawsWithoutAnIndicator() throws {
        let screen = try screenshot(app: #"["sleep", "30"]"#, after: 1)
        #expect(screen.pixel(x: 0, y: 0) == Self.splash)
        #expect(screen.pixel(x: 320, y: 200) == Self.splash)
        #expect(screen.pixel(x: 639, y: 399) == Self.splash)
        #expect(indicatorPixels(screen) == 0)
        #expect(labelPixels(screen) == 0)
    }

    @Test func theSplashGivesWayToTheAppsFirstFrame() throws {
        let screen = try screenshot(app: #"["weston-simple-shm"]"#, after: 4)
        // The output's black around simple-shm's 250×250 window, its white border inside.
        #expect(screen.pixel(x: 0, y: 0) == PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255))
        #expect(screen.pixel(x: 200, y: 80) == PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255))
    }

    @Test func anAppThatExitsIsCoveredByTheSplashWithASpinningIndicator() throws {
        // The app exits at once and is restarted after 0.5, 1, 2 s…: never a frame of its own.
        let screen = try screenshot(app: #"["sh", "-c", "exit 3"]"#, after: 1.5)
        #expect(screen.pixel(x: 0, y: 0) == Self.splash)
        // Twelve 6-point dots, each at least a quarter white over the splash.
        #expect(indicatorPixels(screen) >= 12 * 20, "\(indicatorPixels(screen)) indicator pixels")
        #expect(screen.pixel(x: 320, y: 333) == Self.splash)
        // "Restarting…" in white under it.
        #expect(labelPixels(screen) >= 200, "\(labelPixels(screen)) label pixels")
    }

    @Test func aRestartCoversTheScreenAtOnceRatherThanFadingInFromBlack() throws {
        // simple-shm draws, is killed two seconds later, and its shell (the supervised app) exits.
        let kiosk = try SplashPatternTests.Kiosk(app: ["sh", "-c", "weston-simple-shm & sleep 2; kill -9 $!; exit 1"], animation: .none)
        #expect(try kiosk.run(seconds: 15) { !kiosk.session.isShowingOverlay })
        #expect(try kiosk.run(seconds: 15) { kiosk.session.isShowingOverlay })
        // The window is gone with its client: a fade in would show the black beneath first.
        let overlay = try #require(kiosk.layer(named: "kiosk overlay"))
        #expect(overlay.animation(forKey: "opacity") == nil)
        #expect(overlay.presentation()?.opacity == 1)
        #expect(try kiosk.run(seconds: 5) { kiosk.compositor.capture()?.pixel(x: 2, y: 2) == Self.splash })
    }
}
