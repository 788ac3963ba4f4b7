import Compositor
import DisplayBackend
import Graphics
import Testing
import WaylandTestClient

/// The pointer cursor: Vitrine's arrow after pointer motion, hidden by a touch or by the board,
/// and a client's own cursor surface with its hotspot on the pointer.
@Suite(.serialized) struct PointerCursorTests {
    /// A 64×64 white window centred on the 640×480 output (288…352 × 208…272), and the client's pointer.
    private func whiteWindow(_ session: HeadlessSession) throws -> (SessionClient, pointer: WlPointerProxy) {
        let client = try SessionClient(session)
        let seat = try client.client.bind(WlSeatProxy.self, version: 7)
        let pointer = try seat.getPointer()
        let (surface, _) = try client.makeToplevel()
        try client.show(client.makeBuffer(width: 64, height: 64, fill: fillPixels(0xffff_ffff, count: 64 * 64)), on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == white })
        return (client, pointer)
    }

    /// (4, 10) from the arrow's origin is inside its black body; the arrow's tip, its hotspot, is at (1, 1).
    private func arrowBody(atPointer x: Int, _ y: Int) -> (x: Int, y: Int) { (x - 1 + 4, y - 1 + 10) }

    @Test func theArrowAppearsWhenThePointerMovesAndATouchHidesIt() throws {
        let session = try HeadlessSession()
        let window = try whiteWindow(session)
        let body = arrowBody(atPointer: 300, 220)
        #expect(session.screen?.pixel(x: body.x, y: body.y) == white)
        #expect(!session.compositor.isCursorShown)

        session.compositor.pointerMoved(toX: 300, y: 220)
        #expect(session.compositor.isCursorShown)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: body.x, y: body.y) == black })
        // Left of the tip is the window again.
        #expect(session.screen?.pixel(x: 297, y: 225) == white)

        session.compositor.touchDown(id: 0, x: 600, y: 400)
        session.compositor.touchUp(id: 0)
        #expect(!session.compositor.isCursorShown)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: body.x, y: body.y) == white })
        _ = window
    }

    @Test func aHiddenCursorIsNeverDrawnButThePointerStillWorks() throws {
        let session = try HeadlessSession()
        let (client, pointer) = try whiteWindow(session)
        session.compositor.cursorVisibility = .hidden
        session.compositor.pointerMoved(toX: 300, y: 220)
        try client.client.roundtrip()
        #expect(!session.compositor.isCursorShown)
        #expect(pointer.events.filter { $0.name == "enter" }.count == 1)
        try session.run(seconds: 0.5)
        let body = arrowBody(atPointer: 300, 220)
        #expect(session.screen?.pixel(x: body.x, y: body.y) == white)
    }

    @Test func aClientCursorSurfaceIsDrawnWithItsHotspotOnThePointerAndGetsFrameCallbacks() throws {
        let session = try HeadlessSession()
        let (client, pointer) = try whiteWindow(session)
        session.compositor.pointerMoved(toX: 300, y: 220)
        try client.client.roundtrip()
        guard let serial = pointer.lastEnter?.serial else {
            Issue.record("no wl_pointer.enter")
            return
        }
        // An 8×8 green cursor with its hotspot at (2, 3): drawn over 298…306 × 217…225.
        let cursorSurface = try client.compositor.createSurface()
        try pointer.setCursor(serial: serial, surface: cursorSurface, hotspotX: 2, hotspotY: 3)
        let callback = try cursorSurface.frame()
        try client.show(client.makeBuffer(width: 8, height: 8, fill: fillPixels(0xff00_ff00, count: 64)), on: cursorSurface)
        try client.client.roundtrip()
        let green = PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 298, y: 217) == green })
        #expect(session.screen?.pixel(x: 305, y: 224) == green)
        #expect(session.screen?.pixel(x: 297, y: 217) == white)
        #expect(session.screen?.pixel(x: 306, y: 224) == white)
        // The arrow is gone: its body would be black.
        let body = arrowBody(atPointer: 300, 220)
        #expect(session.screen?.pixel(x: body.x, y: body.y) == white)
        #expect(try session.run(seconds: 30) {
            try? client.client.roundtrip()
            return callback.events.contains { $0.name == "done" }
        })

        // Off the client's window the arrow is back.
        session.compositor.pointerMoved(toX: 100, y: 100)
        let outside = arrowBody(atPointer: 100, 100)
        // The arrow's body is black on black there, its outline shows.
        #expect(try session.run(seconds: 30) {
            session.screen?.pixel(x: 298, y: 217) == white && session.screen?.pixel(x: 100, y: 105) != black
        })
        #expect(session.screen?.pixel(x: outside.x, y: outside.y) == black)
    }
}

