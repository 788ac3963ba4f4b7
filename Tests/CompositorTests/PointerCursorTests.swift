import Compositor
import Graphics
import Testing
import WaylandTestClient

/// The pointer cursor: Vitrine's arrow after pointer motion, hidden by a touch or by the board,
/// and a client's own cursor surface with its hotspot on the pointer.
@Suite(.serialized) struct PointerCursorTests {
    /// A 64×64 white window centred on the 640×480 output (288…352 × 208…272), and the client's pointer.
    private func whiteWindow(_ session: HeadlessSession) throws -> (SessionClient, pointer: TestProxy) {
        let client = try SessionClient(session)
        let seat = try client.client.bind("wl_seat", version: 7)
        let pointer = try seat.send(0, [.newID], interface: "wl_pointer")
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
        #expect(pointer.events(named: "enter").count == 1)
        try session.run(seconds: 0.5)
        let body = arrowBody(atPointer: 300, 220)
        #expect(session.screen?.pixel(x: body.x, y: body.y) == white)
    }

    @Test func aClientCursorSurfaceIsDrawnWithItsHotspotOnThePointerAndGetsFrameCallbacks() throws {
        let session = try HeadlessSession()
        let (client, pointer) = try whiteWindow(session)
        session.compositor.pointerMoved(toX: 300, y: 220)
        try client.client.roundtrip()
        guard case .uint(let serial) = pointer.events(named: "enter").last?.arguments.first else {
            Issue.record("no wl_pointer.enter")
            return
        }
        // An 8×8 green cursor with its hotspot at (2, 3): drawn over 298…306 × 217…225.
        let cursorSurface = try client.compositor.send(0, [.newID], interface: "wl_surface")
        try pointer.send(0, [.uint(serial), .object(cursorSurface), .int(2), .int(3)])
        let callback = try cursorSurface.send(3, [.newID], interface: "wl_callback")
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
            return !callback.events(named: "done").isEmpty
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
