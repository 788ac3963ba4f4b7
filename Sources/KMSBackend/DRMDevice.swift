import Buffers
internal import CDRM
internal import CLinux
import FaultInjection
import Glibc
import Graphics
import SystemCalls

/// How the backend opens the DRM node when a seat manager gives devices out (libseat): the
/// descriptor it returns comes with DRM master while the session is active.
public struct KMSDeviceAccess {
    public var open: (String) throws -> FileDescriptor
    public var close: (FileDescriptor) -> Void

    public init(open: @escaping (String) throws -> FileDescriptor, close: @escaping (FileDescriptor) -> Void) {
        self.open = open
        self.close = close
    }
}

/// An open DRM primary node with the atomic and universal-planes client capabilities: the owner
/// of the file descriptor that every other KMS object of the backend uses.
final class DRMDevice {
    let path: String
    let descriptor: FileDescriptor
    /// Whether page-flip timestamps are CLOCK_MONOTONIC (wp_presentation's clock).
    let hasMonotonicTimestamps: Bool

    private let access: KMSDeviceAccess?

    /// Opens `path` through `access` (a seat manager), or directly when nil: that needs root (or
    /// the video group) and no other DRM master.
    init(path: String, access: KMSDeviceAccess? = nil) throws(KMSError) {
        self.path = path
        self.access = access
        if let access {
            do {
                descriptor = try access.open(path)
            } catch {
                throw KMSError.seatRefused(device: path, reason: "\(error)")
            }
        } else {
            let fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { throw KMSError.system(.current("open", path: path)) }
            descriptor = FileDescriptor(rawValue: fd)
        }
        let fd = descriptor.rawValue
        do throws(KMSError) {
            try KMSError.check(drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_UNIVERSAL_PLANES), 1),
                               "drmSetClientCap(UNIVERSAL_PLANES) on \(path)")
            try KMSError.check(drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_ATOMIC), 1), "drmSetClientCap(ATOMIC) on \(path)")
            guard try Self.capability(DRM_CAP_DUMB_BUFFER, of: fd, path: path) != 0 else {
                throw KMSError.missingCapability(device: path, capability: "dumb buffers")
            }
        } catch {
            if let access { access.close(descriptor) } else { try? descriptor.close() }
            throw error
        }
        hasMonotonicTimestamps = (try? Self.capability(DRM_CAP_TIMESTAMP_MONOTONIC, of: fd, path: path)) == 1
    }

    deinit {
        if let access { access.close(descriptor) } else { try? descriptor.close() }
    }

    /// The descriptor for libdrm's calls.
    var fd: Int32 { descriptor.rawValue }

    static func capability(_ capability: Int32, of fd: Int32, path: String) throws(KMSError) -> UInt64 {
        var value: UInt64 = 0
        try KMSError.check(drmGetCap(fd, UInt64(capability), &value), "drmGetCap(\(capability)) on \(path)")
        return value
    }

    /// The properties of a KMS object by name: their ids (for atomic commits) and current values.
    func properties(of object: UInt32, type: UInt32, describedAs label: String) throws(KMSError) -> ObjectProperties {
        guard let list = drmModeObjectGetProperties(fd, object, type) else {
            throw KMSError.current("drmModeObjectGetProperties(\(label))")
        }
        defer { drmModeFreeObjectProperties(list) }
        var entries: [String: (id: UInt32, value: UInt64)] = [:]
        for index in 0..<Int(list.pointee.count_props) {
            guard let property = drmModeGetProperty(fd, list.pointee.props[index]) else { continue }
            let name = withUnsafeBytes(of: property.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            entries[name] = (property.pointee.prop_id, list.pointee.prop_values[index])
            drmModeFreeProperty(property)
        }
        return ObjectProperties(object: object, label: label, entries: entries)
    }
}

/// A KMS object's properties, looked up once.
struct ObjectProperties {
    let object: UInt32
    let label: String
    let entries: [String: (id: UInt32, value: UInt64)]

    func id(_ name: String) throws(KMSError) -> UInt32 {
        guard let entry = entries[name] else { throw KMSError.propertyMissing(object: label, property: name) }
        return entry.id
    }

    func value(_ name: String) -> UInt64? { entries[name]?.value }
}

/// One atomic request: properties to set, committed (or only tested) at once.
final class AtomicRequest {
    private let request: drmModeAtomicReqPtr

    init() throws(KMSError) {
        guard let request = drmModeAtomicAlloc() else { throw KMSError.current("drmModeAtomicAlloc") }
        self.request = request
    }

    deinit {
        drmModeAtomicFree(request)
    }

    func set(_ object: UInt32, _ property: UInt32, _ value: UInt64) throws(KMSError) {
        try KMSError.check(drmModeAtomicAddProperty(request, object, property, value), "drmModeAtomicAddProperty")
    }

    /// Commits with `flags`; returns the errno on failure so that callers can name what failed.
    ///
    /// The KMS backend's one fault-injection point: a rule armed for `drmModeAtomicCommit:test`
    /// (TEST_ONLY), `:modeset` (ALLOW_MODESET) or `:flip` (every other commit: frames' page flips
    /// and cursor updates) returns its errno instead of committing, as a refused commit would.
    func commit(on device: DRMDevice, flags: UInt32, userData: UnsafeMutableRawPointer?) -> Errno? {
        if FaultInjection.isArmed, case .errno(let code) = FaultInjection.failure(of: Self.faultName(flags: flags)) {
            return Errno(rawValue: code)
        }
        do {
            try SystemCallError.checkNegativeErrno(drmModeAtomicCommit(device.fd, request, flags, userData), "drmModeAtomicCommit")
            return nil
        } catch {
            return error.errno
        }
    }

