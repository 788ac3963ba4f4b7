import Glibc
import Graphics

/// One of a headless output's frame buffers: anonymous, page-aligned memory (so a renderer can
/// import it as host memory) holding the mode's rows of premultiplied ARGB8888 pixels, tightly
/// packed. Unmapped when the last holder (the output, a renderer's target) lets it go.
final class HeadlessFrameBuffer {
    let width: Int
    let height: Int
    let bytesPerRow: Int
    /// The mapping: the pixels rounded up to whole pages.
    let bytes: UnsafeMutableRawBufferPointer

    init(width: Int, height: Int) throws(BackendError) {
        self.width = width
        self.height = height
        bytesPerRow = width * 4
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let size = (bytesPerRow * height + page - 1) / page * page
        let mapping = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let mapping, mapping != MAP_FAILED else {
            throw BackendError.system(.current("mmap of a \(width)×\(height) frame buffer"))
        }
        bytes = UnsafeMutableRawBufferPointer(start: mapping, count: size)
    }

    deinit {
        munmap(bytes.baseAddress, bytes.count)
    }

    var scanoutMemory: ScanoutMemory { ScanoutMemory(bytes: bytes, bytesPerRow: bytesPerRow, owner: self) }

    /// A copy of the pixels; nil when it cannot be made.
    func image() -> Image? {
        try? Image(
            width: width, height: height, pixelFormat: .argb8888Premultiplied, bytesPerRow: bytesPerRow,
            bytes: UnsafeRawBufferPointer(bytes))
    }
}

/// A client's XRGB8888 buffer that a headless output shows as its frame (direct scanout): mapped
/// read-only, its rows read when the frame is captured. Going away tells the compositor the
/// client may write into it again.
final class HeadlessClientBuffer {
    private let mapping: UnsafeMutableRawPointer
    private let length: Int
    private let buffer: DmabufLayout
    /// Called when the output stops showing the buffer.
    var released: (() -> Void)?

    /// DRM_FORMAT_XRGB8888: the bytes of a frame buffer, without alpha.
    static let xrgb8888: UInt32 = 0x3432_5258

    /// Nil for a buffer the output cannot read: another format or modifier, rows outside it, or
    /// a descriptor that cannot be mapped.
    init?(_ buffer: DmabufLayout) {
        guard buffer.fourcc == Self.xrgb8888, buffer.modifier == 0, buffer.stride >= buffer.width * 4, buffer.offset >= 0 else {
            return nil
        }
        let length = Int(lseek(buffer.fileDescriptor, 0, SEEK_END))
        guard buffer.offset + buffer.stride * (buffer.height - 1) + buffer.width * 4 <= length,
            let mapping = mmap(nil, length, PROT_READ, MAP_SHARED, buffer.fileDescriptor, 0), mapping != MAP_FAILED
        else { return nil }
        self.mapping = mapping
        self.length = length
        self.buffer = buffer
    }

    deinit {
        munmap(mapping, length)
        released?()
    }

    /// A copy of the pixels; nil when it cannot be made.
    func image() -> Image? {
        try? Image(
            width: buffer.width, height: buffer.height, pixelFormat: .xrgb8888, bytesPerRow: buffer.stride,
            bytes: UnsafeRawBufferPointer(start: mapping + buffer.offset, count: length - buffer.offset))
    }
}
