import Buffers
import WaylandServer

/// A client's wl_buffer as a `PixelBuffer`, for the renderer to read where it lies: a shm
/// buffer's rows in the client's pool (read under libwayland's SIGBUS guard; once its client
/// destroyed it, while a `ShmMemoryLease` keeps them), a dma-buf through its first plane, a
/// single-pixel buffer as its one premultiplied ARGB8888 pixel.
final class ClientPixelBuffer: PixelBuffer {
    let buffer: Buffer
    /// A single-pixel buffer's pixel, as 0xAARRGGBB.
    private var pixel: UInt32

    init(_ buffer: Buffer) {
        self.buffer = buffer
        if case .singlePixel(let red, let green, let blue, let alpha) = buffer.storage {
            // Premultiplied 32-bit channels, rounded to 8 bits.
            func byte(_ channel: UInt32) -> UInt32 { (UInt32(channel >> 23) + 1) >> 1 }
            pixel = byte(alpha) << 24 | byte(red) << 16 | byte(green) << 8 | byte(blue)
        } else {
            pixel = 0
        }
    }

    var width: Int { Int(buffer.width) }
    var height: Int { Int(buffer.height) }

    var format: PixelFormat {
        switch buffer.storage {
        case .shm(let format): format
        case .singlePixel: .argb8888
        case .dmabuf(let attributes): attributes.format.format
        }
    }

    var kind: BufferKind {
        if case .dmabuf = buffer.storage { .clientDmabuf } else { .clientShm }
    }

    var dmabuf: DmabufLayout? {
        guard case .dmabuf(let attributes) = buffer.storage else { return nil }
        return DmabufLayout(firstPlaneOf: attributes)
    }

    func withPixels<Result>(_ body: (PixelRows) throws -> Result) rethrows -> Result? {
        switch buffer.storage {
        case .shm:
            return try buffer.readShmContents { contents in
                try body(PixelRows(
                    bytes: contents.bytes, width: contents.width, height: contents.height, bytesPerRow: contents.stride,
                    format: contents.format))
            }
        case .singlePixel:
            return try withUnsafeBytes(of: &pixel) { bytes in
                try body(PixelRows(bytes: bytes, width: 1, height: 1, bytesPerRow: 4, format: .argb8888))
            }
        case .dmabuf:
            return nil
        }
    }
}
