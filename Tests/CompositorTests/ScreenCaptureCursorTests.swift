import Compositor
import DisplayBackend
import Graphics
import HeadlessBackend
import Testing
import WaylandProtocols
import WaylandTestClient

/// The pointer cursor in screen captures: a copy that asks for it (ext-image-copy-capture's
/// paint_cursors, screencopy's overlay_cursor) shows it whether the frames draw it or the cursor
/// plane shows it, and one that does not leaves it out either way. The cursor is an opaque 8×8
/// green client cursor with its hotspot at (2, 3), on the pointer at (300, 220): 298…306 ×
/// 217…225, over InputWindow's white window (288…352 × 208…272).
@Suite(.serialized) struct ScreenCaptureCursorTests {
    private static let green: UInt32 = 0x00ff00
    private static let white: UInt32 = 0xffffff

    /// The window, whose client sets the cursor (kept: the cursor goes with it), and a client
    /// allowed to capture.
    private struct Scene {
        let session: HeadlessSession
        let window: InputWindow
        let cursor: WlSurfaceProxy
        let capturer: SessionClient
    }

    /// The window with the pointer on it and the green cursor set, drawn into the frames or
    /// (with `plane`) on the cursor plane.
    private func cursorOverWindow(plane: Bool) throws -> Scene {
        let session = try plane ? HeadlessSession(cursorPlane: ClientCursorPlaneTests.plane) : HeadlessSession()
        session.compositor.privilegeRules = [PrivilegeRule(.executable(testExecutable()), privileges: [.screenCapture])]
        let (window, serial) = try ClientCursorPlaneTests.enteredWindow(session, at: Point(x: 300, y: 220))
        let (cursor, _) = try ClientCursorPlaneTests.setCursor(window, serial: serial, width: 8, height: 8, pixel: 0xff00_ff00, hotspot: (2, 3))
        if plane {
            let output = session.backend.headlessOutput(0)
            #expect(try session.run(seconds: 5) { output.shownCursor?.image.width == 8 })
            #expect(session.screen?.pixel(x: 300, y: 220) == PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255))
        } else {
            #expect(try session.run(seconds: 5) { session.screen?.pixel(x: 300, y: 220) == PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255) })
        }
        return Scene(session: session, window: window, cursor: cursor, capturer: try SessionClient(session))
    }

    /// One ext-image-copy-capture frame of the output, with `options`.
    private func extCopy(_ client: SessionClient, options: ExtImageCopyCaptureManagerV1Options) throws -> MappedBuffer {
        let manager = try client.client.bind(ExtImageCopyCaptureManagerV1Proxy.self, version: 1)
        let sources = try client.client.bind(ExtOutputImageCaptureSourceManagerV1Proxy.self, version: 1)
        let source = try sources.createSource(output: client.client.bind(WlOutputProxy.self, version: 4))
        let frame = try manager.createSession(source: source, options: options).createFrame()
        let buffer = try MappedBuffer(client, width: 640, height: 480)
        try frame.attachBuffer(buffer: buffer.proxy)
        try frame.capture()
        try client.client.roundtrip()
        #expect(frame.events.last == .ready)
        return buffer
    }

    /// One screencopy frame of the output.
    private func screencopy(_ client: SessionClient, overlayCursor: Int32) throws -> MappedBuffer {
        let manager = try client.client.bind(ZwlrScreencopyManagerV1Proxy.self, version: 3)
        let frame = try manager.captureOutput(overlayCursor: overlayCursor, output: client.client.bind(WlOutputProxy.self, version: 4))
        let buffer = try MappedBuffer(client, width: 640, height: 480)
        try frame.copy(buffer: buffer.proxy)
        try client.client.roundtrip()
        #expect(frame.events.last?.name == "ready")
        return buffer
    }

    /// The colour of every pixel of 296…308 × 215…227 in `buffer`: the cursor's and a ring around it.
    private func colours(around buffer: MappedBuffer) -> [[UInt32]] {
        (215..<228).map { y in (296..<309).map { x in buffer.pixel(x: x, y: y, stride: 2560) & 0xff_ffff } }
    }

