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
            throw BackendError.system(operation: "mmap of a \(width)×\(height) frame buffer", errno: errno)
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
