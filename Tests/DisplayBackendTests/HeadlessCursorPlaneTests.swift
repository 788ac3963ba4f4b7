import DisplayBackend
import Glibc
import Graphics
import HeadlessBackend
import SystemCalls
import Testing

/// A headless output's cursor plane, given like a KMS CRTC's: it takes images that fit once turned
/// for the panel, shows them turned at the refresh after the change, and reports that refresh.
@Suite struct HeadlessCursorPlaneTests {
    /// A 640×480 output turned a quarter (its logical output is 480×640) with a 64×32 cursor plane.
    static func turnedOutput() throws -> (HeadlessBackend, HeadlessOutput) {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(
            mode: OutputMode(width: 640, height: 480, refreshMillihertz: 60_000), transform: .rotated90,
            cursorPlane: CursorPlaneSize(width: 64, height: 32))])
        return (backend, backend.headlessOutput(0))
    }

    @Test func aCursorImageShowsTurnedAtTheNextRefreshWithItsHotspotOnThePointer() throws {
        let (backend, output) = try Self.turnedOutput()
        var presentations: [PresentationTiming] = []
        output.onCursorPresented = { presentations.append($0) }
        let image = try CursorPlaneGeometryTests.numbered(width: 2, height: 3)
        #expect(try output.commit(OutputState(cursor: .image(image, hotspotX: 1, hotspotY: 1))))
        try output.commit(OutputState(cursor: .position(Point(x: 10, y: 5))))
        // Nothing shows before the refresh.
        #expect(output.shownCursor == nil)
        #expect(backend.dispatchEvents(forAtMost: 2) { !presentations.isEmpty })
        // The logical (9, 4)…(11, 7) corner-to-corner is the panel's (4, 469)…(7, 471): x' = y, y' = 480 − x.
        let shown = try #require(output.shownCursor)
        #expect(shown.x == 4 && shown.y == 469)
        #expect(shown.image.width == 3 && shown.image.height == 2)
        // Turned a quarter counter-clockwise: the top row (1 2) is the left column, bottom up.
        let numbers = (0..<2).map { y in (0..<3).map { x in Int(shown.image.pixel(x: x, y: y).blue) } }
        #expect(numbers == [[2, 4, 6], [1, 3, 5]])
        #expect(presentations.count == 1)
        // The refresh it reports is one of the output's refreshes (60 Hz).
        #expect(presentations[0].refreshNanoseconds == 16_666_666)

        // A move is no new image: it shows at the next refresh, and no presentation is reported.
        try output.commit(OutputState(cursor: .position(Point(x: 20, y: 5))))
        #expect(backend.dispatchEvents(forAtMost: 2) { output.shownCursor?.y == 459 })
        #expect(presentations.count == 1)

        // The same image again is presented again (a client cursor's frame callback waits on it).
        #expect(try output.commit(OutputState(cursor: .image(image, hotspotX: 1, hotspotY: 1))))
        #expect(backend.dispatchEvents(forAtMost: 2) { presentations.count == 2 })
        #expect(presentations[1].sequence > presentations[0].sequence)

        // Hidden: the plane shows nothing from the next refresh.
        #expect(try output.commit(OutputState(cursor: .image(nil, hotspotX: 0, hotspotY: 0))))
        #expect(backend.dispatchEvents(forAtMost: 2) { presentations.count == 3 })
        #expect(output.shownCursor == nil)
    }

    @Test func anImageFitsWhenItFitsOnceTurnedForThePanel() throws {
        let (backend, output) = try Self.turnedOutput()
        // 30×60 upright is 60×30 on the turned panel: inside the 64×32 plane.
        let tall = Image(width: 30, height: 60, fill: PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255))
        #expect(try output.commit(OutputState(cursor: .image(tall, hotspotX: 0, hotspotY: 0))))
        #expect(backend.dispatchEvents(forAtMost: 2) { output.shownCursor != nil })
        #expect(output.shownCursor?.image.width == 60 && output.shownCursor?.image.height == 30)
        // 60×30 upright is 30×60 turned: taller than the plane. Refused, and the cursor is hidden.
        let wide = Image(width: 60, height: 30, fill: PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255))
        #expect(try !output.commit(OutputState(cursor: .image(wide, hotspotX: 0, hotspotY: 0))))
        #expect(backend.dispatchEvents(forAtMost: 2) { output.shownCursor == nil })
    }

    @Test func anOutputWithoutACursorPlaneRefusesEveryImage() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(mode: OutputMode(width: 64, height: 64, refreshMillihertz: 60_000))])
        let output = backend.headlessOutput(0)
        #expect(try !output.commit(OutputState(cursor: .image(Image(width: 1, height: 1, fill: PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)), hotspotX: 0, hotspotY: 0))))
        #expect(try !output.commit(OutputState(cursor: .image(nil, hotspotX: 0, hotspotY: 0))))
        #expect(output.shownCursor == nil)
    }
}