    /// The same area with the cursor drawn, or only the window.
    private func expected(withCursor: Bool) -> [[UInt32]] {
        (215..<228).map { y in
            (296..<309).map { x in withCursor && (298..<306).contains(x) && (217..<225).contains(y) ? Self.green : Self.white }
        }
    }

    @Test func aCopyWithoutTheCursorLeavesOutTheCursorTheFramesDraw() throws {
        let scene = try cursorOverWindow(plane: false)
        #expect(colours(around: try extCopy(scene.capturer, options: [])) == expected(withCursor: false))
        #expect(colours(around: try screencopy(scene.capturer, overlayCursor: 0)) == expected(withCursor: false))
        // The rest is the screen as shown: only the cursor's 64 pixels differ.
        #expect(try extCopy(scene.capturer, options: []).pixelsDiffering(from: try #require(scene.session.screen), stride: 2560) == 64)
    }

    @Test func aCopyWithTheCursorShowsTheCursorTheFramesDraw() throws {
        let scene = try cursorOverWindow(plane: false)
        #expect(colours(around: try extCopy(scene.capturer, options: .paintCursors)) == expected(withCursor: true))
        #expect(colours(around: try screencopy(scene.capturer, overlayCursor: 1)) == expected(withCursor: true))
    }

    @Test func aCopyWithTheCursorShowsTheCursorOnThePlane() throws {
        let scene = try cursorOverWindow(plane: true)
        #expect(colours(around: try extCopy(scene.capturer, options: .paintCursors)) == expected(withCursor: true))
        #expect(colours(around: try screencopy(scene.capturer, overlayCursor: 1)) == expected(withCursor: true))
        #expect(try extCopy(scene.capturer, options: .paintCursors).pixelsDiffering(from: try #require(scene.session.screen), stride: 2560) == 64)
    }

    @Test func aCopyWithoutTheCursorLeavesOutTheCursorOnThePlane() throws {
        let scene = try cursorOverWindow(plane: true)
        #expect(colours(around: try extCopy(scene.capturer, options: [])) == expected(withCursor: false))
        #expect(try screencopy(scene.capturer, overlayCursor: 0).pixelsDiffering(from: try #require(scene.session.screen), stride: 2560) == 0)
    }

