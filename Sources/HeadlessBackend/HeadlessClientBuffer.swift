import Buffers
import Glibc

/// A client's XRGB8888 buffer that a headless output shows as its frame (direct scanout): mapped
/// read-only, its rows read when the frame is captured. Going away tells the compositor the
/// client may write into it again.
final class HeadlessClientBuffer: PixelBuffer {
    private let mapping: UnsafeMutableRawPointer
    private let length: Int
    private let buffer: DmabufLayout
    /// Called when the output stops showing the buffer.
    var released: (() -> Void)?

    var width: Int { buffer.width }
    var height: Int { buffer.height }
    var format: PixelFormat { buffer.format }
    var kind: BufferKind { .clientDmabuf }
    var dmabuf: DmabufLayout? { buffer }

    /// Whether the output can read `buffer`: linear XRGB8888 rows inside the dma-buf.
    static func canRead(_ buffer: DmabufLayout) -> Bool {
        buffer.format == .xrgb8888 && buffer.modifier == FormatModifier.linear && buffer.stride >= buffer.width * 4
            && buffer.offset >= 0
            && buffer.offset + buffer.stride * (buffer.height - 1) + buffer.width * 4 <= Int(lseek(buffer.fileDescriptor, 0, SEEK_END))
    }

    /// Nil for a buffer the output cannot read (`canRead`) or a descriptor that cannot be mapped.
    init?(_ buffer: DmabufLayout) {
        guard Self.canRead(buffer) else { return nil }
        let length = Int(lseek(buffer.fileDescriptor, 0, SEEK_END))
        guard let mapping = mmap(nil, length, PROT_READ, MAP_SHARED, buffer.fileDescriptor, 0), mapping != MAP_FAILED
        else { return nil }
        self.mapping = mapping
        self.length = length
        self.buffer = buffer
    }

    deinit {
        munmap(mapping, length)
        released?()
    }

    func withPixels<Result>(_ body: (PixelRows) throws -> Result) rethrows -> Result? {
        try body(PixelRows(
            bytes: UnsafeRawBufferPointer(start: mapping + buffer.offset, count: length - buffer.offset), width: buffer.width,
            height: buffer.height, bytesPerRow: buffer.stride, format: buffer.format))
    }
}
