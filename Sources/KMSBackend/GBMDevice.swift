import Buffers
internal import CDRM
internal import CGBM
import Glibc

/// Mesa's buffer allocator on the DRM device the outputs scan out from: the owner of the
/// `gbm_device`, which its buffer objects keep alive.
final class GBMDevice {
    let drm: DRMDevice
    let handle: OpaquePointer

    /// Throws where Mesa has no GBM backend for the device.
    init(drm: DRMDevice) throws(KMSError) {
        guard let handle = gbm_create_device(drm.fd) else { throw KMSError.current("gbm_create_device(\(drm.path))") }
        self.drm = drm
        self.handle = handle
    }

    deinit {
        gbm_device_destroy(handle)
    }

    /// The backend Mesa picked for the device ("drm").
    var backendName: String {
        gbm_device_get_backend_name(handle).map { String(cString: $0) } ?? "unknown"
    }
}

extension DRMDevice {
    /// Whether framebuffers may carry an explicit layout modifier (`drmModeAddFB2WithModifiers`):
    /// virtio-gpu says no.
    var takesModifiers: Bool {
        (try? Self.capability(DRM_CAP_ADDFB2_MODIFIERS, of: fd, path: path)) == 1
    }

    /// The layout modifiers `plane` scans out `format` with, from its IN_FORMATS property; empty
    /// where the plane has none (the driver then takes implicit layouts only).
    func modifiers(of plane: UInt32, for format: PixelFormat) -> [UInt64] {
        guard let properties = try? properties(of: plane, type: UInt32(DRM_MODE_OBJECT_PLANE), describedAs: "plane \(plane)"),
            let blobID = properties.value("IN_FORMATS"), let blob = drmModeGetPropertyBlob(fd, UInt32(blobID))
        else { return [] }
        defer { drmModeFreePropertyBlob(blob) }
        var iterator = drmModeFormatModifierIterator()
        var result: [UInt64] = []
        while drmModeFormatModifierBlobIterNext(blob, &iterator) {
            if iterator.fmt == format.rawValue { result.append(iterator.mod) }
        }
        return result
    }

    /// A layout modifier as libdrm names it ("INTEL Y_TILED (0x100000000000002)", "NONE LINEAR
    /// (0x0)"), or its number alone where libdrm has no name for it.
    static func name(ofModifier modifier: UInt64) -> String {
        let number = "0x\(String(modifier, radix: 16))"
        guard let vendor = drmGetFormatModifierVendor(modifier) else { return number }
        defer { free(vendor) }
        guard let name = drmGetFormatModifierName(modifier) else { return number }
        defer { free(name) }
        return "\(String(cString: vendor)) \(String(cString: name)) (\(number))"
    }
}
