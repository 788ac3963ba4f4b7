internal import CPixman
import Foundation
import LayerKit
import RendererContract

/// The filters' work on an offscreen image's pixels (premultiplied a8r8g8b8 covering a box of
/// target pixels), as the Vulkan shader does it (Shaders/layer.frag, KIND_FILTER_BLUR,
/// KIND_COLOR_MATRIX, KIND_DISTORTION).
enum FilterPixels {
    /// A Gaussian of σ `sigma` pixels: pixman's convolution along x, then along y, with
    /// `FilterBlur`'s kernel. A wide blur runs at a half or a quarter of the resolution (σ staying
    /// at least 4 pixels there): halved by 2×2 averages in the target's reduced grid, blurred, then
    /// stretched back bilinearly.
    static func blurred(_ source: PixmanImage, box: PixelBox, sigma: Double, edges: pixman_repeat_t) -> PixmanImage {
        let factor = FilterBlur.reduction(forSigma: sigma)
        var current = source
        var currentBox = box
        var k = 1
        while k < factor {
            let half = currentBox.reduced(by: 2)
            // Reduced pixel i covers pixels 2i and 2i + 1 of the grid above: a bilinear sample
            // at their shared corner is their average.
            current = resampled(
                current, into: half, scale: 2, offset: (Double(2 * half.minX - currentBox.minX), Double(2 * half.minY - currentBox.minY)),
                edges: edges)
            currentBox = half
            k *= 2
        }
        let weights = FilterBlur.weights(sigma: sigma / Double(factor))
        current = convolved(convolved(current, weights, horizontal: true, edges: edges), weights, horizontal: false, edges: edges)
        guard factor > 1 else { return current }
        let f = Double(factor)
        return resampled(
            current, into: box, scale: 1 / f, offset: (Double(box.minX) / f - Double(currentBox.minX), Double(box.minY) / f - Double(currentBox.minY)),
            edges: PIXMAN_REPEAT_PAD)
    }

    /// `source` through a one-dimensional kernel (its weights summing to 1), into a new image.
    private static func convolved(_ source: PixmanImage, _ weights: [Double], horizontal: Bool, edges: pixman_repeat_t) -> PixmanImage {
        let n = weights.count
        var fixed = weights.map { pixman_fixed_t(($0 * 65536).rounded()) }
        // The rounding's remainder goes to the centre, so that a flat image stays flat.
        fixed[n / 2] += 65536 - fixed.reduce(0, +)
        let params = [pixman_fixed_t((horizontal ? n : 1) << 16), pixman_fixed_t((horizontal ? 1 : n) << 16)] + fixed
        let result = PixmanImage(format: PIXMAN_a8r8g8b8, width: source.width, height: source.height)
        pixman_image_set_filter(source.handle, PIXMAN_FILTER_CONVOLUTION, params, Int32(params.count))
        pixman_image_set_repeat(source.handle, edges)
        pixman_image_composite32(
            PIXMAN_OP_SRC, source.handle, nil, result.handle, 0, 0, 0, 0, 0, 0, Int32(source.width), Int32(source.height))
        pixman_image_set_filter(source.handle, PIXMAN_FILTER_NEAREST, nil, 0)
        pixman_image_set_repeat(source.handle, PIXMAN_REPEAT_NONE)
        return result
    }

    /// `source` sampled bilinearly into a new image covering `box`: pixel centre c of the new
    /// image reads the source at c × `scale` + `offset`, edges extended.
    private static func resampled(
        _ source: PixmanImage, into box: PixelBox, scale: Double, offset: (Double, Double), edges: pixman_repeat_t
    ) -> PixmanImage {
        func fixed(_ v: Double) -> pixman_fixed_t { pixman_fixed_t((v * 65536).rounded()) }
        var transform = pixman_transform_t(matrix: (
            (fixed(scale), 0, fixed(offset.0)), (0, fixed(scale), fixed(offset.1)), (0, 0, fixed(1))))
        let result = PixmanImage(format: PIXMAN_a8r8g8b8, width: box.width, height: box.height)
        pixman_image_set_transform(source.handle, &transform)
        pixman_image_set_filter(source.handle, PIXMAN_FILTER_BILINEAR, nil, 0)
        pixman_image_set_repeat(source.handle, edges == PIXMAN_REPEAT_NONE ? PIXMAN_REPEAT_PAD : edges)
        pixman_image_composite32(
            PIXMAN_OP_SRC, source.handle, nil, result.handle, 0, 0, 0, 0, 0, 0, Int32(box.width), Int32(box.height))
        pixman_image_set_transform(source.handle, nil)
        pixman_image_set_filter(source.handle, PIXMAN_FILTER_NEAREST, nil, 0)
        pixman_image_set_repeat(source.handle, PIXMAN_REPEAT_NONE)
        return result
    }

