import Foundation
import Testing

import Graphics
import SystemCalls

@Suite struct ImageTests {
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Well-formed premultiplied pixels (every component ≤ alpha), including low alphas where
    /// PNG's unpremultiplied storage is most likely to lose precision.
    static let translucentPixels: [PremultipliedPixel] = [
        .clear, pixel(1, 0, 1, 1), pixel(2, 1, 0, 3), pixel(128, 0, 0, 128), pixel(10, 200, 30, 254), opaqueWhite,
        pixel(17, 33, 65, 70), pixel(0, 0, 99, 100), opaqueRed, opaqueBlue, pixel(5, 6, 7, 8), pixel(1, 2, 3, 255),
    ]

    static func pixel(_ red: UInt8, _ green: UInt8, _ blue: UInt8, _ alpha: UInt8) -> PremultipliedPixel {
        PremultipliedPixel(red: red, green: green, blue: blue, alpha: alpha)
    }

    func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("graphics-tests-\(UUID().uuidString)-\(name)").path
    }

    @Test func sizeAndStrideDescribeThePixels() {
        let image = Image(width: 5, height: 3, fill: opaqueRed)
        #expect(image.size == Size(width: 5, height: 3))
        #expect(image.bytesPerRow == 20)
        #expect(image.withUnsafeBytes { $0.count } == 60)
    }

    @Test func pixelsAreNativeEndianARGBWords() throws {
        let image = Image(width: 1, height: 1, fill: PremultipliedPixel(red: 0x11, green: 0x22, blue: 0x33, alpha: 0x44))
        #expect(image.withUnsafeBytes { $0.load(as: UInt32.self) } == 0x4411_2233)
        #expect(image.withUnsafeBytes { Array($0) } == [0x33, 0x22, 0x11, 0x44])
    }

    @Test func storageIsSixteenByteAligned() {
        let image = Image(width: 3, height: 3, fill: .clear)
        #expect(image.withUnsafeBytes { Int(bitPattern: $0.baseAddress) % 16 } == 0)
    }

    @Test func xrgbPixelsReadAsOpaqueWhateverTheUnusedByte() throws {
        let words: [UInt32] = [0x0012_3456, 0x7F00_00FF]
        let image = try words.withUnsafeBytes {
            try Image(width: 2, height: 1, pixelFormat: .xrgb8888, bytesPerRow: 8, bytes: $0)
        }
        #expect(image.pixel(x: 0, y: 0) == PremultipliedPixel(red: 0x12, green: 0x34, blue: 0x56, alpha: 255))
        #expect(image.pixel(x: 1, y: 0) == PremultipliedPixel(red: 0, green: 0, blue: 0xFF, alpha: 255))
        #expect(Image(width: 1, height: 1, pixelFormat: .xrgb8888, fill: .clear).pixel(x: 0, y: 0) == opaqueBlack)
    }

    @Test func initFromBytesDropsRowPaddingAndNeedsNoPaddingAfterTheLastRow() throws {
        // Two rows of one pixel with a 12-byte stride; the buffer stops right after the last pixel.
        let words: [UInt32] = [0xFF00_00FF, 0xDEAD_BEEF, 0xDEAD_BEEF, 0xFFFF_0000]
        let image = try words.withUnsafeBytes {
            try Image(
                width: 1, height: 2, pixelFormat: .argb8888, bytesPerRow: 12,
                bytes: UnsafeRawBufferPointer(rebasing: $0[0..<16]))
        }
        #expect(image.bytesPerRow == 4)
        #expect(image.pixel(x: 0, y: 0) == opaqueBlue)
        #expect(image.pixel(x: 0, y: 1) == opaqueRed)
    }

    @Test func initFromBytesValidatesSizes() {
        let bytes = [UInt8](repeating: 0, count: 64)
        bytes.withUnsafeBytes { buffer in
            #expect(throws: GraphicsError.invalidSize(width: 0, height: 2)) {
                try Image(width: 0, height: 2, pixelFormat: .xrgb8888, bytesPerRow: 4, bytes: buffer)
            }
            #expect(throws: GraphicsError.invalidBytesPerRow(7, minimum: 8)) {
                try Image(width: 2, height: 2, pixelFormat: .xrgb8888, bytesPerRow: 7, bytes: buffer)
            }
            #expect(throws: GraphicsError.bufferTooSmall(byteCount: 64, required: 68)) {
                try Image(width: 1, height: 5, pixelFormat: .xrgb8888, bytesPerRow: 16, bytes: buffer)
            }
            #expect(throws: GraphicsError.bufferTooSmall(byteCount: 64, required: .max)) {
                try Image(width: 1, height: 3, pixelFormat: .xrgb8888, bytesPerRow: .max, bytes: buffer)
            }
        }
    }

    @Test func equalityIsIdentity() {
        let a = Image(width: 1, height: 1, fill: opaqueRed)
        let b = Image(width: 1, height: 1, fill: opaqueRed)
        #expect(a == a)
        #expect(a != b)
        #expect(Set([a, b, a]).count == 2)
    }

    @Test func pixelFromColorIsPremultipliedAndRounded() {
        #expect(PremultipliedPixel(Color(red: 1, green: 0.5, blue: 0, alpha: 0.5)) == Self.pixel(128, 64, 0, 128))
        #expect(PremultipliedPixel(Color(white: 1, alpha: 2)) == opaqueWhite)
        #expect(PremultipliedPixel(Color(red: 0.5, green: 0, blue: 0, colorSpace: .linearSRGB)).red == 188)
    }

    @Test func comparisonHelpersMeasureChannelDifferences() throws {
        let base = try makeImage(width: 2, height: 1, [opaqueRed, .clear])
        let near = try makeImage(width: 2, height: 1, [PremultipliedPixel(red: 250, green: 0, blue: 0, alpha: 255), .clear])
        let far = try makeImage(width: 2, height: 1, [opaqueBlue, PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 3)])
        #expect(base.maximumChannelDifference(from: base) == 0)
        #expect(base.maximumChannelDifference(from: near) == 5)
        #expect(base.maximumChannelDifference(from: far) == 255)
        #expect(base.countOfPixelsDiffering(from: near, byMoreThan: 5) == 0)
        #expect(base.countOfPixelsDiffering(from: near, byMoreThan: 4) == 1)
        #expect(base.countOfPixelsDiffering(from: far, byMoreThan: 2) == 2)
        let otherSize = Image(width: 1, height: 2, fill: opaqueRed)
        #expect(base.maximumChannelDifference(from: otherSize) == nil)
        #expect(base.countOfPixelsDiffering(from: otherSize, byMoreThan: 0) == nil)
    }

    @Test func comparisonTreatsXRGBAsOpaque() {
        let argb = Image(width: 2, height: 2, fill: opaqueRed)
        let xrgb = Image(width: 2, height: 2, pixelFormat: .xrgb8888, fill: opaqueRed)
        #expect(argb.maximumChannelDifference(from: xrgb) == 0)
    }

    @Test func aSharedImageCanBeDrawnAndEncodedConcurrently() async throws {
        let shared = try makeImage(width: 4, height: 3, Self.translucentPixels)
        let expected = try shared.pngData()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let context = try GraphicsContext(width: 4, height: 3)
                    context.draw(shared, in: Rect(x: 0, y: 0, width: 4, height: 3))
                    #expect(context.makeImage().maximumChannelDifference(from: shared) == 0)
                    #expect(try shared.pngData() == expected)
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func pngRoundTripPreservesEveryPixelAndTheSize() throws {
        let original = try makeImage(width: 4, height: 3, Self.translucentPixels)
        let png = try original.pngData()
        #expect(Array(png.prefix(8)) == Self.pngSignature)
        let decoded = try Image(pngData: png)
        #expect(decoded.width == 4 && decoded.height == 3)
        #expect(decoded.pixelFormat == .argb8888)
        #expect(decoded.maximumChannelDifference(from: original) == 0)
    }

    @Test func opaquePNGsDecodeAsXRGB() throws {
        let original = try makeImage(width: 2, height: 1, [opaqueRed, Self.pixel(1, 2, 3, 255)])
        let decoded = try Image(pngData: original.pngData())
        #expect(decoded.pixelFormat == .xrgb8888)
        #expect(decoded.maximumChannelDifference(from: original) == 0)
        let xrgb = Image(width: 3, height: 2, pixelFormat: .xrgb8888, fill: opaqueBlue)
        #expect(try Image(pngData: xrgb.pngData()).maximumChannelDifference(from: xrgb) == 0)
    }

    @Test func pngFileRoundTripPreservesEveryPixel() throws {
        let original = try makeImage(width: 3, height: 4, Self.translucentPixels)
        let path = temporaryPath("round-trip.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try original.writePNG(to: path)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == original.pngData())
        let decoded = try Image(contentsOfPNGFile: path)
        #expect(decoded.size == original.size)
        #expect(decoded.maximumChannelDifference(from: original) == 0)
    }

    @Test func writePNGReplacesAnExistingFile() throws {
        let path = temporaryPath("replace.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: 0xAB, count: 100_000).write(to: URL(fileURLWithPath: path))
        let image = Image(width: 2, height: 2, fill: opaqueRed)
        try image.writePNG(to: path)
        #expect(try Image(contentsOfPNGFile: path).maximumChannelDifference(from: image) == 0)
    }

    @Test func decodingGarbageThrowsInvalidPNG() {
        let samples: [[UInt8]] = [[], [1, 2, 3, 4, 5], Array(repeating: 0x41, count: 4096), Array(Self.pngSignature.prefix(7))]
        for garbage in samples {
            #expect(throws: GraphicsError.invalidPNG(path: nil, reason: "the data does not start with the PNG signature")) {
                try Image(pngData: garbage)
            }
        }
    }

    @Test func decodingATruncatedPNGThrowsInvalidPNG() throws {
        let png = try Image(width: 8, height: 8, fill: opaqueRed).pngData()
        #expect(throws: GraphicsError.invalidPNG(path: nil, reason: "the data ends before the image does")) {
            try Image(pngData: Array(png.prefix(png.count / 2)))
        }
    }

    @Test func decodingCorruptPNGChunksThrowsInvalidPNG() throws {
        var png = try Image(width: 8, height: 8, fill: opaqueRed).pngData()
        // Byte 20 lies inside the IHDR chunk (after signature, length and type), so its CRC fails.
        png[20] ^= 0xFF
        #expect(throws: GraphicsError.invalidPNG(path: nil, reason: "libpng rejected the data as corrupt")) {
            try Image(pngData: png)
        }
    }

    @Test func readingAMissingFileThrowsWithThePathInTheMessage() {
        let path = temporaryPath("missing.png")
        let error = #expect(throws: GraphicsError.self) { try Image(contentsOfPNGFile: path) }
        #expect(error == .fileNotFound(path: path))
        #expect(error?.description.contains(path) == true)
        #expect(error?.localizedDescription.contains(path) == true)
    }

    @Test func readingANonPNGFileNamesTheFile() throws {
        let path = temporaryPath("not.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("hello, world".utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: GraphicsError.self) { try Image(contentsOfPNGFile: path) }
        #expect(error == .invalidPNG(path: path, reason: "the data does not start with the PNG signature"))
        #expect(error?.description.contains(path) == true)
    }

    @Test func readingADirectoryThrowsAnIOError() {
        let path = FileManager.default.temporaryDirectory.path
        let error = #expect(throws: GraphicsError.self) { try Image(contentsOfPNGFile: path) }
        #expect(error == .io(SystemCallError("read", path: path, errno: .isDirectory)))
        #expect(error?.description.contains("Is a directory") == true)
    }

    @Test func writingIntoAMissingDirectoryThrowsAnIOErrorNamingThePath() {
        let path = temporaryPath("no-such-directory") + "/image.png"
        let error = #expect(throws: GraphicsError.self) { try Image(width: 1, height: 1, fill: .clear).writePNG(to: path) }
        #expect(error == .io(SystemCallError("open", path: path, errno: .noSuchFileOrDirectory)))
        #expect(error?.description.contains(path) == true)
    }

    @Test func anUpdatedImageCopiesItsBaseAndRewritesOnlyTheRectangle() throws {
        let base = Image(width: 4, height: 3, pixelFormat: .xrgb8888, fill: opaqueRed)
        let rect = ImageRect(x: 1, y: 1, width: 2, height: 2)
        let updated = try Image(updating: base, in: rect) { origin, stride in
            for row in 0..<2 {
                (origin + row * stride).initializeMemory(as: UInt32.self, repeating: 0xFF00_00FF, count: 2)
            }
        }
        #expect(updated.pixelFormat == .xrgb8888 && updated.width == 4 && updated.height == 3)
        for y in 0..<3 {
            for x in 0..<4 {
                let inside = (1...2).contains(x) && (1...2).contains(y)
                #expect(updated.pixel(x: x, y: y) == (inside ? opaqueBlue : opaqueRed), "(\(x), \(y))")
            }
        }
        #expect(base.pixel(x: 1, y: 1) == opaqueRed)
        #expect(updated.changedRect(since: base) == rect)
    }

    @Test func changedRectsUnionAlongAChainOfUpdatesWhileItsImagesExist() throws {
        let base = Image(width: 10, height: 10, fill: .clear)
        let first = try Image(updating: base, in: ImageRect(x: 0, y: 0, width: 2, height: 2)) { _, _ in }
        var second: Image? = try Image(updating: first, in: ImageRect(x: 5, y: 6, width: 1, height: 3)) { _, _ in }
        let third = try Image(updating: second!, in: ImageRect(x: 4, y: 4, width: 1, height: 1)) { _, _ in }
        #expect(third.changedRect(since: base) == ImageRect(x: 0, y: 0, width: 6, height: 9))
        #expect(third.changedRect(since: first) == ImageRect(x: 4, y: 4, width: 2, height: 5))
        #expect(third.changedRect(since: base, maximumSteps: 2) == nil)
        #expect(base.changedRect(since: third) == nil)
        #expect(third.changedRect(since: Image(width: 10, height: 10, fill: .clear)) == nil)
        // The chain holds its images weakly: once one is gone the link is unknown.
        second = nil
        #expect(third.changedRect(since: first) == nil)
    }

    @Test func anUpdateOutsideTheImageIsAnError() {
        let base = Image(width: 4, height: 4, fill: .clear)
        for rect in [ImageRect(x: 3, y: 0, width: 2, height: 1), ImageRect(x: 0, y: 0, width: 0, height: 1),
                     ImageRect(x: -1, y: 0, width: 1, height: 1)] {
            let error = #expect(throws: GraphicsError.self) { try Image(updating: base, in: rect) { _, _ in } }
            #expect(error == .rectOutsideImage(rect, width: 4, height: 4))
        }
    }
}
