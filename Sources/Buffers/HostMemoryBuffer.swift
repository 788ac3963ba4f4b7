import Glibc

/// Frame memory no device owns: anonymous, page-aligned (so a renderer can import it as host
/// memory), `height` rows of `width` pixels in `format`, tightly packed. A headless output's
/// scanout buffers. Unmapped when the last holder lets it go.
public final class HostMemoryBuffer: MappedPixelBuffer, SwapchainBuffer {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    public let bytesPerRow: Int
    /// The pixels, rounded up to whole pages.
    public let mapping: UnsafeMutableRawBufferPointer
    public var kind: BufferKind { .hostMemory }
    public var dmabuf: DmabufLayout? { nil }

    /// Nil when the memory cannot be mapped (errno says why) or the format is not one Vitrine reads.
    public init?(width: Int, height: Int, format: PixelFormat) {
        guard width > 0, height > 0, let bytesPerPixel = format.bytesPerPixel else { return nil }
        self.width = width
        self.height = height
        self.format = format
        bytesPerRow = width * bytesPerPixel
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let size = (bytesPerRow * height + page - 1) / page * page
        guard let start = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), start != MAP_FAILED
        else { return nil }
        mapping = UnsafeMutableRawBufferPointer(start: start, count: size)
    }

    deinit {
        munmap(mapping.baseAddress, mapping.count)
    }
}
