import Buffers

/// Host memory lent as a client lends a shm buffer, `height` rows of `width` pixels in `format`
/// that a test writes into through `mapping`, counting the holds on it.
public final class LentMemory: CountingHolds, MappedPixelBuffer {
    private let memory: HostMemoryBuffer
    public var holds = 0
    public var returned: () -> Void

    /// Nil where `HostMemoryBuffer` cannot map the memory.
    public init?(width: Int, height: Int, format: PixelFormat, returned: @escaping () -> Void = {}) {
        guard let memory = HostMemoryBuffer(width: width, height: height, format: format) else { return nil }
        self.memory = memory
        self.returned = returned
    }

    public var width: Int { memory.width }
    public var height: Int { memory.height }
    public var format: PixelFormat { memory.format }
    public var kind: BufferKind { .clientShm }
    public var dmabuf: DmabufLayout? { nil }
    public var mapping: UnsafeMutableRawBufferPointer { memory.mapping }
    public var bytesPerRow: Int { memory.bytesPerRow }
}
