import Buffers

/// Makes an output's ring of scanout buffers: GBM buffer objects on the display device, which the
/// renderer draws into through dma-buf import, and dumb buffers, which the CPU or a host-memory
/// import writes, only where GBM cannot allocate, the renderer could not import GBM's, or the
/// renderer draws into memory it maps (the CPU renderer, for which GBM is not even loaded).
struct SwapchainAllocator {
    let device: DRMDevice
    /// The device's GBM allocator, or why outputs use dumb buffers.
    private let gbm: Result<GBMDevice, Refusal>

    struct Refusal: Error {
        let reason: String
    }

    /// `mappedBuffersReason`: dumb buffers for every output, for that reason, and no GBM device.
    init(device: DRMDevice, mappedBuffersReason: String?) {
        self.device = device
        if let mappedBuffersReason {
            gbm = .failure(Refusal(reason: mappedBuffersReason))
        } else {
            do throws(KMSError) {
                gbm = .success(try GBMDevice(drm: device))
            } catch {
                gbm = .failure(Refusal(reason: "no GBM: \(error)"))
            }
        }
    }

    /// Two buffers of `width`×`height` for `plane`, and which path they take, for the log.
    /// `mappedOnly`: dumb buffers whatever GBM can do, because of the reason given.
    func makeBuffers(width: Int, height: Int, plane: UInt32, mappedOnly: String? = nil) throws(KMSError)
        -> (buffers: [any ScanoutBuffer], path: String)
    {
        let reason: String
        if let mappedOnly {
            reason = mappedOnly
        } else {
            switch gbm {
            case .success(let gbm):
                // The renderer draws linear buffers only. Where the device takes modifiers the
                // framebuffer says LINEAR explicitly (vkms refuses commits of an implicit one); where
                // it does not (virtio-gpu), GBM is asked for a linear buffer and the layout is implied.
                let explicit = device.takesModifiers && device.modifiers(of: plane, for: .xrgb8888).contains(FormatModifier.linear)
                do throws(KMSError) {
                    let buffers: [any ScanoutBuffer] = try (0..<2).map { _ throws(KMSError) in
                        try GBMBuffer(device: gbm, width: width, height: height, modifier: explicit ? FormatModifier.linear : nil)
                    }
                    return (buffers, "GBM buffer objects, linear\(explicit ? " (explicit modifier)" : "")")
                } catch {
                    reason = "GBM could not allocate: \(error)"
                }
            case .failure(let refusal):
                reason = refusal.reason
            }
        }
        let buffers: [any ScanoutBuffer] = try (0..<2).map { _ throws(KMSError) in try DumbBuffer(device: device, width: width, height: height) }
        return (buffers, "dumb buffers (\(reason))")
    }
}
