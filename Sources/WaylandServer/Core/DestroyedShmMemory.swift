internal import CVitrineWayland
internal import CWaylandServer
import Glibc

/// The memory of a shm buffer its client destroyed while something held it (`Buffer.hold()`), kept
/// mapped while this lives: it holds a reference on libwayland's pool (as wlroots does for a buffer
/// it shows), which also defers the client's resizes, so the rows stay where they are. Nothing is
/// mapped or referenced while the buffer lives.
final class DestroyedShmMemory {
    private let pool: OpaquePointer
    private let contents: ShmContents

    init(pool: OpaquePointer, contents: ShmContents) {
        self.pool = pool
        self.contents = contents
    }

    deinit {
        wl_shm_pool_unref(pool)
    }

    /// Calls `body` with the rows copied through the kernel (libwayland's SIGBUS guard needs the
    /// buffer), which reports a page past the end of a truncated pool instead of raising SIGBUS:
    /// such pages read as zeros.
    func withContents<Result>(_ body: (ShmContents) throws -> Result) rethrows -> Result {
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
