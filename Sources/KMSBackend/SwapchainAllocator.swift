import Buffers

/// Makes an output's ring of scanout buffers: GBM buffer objects on the display device, which the
/// renderer draws into through dma-buf import, tiled where the plane and the renderer share a
/// modifier and linear otherwise (`SwapchainLayout`), and dumb buffers, which the CPU or a
/// host-memory import writes, only where GBM cannot allocate, the renderer could not import GBM's,
/// or the renderer draws into memory it maps (the CPU renderer, for which GBM is not even loaded).
/// One per device, shared by its outputs.
final class SwapchainAllocator {
    let device: DRMDevice
    /// The device's GBM allocator, or why outputs use dumb buffers.
    private let gbm: Result<GBMDevice, Refusal>
    /// The modifiers of XRGB8888 the renderer renders into (`LayerTreeRenderer.renderTargetFormats`):
    /// empty until the compositor says, and where the renderer has none.
    var renderModifiers: [UInt64] = []

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

    /// The GBM layouts buffers for `plane` are tried with, best first, and why they are linear
    /// (`SwapchainLayout.candidates`), for a renderer that renders into `renderModifiers` and
    /// could not draw into tiled buffers where `tiledRefused` says why; none where GBM is not used.
    func layouts(
        for plane: UInt32, renderModifiers: [UInt64]? = nil, tiledRefused: String? = nil
    ) -> (layouts: [SwapchainLayout], whyLinear: String?) {
        guard case .success = gbm else { return ([], nil) }
        let takesModifiers = device.takesModifiers
        return SwapchainLayout.candidates(
            takesModifiers: takesModifiers, planeModifiers: takesModifiers ? device.modifiers(of: plane, for: .xrgb8888) : [],
            renderModifiers: renderModifiers ?? self.renderModifiers, tiledRefused: tiledRefused)
    }

    /// Two buffers of `width`×`height` for `plane`, and which path they take, for the log.
    /// `tiledRefused`: linear GBM buffers whatever the plane and the renderer share, and
    /// `mappedOnly`: dumb buffers whatever GBM can do, because of the reason given.
    func makeBuffers(
        width: Int, height: Int, plane: UInt32, tiledRefused: String? = nil, mappedOnly: String? = nil
    ) throws(KMSError)
        -> (buffers: [any ScanoutBuffer], path: String)
    {
        let reason: String
        switch (mappedOnly, gbm) {
        case (let mappedOnly?, _):
            reason = mappedOnly
        case (nil, .failure(let refusal)):
            reason = refusal.reason
        case (nil, .success(let gbm)):
            let (layouts, whyLinear) = layouts(for: plane, tiledRefused: tiledRefused)
            let made = SwapchainLayout.allocate(layouts, whyLinear: whyLinear) { layout throws(KMSError) in
                let buffers = try (0..<2).map { _ throws(KMSError) in
                    try GBMBuffer(device: gbm, width: width, height: height, layout: layout)
                }
                return (buffers, buffers[0].modifier ?? FormatModifier.linear)
            }
            switch made {
            case .success(let made): return (made.buffers, made.path)
            case .failure(let refusals): reason = "GBM could not allocate: \(refusals)"
            }
        }
        let buffers: [any ScanoutBuffer] = try (0..<2).map { _ throws(KMSError) in try DumbBuffer(device: device, width: width, height: height) }
        return (buffers, "dumb buffers (\(reason))")
    }
}
