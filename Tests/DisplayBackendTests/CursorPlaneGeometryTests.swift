import DisplayBackend
import Graphics
import Testing

/// The cursor plane scans its buffer out unturned: the image is turned into it with the output's
/// transform, and the plane placed where the turned image lands on the panel.
@Suite struct CursorPlaneGeometryTests {
    /// An image whose pixels are numbered from 1 row by row (the number in the blue and green channels).
    static func numbered(width: Int, height: Int) throws -> Image {
        var bytes: [UInt8] = []
        for index in 0..<(width * height) { bytes += [UInt8((index + 1) & 0xFF), UInt8((index + 1) >> 8), 0, 255] }
        return try bytes.withUnsafeBytes { try Image(width: width, height: height, pixelFormat: .argb8888, bytesPerRow: width * 4, bytes: $0) }
    }

    /// Turns `image` into a `width`×`height` buffer (filled with 0) and returns its numbers, row by row.
    static func turned(_ image: Image, _ transform: OutputTransform, width: Int, height: Int) -> [[UInt32]] {
        let geometry = CursorPlaneGeometry(mode: OutputMode(width: 1024, height: 768, refreshMillihertz: 60000), scaleFactor: 1, transform: transform)
        var buffer = [UInt32](repeating: 0, count: width * height)
        buffer.withUnsafeMutableBytes { geometry.turn(image, into: $0.baseAddress!, bytesPerRow: width * 4) }
        return (0..<height).map { row in buffer[row * width..<(row + 1) * width].map { $0 & 0xFFFF } }
    }

    @Test func anUnturnedOutputCopiesTheImageToTheBuffersCorner() throws {
        let image = try Self.numbered(width: 2, height: 3)
        #expect(Self.turned(image, .normal, width: 4, height: 4) == [[1, 2, 0, 0], [3, 4, 0, 0], [5, 6, 0, 0], [0, 0, 0, 0]])
    }

    @Test func aQuarterTurnPutsTheImagesTopLeftAtTheBottomLeft() throws {
        let image = try Self.numbered(width: 2, height: 3)
        // Turned a quarter counter-clockwise: the top row (1 2) becomes the left column, bottom up.
        #expect(Self.turned(image, .rotated90, width: 4, height: 4) == [[2, 4, 6, 0], [1, 3, 5, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    }

    @Test func halfAndThreeQuarterTurnsAndMirrorsTurnTheImageAsThePanelDoes() throws {
        let image = try Self.numbered(width: 2, height: 3)
        #expect(Self.turned(image, .rotated180, width: 2, height: 3) == [[6, 5], [4, 3], [2, 1]])
        #expect(Self.turned(image, .rotated270, width: 3, height: 2) == [[5, 3, 1], [6, 4, 2]])
        #expect(Self.turned(image, .flipped, width: 2, height: 3) == [[2, 1], [4, 3], [6, 5]])
        #expect(Self.turned(image, .flipped90, width: 3, height: 2) == [[1, 3, 5], [2, 4, 6]])
    }

    @Test func theTurnedSizeSwapsWidthAndHeightForQuarterTurns() {
        let mode = OutputMode(width: 1024, height: 768, refreshMillihertz: 60000)
        #expect(CursorPlaneGeometry(mode: mode, scaleFactor: 1, transform: .rotated90).turnedSize(width: 13, height: 21) == (21, 13))
        #expect(CursorPlaneGeometry(mode: mode, scaleFactor: 1, transform: .flipped180).turnedSize(width: 13, height: 21) == (13, 21))
    }

    @Test func theArrowsTipLandsOnThePointerOnAPanelTurnedAQuarter() throws {
        // The HIL rig's panel: 1024×768 turned 90°, logical 768×1024; the arrow (13×21, tip at its
        // pixel (1, 1)) with the pointer at the logical (468, 700).
        let geometry = CursorPlaneGeometry(mode: OutputMode(width: 1024, height: 768, refreshMillihertz: 60000), scaleFactor: 1, transform: .rotated90)
        let origin = geometry.origin(pointer: Point(x: 468, y: 700), hotspotX: 1, hotspotY: 1, imageWidth: 13, imageHeight: 21)
        #expect(origin == (699, 288))
        // The arrow's pixel (4, 10), its body, goes to the buffer's (10, 8) (see the quarter turn
        // above: (x, y) → (y, width − 1 − x)), so the panel's (709, 296): where the composited
        // cursor's body is in the HIL rig's screendump.
        let image = try Self.numbered(width: 13, height: 21)
        let buffer = Self.turned(image, .rotated90, width: 64, height: 64)
        #expect(buffer[8][10] == UInt32(10 * 13 + 4 + 1))
        #expect(origin.x + 10 == 709 && origin.y + 8 == 296)
    }

    @Test func theHotspotIsScaledToPixelsAndRoundedToTheNearest() {
        let geometry = CursorPlaneGeometry(mode: OutputMode(width: 800, height: 600, refreshMillihertz: 60000), scaleFactor: 2, transform: .normal)
        // (10.3, 20.6) points are (20.6, 41.2) pixels: the hotspot (2, 2) goes on (21, 41).
        #expect(geometry.origin(pointer: Point(x: 10.3, y: 20.6), hotspotX: 2, hotspotY: 2, imageWidth: 26, imageHeight: 42) == (19, 39))
    }

    @Test func aCursorAtThePanelsEdgeHangsOverIt() {
        let normal = CursorPlaneGeometry(mode: OutputMode(width: 100, height: 50, refreshMillihertz: 60000), scaleFactor: 1, transform: .normal)
        #expect(normal.origin(pointer: Point(x: 0, y: 0), hotspotX: 1, hotspotY: 1, imageWidth: 4, imageHeight: 3) == (-1, -1))
        // Mirrored: the logical x runs right to left on the panel, and the image with it.
        let flipped = CursorPlaneGeometry(mode: OutputMode(width: 100, height: 50, refreshMillihertz: 60000), scaleFactor: 1, transform: .flipped)
        #expect(flipped.origin(pointer: Point(x: 10, y: 5), hotspotX: 1, hotspotY: 1, imageWidth: 4, imageHeight: 3) == (87, 4))
        // Half turn: the logical (10, 5) is the panel's (90, 45); the hotspot (1, 1) of a 4×3
        // image is then its turned pixel (2, 1).
        let half = CursorPlaneGeometry(mode: OutputMode(width: 100, height: 50, refreshMillihertz: 60000), scaleFactor: 1, transform: .rotated180)
        #expect(half.origin(pointer: Point(x: 10, y: 5), hotspotX: 1, hotspotY: 1, imageWidth: 4, imageHeight: 3) == (87, 43))
    }
}

extension CursorPlaneGeometryTests {
    @Test func anOpaqueImageIsTurnedWithFullAlphaWhateverItsTopByteHeld() throws {
        // XRGB8888 leaves the top byte undefined; the plane's ARGB8888 would read it as alpha.
        let words: [UInt32] = [0x0011_2233, 0x7F44_5566]
        let image = try words.withUnsafeBytes { try Image(width: 2, height: 1, pixelFormat: .xrgb8888, bytesPerRow: 8, bytes: $0) }
        let geometry = CursorPlaneGeometry(mode: OutputMode(width: 64, height: 64, refreshMillihertz: 60000), scaleFactor: 1, transform: .normal)
        var buffer = [UInt32](repeating: 0, count: 2)
        buffer.withUnsafeMutableBytes { geometry.turn(image, into: $0.baseAddress!, bytesPerRow: 8) }
        #expect(buffer == [0xFF11_2233, 0xFF44_5566])
    }
}
