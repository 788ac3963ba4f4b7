import Compositor
import DisplayBackend
import Graphics
import HeadlessBackend
import Input
import SystemCalls
import Testing
import WaylandTestClient

/// The pointer across several outputs: relative motion crosses from one output's edge onto the
/// one beside it, stays on the union of the outputs (clamped at the layout's outer edges, pulled
/// out of the gap under the shorter output), the cursor plane of the output the pointer is on shows
/// the cursor while the others show none, and the pointer of an unplugged output comes back onto
/// what remains. Output 0 is 640×480 at (0, 0), output 1 800×600 at (640, 0), both with a 64×64
/// headless cursor plane; the arrow's hotspot is its pixel (1, 1).
@Suite(.serialized) struct PointerLayoutTests {
    static let plane = CursorPlaneSize(width: 64, height: 64)
    static let green = PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255)
    private let mouse = InputDeviceID(rawValue: 3)

    /// A session on output 0 with output 1 plugged in right of it.
    private func twoOutputs() throws -> (HeadlessSession, HeadlessOutput, HeadlessOutput) {
        let session = try HeadlessSession(cursorPlane: Self.plane)
        let second = try session.backend.addOutput(HeadlessOutputConfiguration(
            mode: OutputMode(width: 800, height: 600, refreshMillihertz: 60_000), cursorPlane: Self.plane))
        return (session, session.backend.headlessOutput(0), second)
    }

    private func move(_ session: HeadlessSession, by dx: Double, _ dy: Double) {
        session.compositor.handle(.pointerMotion(time: monotonicNanoseconds() / 1000, device: mouse, dx: dx, dy: dy, unacceleratedDX: dx, unacceleratedDY: dy))
    }

    /// Whether `output`'s plane shows an image `width` pixels wide with its corner at (`x`, `y`).
    private func shows(_ output: HeadlessOutput, width: Int, at x: Int, _ y: Int) -> Bool {
        guard let shown = output.shownCursor else { return false }
        return shown.image.width == width && shown.x == x && shown.y == y
    }

    @Test func relativeMotionCrossesOntoTheNextOutputWhoseCursorPlaneShowsTheArrowThere() throws {
        let (session, first, second) = try twoOutputs()
        let window = try InputWindow(session)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == white })
        session.compositor.pointerMoved(toX: 300, y: 220)
        try window.client.client.roundtrip()
        #expect(window.pointer.events.filter { $0.name == "enter" }.count == 1)
        #expect(try session.run(seconds: 5) { shows(first, width: 13, at: 299, 219) })
        #expect(second.shownCursor == nil)

        // (300, 220) + (400, 80) is (700, 300): output 1's (60, 300).
        move(session, by: 400, 80)
        #expect(try session.run(seconds: 5) { shows(second, width: 13, at: 59, 299) && first.shownCursor == nil })
        #expect(session.compositor.isCursorShown)
        // Nothing of the client's is on output 1: the window's surface was left.
        try window.client.client.roundtrip()
        #expect(window.pointer.events.filter { $0.name == "leave" }.count == 1)

        // Back across the edge: (700, 300) − (390, 70) is output 0's (310, 230), on the window at (22, 22).
        move(session, by: -390, -70)
        #expect(try session.run(seconds: 5) { shows(first, width: 13, at: 309, 229) && second.shownCursor == nil })
        try window.client.client.roundtrip()
        let enter = try #require(window.pointer.lastEnter)
        #expect(window.pointer.events.filter { $0.name == "enter" }.count == 2)
        #expect(enter.x == 22 && enter.y == 22)
        #expect(window.client.client.protocolError == nil)
    }

    @Test func thePointerIsClampedAtTheLayoutsOuterEdgesAndPulledOutOfTheGapUnderTheShorterOutput() throws {
        let (session, first, second) = try twoOutputs()
        session.compositor.pointerMoved(toX: 700, y: 300)
        #expect(try session.run(seconds: 5) { shows(second, width: 13, at: 59, 299) })
        // Far right and up: output 1's last point, (1439, 0), its (799, 0).
        move(session, by: 5_000, -5_000)
        #expect(try session.run(seconds: 5) { shows(second, width: 13, at: 798, -1) })
        // Far left and down: (−3561, 5000) is closest to output 0's (0, 479).
        move(session, by: -5_000, 5_000)
        #expect(try session.run(seconds: 5) { shows(first, width: 13, at: -1, 478) && second.shownCursor == nil })

        // Under output 0 (480 high) and left of output 1 is no output. (100, 570) is closest to
        // output 0's (100, 479) …
        session.compositor.pointerMoved(toX: 100, y: 470)
        move(session, by: 0, 100)
        #expect(try session.run(seconds: 5) { shows(first, width: 13, at: 99, 478) })
        // … and (600, 570) to output 1's left edge, (640, 570): its (0, 570).
        move(session, by: 500, 91)
        #expect(try session.run(seconds: 5) { shows(second, width: 13, at: -1, 569) && first.shownCursor == nil })
    }

    @Test func aClientCursorHeldByAButtonGoesOntoTheNextOutputsPlaneWithThePointer() throws {
        let (session, first, second) = try twoOutputs()
        let window = try InputWindow(session)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == white })
        session.compositor.pointerMoved(toX: 300, y: 220)
        try window.client.client.roundtrip()
        guard let serial = window.pointer.lastEnter?.serial else {
            Issue.record("no wl_pointer.enter")
            return
        }
        // An 8×8 green cursor with its hotspot at (2, 3).
        let cursor = try window.client.compositor.createSurface()
        try window.pointer.setCursor(serial: serial, surface: cursor, hotspotX: 2, hotspotY: 3)
        try window.client.show(window.client.makeBuffer(width: 8, height: 8, fill: fillPixels(0xff00_ff00, count: 64)), on: cursor)
        try window.client.client.roundtrip()
        #expect(try session.run(seconds: 5) { shows(first, width: 8, at: 298, 217) })

        // The button held keeps the pointer with the window (the implicit grab) and its cursor
        // goes along: at output 1's (60, 300) the plane's corner is (58, 297).
        session.compositor.pointerButton(0x110, pressed: true)
        move(session, by: 400, 80)
        #expect(try session.run(seconds: 5) { shows(second, width: 8, at: 58, 297) && first.shownCursor == nil })
        #expect(second.shownCursor?.image.pixel(x: 4, y: 4) == Self.green)
        try window.client.client.roundtrip()
        #expect(!window.pointer.events.contains { $0.name == "leave" })

        // Released off the window: the pointer leaves it, and Vitrine's arrow shows there.
        session.compositor.pointerButton(0x110, pressed: false)
        try window.client.client.roundtrip()
        #expect(window.pointer.events.filter { $0.name == "leave" }.count == 1)
        #expect(try session.run(seconds: 5) { shows(second, width: 13, at: 59, 299) })
        #expect(first.shownCursor == nil)
    }

    @Test func thePointerOfAnUnpluggedOutputComesToTheClosestPointOfTheOutputsLeft() throws {
        let (session, first, second) = try twoOutputs()
        session.compositor.pointerMoved(toX: 1_000, y: 300)
        #expect(try session.run(seconds: 5) { shows(second, width: 13, at: 359, 299) })
        session.backend.removeOutput(second)
        // (1000, 300) is closest to output 0's right edge: (639, 300).
        #expect(try session.run(seconds: 5) { shows(first, width: 13, at: 638, 299) })
        #expect(session.compositor.isCursorShown)

        // Unplugging output 0 with the pointer on it: output 2 (800×600 at (640, 0)) takes it at (640, 300).
        let third = try session.backend.addOutput(HeadlessOutputConfiguration(
            mode: OutputMode(width: 800, height: 600, refreshMillihertz: 60_000), cursorPlane: Self.plane))
        session.backend.removeOutput(first)
        #expect(try session.run(seconds: 5) { shows(third, width: 13, at: -1, 299) })
        // And relative motion goes on from there: (640, 300) + (10, 10) is its (10, 310).
        move(session, by: 10, 10)
        #expect(try session.run(seconds: 5) { shows(third, width: 13, at: 9, 309) })
    }

    @Test func anUnmappedAbsolutePointerCoversTheWholeLayout() throws {
        let (session, first, second) = try twoOutputs()
        // The layout's box is 1440×600: its middle, (720, 300), is output 1's (80, 300).
        session.compositor.handle(.pointerMotionAbsolute(time: 1_000, device: mouse, x: 0.5, y: 0.5))
        #expect(try session.run(seconds: 5) { shows(second, width: 13, at: 79, 299) })
        // (360, 540) is under output 0, in no output: its closest point is output 0's (360, 479).
        session.compositor.handle(.pointerMotionAbsolute(time: 2_000, device: mouse, x: 0.25, y: 0.9))
        #expect(try session.run(seconds: 5) { shows(first, width: 13, at: 359, 478) && second.shownCursor == nil })
    }
}
