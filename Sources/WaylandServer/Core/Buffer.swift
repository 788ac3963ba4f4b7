import Buffers
internal import CWaylandServer
import Glibc
import SystemCalls

/// A client's wl_buffer as attached to surfaces: shared memory (served by libwayland's wl_shm),
/// or one of Vitrine's own buffer kinds. One Swift object per wl_buffer, alive while it is.
///
/// It is the buffer as the compositor's renderers and displays read it too (`PixelBuffer`), where
/// it lies: a shm buffer's rows in the client's pool (under libwayland's SIGBUS guard; once its
/// client destroyed it, while a hold keeps them), a dma-buf through its first plane, a
/// single-pixel buffer as its one premultiplied ARGB8888 pixel. What reads it holds it
/// (`LentBuffer`); the client gets it back (wl_buffer.release) when the last hold ends.
public final class Buffer: EventSender, LentBuffer {
    public enum Storage: Equatable {
        /// wl_shm memory in `format`.
        case shm(format: PixelFormat)
        /// wp_single_pixel_buffer_v1: premultiplied channels, 0…UInt32.max each.
        case singlePixel(red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32)
        /// A linux-dmabuf buffer that the compositor's `DmabufImporter` accepted.
        case dmabuf(DmabufAttributes)
    }

    let raw: OpaquePointer
    public let width: Int
    public let height: Int
    public let storage: Storage
    /// The format its pixels are read in: a single-pixel buffer's is premultiplied ARGB8888.
    public let format: PixelFormat
    /// A single-pixel buffer's pixel, as 0xAARRGGBB (0 for other storage).
    private let pixel: UInt32
    public private(set) var isAlive = true
    private var destruction: ResourceDestructionListener?
    /// How many holds keep the buffer from its client now (`hold()`).
    private var holds = 0
    /// A destroyed shm buffer's memory, kept while a hold lasts.
    private var destroyedShmMemory: DestroyedShmMemory?
    /// The display that lists it, until the wl_buffer is destroyed. Unowned, not weak
    /// (docs/architecture.md: a weak reference would give the display, which every attach
    /// retains, a side table): the display outlives the wl_buffer (its deinit destroys every
    /// client's resources), and the buffer's destruction clears this.
    private unowned(unsafe) var display: Display?

    private init(raw: OpaquePointer, width: Int32, height: Int32, storage: Storage, display: Display) {
        self.raw = raw
        self.width = Int(width)
        self.height = Int(height)
        self.storage = storage
        switch storage {
        case .shm(let format):
            self.format = format
            pixel = 0
        case .singlePixel(let red, let green, let blue, let alpha):
            // Premultiplied 32-bit channels, rounded to 8 bits.
            func byte(_ channel: UInt32) -> UInt32 { (UInt32(channel >> 23) + 1) >> 1 }
            format = .argb8888
            pixel = byte(alpha) << 24 | byte(red) << 16 | byte(green) << 8 | byte(blue)
        case .dmabuf(let attributes):
            format = attributes.format.format
            pixel = 0
        }
        self.display = display
        destruction = ResourceDestructionListener(raw: raw) { [unowned self] in resourceDestroyed() }
    }

    /// The Buffer for a wl_buffer resource, or nil when it is not a buffer Vitrine can show.
    static func from(_ raw: OpaquePointer, display: Display) -> Buffer? {
        if let known = display.buffers[raw] { return known }
        let buffer: Buffer
        if let shm = wl_shm_buffer_get(raw) {
            buffer = Buffer(raw: raw, width: wl_shm_buffer_get_width(shm), height: wl_shm_buffer_get_height(shm),
                            storage: .shm(format: PixelFormat(shmCode: wl_shm_buffer_get_format(shm))), display: display)
        } else if let source = Resource.own(raw) as? BufferSource {
            buffer = Buffer(raw: raw, width: source.width, height: source.height, storage: source.storage, display: display)
        } else {
            return nil
        }
        display.buffers[raw] = buffer
        return buffer
    }

    public func hold() {
        holds += 1
    }

    /// The last hold's end tells the client the compositor no longer reads the buffer
    /// (wl_buffer.release), and lets go of a destroyed shm buffer's memory.
    public func endHold() {
        // A hold ended twice is the compositor's bug: it must not cost the session.
        guard holds > 0 else { return assertionFailure("a hold on a wl_buffer ended that was never taken") }
        holds -= 1
        guard holds == 0 else { return }
        destroyedShmMemory = nil
        send(.release)
    }

    public var kind: BufferKind {
        if case .dmabuf = storage { .clientDmabuf } else { .clientShm }
    }

    public var dmabuf: DmabufLayout? {
        guard case .dmabuf(let attributes) = storage else { return nil }
        return DmabufLayout(firstPlaneOf: attributes)
    }