    /// A 4×5 matrix (`Filter.colorMatrix`) over each pixel's unpremultiplied colour, clamped,
    /// in place.
    static func applyColorMatrix(_ m: [Double], to image: PixmanImage) {
        let stride = image.bytesPerRow / 4
        let pixels = image.bits.assumingMemoryBound(to: UInt32.self)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let v = pixels[y * stride + x]
                let a = Double(v >> 24) / 255
                let scale = a > 0 ? 1 / (255 * a) : 0
                let c = SIMD4(Double((v >> 16) & 0xFF) * scale, Double((v >> 8) & 0xFF) * scale, Double(v & 0xFF) * scale, a)
                var out = SIMD4<Double>()
                for row in 0..<4 {
                    let r = m[row * 5] * c[0] + m[row * 5 + 1] * c[1] + m[row * 5 + 2] * c[2] + m[row * 5 + 3] * c[3] + m[row * 5 + 4]
                    out[row] = min(1, max(0, r))
                }
                func byte(_ v: Double) -> UInt32 { UInt32((v * 255).rounded()) }
                pixels[y * stride + x] = byte(out[3]) << 24 | byte(out[0] * out[3]) << 16 | byte(out[1] * out[3]) << 8 | byte(out[2] * out[3])
            }
        }
    }

    /// A distortion of `source` (covering `box`) into a new image of the same box, computed for
    /// the pixels of `needed` only: each pixel's centre is mapped into the layer's plane
    /// (`inverse`), its source found there (`Distortion.sourcePoint(for:)`), mapped back
    /// (`transform`) and sampled bilinearly, transparent past the source.
    static func distorted(
        _ source: PixmanImage, box: PixelBox, within needed: PixelBox, by distortion: Distortion, transform: Transform3D,
        inverse: Transform3D
    ) -> PixmanImage {
        let result = PixmanImage(format: PIXMAN_a8r8g8b8, width: box.width, height: box.height)
        guard !needed.isEmpty else { return result }
        let (width, height) = (source.width, source.height)
        let from = source.bits.assumingMemoryBound(to: UInt32.self), fromStride = source.bytesPerRow / 4
        let to = result.bits.assumingMemoryBound(to: UInt32.self), toStride = result.bytesPerRow / 4
        func texel(_ x: Int, _ y: Int) -> UInt32 { from[min(height - 1, max(0, y)) * fromStride + min(width - 1, max(0, x))] }
        for y in needed.minY..<needed.maxY {
            for x in needed.minX..<needed.maxX {
                guard let q = inverse.apply(x: Double(x) + 0.5, y: Double(y) + 0.5) else { continue }
                let s = distortion.sourcePoint(for: Point(x: q.x, y: q.y))
                guard let p = transform.apply(x: s.x, y: s.y) else { continue }
                let (u, v) = (p.x - Double(box.minX), p.y - Double(box.minY))
                guard u >= 0, v >= 0, u <= Double(width), v <= Double(height) else { continue }
                // Bilinear between the four texel centres around the point, edges clamped.
                let (fx, fy) = (u - 0.5, v - 0.5)
                let (x0, y0) = (Int(fx.rounded(.down)), Int(fy.rounded(.down)))
                let (tx, ty) = (fx - Double(x0), fy - Double(y0))
                let (c00, c10, c01, c11) = (texel(x0, y0), texel(x0 + 1, y0), texel(x0, y0 + 1), texel(x0 + 1, y0 + 1))
                let (w00, w10, w01, w11) = ((1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty)
                var pixel: UInt32 = 0
                for shift: UInt32 in [0, 8, 16, 24] {
                    func channel(_ c: UInt32) -> Double { Double((c >> shift) & 0xFF) }
                    let sum = w00 * channel(c00) + w10 * channel(c10) + w01 * channel(c01) + w11 * channel(c11)
                    pixel |= UInt32(min(255, sum.rounded())) << shift
                }
                to[(y - box.minY) * toStride + (x - box.minX)] = pixel
            }
        }
        return result
    }
}
