import Buffers
internal import CDRM
internal import CGBM
import Glibc
import SystemCalls

/// A GBM buffer object allocated on the display device for scanout and rendering, with its
/// framebuffer and a read-write dma-buf of it that the renderer imports and draws into: an
/// output's swapchain buffer on the GPU path, laid out as its `SwapchainLayout` says: tiled with
/// the modifier GBM chose among those offered, or linear.
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
    /// The framebuffer's explicit modifier: the one GBM chose for a tiled layout, LINEAR for an
    /// explicit linear one; nil where the layout is implied (linear, GBM_BO_USE_LINEAR).
    let modifier: UInt64?
    var kind: BufferKind { .gbm }
    var isTiled: Bool { modifier.map { $0 != FormatModifier.linear } ?? false }

    init(device: GBMDevice, width: Int, height: Int, format: PixelFormat = .xrgb8888, layout: SwapchainLayout) throws(KMSError) {
        let usage = UInt32(GBM_BO_USE_SCANOUT.rawValue | GBM_BO_USE_RENDERING.rawValue)
        let made: OpaquePointer?
        switch layout {
        case .tiled(let modifiers):
            made = gbm_bo_create_with_modifiers2(
                device.handle, UInt32(width), UInt32(height), format.rawValue, modifiers, UInt32(modifiers.count), usage)
        case .linear(explicitModifier: true):
            made = gbm_bo_create_with_modifiers2(
                device.handle, UInt32(width), UInt32(height), format.rawValue, [FormatModifier.linear], 1, usage)
        case .linear(explicitModifier: false):
            made = gbm_bo_create(device.handle, UInt32(width), UInt32(height), format.rawValue, usage | UInt32(GBM_BO_USE_LINEAR.rawValue))
        }
        guard let bo = made else { throw KMSError.current("gbm_bo_create(\(width)×\(height), \(format))") }
        let modifier: UInt64?
        switch layout {
        case .tiled(let offered):
            // The renderer imports one plane with an explicit layout: GBM's choice must be one of
            // the single-plane modifiers it was offered.
            let chosen = gbm_bo_get_modifier(bo)
            let planes = Int(gbm_bo_get_plane_count(bo))
            guard offered.contains(chosen), planes == 1 else {
                gbm_bo_destroy(bo)
                throw KMSError.unusableLayout("GBM chose \(DRMDevice.name(ofModifier: chosen)) with \(planes) plane(s)")
            }
            modifier = chosen
        case .linear(let explicit):
            modifier = explicit ? FormatModifier.linear : nil
        }
        let drm = device.drm
        let handle = gbm_bo_get_handle(bo).u32
        var fd: Int32 = -1
        guard drmPrimeHandleToFD(drm.fd, handle, UInt32(DRM_CLOEXEC | DRM_RDWR), &fd) == 0, fd >= 0 else {
            let error = KMSError.current("drmPrimeHandleToFD(GBM buffer, DRM_RDWR)")
            gbm_bo_destroy(bo)
            throw error
        }
        let owned = OwnedFileDescriptor(rawValue: fd)
        let stride = Int(gbm_bo_get_stride_for_plane(bo, 0))
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