    /// A shm buffer's rows (a destroyed one's while a hold keeps them, `readShmContents`), a
    /// single-pixel buffer's pixel; nil for a dma-buf, or a shm buffer that is gone.
    public func withPixels<Result>(_ body: (PixelRows) throws -> Result) rethrows -> Result? {
        switch storage {
        case .shm:
            return try readShmContents { contents in
                try body(PixelRows(
                    bytes: contents.bytes, width: contents.width, height: contents.height, bytesPerRow: contents.stride,
                    format: contents.format))
            }
        case .singlePixel:
            return try withUnsafeBytes(of: pixel) { bytes in
                try body(PixelRows(bytes: bytes, width: 1, height: 1, bytesPerRow: 4, format: .argb8888))
            }
        case .dmabuf:
            return nil
        }
    }

    var version: UInt32 { UInt32(wl_resource_get_version(raw)) }
    var eventTarget: OpaquePointer? { isAlive ? raw : nil }

    /// A plane descriptor whose fenced writes are not done yet, or nil once the client's rendering
    /// into the buffer is complete. Implicit sync: a GPU client commits a dma-buf as soon as it has
    /// submitted its rendering, and the dma-buf polls readable once the writes fenced on it are
    /// done. Other storage is always complete.
    var unfinishedWrite: FileDescriptor? {
        guard isAlive, case .dmabuf(let attributes) = storage else { return nil }
        return attributes.planes.map(\.fileDescriptor).first { fd in
            var entry = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, 0) == 0
        }
    }

    /// Reads a shm buffer's pixels; nil for other storage or a destroyed buffer. The memory is the
    /// client's: a pool shrunk under the buffer reads as zeros and gets the client an error
    /// (libwayland's SIGBUS guard), so copy what is needed inside `body`.
    public func withShmContents<Result>(_ body: (ShmContents) throws -> Result) rethrows -> Result? {
        guard let (shm, contents) = shmContents else { return nil }
        wl_shm_buffer_begin_access(shm)
        defer { wl_shm_buffer_end_access(shm) }
        return try body(contents)
    }

    /// Reads a shm buffer's pixels as the compositor shows them: a live buffer's where they lie
    /// (`withShmContents`), a destroyed one's while a hold keeps them (copied through the kernel);
    /// nil for other storage, or for a destroyed buffer nothing held.
    private func readShmContents<Result>(_ body: (ShmContents) throws -> Result) rethrows -> Result? {
        if isAlive { return try withShmContents(body) }
        return try destroyedShmMemory?.withContents(body)
    }

    /// A live shm buffer's libwayland object and where its rows lie.
    private var shmContents: (OpaquePointer, ShmContents)? {
        guard isAlive, case .shm(let format) = storage, let shm = wl_shm_buffer_get(raw),
              let data = wl_shm_buffer_get_data(shm) else { return nil }
        let stride = Int(wl_shm_buffer_get_stride(shm))
        return (shm, ShmContents(
            bytes: UnsafeRawBufferPointer(start: data, count: stride * height),
            width: width, height: height, stride: stride, format: format))
    }

    /// Writes into a shm buffer a client handed over to be filled (a screen capture's): `body`
    /// gets the address of its first pixel and the bytes between rows. False for other storage or
    /// a destroyed buffer. A pool whose file was truncated under the buffer gets its client a
    /// wl_shm error (libwayland's guard).
    func writeShmPixels(_ body: (UnsafeMutableRawPointer, _ bytesPerRow: Int) -> Void) -> Bool {
        withShmContents { contents in
            guard let base = contents.bytes.baseAddress else { return false }
            // wl_shm pools are mapped writable.
            body(UnsafeMutableRawPointer(mutating: base), contents.stride)
            return true
        } ?? false
    }

    private func resourceDestroyed() {
        // Still shown: the pool stays mapped past the buffer (libwayland frees the buffer, and
        // its reference on the pool, after this listener), as wlroots locks a buffer it shows.
        if holds > 0, let (shm, contents) = shmContents, let pool = wl_shm_buffer_ref_pool(shm) {
            destroyedShmMemory = DestroyedShmMemory(pool: pool, contents: contents)
        }
        isAlive = false
        display?.buffers[raw] = nil
        display = nil
    }
}

/// A view of a shm buffer's memory during `Buffer.withShmContents`.
public struct ShmContents {
    public let bytes: UnsafeRawBufferPointer
    public let width: Int
    public let height: Int
    public let stride: Int
    public let format: PixelFormat
}

/// Vitrine's own wl_buffer resources (single-pixel, dmabuf) describe themselves through this.
protocol BufferSource: AnyObject {
    var width: Int32 { get }
    var height: Int32 { get }
    var storage: Buffer.Storage { get }
}
