import Buffers
internal import CDRM
internal import CGBM
import Glibc
import SystemCalls

/// A GBM buffer object allocated on the display device for scanout and rendering, with its
/// framebuffer and a read-write dma-buf of it that the renderer imports and draws into: an
/// output's swapchain buffer on the GPU path. Linear: `modifier` is the explicit LINEAR where the
/// device takes modifiers, nil (implicit, allocated with GBM_BO_USE_LINEAR) where it does not.
final class GBMBuffer: ScanoutBuffer {
    private let device: GBMDevice
    private let bo: OpaquePointer
    /// Read-write: exported with DRM_RDWR before anything asked GBM for a descriptor, since
    /// `gbm_bo_get_fd`'s is read-only and lavapipe refuses to import that (see hil.md).
    private let descriptor: OwnedFileDescriptor
    let width: Int
    let height: Int
    let format: PixelFormat
    let stride: Int
    let framebuffer: UInt32
    private let modifier: UInt64?
    var kind: BufferKind { .gbm }

    init(device: GBMDevice, width: Int, height: Int, format: PixelFormat = .xrgb8888, modifier: UInt64?) throws(KMSError) {
        let usage = UInt32(GBM_BO_USE_SCANOUT.rawValue | GBM_BO_USE_RENDERING.rawValue)
        let made: OpaquePointer? = if var modifier {
            gbm_bo_create_with_modifiers2(device.handle, UInt32(width), UInt32(height), format.rawValue, &modifier, 1, usage)
        } else {
            gbm_bo_create(device.handle, UInt32(width), UInt32(height), format.rawValue, usage | UInt32(GBM_BO_USE_LINEAR.rawValue))
        }
        guard let bo = made else { throw KMSError.current("gbm_bo_create(\(width)×\(height), \(format))") }
        let drm = device.drm
        let handle = gbm_bo_get_handle(bo).u32
        var fd: Int32 = -1
        guard drmPrimeHandleToFD(drm.fd, handle, UInt32(DRM_CLOEXEC | DRM_RDWR), &fd) == 0, fd >= 0 else {
            let error = KMSError.current("drmPrimeHandleToFD(GBM buffer, DRM_RDWR)")
            gbm_bo_destroy(bo)
            throw error
        }
        let owned = OwnedFileDescriptor(rawValue: fd)
        let stride = Int(gbm_bo_get_stride(bo))
        let added = drm.addFramebuffer(
            width: width, height: height, format: format, handle: handle, pitch: UInt32(stride), offset: gbm_bo_get_offset(bo, 0),
            modifier: modifier)
        guard added.result == 0 else {
            let error = KMSError.system(SystemCallError("drmModeAddFB2(GBM buffer \(width)×\(height))", errno: Errno(rawValue: errno)))
            gbm_bo_destroy(bo)
            throw error
        }
        (self.device, self.bo, descriptor, self.width, self.height, self.format) = (device, bo, owned, width, height, format)
        (self.stride, framebuffer, self.modifier) = (stride, added.framebuffer, modifier)
    }

    deinit {
        // Removing a framebuffer that is still scanned out turns its plane off; the output restores
        // the CRTC it found before its buffers go.
        _ = drmModeRmFB(device.drm.fd, framebuffer)
        gbm_bo_destroy(bo)
    }

    var dmabuf: DmabufLayout? {
        layout
    }

    private var layout: DmabufLayout {
        DmabufLayout(
            fileDescriptor: descriptor.rawValue, width: width, height: height, format: format,
            modifier: modifier ?? FormatModifier.linear, offset: Int(gbm_bo_get_offset(bo, 0)), stride: stride)
    }

    /// The pixels through GBM's mapping of the buffer (a capture; frames are drawn by the GPU).
    func withPixels<Result>(_ body: (PixelRows) throws -> Result) rethrows -> Result? {
        var mapStride: UInt32 = 0
        var mapData: UnsafeMutableRawPointer?
        guard let pixels = gbm_bo_map(bo, 0, 0, UInt32(width), UInt32(height), GBM_BO_TRANSFER_READ.rawValue, &mapStride, &mapData)
        else { return nil }
        defer { gbm_bo_unmap(bo, mapData) }
        let rows = PixelRows(
            bytes: UnsafeRawBufferPointer(start: pixels, count: Int(mapStride) * height), width: width, height: height,
            bytesPerRow: Int(mapStride), format: format)
        return try body(rows)
    }

    var memory: SwapchainMemory { .dmabuf(layout) }

    func clear() {
        var mapStride: UInt32 = 0
        var mapData: UnsafeMutableRawPointer?
        guard let pixels = gbm_bo_map(bo, 0, 0, UInt32(width), UInt32(height), GBM_BO_TRANSFER_WRITE.rawValue, &mapStride, &mapData)
        else { return }
        defer { gbm_bo_unmap(bo, mapData) }
        for row in 0..<height {
            (pixels + row * Int(mapStride)).initializeMemory(as: UInt32.self, repeating: 0xFF00_0000, count: width)
        }
    }
}