    /// The cursor moving on the plane draws no frame, yet a copy with the cursor waiting for a
    /// change completes, with the bands where the cursor left and arrived as damage: rows
    /// 208…223 lose it at 298…305, rows 224…239 lose its last row and gain it at 308…315.
    @Test func aCopyWithTheCursorWaitingForAChangeSeesTheCursorMoveOnThePlane() throws {
        let scene = try cursorOverWindow(plane: true)
        let client = scene.capturer
        let manager = try client.client.bind(ExtImageCopyCaptureManagerV1Proxy.self, version: 1)
        let sources = try client.client.bind(ExtOutputImageCaptureSourceManagerV1Proxy.self, version: 1)
        let source = try sources.createSource(output: client.client.bind(WlOutputProxy.self, version: 4))
        let captureSession = try manager.createSession(source: source, options: .paintCursors)
        let buffer = try MappedBuffer(client, width: 640, height: 480)
        var frame = try captureSession.createFrame()
        try frame.attachBuffer(buffer: buffer.proxy)
        try frame.capture()
        try client.client.roundtrip()
        #expect(frame.events.last == .ready)
        try frame.destroy()
        frame = try captureSession.createFrame()
        try frame.attachBuffer(buffer: buffer.proxy)
        try frame.capture()
        try client.client.roundtrip()
        #expect(frame.events.isEmpty)
        let output = scene.session.backend.headlessOutput(0)
        let frames = output.presentedFrameCount
        scene.session.compositor.pointerMoved(toX: 310, y: 230)
        #expect(try scene.session.run(seconds: 5) {
            try? client.client.roundtrip()
            return frame.events.last == .ready
        })
        #expect(output.presentedFrameCount == frames)
        #expect(frame.events.filter { $0.name == "damage" } == [
            .damage(x: 298, y: 208, width: 8, height: 16), .damage(x: 298, y: 224, width: 18, height: 16),
        ])
        #expect(buffer.pixel(x: 308, y: 227, stride: 2560) & 0xff_ffff == Self.green)
        #expect(buffer.pixel(x: 298, y: 217, stride: 2560) & 0xff_ffff == Self.white)
    }

    /// A cursor session of the output hears the cursor enter with the hotspot's position and the
    /// hotspot; its capture session asks for a buffer the image's size and copies the image
    /// upright; a move is a new position, and a touch, which hides the cursor, is a leave.
    @Test(arguments: [false, true])
    func aCursorSessionReportsTheCursorAndCopiesItsImage(onPlane: Bool) throws {
        let scene = try cursorOverWindow(plane: onPlane)
        let client = scene.capturer
        let manager = try client.client.bind(ExtImageCopyCaptureManagerV1Proxy.self, version: 1)
        let sources = try client.client.bind(ExtOutputImageCaptureSourceManagerV1Proxy.self, version: 1)
        let source = try sources.createSource(output: client.client.bind(WlOutputProxy.self, version: 4))
        let pointer = try client.client.bind(WlSeatProxy.self, version: 9).getPointer()
        let cursorSession = try manager.createPointerCursorSession(source: source, pointer: pointer)
        let captureSession = try cursorSession.getCaptureSession()
        try client.client.roundtrip()
        #expect(cursorSession.events == [.enter, .position(x: 300, y: 220), .hotspot(x: 2, y: 3)])
        #expect(captureSession.events == [.shmFormat(format: .xrgb8888), .bufferSize(width: 8, height: 8), .done])

        let buffer = try MappedBuffer(client, width: 8, height: 8)
        let frame = try captureSession.createFrame()
        try frame.attachBuffer(buffer: buffer.proxy)
        try frame.capture()
        try client.client.roundtrip()
        #expect(frame.events.filter { $0.name != "presentation_time" } == [
            .transform(transform: .normal), .damage(x: 0, y: 0, width: 8, height: 8), .ready,
        ])
        #expect((0..<64).allSatisfy { buffer.pixel(x: $0 % 8, y: $0 / 8, stride: 32) & 0xff_ffff == Self.green })

        // The next frame waits for the image to change: a blue one, all of it damage.
        try frame.destroy()
        let next = try captureSession.createFrame()
        try next.attachBuffer(buffer: buffer.proxy)
        try next.capture()
        try client.client.roundtrip()
        #expect(next.events.isEmpty)
        _ = try ClientCursorPlaneTests.commit(
            scene.window.client.makeBuffer(width: 8, height: 8, fill: fillPixels(0xff00_00ff, count: 64)), on: scene.cursor)
        try scene.window.client.client.roundtrip()
        #expect(try scene.session.run(seconds: 5) {
            try? client.client.roundtrip()
            return next.events.last == .ready
        })
        #expect(next.events.filter { $0.name == "damage" } == [.damage(x: 0, y: 0, width: 8, height: 8)])
        #expect((0..<64).allSatisfy { buffer.pixel(x: $0 % 8, y: $0 / 8, stride: 32) & 0xff_ffff == 0x0000ff })

        scene.session.compositor.pointerMoved(toX: 310, y: 230)
        #expect(try scene.session.run(seconds: 5) {
            try? client.client.roundtrip()
            return cursorSession.events.count == 4
        })
        #expect(cursorSession.events.last == .position(x: 310, y: 230))
        scene.session.compositor.touchDown(id: 1, x: 100, y: 100)
        scene.session.compositor.touchUp(id: 1)
        #expect(try scene.session.run(seconds: 5) {
            try? client.client.roundtrip()
            return cursorSession.events.count == 5
        })
        #expect(cursorSession.events.last == .leave)
    }
}