    /// The name fault rules give a commit with `flags`.
    static func faultName(flags: UInt32) -> String {
        if flags & UInt32(DRM_MODE_ATOMIC_TEST_ONLY) != 0 { return "drmModeAtomicCommit:test" }
        if flags & UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET) != 0 { return "drmModeAtomicCommit:modeset" }
        return "drmModeAtomicCommit:flip"
    }
}

extension DRMDevice {
    /// A framebuffer of one plane: the buffer of `handle` in `format`, rows `pitch` bytes apart
    /// from `offset`, with an explicit layout `modifier` where one is given (the device must take
    /// modifiers). `result` is drmModeAddFB2's (0, or -1 with errno set).
    func addFramebuffer(
        width: Int, height: Int, format: PixelFormat, handle: UInt32, pitch: UInt32, offset: UInt32, modifier: UInt64? = nil
    ) -> (result: Int32, framebuffer: UInt32) {
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (pitch, 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (offset, 0, 0, 0)
        var modifiers: (UInt64, UInt64, UInt64, UInt64) = (modifier ?? 0, 0, 0, 0)
        var framebuffer: UInt32 = 0
        let result = withUnsafeMutableBytes(of: &handles) { handles in
            withUnsafeMutableBytes(of: &pitches) { pitches in
                withUnsafeMutableBytes(of: &offsets) { offsets in
                    withUnsafeMutableBytes(of: &modifiers) { modifiers in
                        drmModeAddFB2WithModifiers(
                            fd, UInt32(width), UInt32(height), format.rawValue,
                            handles.baseAddress!.assumingMemoryBound(to: UInt32.self),
                            pitches.baseAddress!.assumingMemoryBound(to: UInt32.self),
                            offsets.baseAddress!.assumingMemoryBound(to: UInt32.self),
                            modifier == nil ? nil : modifiers.baseAddress!.assumingMemoryBound(to: UInt64.self), &framebuffer,
                            modifier == nil ? 0 : UInt32(DRM_MODE_FB_MODIFIERS))
                    }
                }
            }
        }
        return (result, framebuffer)
    }
}

/// A CPU-mapped 32-bit dumb buffer with its framebuffer: what the primary plane scans out (in
/// XRGB8888) where GBM cannot allocate or the renderer cannot draw into GBM's buffers, and the
/// cursor plane's image (in ARGB8888).
final class DumbBuffer: MappedPixelBuffer, ScanoutBuffer {
    private let device: DRMDevice
    let width: Int
    let height: Int
    let format: PixelFormat
    let bytesPerRow: Int
    private let handle: UInt32
    /// `bytesPerRow` × `height` bytes, rounded up as the driver likes.
    let mapping: UnsafeMutableRawBufferPointer
    let framebuffer: UInt32
    var kind: BufferKind { .dumb }
    var dmabuf: DmabufLayout? { nil }

    init(device: DRMDevice, width: Int, height: Int, format: PixelFormat = .xrgb8888) throws(KMSError) {
        self.device = device
        self.width = width
        self.height = height
        self.format = format
        var handle: UInt32 = 0
        var pitch: UInt32 = 0
        var size: UInt64 = 0
        try KMSError.check(drmModeCreateDumbBuffer(device.fd, UInt32(width), UInt32(height), 32, 0, &handle, &pitch, &size),
                           "drmModeCreateDumbBuffer(\(width)×\(height))")
        self.handle = handle
        bytesPerRow = Int(pitch)
        var offset: UInt64 = 0
        var framebuffer: UInt32 = 0
        do throws(KMSError) {
            try KMSError.check(drmModeMapDumbBuffer(device.fd, handle, &offset), "drmModeMapDumbBuffer")
            let added = device.addFramebuffer(width: width, height: height, format: format, handle: handle, pitch: pitch, offset: 0)
            try KMSError.check(added.result, "drmModeAddFB2(\(width)×\(height), format \(format))")
            framebuffer = added.framebuffer
        } catch {
            _ = drmModeDestroyDumbBuffer(device.fd, handle)
            throw error
        }
        let mapping = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, device.fd, off_t(offset))
        guard let mapping, mapping != MAP_FAILED else {
            let error = KMSError.current("mmap of a dumb buffer")
            _ = drmModeRmFB(device.fd, framebuffer)
            _ = drmModeDestroyDumbBuffer(device.fd, handle)
            throw error
        }
        self.framebuffer = framebuffer
        self.mapping = UnsafeMutableRawBufferPointer(start: mapping, count: Int(size))
    }

    deinit {
        munmap(mapping.baseAddress, mapping.count)
        // Removing a framebuffer that is still scanned out turns its plane off; the output restores
        // the CRTC it found before its buffers go.
        _ = drmModeRmFB(device.fd, framebuffer)
        _ = drmModeDestroyDumbBuffer(device.fd, handle)
    }
}
