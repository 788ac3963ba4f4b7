import Foundation
import LayerKit

/// What both renderers decide alike about a layer's filters (seed ch. 2, "Filters Add Visual
/// Effects"): which layers render offscreen for them, how far blurs reach, where distortions
/// draw, and how a wide blur runs at a reduced resolution with which kernel.
extension RenderLayer {
    /// Whether the layer's `filters` or a blend-mode `compositingFilter` make it render as one
    /// image first. A mask's compositingFilter is ignored (ca-semantics A3).
    public var hasFilterEffects: Bool {
        // Most layers have no filters: the array is looked at before it is handed to a closure
        // (which retains and releases it), as a frame asks this of every layer it draws.
        (!properties.filters.isEmpty && properties.filters.contains { !$0.kind.isBlendMode })
            || (properties.compositingFilter?.kind.isBlendMode == true && maskedLayerID == nil)
    }

    /// Whether the layer shows its `backgroundFilters`; a mask's are ignored (ca-semantics A3).
    public var hasBackdrop: Bool {
        // As in `hasFilterEffects`.
        !properties.backgroundFilters.isEmpty && maskedLayerID == nil && properties.backgroundFilters.contains { !$0.kind.isBlendMode }
    }
}

/// The separable Gaussian of `gaussianBlur` filters, as the Vulkan shader runs it
/// (Shaders/layer.frag, KIND_FILTER_BLUR): taps out to ⌈3σ⌉ pixels, weighted exp(−i²/2σ²) and
/// normalised by their sum, over premultiplied RGBA; a wide blur at a half or a quarter of the
/// resolution.
public enum FilterBlur {
    /// The pixels the blurs among `filters` reach beyond what they blur (three σ each), at
    /// `scale` pixels per point.
    public static func reach(of filters: [Filter], scale: Double) -> Int {
        filters.reduce(0) { $0 + Int((3 * ($1.blurSigma ?? 0) * scale).rounded(.up)) }
    }

    /// How much a blur of σ `sigma` pixels reduces the resolution: 1, 2 or 4, keeping σ ≥ 4
    /// pixels there, where the detail lost is far below what the blur removes.
    public static func reduction(forSigma sigma: Double) -> Int {
        var factor = 1
        while sigma / Double(factor * 2) >= 4 && factor < 4 { factor *= 2 }
        return factor
    }

    /// The kernel's weights for offsets −r…r, r = ⌈3σ⌉ (none past the centre for σ ≤ 0),
    /// summing to 1.
    public static func weights(sigma: Double) -> [Double] {
        guard sigma > 0 else { return [1] }
        let radius = Int((3 * sigma).rounded(.up))
        let raw = (-radius...radius).map { i in exp(-Double(i * i) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        return raw.map { $0 / total }
    }
}

extension PixelBox {
    /// The box of the grid `factor` times coarser that covers this one (a reduced blur's pixels).
    public func reduced(by factor: Int) -> PixelBox {
        guard factor > 1 else { return self }
        func floorDivision(_ a: Int) -> Int { a >= 0 ? a / factor : -((-a + factor - 1) / factor) }
        return PixelBox(minX: floorDivision(minX), minY: floorDivision(minY), maxX: -floorDivision(-maxX), maxY: -floorDivision(-maxY))
    }
}

extension DamageTracker {
    /// The pixels the distortions among a layer's `filters` may draw on (their circles' boxes),
    /// for a layer that `transform` maps to output pixels; empty when it has none.
    public static func distortionBox(of p: LayerProperties, transform: Transform3D) -> PixelBox {
        let circles = distortedBounds(of: p, transform)
        return circles.isNull ? .empty : PixelBox(covering: circles)
    }
}
