@testable import Compositor
import DisplayBackend
import Foundation
import Glibc
import HeadlessBackend
import Testing
import WaylandServer
import WaylandTestClient
import WindowPolicy

/// What every frame retains is never weakly referenced (docs/architecture.md): a weak reference
/// gives its object a side table, after which every retain and release of it takes the runtime's
/// slow path. The globals, surfaces and capture objects that name the compositor, its window
/// policy and its screen capture hold them unowned, and the compositor clears those references
/// before it goes.
@Suite struct CompositorReferenceTests {
    /// A session whose client shows a window with keyboard focus, having bound every device of
    /// the seat.
    private func sessionWithInputWindow() throws -> (HeadlessSession, InputWindow) {
        let session = try HeadlessSession(renderer: .cpu)
        let window = try InputWindow(session)
        #expect(try session.run(seconds: 20) {
            session.compositor.seat.keyboardFocus != nil && session.backend.headlessOutput(0).presentedFrameCount > 0
        })
        return (session, window)
    }

    /// Its surfaces' observer and the handlers of the seat, idle inhibit, input method and
    /// virtual pointer globals.
    @Test func theCompositorIsNotWeaklyReferenced() throws {
        let (session, window) = try sessionWithInputWindow()
        // A count of 1 is the object's own: no weak reference.
        #expect(_getWeakRetainCount(session.compositor) == 1)
        withExtendedLifetime(window) {}
    }

    /// Frames retain the display (each attach), the output's `presented` signal and the
    /// compositor's `framePresented` signal: clients, buffers, the xdg shell and the signals'
    /// listeners hold them without weak references.
    @Test func theDisplayAndThePresentedSignalsAreNotWeaklyReferenced() throws {
        let (session, window) = try sessionWithInputWindow()
        let listener = session.compositor.framePresented.listen { _ in }
        #expect(_getWeakRetainCount(session.compositor.display) == 1)
        #expect(_getWeakRetainCount(session.compositor.framePresented) == 1)
        #expect(_getWeakRetainCount(session.backend.headlessOutput(0).presented) == 1)
        withExtendedLifetime((window, listener)) {}
    }

    /// The xdg and layer shells' handler.
    @Test func theWindowPolicyIsNotWeaklyReferenced() throws {
        let (session, window) = try sessionWithInputWindow()
        #expect(_getWeakRetainCount(session.windowPolicy) == 1)
        withExtendedLifetime(window) {}
    }

    /// The handler of both capture managers and of the capture sessions and frames clients make.
    @Test func screenCaptureIsNotWeaklyReferencedWhileClientsCapture() throws {
        let (session, _, _) = try sessionWithWindow()
        let capturer = try SessionClient(session)
        let output = try capturer.client.bind(WlOutputProxy.self, version: 4)
        let screencopy = try capturer.client.bind(ZwlrScreencopyManagerV1Proxy.self, version: 3)
        let screencopyFrame = try screencopy.captureOutput(overlayCursor: 0, output: output)
        let imageCopy = try capturer.client.bind(ExtImageCopyCaptureManagerV1Proxy.self, version: 1)
        let source = try capturer.client.bind(ExtOutputImageCaptureSourceManagerV1Proxy.self, version: 1).createSource(output: output)
        let captureSession = try imageCopy.createSession(source: source, options: [])
        let pointer = try capturer.client.bind(WlSeatProxy.self, version: 9).getPointer()
        let cursorSession = try imageCopy.createPointerCursorSession(source: source, pointer: pointer)
        let frame = try captureSession.createFrame()
        let buffer = try MappedBuffer(capturer, width: 640, height: 480)
        try frame.attachBuffer(buffer: buffer.proxy)
        try frame.damageBuffer(x: 0, y: 0, width: 640, height: 480)
        try frame.capture()
        try capturer.client.roundtrip()
        #expect(frame.events.map(\.name).last == "ready")
        #expect(_getWeakRetainCount(session.compositor.screenCapture) == 1)
        withExtendedLifetime((screencopyFrame, cursorSession)) {}
    }

    /// Makes a compositor whose client shows a window with keyboard and pointer focus, shuts it
    /// down or not, and drops it; exits with success when it and its window policy were freed and
    /// a global that outlived them (the seat) no longer names the compositor.
    static func expectFreed(shuttingDown: Bool) {
        weak var freed: Compositor?
        weak var freedPolicy: KioskWindowPolicy?
        var keptSeat: SeatGlobal?
        do {
            let backend = try HeadlessBackend(outputs: [
                HeadlessOutputConfiguration(mode: OutputMode(width: 640, height: 480, refreshMillihertz: 60_000))
            ])
            var compositor: Compositor? = try Compositor(backend: backend, renderer: .cpu)
            let policy = KioskWindowPolicy(compositor: compositor!)
            compositor!.windowPolicy = policy
            let (_, socket) = try compositor!.display.createClientSocket()
            let client = try TestClient(socket: socket) { try? compositor?.dispatch(timeoutMilliseconds: 0) }
            let seat = try client.bind(WlSeatProxy.self, version: 9)
            _ = try seat.getKeyboard()
            _ = try seat.getPointer()
            let surface = try client.bind(WlCompositorProxy.self, version: 5).createSurface()
            let xdgSurface = try client.bind(XdgWmBaseProxy.self, version: 4).getXdgSurface(surface: surface)
            try xdgSurface.getToplevel()
            try surface.commit()
            try client.roundtrip()
            guard case .configure(let serial)? = xdgSurface.events.last else { exit(3) }
            try xdgSurface.ackConfigure(serial: serial)
            let size = 64 * 64 * 4
            let fd = anonymousFile(size: size)
            let pool = try client.bind(WlShmProxy.self, version: 1).createPool(fd: FileDescriptor(rawValue: fd), size: Int32(size))
            close(fd)
            try surface.attach(buffer: pool.createBuffer(offset: 0, width: 64, height: 64, stride: 256, format: .argb8888), x: 0, y: 0)
            try surface.commit()
            try client.roundtrip()
            guard compositor!.seat.keyboardFocus != nil else { exit(4) }
            keptSeat = compositor!.seat
            freed = compositor
            freedPolicy = policy
            if shuttingDown { compositor!.shutdown() }
            compositor = nil
        } catch {
            exit(5)
        }
        if freed != nil { exit(6) }
        if freedPolicy != nil { exit(7) }
        if keptSeat?.handler != nil { exit(8) }
        exit(0)
    }

    /// The kiosk's way out: shut down with a window mapped and focused, then dropped.
    @Test func aCompositorShutDownWithAMappedWindowIsFreed() async {
        await #expect(processExitsWith: .success) { Self.expectFreed(shuttingDown: true) }
    }

    /// WLCS's: dropped without `shutdown()`. Its clients' teardown reaches nothing being
    /// deinitialized (the window policy once heard it and called the compositor, a crash).
    @Test func aCompositorDroppedWithAMappedWindowIsFreed() async {
        await #expect(processExitsWith: .success) { Self.expectFreed(shuttingDown: false) }
    }
}
