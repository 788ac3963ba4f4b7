internal import CVulkan

/// Staging buffers of texture uploads, kept for reuse once the frames that copied from them are
/// done. A client that commits a new buffer every frame would otherwise have fresh memory mapped,
/// faulted in and unmapped for each upload (on lavapipe every allocation is an mmap of its own).
final class StagingBufferPool {
    let context: VulkanContext
    /// Idle buffers, the most recently returned last.
    private var idle: [GPUBuffer] = []
    /// At most this many bytes stay idle: two 1080p uploads, what a window redrawn every frame
    /// reuses while its previous frames are in flight.
    static let maximumIdleBytes = 16 << 20
    /// At most this many buffers stay idle, however small: thousands of tiny uploads (a client's
    /// many small subsurfaces) would otherwise each keep a device allocation.
    static let maximumIdleBuffers = 32

    init(context: VulkanContext) {
        self.context = context
    }

    /// The bytes of the buffers waiting for reuse.
    private(set) var idleBytes = 0

    /// How many buffers wait for reuse.
    var idleCount: Int { idle.count }

    /// A buffer of at least `size` bytes: an idle one no more than twice as large, else a new one.
    func take(size: Int) throws -> StagingBuffer {
        let fitting = idle.indices.filter { idle[$0].size >= size && idle[$0].size <= 2 * size }
        if let index = fitting.min(by: { idle[$0].size < idle[$1].size }) {
            idleBytes -= idle[index].size
            return StagingBuffer(idle.remove(at: index), pool: self)
        }
        let buffer = try GPUBuffer(
            context: context, size: size, usage: VkBufferUsageFlags(VK_BUFFER_USAGE_TRANSFER_SRC_BIT.rawValue))
        return StagingBuffer(buffer, pool: self)
    }

    /// Keeps `buffer` for reuse, letting go of the longest idle ones beyond `maximumIdleBytes` or
    /// `maximumIdleBuffers`.
    fileprivate func recycle(_ buffer: GPUBuffer) {
        idle.append(buffer)
        idleBytes += buffer.size
        while idleBytes > Self.maximumIdleBytes || idle.count > Self.maximumIdleBuffers {
            idleBytes -= idle.removeFirst().size
        }
    }
}

/// One upload's staging buffer: it goes back to its pool when released, which is once the upload
/// was copied by a finished frame (frames keep it alive until then) or was never submitted.
final class StagingBuffer {
    let buffer: GPUBuffer
    private weak var pool: StagingBufferPool?

    init(_ buffer: GPUBuffer, pool: StagingBufferPool?) {
        self.buffer = buffer
        self.pool = pool
    }

    deinit {
        pool?.recycle(buffer)
    }
}
