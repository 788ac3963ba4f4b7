import LayerKit

extension ShadowMaskSource {
    /// The path filled (non-zero winding, ca-semantics A5) by cairo at `scale` pixels per layer
    /// unit and blurred by a Gaussian of σ = `radius` units, in the layer's own plane: white
    /// premultiplied by the blurred coverage, with its frame in layer units. Blurring where the
    /// path lives, not on the target, is what lets the mask outlive the frame: moving, turning or
    /// tilting the layer only changes how the one image is projected.
    public func rasterized(scale k: Double) -> (image: Image, frame: Rect)? {
        let box = path.boundingBox
        guard !path.isEmpty, !box.isNull, box.width.isFinite, box.height.isFinite, k > 0 else { return nil }
        let sigma = ShadowBlur.sigma(pixels: max(0, radius) * k)
        let reach = ShadowBlur.reach(sigma: sigma)
        // A pixel of padding keeps the anti-aliased edge inside the shape; the blur's reach
        // around it keeps the whole Gaussian inside the image.
        let padded = box.insetBy(dx: -1 / k, dy: -1 / k)
        let width = max(1, Int((padded.width * k).rounded(.up))) + 2 * reach
        let height = max(1, Int((padded.height * k).rounded(.up))) + 2 * reach
        let origin = Point(x: padded.minX - Double(reach) / k, y: padded.minY - Double(reach) / k)
        // Only an allocation failure stops cairo here; the shadow is then left out of the frame.
        guard let context = try? GraphicsContext(width: width, height: height) else { return nil }
        context.scaleBy(x: k, y: k)
        context.translateBy(x: -origin.x, y: -origin.y)
        context.setFillColor(.white)
        context.addPath(path)
        context.fillPath(using: .winding)
        let mask = context.makeImage().gaussianBlurredMask(sigma: sigma)
        return (mask, Rect(x: origin.x, y: origin.y, width: Double(width) / k, height: Double(height) / k))
    }
}

/// The shadow's Gaussian, with the shader's kernel (Shaders/layer.frag, KIND_BLUR): σ of at least
/// 0.01 pixels, taps out to ⌈3σ⌉, weights normalised by their sum, as Graphics'
/// `gaussianBlurredMask` blurs on the CPU.
public enum ShadowBlur {
    public static func sigma(pixels: Double) -> Double { max(pixels, 0.01) }

    public static func reach(sigma: Double) -> Int { Int((3 * sigma).rounded(.up)) }
}

extension ShadowMaskSource {
    /// The mask's resolution for a layer that `transform` maps to target pixels: how many target
    /// pixels a layer unit covers (its scale, not its translation or turn), capped so that a huge
    /// path cannot ask for an image past 4096 pixels.
    public func scale(under transform: Transform3D) -> Double {
        let box = path.boundingBox
        let largest = 4096.0, r = max(0, radius)
        let k = transform.pixelsPerUnit
        return min(k, (largest - 8) / max(box.width + 6 * r, 1e-9), (largest - 8) / max(box.height + 6 * r, 1e-9))
    }
}

extension Transform3D {
    /// How many target pixels a unit of the plane covers along its longer axis (at least 0.001).
    public var pixelsPerUnit: Double {
        let sx = (m11 * m11 + m12 * m12).squareRoot()
        let sy = (m21 * m21 + m22 * m22).squareRoot()
        return max(max(sx, sy), 1e-3)
    }
}
