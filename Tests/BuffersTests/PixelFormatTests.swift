import Buffers
import Testing

@Suite struct PixelFormatTests {
    /// One pixel of each readable format holding premultiplied (R, G, B, A) = (0xFF, 0x80, 0x10, 0xFF)
    /// where the format can, as its bytes in memory, and the 0xAARRGGBB word it converts to.
    static let samples: [(PixelFormat, [UInt8], UInt32)] = [
        (.argb8888, [0x10, 0x80, 0xFF, 0xFF], 0xFFFF_8010),
        (.xrgb8888, [0x10, 0x80, 0xFF, 0x00], 0xFFFF_8010),
        (.abgr8888, [0xFF, 0x80, 0x10, 0xC0], 0xC0FF_8010),
        (.xbgr8888, [0xFF, 0x80, 0x10, 0x00], 0xFFFF_8010),
        (.rgba8888, [0xC0, 0x10, 0x80, 0xFF], 0xC0FF_8010),
        (.rgbx8888, [0x00, 0x10, 0x80, 0xFF], 0xFFFF_8010),
        (.bgra8888, [0xC0, 0xFF, 0x80, 0x10], 0xC0FF_8010),
        (.bgrx8888, [0x00, 0xFF, 0x80, 0x10], 0xFFFF_8010),
        (.rgb888, [0x10, 0x80, 0xFF], 0xFFFF_8010),
        (.bgr888, [0xFF, 0x80, 0x10], 0xFFFF_8010),
        // 0xF800 | 0x0400 | 0x0002: red 31, green 32, blue 2 → 255, 130, 16.
        (.rgb565, [0x02, 0xFC], 0xFFFF_8210),
        (.bgr565, [0x02, 0xFC], 0xFF10_82FF),
        // Alpha 2 (170), red 1023, green 512, blue 64 → 255, 128, 16.
        (.argb2101010, Self.bytes(2 << 30 | 1023 << 20 | 512 << 10 | 64), 0xAAFF_8010),
        (.xrgb2101010, Self.bytes(1023 << 20 | 512 << 10 | 64), 0xFFFF_8010),
        (.abgr2101010, Self.bytes(3 << 30 | 64 << 20 | 512 << 10 | 1023), 0xFFFF_8010),
        (.xbgr2101010, Self.bytes(64 << 20 | 512 << 10 | 1023), 0xFFFF_8010),
    ]

    static func bytes(_ word: UInt32) -> [UInt8] { withUnsafeBytes(of: word.littleEndian) { Array($0) } }

    @Test func everyReadableFormatConvertsToTheSamePixel() throws {
        #expect(Self.samples.map(\.0) == PixelFormat.readable)
        for (format, bytes, expected) in Self.samples {
            let bytesPerPixel = try #require(format.bytesPerPixel)
            #expect(bytes.count == bytesPerPixel, "\(format)")
            // Two rows of two pixels, with a padded stride.
            let stride = 2 * bytesPerPixel + 3
            var source = [UInt8](repeating: 0xEE, count: stride * 2)
            for row in 0..<2 {
                for x in 0..<2 { source.replaceSubrange((row * stride + x * bytes.count)..<(row * stride + (x + 1) * bytes.count), with: bytes) }
            }
            var out = [UInt32](repeating: 0, count: 4)
            source.withUnsafeBytes { s in
                out.withUnsafeMutableBufferPointer { format.convert(width: 2, height: 2, stride: stride, from: s.baseAddress!, into: $0.baseAddress!) }
            }
            #expect(out == [UInt32](repeating: expected, count: 4), "\(format)")
        }
    }

    /// drm_fourcc.h: fourcc_code('X', 'R', '2', '4') is 0x34325258, the first character in the low byte.
    @Test func codesAreTheirFourCharactersLittleEndian() {
        #expect(PixelFormat.xrgb8888.rawValue == 0x3432_5258)
        #expect(PixelFormat.argb8888.rawValue == 0x3432_5241)
        #expect(PixelFormat.rgb565.rawValue == 0x3631_4752)
        #expect(PixelFormat.xbgr2101010.rawValue == 0x3033_4258)
        #expect(PixelFormat.xrgb8888.fourcc == "XR24")
        #expect(PixelFormat.xrgb8888.name == "XRGB8888")
        #expect(PixelFormat.argb8888.description == "ARGB8888 (0x34325241)")
        #expect(PixelFormat.readable.map(\.fourcc) == [
            "AR24", "XR24", "AB24", "XB24", "RA24", "RX24", "BA24", "BX24", "RG24", "BG24", "RG16", "BG16", "AR30", "XR30", "AB30", "XB30",
        ])
        #expect(PixelFormat.readable.map(\.name) == [
            "ARGB8888", "XRGB8888", "ABGR8888", "XBGR8888", "RGBA8888", "RGBX8888", "BGRA8888", "BGRX8888", "RGB888", "BGR888",
            "RGB565", "BGR565", "ARGB2101010", "XRGB2101010", "ABGR2101010", "XBGR2101010",
        ])
    }

    /// A code Vitrine does not read (NV12) stays representable and is named by its characters.
    @Test func anUnknownCodeHasNoPixelSizeAndIsNamedByItsCharacters() {
        let nv12 = PixelFormat(rawValue: 0x3231_564E)
        #expect(nv12.bytesPerPixel == nil)
        #expect(nv12.name == "NV12")
        #expect(!nv12.hasAlpha)
        #expect(nv12.opaqueEquivalent == nil)
    }

    @Test func alphaFormatsNameTheTwinWhoseAlphaIsPadding() {
        let withAlpha = PixelFormat.readable.filter(\.hasAlpha)
        #expect(withAlpha == [.argb8888, .abgr8888, .rgba8888, .bgra8888, .argb2101010, .abgr2101010])
        #expect(withAlpha.map(\.opaqueEquivalent) == [.xrgb8888, .xbgr8888, .rgbx8888, .bgrx8888, .xrgb2101010, .xbgr2101010])
        #expect(PixelFormat.xrgb8888.opaqueEquivalent == nil)
    }

    /// wl_shm numbers ARGB8888 and XRGB8888 0 and 1, every other format by its fourcc.
    @Test func wlShmCodesMapBothWays() {
        #expect(PixelFormat(shmCode: 0) == .argb8888)
        #expect(PixelFormat(shmCode: 1) == .xrgb8888)
        #expect(PixelFormat(shmCode: 0x3432_4241) == .abgr8888)
        #expect(PixelFormat.readable.allSatisfy { PixelFormat(shmCode: $0.shmCode) == $0 })
        #expect(PixelFormat.argb8888.shmCode == 0)
        #expect(PixelFormat.abgr8888.shmCode == 0x3432_4241)
    }

    @Test func hostMemoryIsPageAlignedAndHoldsEveryRow() throws {
        let buffer = try #require(HostMemoryBuffer(width: 100, height: 3, format: .xrgb8888))
        #expect(buffer.bytesPerRow == 400)
        #expect(buffer.mapping.count == 4096)
        #expect(Int(bitPattern: buffer.mapping.baseAddress) % 4096 == 0)
        #expect(buffer.kind == .hostMemory && buffer.dmabuf == nil)
        let rows = try #require(buffer.withPixels { $0 })
        #expect((rows.width, rows.height, rows.bytesPerRow, rows.format) == (100, 3, 400, .xrgb8888))
        #expect(HostMemoryBuffer(width: 0, height: 3, format: .xrgb8888) == nil)
        #expect(HostMemoryBuffer(width: 4, height: 3, format: PixelFormat(rawValue: 0x3231_564E)) == nil)
    }
}
