import Buffers

/// Makes an output's ring of scanout buffers: GBM buffer objects on the display device, which the
/// renderer draws into through dma-buf import, and dumb buffers, which the CPU or a host-memory
/// import writes, only where GBM cannot allocate (or the renderer could not import GBM's).
struct SwapchainAllocator {
    /// The device's GBM allocator, or why there is none.
    let gbm: Result<GBMDevice, KMSError>
    let device: DRMDevice

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
            case .failure(let error):
                reason = "no GBM: \(error)"
            }
        }
        let buffers: [any ScanoutBuffer] = try (0..<2).map { _ throws(KMSError) in try DumbBuffer(device: device, width: width, height: height) }
        return (buffers, "dumb buffers (\(reason))")
    }
}
