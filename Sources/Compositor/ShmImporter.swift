import Graphics
import WaylandServer

/// Turns client buffers into what layers show.
enum ShmImporter {
    /// wl_shm format codes Vitrine advertises besides the two mandatory ones (none yet: the
    /// renderer samples 32-bit BGRA-ordered pixels, which is what ARGB8888 and XRGB8888 are).
    static let additionalFormats: [UInt32] = []

    /// A copy of a shm buffer's pixels (nil when the buffer is gone or in an unknown format).
    static func image(of buffer: Buffer) -> Image? {
        buffer.withShmContents { contents -> Image? in
            let format: PixelFormat
            switch contents.format {
            case 0: format = .argb8888Premultiplied
            case 1: format = .xrgb8888
            default: return nil
            }
            return try? Image(width: contents.width, height: contents.height, pixelFormat: format,
                              bytesPerRow: contents.stride, bytes: contents.bytes)
        } ?? nil
    }

    /// The colour of a single-pixel buffer (premultiplied 32-bit channels).
    static func color(red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32) -> Color {
        let maximum = Double(UInt32.max)
        let a = Double(alpha) / maximum
        guard a > 0 else { return .clear }
        // Color is straight (not premultiplied) alpha.
        return Color(red: Double(red) / maximum / a, green: Double(green) / maximum / a,
                     blue: Double(blue) / maximum / a, alpha: a)
    }
}
