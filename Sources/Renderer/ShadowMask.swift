import LayerKit
import Glibc

extension ShadowMaskSource {
    /// The path filled (non-zero winding, ca-semantics A5) by cairo at `scale` pixels per layer
    /// unit and blurred by a Gaussian of σ = `radius` units, in the layer's own plane: white
    /// premultiplied by the blurred coverage, with its frame in layer units. Blurring where the
    /// path lives, not on the target, is what lets the mask outlive the frame: moving, turning or
    /// tilting the layer only changes how the one image is projected.
    func rasterized(scale k: Double) -> (image: Image, frame: Rect)? {
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
        guard let mask = ShadowBlur.blurredAlpha(of: context.makeImage(), sigma: sigma) else { return nil }
        return (mask, Rect(x: origin.x, y: origin.y, width: Double(width) / k, height: Double(height) / k))
    }
}

/// The shadow's Gaussian on the CPU, with the shader's kernel (Shaders/layer.frag, KIND_BLUR):
/// σ of at least 0.01 pixels, taps out to ⌈3σ⌉, weights normalised by their sum.
enum ShadowBlur {
    static func sigma(pixels: Double) -> Double { max(pixels, 0.01) }

    static func reach(sigma: Double) -> Int { Int((3 * sigma).rounded(.up)) }

    /// `image`'s alpha blurred along x then y (transparent beyond its edges), as white
    /// premultiplied by the result; nil when the image cannot be made.
    static func blurredAlpha(of image: Image, sigma: Double) -> Image? {
        let (width, height) = (image.width, image.height)
        let reach = reach(sigma: sigma)
        var weights = (-reach...reach).map { i in Float(exp(-Double(i * i) / (2 * sigma * sigma))) }
        let total = weights.reduce(0, +)
        weights = weights.map { $0 / total }
        var alpha = [Float](repeating: 0, count: width * height)
        image.withUnsafeBytes { bytes in
            // Premultiplied ARGB8888 in native (little-endian) order: alpha is each pixel's last byte.
            for y in 0..<height {
                let row = y * image.bytesPerRow
                for x in 0..<width { alpha[y * width + x] = Float(bytes[row + x * 4 + 3]) }
            }
        }
        var across = [Float](repeating: 0, count: width * height)
        alpha.withUnsafeBufferPointer { source in
            across.withUnsafeMutableBufferPointer { out in
                weights.withUnsafeBufferPointer { w in
                    for y in 0..<height {
                        let row = y * width
                        for x in 0..<width {
                            var sum: Float = 0
                            for i in max(-reach, -x)...min(reach, width - 1 - x) {
                                sum += w[i + reach] * source[row + x + i]
                            }
                            out[row + x] = sum
                        }
                    }
                }
            }
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        across.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { out in
                weights.withUnsafeBufferPointer { w in
                    for y in 0..<height {
                        for x in 0..<width {
                            var sum: Float = 0
                            for i in max(-reach, -y)...min(reach, height - 1 - y) {
                                sum += w[i + reach] * source[(y + i) * width + x]
                            }
                            let value = UInt8(min(255, max(0, sum.rounded())))
                            let at = (y * width + x) * 4
                            (out[at], out[at + 1], out[at + 2], out[at + 3]) = (value, value, value, value)
                        }
                    }
                }
            }
        }
        return pixels.withUnsafeBytes { bytes in
            try? Image(width: width, height: height, pixelFormat: .argb8888Premultiplied, bytesPerRow: width * 4, bytes: bytes)
        }
    }
}
