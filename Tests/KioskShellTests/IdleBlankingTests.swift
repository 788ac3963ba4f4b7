import BoardConfig
import Compositor
import DisplayBackend
import Foundation
import Glibc
import Graphics
import HeadlessBackend
import KioskShell
import Logging
import SystemCalls
import Testing
import WaylandTestClient
import WindowPolicy

/// The board's idle blank-after: the output goes black after that long without input, and input
/// wakes it (a touch only when the board says so) without reaching the app.
@Suite(.serialized) struct IdleBlankingTests {
    static let splash = PremultipliedPixel(red: 0x1D, green: 0x35, blue: 0x57, alpha: 255)
    static let black = PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)

    /// A compositor on a 320×240 headless output with a kiosk session that shows the splash
    /// (no app) and blanks after one second.
    final class Kiosk {
        let backend: HeadlessBackend
        let compositor: Compositor
        let session: KioskSession

        init(wakesOnTouch: Bool) throws {
            let folder = NSTemporaryDirectory() + "vitrine-idle-\(getpid())"
            mkdir(folder, 0o700)
            backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(mode: OutputMode(width: 320, height: 240, refreshMillihertz: 60_000))])
            compositor = try Compositor(backend: backend)
            compositor.windowPolicy = KioskWindowPolicy(compositor: compositor)
            let name = try compositor.listen(socketName: "vitrine-idle-\(UUID().uuidString.prefix(8))", in: folder)
            session = try KioskSession(
                compositor: compositor, socketName: name, app: nil,
                splash: SplashConfiguration(backgroundColor: RGBColor(red: 0x1D, green: 0x35, blue: 0x57)),
                idle: IdleConfiguration(blankAfter: .seconds(1), wakesOnTouch: wakesOnTouch),
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

        var centre: PremultipliedPixel? { compositor.capture()?.pixel(x: 160, y: 120) }
    }

    /// The overlay holds a restarting indicator whose dots pulse for ever while it is hidden: a
    /// kiosk at rest (here blanked, after its idle second) draws no frames for it (it once drew
    /// every refresh).
    @Test func aKioskAtRestDrawsNoFrames() throws {
        let kiosk = try Kiosk(wakesOnTouch: true)
        let output = kiosk.backend.headlessOutput(0)
        #expect(try kiosk.run(seconds: 10) { kiosk.centre == Self.black })
        // The fade to black ends, however slowly frames come on a loaded machine: frames stop.
        var last = output.presentedFrameCount
        var quietSince = Date()
        let settled = try kiosk.run(seconds: 15) {
            if output.presentedFrameCount != last {
                last = output.presentedFrameCount
                quietSince = Date()
            }
            return Date().timeIntervalSince(quietSince) >= 1
        }
        #expect(settled, "frames never stopped: \(output.presentedFrameCount) presented")
        _ = try kiosk.run(seconds: 1) { false }
        #expect(output.presentedFrameCount == last, "\(output.presentedFrameCount - last) frames in a second at rest")
    }

    @Test func theOutputBlanksAfterItsIdleTimeAndATouchWakesIt() throws {
        let kiosk = try Kiosk(wakesOnTouch: true)
        #expect(try kiosk.run(seconds: 10) { kiosk.centre == Self.splash })
        #expect(!kiosk.session.isBlanked)
        #expect(try kiosk.run(seconds: 10) { kiosk.session.isBlanked && kiosk.centre == Self.black })
        // Once the black is shown the display is powered down (DPMS off).
        let output = kiosk.backend.headlessOutput(0)
        #expect(try kiosk.run(seconds: 10) { !output.isPoweredOn })
        #expect(kiosk.centre == Self.black)
        kiosk.compositor.touchDown(id: 0, x: 160, y: 120)
        kiosk.compositor.touchUp(id: 0)
        #expect(try kiosk.run(seconds: 10) { !kiosk.session.isBlanked && kiosk.centre == Self.splash })
        #expect(output.isPoweredOn)
    }

    @Test func aBoardWhoseTouchesDoNotWakeWakesOnAKeyOnly() throws {
        let kiosk = try Kiosk(wakesOnTouch: false)
        #expect(try kiosk.run(seconds: 10) { kiosk.session.isBlanked })
        kiosk.compositor.touchDown(id: 0, x: 160, y: 120)
        kiosk.compositor.touchUp(id: 0)
        _ = try kiosk.run(seconds: 0.3) { false }
        #expect(kiosk.session.isBlanked)
        kiosk.compositor.keyboardKey(57, pressed: true)
        kiosk.compositor.keyboardKey(57, pressed: false)
        #expect(try kiosk.run(seconds: 10) { !kiosk.session.isBlanked })
    }

    @Test func aVisibleSurfaceWithAnIdleInhibitorKeepsTheOutputOn() throws {
        let kiosk = try Kiosk(wakesOnTouch: true)
        let (_, socket) = try kiosk.compositor.display.createClientSocket()
        let client = try TestClient(socket: socket) { [kiosk] in
            try? kiosk.compositor.dispatch(timeoutMilliseconds: 0)
            kiosk.session.tick(now: monotonicNanoseconds())
        }
        let compositor = try client.bind(WlCompositorProxy.self, version: 5)
        let shell = try client.bind(XdgWmBaseProxy.self, version: 4)
        let shm = try client.bind(WlShmProxy.self, version: 1)
        let inhibitManager = try client.bind(ZwpIdleInhibitManagerV1Proxy.self, version: 1)
        let surface = try compositor.createSurface()
        let xdgSurface = try shell.getXdgSurface(surface: surface)
        try xdgSurface.getToplevel()
        try surface.commit()
        try client.roundtrip()
        guard case .configure(let serial)? = xdgSurface.events.last else {
            Issue.record("no configure")
            return
        }
        try xdgSurface.ackConfigure(serial: serial)
        let fd = anonymousFile(size: 64 * 64 * 4)
        let pool = try shm.createPool(fd: FileDescriptor(rawValue: fd), size: 64 * 64 * 4)
        close(fd)
        let buffer = try pool.createBuffer(offset: 0, width: 64, height: 64, stride: 256, format: .xrgb8888)
        try surface.attach(buffer: buffer, x: 0, y: 0)
        try surface.commit()
        let inhibitor = try inhibitManager.createInhibitor(surface: surface)
        try client.roundtrip()
        // Well past the blank-after of one second, the window still shows (black buffer, XRGB,
        // over the splash that gave way): not blanked.
        _ = try kiosk.run(seconds: 2.5) { false }
        #expect(!kiosk.session.isBlanked)
        // Without the inhibitor, the idle time runs out.
        try inhibitor.destroy()
        try client.roundtrip()
        #expect(try kiosk.run(seconds: 10) { kiosk.session.isBlanked })
    }
}
