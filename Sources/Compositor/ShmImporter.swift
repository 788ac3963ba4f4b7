import Buffers
import Graphics
import WaylandServer

/// Turns client buffers into what layers show.
enum ShmImporter {
    /// A copy of a shm buffer's pixels in the renderer's layout (nil when the buffer is gone or
    /// in a format Vitrine does not advertise).
    ///
    /// With `previous` (what the surface showed) of the same size and layout and a `damage`
    /// rectangle of buffer pixels, only those pixels are read from the buffer: the new image is an
    /// update of `previous`, so the renderer uploads and redraws only them as well.
    static func image(of buffer: Buffer, updating previous: Image? = nil, damage: ImageRect? = nil) -> Image? {
        buffer.withShmContents { contents -> Image? in
            let format = contents.format
            guard let bytesPerPixel = format.bytesPerPixel, let source = contents.bytes.baseAddress else { return nil }
            // Formats without alpha become opaque images.
            let pixelFormat: PixelFormat = format.hasAlpha ? .argb8888 : .xrgb8888
            if let previous, let damage, previous.width == contents.width, previous.height == contents.height,
                previous.pixelFormat == pixelFormat
            {
                return try? Image(updating: previous, in: damage) { origin, bytesPerRow in
                    let start = source + damage.y * contents.stride + damage.x * bytesPerPixel
                    if format.isNativeWord {
                        for row in 0..<damage.height {
                            (origin + row * bytesPerRow).copyMemory(
                                from: start + row * contents.stride, byteCount: damage.width * 4)
                        }
                    } else {
                        format.convert(
                            width: damage.width, height: damage.height, stride: contents.stride, from: start,
                            into: origin.assumingMemoryBound(to: UInt32.self), destinationStride: bytesPerRow / 4)
                    }
                }
            }
            if format.isNativeWord {
                return try? Image(width: contents.width, height: contents.height, pixelFormat: format,
                                  bytesPerRow: contents.stride, bytes: contents.bytes)
            }
            // libwayland checked that the pool holds stride × height bytes for this buffer.
            guard contents.stride >= contents.width * bytesPerPixel,
                contents.bytes.count >= contents.stride * (contents.height - 1) + contents.width * bytesPerPixel
            else { return nil }
            var words = [UInt32](repeating: 0, count: contents.width * contents.height)
            words.withUnsafeMutableBufferPointer { out in
                format.convert(width: contents.width, height: contents.height, stride: contents.stride, from: source,
                               into: out.baseAddress!)
            }
            return words.withUnsafeBytes { bytes in
                try? Image(width: contents.width, height: contents.height, pixelFormat: pixelFormat,
                           bytesPerRow: contents.width * 4, bytes: bytes)
            }
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
