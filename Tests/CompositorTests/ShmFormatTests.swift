import Graphics
import Testing
@testable import Compositor

/// wl_shm formats beyond ARGB8888 and XRGB8888: advertised, and converted to the same pixels.
@Suite struct ShmFormatTests {
    /// One pixel of each format holding premultiplied (R, G, B, A) = (0xFF, 0x80, 0x10, 0xFF)
    /// where the format can, as its bytes in memory.
    static let samples: [(ShmFormat, [UInt8], UInt32)] = [
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

    @Test func everyFormatConvertsToTheSamePixel() {
        #expect(Set(Self.samples.map(\.0)) == Set(ShmFormat.allCases))
        for (format, bytes, expected) in Self.samples {
            #expect(bytes.count == format.bytesPerPixel, "\(format)")
            // Two rows of two pixels, with a padded stride.
            let stride = 2 * format.bytesPerPixel + 3
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

    @Test func wlShmAdvertisesEveryFormatAndAClientBufferInOneShowsOnScreen() throws {
        let session = try HeadlessSession()
        let client = try SessionClient(session)
        try client.client.roundtrip()
        let advertised = client.shm.events(named: "format").compactMap { event -> UInt32? in
            if case .uint(let code) = event.arguments.first { return code }
            return nil
        }
        #expect(Set(advertised) == Set(ShmFormat.allCases.map(\.rawValue)))

        // A 64×64 toplevel in ABGR8888 (memory order R, G, B, A), opaque orange.
        let (surface, _) = try client.makeToplevel()
        let buffer = try client.makeBuffer(
            width: 64, height: 64, format: ShmFormat.abgr8888.rawValue,
            fill: fillPixels(UInt32(0xFF10_80FF).littleEndian, count: 64 * 64))
        try client.show(buffer, on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) {
            session.screen?.pixel(x: 320, y: 240) == PremultipliedPixel(red: 0xFF, green: 0x80, blue: 0x10, alpha: 0xFF)
        })
    }
}
