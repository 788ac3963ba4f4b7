import BoardConfig
import Compositor
import DisplayBackend
import Foundation
import Glibc
import Graphics
import KioskShell
import LayerKit
import Logging
@testable import Renderer
import Testing

/// The board's `animation = "pattern"`: the animated pattern moves behind the splash while the
/// app starts, and is stopped and released once the app's first frame hides the overlay.
@Suite(.serialized) struct SplashPatternTests {
    static let splash = PremultipliedPixel(red: 0x1D, green: 0x35, blue: 0x57, alpha: 255)
    static let black = PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)

    /// The layer named `name` in `layer`'s subtree.
    static func find(_ name: String, in layer: Layer) -> Layer? {
        if layer.name == name { return layer }
        for sublayer in layer.sublayers {
            if let found = find(name, in: sublayer) { return found }
        }
        return nil
    }

    @Test func thePatternMovesBehindTheSplashUntilTheAppsFirstFrameThenItsDrawablesAreReleased() throws {
        let folder = NSTemporaryDirectory() + "vitrine-pattern-\(getpid())"
        mkdir(folder, 0o700)
        setenv("XDG_RUNTIME_DIR", folder, 1)
        let backend = try HeadlessBackend(outputs: [
            HeadlessOutputConfiguration(mode: OutputMode(width: 320, height: 240, refreshMillihertz: 60_000))
        ])
        let compositor = try Compositor(backend: backend)
        defer { compositor.shutdown() }
        let name = try compositor.listen(socketName: "vitrine-pattern-\(UUID().uuidString.prefix(8))")
        // The app shows its first frame two seconds after it starts.
        let session = try KioskSession(
            compositor: compositor, socketName: name,
            app: AppConfiguration(command: ["sh", "-c", "sleep 2; exec weston-simple-shm"]),
            splash: SplashConfiguration(backgroundColor: RGBColor(red: 0x1D, green: 0x35, blue: 0x57), animation: .pattern),
            notifier: try SystemdNotifier(environment: [:]), outputs: "a test output", start: monotonicNanoseconds(),
            logger: Logger(label: "test"))
        defer { session.stop() }
        func run(seconds: Double, until condition: () -> Bool) throws -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if condition() { return true }
                try compositor.dispatch(timeoutMilliseconds: 10)
                session.tick(now: monotonicNanoseconds())
            }
            return condition()
        }
        // The corner, away from the triangle: the pattern's cycling colour, whose channels are
        // sines a third of a turn apart and so always add up to 1.5 (382.5 of 255).
        var corners: [PremultipliedPixel] = []
        #expect(try run(seconds: 10) {
            // Frames before the session's first commit show the output's black.
            if let corner = compositor.capture()?.pixel(x: 2, y: 2), corner != Self.splash, corner != Self.black,
                corners.last != corner
            {
                corners.append(corner)
            }
            return corners.count == 3
        })
        #expect(session.isShowingOverlay)
        for corner in corners {
            let sum = Int(corner.red) + Int(corner.green) + Int(corner.blue)
            #expect(abs(sum - 382) <= 3, "\(corner)")
        }
        // Drawables exist while it moves; the app's first frame hides the overlay, and after the
        // fade the layer leaves the tree and every drawable is freed.
        weak var weakLayer: VulkanLayer?
        var slots: [() -> DrawableSlot?] = []
        do {
            let patternLayer = try #require(Self.find("splash pattern", in: compositor.rootView().layer) as? VulkanLayer)
            weakLayer = patternLayer
            slots = patternLayer.queue.slots.map { slot in { [weak slot] in slot } }
        }
        #expect(!slots.isEmpty)
        #expect(try run(seconds: 15) { !session.isShowingOverlay })
        #expect(try run(seconds: 10) {
            Self.find("splash pattern", in: compositor.rootView().layer) == nil && weakLayer == nil
                && slots.allSatisfy { $0() == nil }
        })
    }
}
