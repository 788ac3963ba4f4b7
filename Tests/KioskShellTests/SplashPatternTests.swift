import BoardConfig
import Compositor
import DisplayBackend
import Foundation
import Glibc
import Graphics
import HeadlessBackend
import KioskShell
import LayerKit
import Logging
import SystemCalls
import Testing
import WindowPolicy
@testable import FaultInjection
@testable import Renderer

/// The board's `animation = "pattern"`: the animated pattern moves behind the splash while the
/// app starts or restarts, and is stopped and released once the app's first frame hides the overlay.
@Suite(.serialized) struct SplashPatternTests {
    static let splash = PremultipliedPixel(red: 0x1D, green: 0x35, blue: 0x57, alpha: 255)
    static let black = PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)

    /// A kiosk session of `app` with the pattern (or `animation`) behind a #1D3557 splash, on a
    /// 320×240 headless output.
    final class Kiosk {
        let compositor: Compositor
        let session: KioskSession

        init(app: [String], animation: SplashConfiguration.Animation = .pattern) throws {
            let folder = NSTemporaryDirectory() + "vitrine-pattern-\(getpid())"
            mkdir(folder, 0o700)
            let backend = try HeadlessBackend(outputs: [
                HeadlessOutputConfiguration(mode: OutputMode(width: 320, height: 240, refreshMillihertz: 60_000))
            ])
            compositor = try Compositor(backend: backend)
            compositor.windowPolicy = KioskWindowPolicy(compositor: compositor)
            let name = try compositor.listen(socketName: "vitrine-pattern-\(UUID().uuidString.prefix(8))", in: folder)
            session = try KioskSession(
                compositor: compositor, socketName: name, runtimeDirectory: folder, app: AppConfiguration(command: app),
                splash: SplashConfiguration(backgroundColor: RGBColor(red: 0x1D, green: 0x35, blue: 0x57), animation: animation),
                notifier: try SystemdNotifier(environment: [:]), outputs: "a test output", start: monotonicNanoseconds(),
                logger: Logger(label: "test"))
        }

        deinit {
            session.stop()
            compositor.shutdown()
        }

        /// Runs the loop (and the session's tick) until `condition` holds, at most `seconds`.
        func run(seconds: Double, until condition: () -> Bool) throws -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if condition() { return true }
                try compositor.dispatch(timeoutMilliseconds: 10)
                session.tick(now: monotonicNanoseconds())
            }
            return condition()
        }

        /// The pattern's layer, while the overlay holds one.
        var patternLayer: VulkanLayer? { layer(named: "splash pattern") as? VulkanLayer }

        /// The layer of the output's tree named `name`.
        func layer(named name: String) -> Layer? { find(name, in: compositor.rootView().layer) }

        private func find(_ name: String, in layer: Layer) -> Layer? {
            if layer.name == name { return layer }
            for sublayer in layer.sublayers {
                if let found = find(name, in: sublayer) { return found }
            }
            return nil
        }

        /// Waits for `count` different pattern colours in the top left corner (away from the
        /// triangle) while the overlay shows, and returns them.
        func patternCorners(_ count: Int) throws -> [PremultipliedPixel] {
            var corners: [PremultipliedPixel] = []
            _ = try run(seconds: 10) {
                // Frames before the session's first commit show the output's black.
                if session.isShowingOverlay, let corner = compositor.capture()?.pixel(x: 2, y: 2), corner != splash,
                    corner != black, corners.last != corner
                {
                    corners.append(corner)
                }
                return corners.count == count
            }
            return corners
        }
    }

    /// The pattern's clear colour has sines a third of a turn apart as channels, which always add
    /// up to 1.5 (382.5 of 255): a colour on the pattern's cycle.
    static func isOnThePatternsCycle(_ pixel: PremultipliedPixel) -> Bool {
        abs(Int(pixel.red) + Int(pixel.green) + Int(pixel.blue) - 382) <= 3
    }

    /// Weak references to `layer`'s drawables (and the layer), which go once they are released.
    static func drawables(of layer: VulkanLayer) -> [() -> AnyObject?] {
        layer.queue.slots.map { slot in { [weak slot] in slot } } + [{ [weak layer] in layer }]
    }

    @Test func thePatternMovesBehindTheSplashUntilTheAppsFirstFrameThenItsDrawablesAreReleased() throws {
        // The app shows its first frame five seconds after it starts: time for three pattern frames
        // even when the first ones wait for Vulkan pipelines on a loaded machine.
        let kiosk = try Kiosk(app: ["sh", "-c", "sleep 5; exec weston-simple-shm"])
        let corners = try kiosk.patternCorners(3)
        #expect(corners.count == 3)
        #expect(corners.allSatisfy(Self.isOnThePatternsCycle), "\(corners)")
        #expect(kiosk.session.isShowingOverlay)
        // Drawables exist while it moves; the app's first frame hides the overlay, and after the
        // fade the layer leaves the tree and every drawable is freed.
        let drawables = try #require(kiosk.patternLayer.map(Self.drawables))
        #expect(drawables.count >= 2)
        #expect(try kiosk.run(seconds: 15) { !kiosk.session.isShowingOverlay })
        #expect(try kiosk.run(seconds: 10) { kiosk.patternLayer == nil && drawables.allSatisfy { $0() == nil } })
    }

    /// The device lost while the pattern draws (injected at its drawable's submission): the
    /// compositor replaces the device, and the pattern is made again on the new one and moves
    /// again, the lost one's layer and drawables released.
    @Test func aDeviceLostUnderThePatternIsReplacedAndThePatternMovesAgainOnTheNewDevice() throws {
        let kiosk = try Kiosk(app: ["sleep", "60"])
        #expect(try kiosk.patternCorners(2).count == 2)
        // The layer's drawables and, last, the layer itself, held weakly.
        let drawables = try #require(kiosk.patternLayer.map(Self.drawables))
        let plan = try FaultPlan("vkQueueSubmit2@1=VK_ERROR_DEVICE_LOST")
        let replaced = try FaultInjection.during(plan) {
            try kiosk.run(seconds: 20) { kiosk.compositor.deviceReplacementCount == 1 }
        }
        #expect(replaced)
        #expect(plan.injectedCount == 1)
        #expect(kiosk.patternLayer != nil && kiosk.patternLayer !== drawables.last?())
        let corners = try kiosk.patternCorners(2)
        #expect(corners.count == 2)
        #expect(corners.allSatisfy(Self.isOnThePatternsCycle), "\(corners)")
        #expect(try kiosk.run(seconds: 10) { drawables.allSatisfy { $0() == nil } })
    }

    @Test func thePatternComesBackWhileTheAppRestarts() throws {
        // The app draws at once and is killed after a second; restarted half a second later, it
        // draws four seconds after its start.
        let started = NSTemporaryDirectory() + "vitrine-pattern-started-\(UUID().uuidString.prefix(8))"
        defer { unlink(started) }
        let kiosk = try Kiosk(app: [
            "sh", "-c",
            "if [ -e \(started) ]; then sleep 4; exec weston-simple-shm; fi; touch \(started); exec timeout 1 weston-simple-shm",
        ])
        #expect(try kiosk.run(seconds: 15) { !kiosk.session.isShowingOverlay && kiosk.patternLayer == nil })
        #expect(try kiosk.run(seconds: 15) { kiosk.session.isShowingOverlay })
        // Past the overlay's fade in over the app's last frame: its frames blend the two, and under
        // load they reach the screen well after the fade's 0.3 s, so wait for the pattern itself.
        #expect(try kiosk.run(seconds: 10) {
            kiosk.compositor.capture().map { Self.isOnThePatternsCycle($0.pixel(x: 2, y: 2)) } ?? false
        })
        let corners = try kiosk.patternCorners(2)
        #expect(corners.count == 2)
        #expect(corners.allSatisfy(Self.isOnThePatternsCycle), "\(corners)")
        let drawables = try #require(kiosk.patternLayer.map(Self.drawables))
        // The restarted app draws again: the pattern goes again.
        #expect(try kiosk.run(seconds: 15) { !kiosk.session.isShowingOverlay })
        #expect(try kiosk.run(seconds: 10) { kiosk.patternLayer == nil && drawables.allSatisfy { $0() == nil } })
    }
}
