internal import CVitrineWayland
internal import CWaylandServer
import Glibc

/// A shm buffer's memory, kept mapped while this lives, even once its client destroys the
/// buffer and its pool: it holds a reference on libwayland's pool (as wlroots does for a buffer it
/// shows), which also defers the client's resizes, so the rows stay where they are.
public final class ShmMemory {
    private let pool: OpaquePointer
    private let buffer: Buffer
    private let contents: ShmContents

    init(buffer: Buffer, pool: OpaquePointer, contents: ShmContents) {
        self.buffer = buffer
        self.pool = pool
        self.contents = contents
    }

    deinit {
        wl_shm_pool_unref(pool)
    }

    /// Calls `body` with the buffer's rows. While the buffer lives they are read where they lie
    /// under libwayland's SIGBUS guard; once its client destroyed it (the guard needs it), they
    /// are copied through the kernel, which reports a page past the end of a truncated pool
    /// instead of raising SIGBUS: such pages read as zeros.
    public func withContents<Result>(_ body: (ShmContents) throws -> Result) rethrows -> Result? {
        if buffer.isAlive { return try buffer.withShmContents(body) }
        let count = contents.bytes.count
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        defer { copy.deallocate() }
        copy.initializeMemory(as: UInt8.self, repeating: 0)
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var offset = 0
        while offset < count, let source = contents.bytes.baseAddress, let target = copy.baseAddress {
            let read = vitrine_copy_own_memory(target + offset, source + offset, count - offset)
            // An unreadable page is left zero: go on from the next one.
            offset += read > 0 ? read : pageSize - Int(bitPattern: source + offset) % pageSize
        }
        return try body(ShmContents(
            bytes: UnsafeRawBufferPointer(copy), width: contents.width, height: contents.height, stride: contents.stride,
            format: contents.format))
    }
}
