import Graphics
import Testing
@testable import OnScreenKeyboard

@Suite struct KeyboardGeometryTests {
    let size = Size(width: 800, height: 300)

    @Test func usLettersAtScaleOneHaveExactFrames() throws {
        let g = KeyboardGeometry(page: KeyboardLayout.us.page(.letters), size: size, scale: 1)
        // Units of 79.2 px from x = 4, boundaries rounded, 3 px of gap each side; rows of 73 px.
        #expect(g.placed("q")?.frame == Rect(x: 7, y: 8, width: 73, height: 65))
        #expect(g.placed("w")?.frame == Rect(x: 86, y: 8, width: 73, height: 65))
        #expect(g.placed("p")?.frame == Rect(x: 720, y: 8, width: 73, height: 65))
        #expect(g.placed("a")?.frame == Rect(x: 47, y: 81, width: 73, height: 65))
        #expect(g.placed("⇧")?.frame == Rect(x: 7, y: 154, width: 113, height: 65))
        #expect(g.placed("?123")?.frame == Rect(x: 7, y: 227, width: 113, height: 65))
        #expect(g.placed("English")?.frame == Rect(x: 205, y: 227, width: 350, height: 65))
        #expect(g.placed("⏎")?.frame == Rect(x: 641, y: 227, width: 152, height: 65))
    }

    @Test func theLayoutKeyTakesAUnitOfTheSpaceBar() {
        let page = OnScreenKeyboardConfiguration(layouts: [.ru, .us]).page(.letters, layoutIndex: 0, for: .normal)
        let g = KeyboardGeometry(page: page, size: size, scale: 1)
        // Eleven units of 72 px from x = 4; the ten-unit bottom row starts half a unit in.
        #expect(g.placed("?123")?.frame == Rect(x: 43, y: 227, width: 102, height: 65))
        #expect(g.placed("EN")?.frame == Rect(x: 151, y: 227, width: 66, height: 65))
        #expect(g.placed("Русский")?.frame == Rect(x: 295, y: 227, width: 246, height: 65))
        #expect(g.key(at: Point(x: 184, y: 260))?.key.action == .nextLayout)
    }

    @Test func scaleTwoPlacesEdgesOnHalfPoints() {
        let g = KeyboardGeometry(page: KeyboardLayout.us.page(.letters), size: size, scale: 2)
        // 1600 × 600 px: units of 158.4 px from x = 8, 6 px of gap each side, rows of 146 px.
        #expect(g.placed("q")?.frame == Rect(x: 7, y: 8, width: 73, height: 65))
        #expect(g.placed("w")?.frame == Rect(x: 86, y: 8, width: 73.5, height: 65))
        #expect(g.placed("English")?.frame == Rect(x: 205, y: 227, width: 350.5, height: 65))
    }

    @Test func scaleOneAndAHalfPutsEdgesOnThirdsOfAPoint() throws {
        let g = KeyboardGeometry(page: KeyboardLayout.us.page(.letters), size: size, scale: 1.5)
        // 1200 × 450 px: padding 6, gaps 9 px (4 before a boundary, 5 after) and 12 px, rows 109.5 px.
        let q = try #require(g.placed("q")).frame
        #expect(abs(q.minX - 11 / 1.5) < 1e-9 && abs(q.minY - 12 / 1.5) < 1e-9)
        #expect(abs(q.width - 110 / 1.5) < 1e-9 && abs(q.height - 98 / 1.5) < 1e-9)
        // The second row starts at 116 px (115.5 rounded) + 6.
        let a = try #require(g.placed("a")).frame
        #expect(abs(a.minY - 122 / 1.5) < 1e-9 && abs(a.height - 97 / 1.5) < 1e-9)
    }

    @Test func everyKeyEdgeIsOnADevicePixelAndEveryRowFitsAtEachScale() {
        let sizes = [Size(width: 800, height: 300), Size(width: 1366, height: 307.2), Size(width: 390, height: 253), Size(width: 1024, height: 333)]
        var pages: [KeyboardPage] = []
        for layout in KeyboardLayout.all {
            pages += [layout.page(.letters), layout.page(.symbols), layout.page(.letters, for: .email)]
        }
        pages += NumericPad.allCases.map { KeyboardLayout.us.page(.numeric($0)) }
        for scale in [1.0, 1.25, 1.5, 2.0, 3.0] {
            for size in sizes {
                for page in pages {
                    let g = KeyboardGeometry(page: page, size: size, scale: scale)
                    #expect(g.keys.count == page.rows.map(\.count).reduce(0, +))
                    for key in g.keys {
                        let f = key.frame
                        let aligned = [f.minX, f.minY, f.maxX, f.maxY].allSatisfy { isOnPixel($0, scale: scale) }
                        #expect(aligned, "\(key.key.label(shifted: false)) \(f) at \(scale)")
                        #expect(f.minX >= 0 && f.maxX <= size.width && f.minY >= 0 && f.maxY <= size.height)
                        #expect(f.width > 0 && f.height > 0)
                    }
                    // Every gap in a row is the same whole number of pixels.
                    for row in 0..<page.rows.count {
                        let frames = g.keys.filter { $0.row == row }.map(\.frame)
                        let gaps = zip(frames, frames.dropFirst()).map { (($1.minX - $0.maxX) * scale).rounded() }
                        #expect(gaps.allSatisfy { $0 == (6 * scale).rounded() }, "\(gaps) at \(scale)")
                    }
                }
            }
        }
    }

    @Test func aNumericPadIsCentredAtTheMaximumUnitWidth() {
        let g = KeyboardGeometry(page: KeyboardLayout.us.page(.numeric(.digits)), size: size, scale: 1)
        // Three units of 160 points centred in 800.
        #expect(g.placed("1")?.frame == Rect(x: 163, y: 8, width: 154, height: 65))
        #expect(g.placed("3")?.frame == Rect(x: 483, y: 8, width: 154, height: 65))
        #expect(g.placed("⏎")?.frame == Rect(x: 483, y: 227, width: 154, height: 65))
    }

    @Test func aTouchInAGapOrBesideAShortRowFindsTheNearestKeyOfItsRow() {
        let g = KeyboardGeometry(page: KeyboardLayout.us.page(.letters), size: size, scale: 1)
        #expect(g.key(at: Point(x: 40, y: 40))?.key.label(shifted: false) == "q")
        // The gap between q (ends at 80) and w (starts at 86), nearer w.
        #expect(g.key(at: Point(x: 84, y: 40))?.key.label(shifted: false) == "w")
        // Left of a, in the half unit the second row leaves free; the gap between rows 1 and 2.
        #expect(g.key(at: Point(x: 10, y: 100))?.key.label(shifted: false) == "a")
        #expect(g.key(at: Point(x: 60, y: 152))?.key.label(shifted: false) == "⇧")
        #expect(g.key(at: Point(x: 400, y: 299))?.key.label(shifted: false) == "English")
        #expect(g.key(at: Point(x: 400, y: 300)) == nil)
        #expect(g.key(at: Point(x: -1, y: 10)) == nil)
    }
}