/// A client's cursor surface on the output's cursor plane (a headless one, sized as KMS's): shown
/// by the plane with its hotspot on the pointer, updated by its commits without a frame, its frame
/// callbacks sent once the plane shows the update, and drawn into the frames when the plane
/// cannot take it.
@Suite(.serialized) struct ClientCursorPlaneTests {
    static let plane = CursorPlaneSize(width: 64, height: 64)
    static let green = PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255)
    static let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)

    /// `InputWindow`'s white window, shown, with the pointer moved to `pointer` on it; the serial
    /// of the pointer's enter.
    static func enteredWindow(_ session: HeadlessSession, at pointer: Point, probe: (x: Int, y: Int) = (320, 240)) throws -> (InputWindow, serial: UInt32) {
        let window = try InputWindow(session)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: probe.x, y: probe.y) == white })
        session.compositor.pointerMoved(toX: pointer.x, y: pointer.y)
        try window.client.client.roundtrip()
        guard let serial = window.pointer.lastEnter?.serial else { throw TestClientError.timedOut }
        return (window, serial)
    }

    /// Commits `buffer` on `surface` with a frame callback; returns the callback.
    static func commit(_ buffer: WlBufferProxy, on surface: WlSurfaceProxy, scale: Int32 = 1) throws -> WlCallbackProxy {
        let callback = try surface.frame()
        if scale != 1 { try surface.setBufferScale(scale: scale) }
        try surface.attach(buffer: buffer, x: 0, y: 0)
        try surface.commit()
        return callback
    }

    /// A new cursor surface set with the hotspot (`x`, `y`), showing a `width`×`height` buffer of `pixel`.
    static func setCursor(_ window: InputWindow, serial: UInt32, width: Int, height: Int, pixel: UInt32,
                           hotspot: (x: Int32, y: Int32), scale: Int32 = 1) throws -> (surface: WlSurfaceProxy, callback: WlCallbackProxy) {
        let surface = try window.client.compositor.createSurface()
        try window.pointer.setCursor(serial: serial, surface: surface, hotspotX: hotspot.x, hotspotY: hotspot.y)
        let buffer = try window.client.makeBuffer(width: width, height: height, fill: fillPixels(pixel, count: width * height))
        let callback = try Self.commit(buffer, on: surface, scale: scale)
        try window.client.client.roundtrip()
        return (surface, callback)
    }

    private func isDone(_ callback: WlCallbackProxy, _ client: SessionClient) -> Bool {
        try? client.client.roundtrip()
        return callback.events.contains { $0.name == "done" }
    }

    @Test func aClientCursorThatFitsIsOnTheCursorPlaneWithItsHotspotOnThePointerAndDrawsNoFrame() throws {
        let session = try HeadlessSession(cursorPlane: Self.plane)
        let output = session.backend.headlessOutput(0)
        let (window, serial) = try Self.enteredWindow(session, at: Point(x: 300, y: 220))
        // The arrow goes on the plane first.
        #expect(try session.run(seconds: 5) { output.shownCursor?.image.width == 13 })
        try session.run(seconds: 0.2)
        let frames = output.presentedFrameCount

        // An 8×8 green cursor with its hotspot at (2, 3): the plane's corner on (298, 217).
        let (_, callback) = try Self.setCursor(window, serial: serial, width: 8, height: 8, pixel: 0xff00_ff00, hotspot: (2, 3))
        #expect(try session.run(seconds: 5) { output.shownCursor?.image.width == 8 && isDone(callback, window.client) })
        let shown = try #require(output.shownCursor)
        #expect(shown.x == 298 && shown.y == 217)
        #expect(shown.image.height == 8)
        #expect(shown.image.pixel(x: 0, y: 0) == Self.green && shown.image.pixel(x: 7, y: 7) == Self.green)
        // The frames show the window under it, and none was drawn for it.
        #expect(session.screen?.pixel(x: 298, y: 217) == white)
        #expect(output.presentedFrameCount == frames)

        // Pointer motion moves the plane alone.
        session.compositor.pointerMoved(toX: 310, y: 230)
        #expect(try session.run(seconds: 5) { output.shownCursor?.x == 308 && output.shownCursor?.y == 227 })
        #expect(output.presentedFrameCount == frames)
    }

    @Test func anOffsetCommitMovesTheHotspotWithTheNewImage() throws {
        let session = try HeadlessSession(cursorPlane: Self.plane)
        let output = session.backend.headlessOutput(0)
        let (window, serial) = try Self.enteredWindow(session, at: Point(x: 300, y: 220))
        let (surface, callback) = try Self.setCursor(window, serial: serial, width: 8, height: 8, pixel: 0xff00_ff00, hotspot: (2, 3))
        #expect(try session.run(seconds: 5) { isDone(callback, window.client) })
        // wl_surface.offset (1, 1) with a blue image: the hotspot becomes (1, 2), the corner (299, 218).
        try surface.offset(x: 1, y: 1)
        let moved = try Self.commit(window.client.makeBuffer(width: 8, height: 8, fill: fillPixels(0xff00_00ff, count: 64)), on: surface)
        try window.client.client.roundtrip()
        #expect(try session.run(seconds: 5) { isDone(moved, window.client) })
        #expect(output.shownCursor?.image.pixel(x: 0, y: 0) == Self.blue)
        #expect(output.shownCursor?.x == 299 && output.shownCursor?.y == 218)
    }

    @Test func anAnimatedCursorUpdatesThePlaneAndGetsItsFrameCallbacksWithoutFrames() throws {
        let session = try HeadlessSession(cursorPlane: Self.plane)
        let output = session.backend.headlessOutput(0)
        let (window, serial) = try Self.enteredWindow(session, at: Point(x: 300, y: 220))
        var (surface, callback) = try Self.setCursor(window, serial: serial, width: 8, height: 8, pixel: 0xff00_ff00, hotspot: (2, 3))
        #expect(try session.run(seconds: 5) { isDone(callback, window.client) })
        try session.run(seconds: 0.2)
        let frames = output.presentedFrameCount
        // Four images, each drawn when the last one's callback came, as a client animating its cursor does.
        let colours: [(UInt32, PremultipliedPixel)] = [
            (0xffff_0000, PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)), (0xff00_00ff, Self.blue),
            (0xffff_ffff, white), (0xff00_ff00, Self.green),
        ]
        for (word, pixel) in colours {
            callback = try Self.commit(window.client.makeBuffer(width: 8, height: 8, fill: fillPixels(word, count: 64)), on: surface)
            #expect(try session.run(seconds: 5) { isDone(callback, window.client) })
            #expect(output.shownCursor?.image.pixel(x: 4, y: 4) == pixel)
        }
        // A commit with no new buffer still gets its callback from the plane.
        callback = try surface.frame()
        try surface.commit()
        #expect(try session.run(seconds: 5) { isDone(callback, window.client) })
        #expect(output.presentedFrameCount == frames)
        _ = surface
    }

    @Test func aCursorTooLargeForThePlaneIsDrawnIntoTheFramesUntilItFitsAgain() throws {
        let session = try HeadlessSession(cursorPlane: Self.plane)
        let output = session.backend.headlessOutput(0)
        let (window, serial) = try Self.enteredWindow(session, at: Point(x: 300, y: 220))
        // 80 pixels wide: wider than the 64×64 plane. Drawn from (300, 220) to (379, 227).
        let (surface, first) = try Self.setCursor(window, serial: serial, width: 80, height: 8, pixel: 0xff00_ff00, hotspot: (0, 0))
        #expect(try session.run(seconds: 10) {
            session.screen?.pixel(x: 300, y: 220) == Self.green && session.screen?.pixel(x: 379, y: 227) == Self.green
        })
        #expect(try session.run(seconds: 5) { isDone(first, window.client) })
        #expect(output.shownCursor == nil)

        // An 8×8 image fits: on the plane again, gone from the frames.
        let callback = try Self.commit(window.client.makeBuffer(width: 8, height: 8, fill: fillPixels(0xff00_00ff, count: 64)), on: surface)
        try window.client.client.roundtrip()
        #expect(try session.run(seconds: 10) {
            output.shownCursor?.image.pixel(x: 0, y: 0) == Self.blue && session.screen?.pixel(x: 300, y: 220) == white
        })
        #expect(output.shownCursor?.x == 300 && output.shownCursor?.y == 220)
        #expect(try session.run(seconds: 5) { isDone(callback, window.client) })
    }

    @Test func aCursorWithASubsurfaceIsDrawnIntoTheFrames() throws {
        let session = try HeadlessSession(cursorPlane: Self.plane)
        let output = session.backend.headlessOutput(0)
        let (window, serial) = try Self.enteredWindow(session, at: Point(x: 300, y: 220))
        let subcompositor = try window.client.client.bind(WlSubcompositorProxy.self, version: 1)
        let surface = try window.client.compositor.createSurface()
        let child = try window.client.compositor.createSurface()
        _ = try subcompositor.getSubsurface(surface: child, parent: surface)
        try window.pointer.setCursor(serial: serial, surface: surface, hotspotX: 0, hotspotY: 0)
        try window.client.show(window.client.makeBuffer(width: 4, height: 4, fill: fillPixels(0xff00_00ff, count: 16)), on: child)
        try window.client.show(window.client.makeBuffer(width: 8, height: 8, fill: fillPixels(0xff00_ff00, count: 64)), on: surface)
        try window.client.client.roundtrip()
        // The child (a synchronized subsurface at (0, 0)) is blue over the green surface.
        #expect(try session.run(seconds: 10) {
            session.screen?.pixel(x: 300, y: 220) == Self.blue && session.screen?.pixel(x: 307, y: 227) == Self.green
        })
        #expect(output.shownCursor == nil)
    }

    @Test func onAScaledOutputThePlaneGetsTheCursorAtThePanelsPixels() throws {
        // Scale 2: 640×480 pixels, 320×240 points; the window is 128…192 × 88…152 points.
        let session = try HeadlessSession(scale: 2, cursorPlane: Self.plane)
        let output = session.backend.headlessOutput(0)
        let (window, serial) = try Self.enteredWindow(session, at: Point(x: 150, y: 110))
        // A scale-1 buffer is drawn again at twice its size; the hotspot (2, 3) points is the
        // pixel (4, 6), on the pointer's pixel (300, 220).
        let (surface, callback) = try Self.setCursor(window, serial: serial, width: 8, height: 8, pixel: 0xff00_ff00, hotspot: (2, 3))
        #expect(try session.run(seconds: 5) { output.shownCursor?.image.width == 16 && isDone(callback, window.client) })
        #expect(output.shownCursor?.image.height == 16)
        #expect(output.shownCursor?.x == 296 && output.shownCursor?.y == 214)
        #expect(output.shownCursor?.image.pixel(x: 8, y: 8) == Self.green)
        // A buffer at scale 2 is the panel's pixels already: 16×16 blue, the same 8×8 points.
        let scaled = try Self.commit(window.client.makeBuffer(width: 16, height: 16, fill: fillPixels(0xff00_00ff, count: 256)), on: surface, scale: 2)
        try window.client.client.roundtrip()
        #expect(try session.run(seconds: 5) { output.shownCursor?.image.pixel(x: 0, y: 0) == Self.blue && isDone(scaled, window.client) })
        #expect(output.shownCursor?.image.width == 16 && output.shownCursor?.image.pixel(x: 15, y: 15) == Self.blue)
        #expect(output.shownCursor?.x == 296 && output.shownCursor?.y == 214)
    }

    @Test func onATurnedOutputTheCursorIsTurnedOntoThePlaneAtThePointer() throws {
        // 640×480 turned a quarter: the logical output is 480×640, the window 208…272 × 288…352.
        let session = try HeadlessSession(transform: .rotated90, cursorPlane: Self.plane)
        let output = session.backend.headlessOutput(0)
        let (window, serial) = try Self.enteredWindow(session, at: Point(x: 250, y: 330))
        // 8×4 with the hotspot (2, 3): logical (248, 327)…(256, 331), the panel's (327, 224)…(331, 232)
        // (x' = y, y' = 480 − x), the image 4×8 there.
        let (_, callback) = try Self.setCursor(window, serial: serial, width: 8, height: 4, pixel: 0xff00_ff00, hotspot: (2, 3))
        #expect(try session.run(seconds: 5) { output.shownCursor?.image.width == 4 && isDone(callback, window.client) })
        #expect(output.shownCursor?.image.height == 8)
        #expect(output.shownCursor?.x == 327 && output.shownCursor?.y == 224)
    }

    @Test func aHiddenCursorClearsThePlaneAndPointerMotionAfterATouchBringsTheClientsBack() throws {
        let session = try HeadlessSession(cursorPlane: Self.plane)
        let output = session.backend.headlessOutput(0)
        let (window, serial) = try Self.enteredWindow(session, at: Point(x: 300, y: 220))
        let (surface, callback) = try Self.setCursor(window, serial: serial, width: 8, height: 8, pixel: 0xff00_ff00, hotspot: (2, 3))
        #expect(try session.run(seconds: 5) { output.shownCursor?.image.width == 8 && isDone(callback, window.client) })

        // A touch hides the cursor; motion shows the client's again, on the plane.
        session.compositor.touchDown(id: 0, x: 600, y: 400)
        session.compositor.touchUp(id: 0)
        #expect(try session.run(seconds: 5) { output.shownCursor == nil })
        session.compositor.pointerMoved(toX: 302, y: 222)
        #expect(try session.run(seconds: 5) { output.shownCursor?.image.width == 8 })
        #expect(output.shownCursor?.x == 300 && output.shownCursor?.y == 219)

        // set_cursor with no surface: nothing on the plane, nothing in the frames.
        try window.pointer.setCursor(serial: serial, surface: nil, hotspotX: 0, hotspotY: 0)
        try window.client.client.roundtrip()
        #expect(try session.run(seconds: 5) { output.shownCursor == nil })
        #expect(!session.compositor.isCursorShown)
        #expect(session.screen?.pixel(x: 300, y: 219) == white)
        _ = surface
    }
}
