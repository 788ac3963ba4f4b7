import Buffers

/// How an output's GBM buffer objects are laid out, chosen from what the display device and the
/// renderer both take: tiled where the plane scans out a modifier the renderer renders into,
/// linear otherwise. A pure choice, so that each case can be checked without a GPU.
enum SwapchainLayout: Hashable {
    /// Allocated with `gbm_bo_create_with_modifiers2` over these modifiers (the plane's, in its
    /// order, that the renderer renders into; none of them linear): GBM picks one.
    case tiled([UInt64])
    /// Linear: the framebuffer says LINEAR where `explicitModifier`, and carries no modifier
    /// (GBM_BO_USE_LINEAR, the layout implied) where the device or the plane takes none.
    case linear(explicitModifier: Bool)

    /// The layouts to try for XRGB8888 buffers, best first, and why they are linear where they
    /// are (nil where a tiled layout comes first). `takesModifiers`: the device's
    /// DRM_CAP_ADDFB2_MODIFIERS; `planeModifiers`: the primary plane's IN_FORMATS for XRGB8888;
    /// `renderModifiers`: those the renderer renders into (`LayerTreeRenderer.renderTargetFormats`);
    /// `tiledRefused`: why the renderer could not draw into tiled buffers it said it renders into.
    static func candidates(
        takesModifiers: Bool, planeModifiers: [UInt64], renderModifiers: [UInt64], tiledRefused: String? = nil
    ) -> (layouts: [SwapchainLayout], whyLinear: String?) {
        guard takesModifiers else { return ([.linear(explicitModifier: false)], "the device takes no format modifiers") }
        let linear = SwapchainLayout.linear(explicitModifier: planeModifiers.contains(FormatModifier.linear))
        let tiled = planeModifiers.filter { $0 != FormatModifier.linear && $0 != FormatModifier.invalid && renderModifiers.contains($0) }
        if !tiled.isEmpty, let tiledRefused { return ([linear], tiledRefused) }
        guard tiled.isEmpty else { return ([.tiled(tiled), linear], nil) }
        let why: String
        if planeModifiers.isEmpty {
            why = "the plane lists no modifiers for XRGB8888"
        } else if renderModifiers.allSatisfy({ $0 == FormatModifier.linear }) {
            why = "the renderer renders into no tiled layout"
        } else {
            why = "the renderer renders into none of the plane's modifiers ("
                + planeModifiers.map(DRMDevice.name(ofModifier:)).joined(separator: ", ") + ")"
        }
        return ([linear], why)
    }

    /// Makes buffers with the first of `layouts` that `allocate` takes (it returns the buffers and
    /// the modifier they have, or throws where GBM or the device refuses the layout), and says
    /// which path they take for the log and `vitrine list-outputs`, with the reasons the better
    /// layouts were not taken. Nil, with those reasons, where none is taken.
    static func allocate<Buffers>(
        _ layouts: [SwapchainLayout], whyLinear: String?,
        _ allocate: (SwapchainLayout) throws(KMSError) -> (buffers: Buffers, modifier: UInt64)
    ) -> Result<(buffers: Buffers, path: String), Refusals> {
        var refusals: [String] = whyLinear.map { [$0] } ?? []
        for layout in layouts {
            do throws(KMSError) {
                let made = try allocate(layout)
                let path: String = switch layout {
                case .tiled: "GBM buffer objects, modifier \(DRMDevice.name(ofModifier: made.modifier))"
                case .linear(let explicit):
                    "GBM buffer objects, linear ("
                        + ((explicit ? ["explicit modifier"] : []) + refusals).joined(separator: "; ") + ")"
                }
                return .success((made.buffers, path))
            } catch {
                refusals.append("\(layout) refused: \(error)")
            }
        }
        return .failure(Refusals(reasons: refusals))
    }

    /// Why no GBM layout was taken.
    struct Refusals: Error, Equatable, CustomStringConvertible {
        let reasons: [String]
        var description: String { reasons.joined(separator: "; ") }
    }
}

extension SwapchainLayout: CustomStringConvertible {
    var description: String {
        switch self {
        case .tiled(let modifiers): "a GBM buffer with modifiers " + modifiers.map(DRMDevice.name(ofModifier:)).joined(separator: ", ")
        case .linear(true): "a linear GBM buffer with the explicit modifier"
        case .linear(false): "a linear GBM buffer"
        }
    }
}
