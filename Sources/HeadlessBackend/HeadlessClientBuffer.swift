import Buffers
import Glibc

/// A client's XRGB8888 buffer that a headless output shows as its frame (direct scanout), its
/// rows read only when the frame is captured: a dma-buf mapped read-only, or a shm buffer read
/// where it lies through the compositor's guarded access (a pool shrunk under it reads as zeros and
/// costs its client an error, not the compositor a SIGBUS). A dma-buf is held through a
/// descriptor of its own, as the client may destroy its wl_buffer (closing the one it lent) while
/// the output still shows it. Going away tells the compositor the client may write into it again.
final class HeadlessClientBuffer {
    private enum Pixels {
        case mapped(UnsafeMutableRawPointer, length: Int, RetainedDmabuf)
        case client(any PixelBuffer)
    }
    private let pixels: Pixels
    /// Called when the output stops showing the buffer.
    var released: (() -> Void)?

    /// Whether the output can show `buffer` at `width`×`height`: XRGB8888 of that size, a dma-buf
    /// with linear rows inside its memory, or a shm buffer.
    static func canShow(_ buffer: any PixelBuffer, width: Int, height: Int) -> Bool {
        guard buffer.width == width, buffer.height == height, buffer.format == .xrgb8888 else { return false }
        if let layout = buffer.dmabuf { return canMap(layout) }
        return buffer.kind == .clientShm
    }

    private static func canMap(_ buffer: DmabufLayout) -> Bool {
        buffer.modifier == FormatModifier.linear && buffer.stride >= buffer.width * 4 && buffer.offset >= 0
            && buffer.offset + buffer.stride * (buffer.height - 1) + buffer.width * 4 <= Int(lseek(buffer.fileDescriptor, 0, SEEK_END))
    }

    /// Nil for a dma-buf the output cannot map, or whose descriptor cannot be duplicated.
    init?(_ buffer: any PixelBuffer) {
        guard let lent = buffer.dmabuf else {
            pixels = .client(buffer)
            return
        }
        guard Self.canMap(lent), let retained = try? RetainedDmabuf(duplicating: lent) else { return nil }
        let length = Int(lseek(retained.layout.fileDescriptor, 0, SEEK_END))
        guard let mapping = mmap(nil, length, PROT_READ, MAP_SHARED, retained.layout.fileDescriptor, 0), mapping != MAP_FAILED
        else { return nil }
        pixels = .mapped(mapping, length: length, retained)
    }

    /// The dma-buf shown, its descriptor the one this buffer holds; nil for a shm buffer.
    var dmabuf: DmabufLayout? {
        if case .mapped(_, _, let retained) = pixels { retained.layout } else { nil }
    }

    deinit {
        if case .mapped(let mapping, let length, _) = pixels { munmap(mapping, length) }
        released?()
    }

    /// Calls `body` with the buffer's rows as they are now; nil where they cannot be read.
    func withPixels<Result>(_ body: (PixelRows) throws -> Result) rethrows -> Result? {
        switch pixels {
        case .mapped(let mapping, let length, let retained):
            let layout = retained.layout
            return try body(PixelRows(
                bytes: UnsafeRawBufferPointer(start: mapping + layout.offset, count: length - layout.offset), width: layout.width,
                height: layout.height, bytesPerRow: layout.stride, format: layout.format))
        case .client(let buffer):
            return try buffer.withPixels(body)
        }
    }
}
