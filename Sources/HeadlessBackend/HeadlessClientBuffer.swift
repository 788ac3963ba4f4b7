import Buffers
import Glibc

/// A client's XRGB8888 buffer (or ARGB8888 shown opaque) that a headless output shows as its frame
/// (direct scanout), its rows read only when the frame is captured: a shm buffer read where it lies
/// through the compositor's guarded access (a pool shrunk under it reads as zeros and costs its
/// client an error, not the compositor a SIGBUS), or a dma-buf mapped read-only. A dma-buf is held
/// through a descriptor of its own, as the client may destroy its wl_buffer (closing the one it
/// lent) while the output still shows it. The output holds the client's buffer (`LentBuffer`) from
/// the commit that shows it until it stops showing it (`endHold()`): the client may write into it
/// again then. A value: a shm buffer shown costs no object.
struct HeadlessClientBuffer {
    let buffer: any LentBuffer
    /// A dma-buf's mapping; nil for a shm buffer.
    private let mapping: MappedDmabuf?

    /// Whether the output can show `buffer` at `width`×`height`: XRGB8888 (or ARGB8888, shown
    /// opaque) of that size, a dma-buf with linear rows inside its memory, or a shm buffer.
    /// Asked twice a frame (the compositor's test, the commit's): a shm buffer is told by its kind
    /// before any dma-buf layout is made, and the format compared without looking it up (ARGB8888
    /// is the one format whose opaque twin is XRGB8888).
    static func canShow(_ buffer: any LentBuffer, width: Int, height: Int) -> Bool {
        let format = buffer.format
        guard buffer.width == width, buffer.height == height, format == .xrgb8888 || format == .argb8888 else { return false }
        switch buffer.kind {
        case .clientShm: return true
        case .clientDmabuf: return buffer.dmabuf.map(MappedDmabuf.canMap) ?? false
        case .gbm, .dumb, .hostMemory: return false
        }
    }

    /// Nil for a dma-buf the output cannot map, or whose descriptor cannot be duplicated.
    init?(_ buffer: any LentBuffer) {
        if let lent = buffer.dmabuf {
            guard let mapping = MappedDmabuf(lent) else { return nil }
            self.mapping = mapping
        } else {
            mapping = nil
        }
        self.buffer = buffer
    }

    /// The dma-buf shown, its descriptor the one this buffer holds; nil for a shm buffer.
    var dmabuf: DmabufLayout? { mapping?.retained.layout }

    /// The output stopped showing the buffer: its client may write into it again.
    func endHold() {
        buffer.endHold()
    }

    /// Calls `body` with the buffer's rows as they are now, opaque; nil where they cannot be read.
    func withPixels<Result>(_ body: (PixelRows) throws -> Result) rethrows -> Result? {
        if let mapping { return try body(mapping.rows.opaque) }
        return try buffer.withPixels { rows in try body(rows.opaque) }
    }
}

/// A client's dma-buf mapped read-only, through a descriptor of its own.
private final class MappedDmabuf {
    let retained: RetainedDmabuf
    private let mapping: UnsafeMutableRawPointer
    private let length: Int

    /// Whether the buffer's rows are linear and lie inside its memory.
    static func canMap(_ buffer: DmabufLayout) -> Bool {
        buffer.modifier == FormatModifier.linear && buffer.stride >= buffer.width * 4 && buffer.offset >= 0
            && buffer.offset + buffer.stride * (buffer.height - 1) + buffer.width * 4 <= Int(lseek(buffer.fileDescriptor, 0, SEEK_END))
    }

    init?(_ lent: DmabufLayout) {
        guard Self.canMap(lent), let retained = try? RetainedDmabuf(duplicating: lent) else { return nil }
        let length = Int(lseek(retained.layout.fileDescriptor, 0, SEEK_END))
        guard let mapping = mmap(nil, length, PROT_READ, MAP_SHARED, retained.layout.fileDescriptor, 0), mapping != MAP_FAILED
        else { return nil }
        (self.retained, self.mapping, self.length) = (retained, mapping, length)
    }

    deinit {
        munmap(mapping, length)
    }

    var rows: PixelRows {
        let layout = retained.layout
        return PixelRows(
            bytes: UnsafeRawBufferPointer(start: mapping + layout.offset, count: length - layout.offset), width: layout.width,
            height: layout.height, bytesPerRow: layout.stride, format: layout.format)
    }
}

extension PixelRows {
    /// The same rows, their alpha read as padding.
    fileprivate var opaque: PixelRows {
        PixelRows(bytes: bytes, width: width, height: height, bytesPerRow: bytesPerRow, format: format.withoutAlpha)
    }
}
