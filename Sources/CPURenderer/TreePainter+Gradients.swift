internal import CPixman
import Foundation
import LayerKit
import RendererContract

/// Gradient layers (CAGradientLayer), as the Vulkan shader draws them: above the background,
/// within the rounded bounds (anti-aliased), beneath the contents. The geometry lives in the unit
/// space of the bounds and pixman evaluates it at each pixel's centre through a projective
/// transform from canvas pixels: axial along start → end, radial on the ellipse round the start
/// point whose radii reach the end point along x and y (a circle of radius 1 once the transform
/// divides by them), conic round the start point from the direction of the end point, clockwise
/// on screen. Beyond the first and last stop the end colours extend (`PIXMAN_REPEAT_PAD`).
///
/// The shader interpolates the stops' premultiplied colours; pixman interpolates the colours and
/// alpha apart and premultiplies after. The two agree when every stop has the same alpha, and
/// then pixman's gradient is composited straight; otherwise the premultiplied colours are drawn
/// as one gradient of opaque stops and the alpha as another, and the two make one image.
extension TreePainter {
    /// The layer's background, with a gradient layer's gradient over it. The two make one image
    /// first, composited through the bounds' coverage at the layer's opacity, as the shader
    /// blends both into one colour before the opacity applies.
    mutating func drawBackground(of p: LayerProperties, bounds: RoundedRect, transform: Transform3D, opacity: Double, clip: Coverage?) {
        let background = p.backgroundColor.flatMap { $0.alpha > 0 ? $0 : nil }
        guard let gradient = p.gradient, !gradient.stops.isEmpty else {
            if let background {
                fill([bounds], color: tinted(background.premultipliedSRGB(times: opacity)), transform: transform, clip: clip)
            }
            return
        }
        let rect = bounds.rect
        let box = pixelBox(of: rect, transform)
        guard !box.isEmpty, rect.width > 0, rect.height > 0, let toLayer = transform.planeInverse else { return }
        let coverage = Coverage(box: box)
        guard coverage.fill([bounds], transform: transform, alpha: opacity) else { return }
        if let clip { coverage.intersect(with: clip) }
        let canvasToUnit = Matrix3(1 / rect.width, 0, -rect.minX / rect.width, 0, 1 / rect.height, -rect.minY / rect.height, 0, 0, 1)
            .times(Matrix3(planeInverse: toLayer))
            .times(Matrix3(translationX: Double(canvas.origin.x), y: Double(canvas.origin.y)))
        let under = background.map { tinted($0.premultipliedSRGB(times: 1)) }
        let local = box.offsetBy(dx: -canvas.origin.x, dy: -canvas.origin.y)
        let drawn: PixmanImage
        switch GradientFill(gradient, tint: tint, canvasToUnit: canvasToUnit, box: local) {
        case nil:
            return
        case .solid(let c)?:
            let a = 1 - c.3
            let colour = under.map { b in (c.0 + b.0 * a, c.1 + b.1 * a, c.2 + b.2 * a, c.3 + b.3 * a) } ?? c
            canvas.composite(PixmanImage(solid: colour), mask: coverage, box: box)
            composites += 1
            return
        case .gradient(let gradient)? where under == nil:
            canvas.composite(gradient, mask: coverage, box: box)
            composites += 1
            return
        case .gradient(let gradient)?:
            drawn = GradientFill.drawn(gradient, box: local)
        case .drawn(let image)?:
            drawn = image
        }
        if let under {
            // The background beneath what the gradient leaves uncovered.
            let solid = PixmanImage(solid: under)
            withExtendedLifetime(solid) {
                pixman_image_composite32(
                    PIXMAN_OP_OVER_REVERSE, solid.handle, nil, drawn.handle, 0, 0, 0, 0, 0, 0, Int32(box.width), Int32(box.height))
            }
        }
        canvas.composite(drawn, at: (box.minX, box.minY), mask: coverage, box: box)
        composites += 1
    }
}

/// A gradient made for pixman: one colour where it has no extent, pixman's gradient, or the
/// gradient drawn into an image.
enum GradientFill {
    /// A premultiplied colour.
    case solid((Double, Double, Double, Double))
    /// Pixman's gradient image, addressed in canvas pixels.
    case gradient(PixmanImage)
    /// The gradient drawn into an image of the box (its pixel (0, 0) the box's corner).
    case drawn(PixmanImage)

    /// The gradient's points are scaled by up to this from the unit space, so that the
    /// transform's entries are not too small for 16.16 fixed point (a unit is the whole layer).
    private static let unitScale = 64.0

    /// `gradient`'s colours times `tint`, with `canvasToUnit` mapping canvas pixels to the unit
    /// space of the bounds; nil when pixman cannot hold the geometry (far past its range).
    init?(_ gradient: GradientProperties, tint: (Double, Double, Double), canvasToUnit: Matrix3, box: PixelBox) {
        // The shader takes the last segment whose first location t passes: with locations in
        // order (as Core Animation asks), what pixman's walk through sorted stops does.
        let stops = gradient.stops.enumerated().sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }
            .map { $0.element }
        let premultiplied = stops.map { stop in
            let c = stop.color.premultipliedSRGB(times: 1)
            return (location: stop.location, colour: (c.0 * tint.0, c.1 * tint.1, c.2 * tint.2, c.3))
        }
        let (start, end) = (gradient.startPoint, gradient.endPoint)
        let (dx, dy) = (end.x - start.x, end.y - start.y)
        // One stop, an axial gradient without a direction (the parameter is 0 everywhere), or a
        // radial one with a zero radius (the end colour off the start point's axis, which pixel
        // centres seldom lie on; LayerKit's own drawing fills it so too): one colour.
        if premultiplied.count == 1 || (gradient.type == .axial && dx == 0 && dy == 0) {
            guard let c = gradient.premultipliedColor(at: start) else { return nil }
            self = .solid((c.red * tint.0, c.green * tint.1, c.blue * tint.2, c.alpha))
            return
        }
        if gradient.type == .radial && (dx == 0 || dy == 0) {
            self = .solid(premultiplied[premultiplied.count - 1].colour)
            return
        }
        // The space pixman computes in: the unit space with the start point at the origin
        // (radial: divided by the radii, so the ellipse is the unit circle; conic: y turned up, as
        // pixman's angles run counter-clockwise with y up), scaled by k.
        let (x, y) = (start.x, start.y)
        let toSpace: Matrix3 = switch gradient.type {
        case .axial: Matrix3(1, 0, -x, 0, 1, -y, 0, 0, 1)
        case .radial: Matrix3(1 / abs(dx), 0, -x / abs(dx), 0, 1 / abs(dy), -y / abs(dy), 0, 0, 1)
        case .conic: Matrix3(1, 0, -x, 0, -1, y, 0, 0, 1)
        }
        let canvasToSpace = toSpace.times(canvasToUnit)
        let k = Self.scale(reaching: gradient.type == .axial ? max(abs(dx), abs(dy)) : 1, through: canvasToSpace, box: box)
        guard var transform = Matrix3(k, 0, 0, 0, k, 0, 0, 0, 1).times(canvasToSpace).pixmanTransform else { return nil }
        func make(_ stops: [(location: Double, colour: (Double, Double, Double, Double))]) -> PixmanImage? {
            var pixmanStops = stops.map { stop in
                pixman_gradient_stop_t(x: Self.fixed(stop.location), color: PixmanImage.color16(stop.colour))
            }
            var origin = pixman_point_fixed_t(x: 0, y: 0)
            // The axial end point (relative to the start); the radial outer circle's centre.
            var other = gradient.type == .axial ? pixman_point_fixed_t(x: Self.fixed(k * dx), y: Self.fixed(k * dy)) : origin
            let count = Int32(pixmanStops.count)
            let handle: OpaquePointer? = switch gradient.type {
            case .axial: pixman_image_create_linear_gradient(&origin, &other, &pixmanStops, count)
            case .radial: pixman_image_create_radial_gradient(&origin, &other, 0, Self.fixed(k), &pixmanStops, count)
            case .conic: pixman_image_create_conical_gradient(&origin, Self.fixed(atan2(dy, dx) * 180 / Double.pi), &pixmanStops, count)
            }
            guard let handle else { return nil }
            pixman_image_set_repeat(handle, PIXMAN_REPEAT_PAD)
            pixman_image_set_transform(handle, &transform)
            return PixmanImage(owning: handle)
        }
        let alphas = premultiplied.map(\.colour.3)
        if alphas.allSatisfy({ $0 == alphas[0] }) {
            // One alpha: pixman's colours, unpremultiplied.
            let a = alphas[0]
            let colours = premultiplied.map { s in
                (location: s.location, colour: a > 0 ? (s.colour.0 / a, s.colour.1 / a, s.colour.2 / a, a) : (0, 0, 0, 0))
            }
            guard let image = make(colours) else { return nil }
            self = .gradient(image)
            return
        }
        // The premultiplied colours as opaque stops (their red, green and blue interpolated as
        // they are), and their alpha as a second gradient into an alpha image; the colours come
        // across with alpha 0 (a component-alpha mask), then the alpha is added to them.
        guard let colours = make(premultiplied.map { ($0.location, ($0.colour.0, $0.colour.1, $0.colour.2, 1)) }),
            let alpha = make(premultiplied.map { ($0.location, (1, 1, 1, $0.colour.3)) })
        else { return nil }
        let (width, height) = (Int32(box.width), Int32(box.height))
        let drawn = PixmanImage(format: PIXMAN_a8r8g8b8, width: box.width, height: box.height)
        let alphaOnly = PixmanImage(format: PIXMAN_a8, width: box.width, height: box.height)
        let colourOnly = PixmanImage(solid: (1, 1, 1, 0))
        pixman_image_set_component_alpha(colourOnly.handle, 1)
        let opaqueBlack = PixmanImage(solid: (0, 0, 0, 1))
        withExtendedLifetime((colours, alpha, colourOnly, opaqueBlack)) {
            let (left, top) = (Int32(box.minX), Int32(box.minY))
            pixman_image_composite32(PIXMAN_OP_SRC, colours.handle, colourOnly.handle, drawn.handle, left, top, 0, 0, 0, 0, width, height)
            pixman_image_composite32(PIXMAN_OP_SRC, alpha.handle, nil, alphaOnly.handle, left, top, 0, 0, 0, 0, width, height)
            pixman_image_composite32(PIXMAN_OP_ADD, opaqueBlack.handle, alphaOnly.handle, drawn.handle, 0, 0, 0, 0, 0, 0, width, height)
        }
        self = .drawn(drawn)
    }

    /// Pixman's gradient drawn into an image of `box` (canvas pixels).
    static func drawn(_ gradient: PixmanImage, box: PixelBox) -> PixmanImage {
        let image = PixmanImage(format: PIXMAN_a8r8g8b8, width: box.width, height: box.height)
        pixman_image_composite32(
            PIXMAN_OP_SRC, gradient.handle, nil, image.handle, Int32(box.minX), Int32(box.minY), 0, 0, 0, 0, Int32(box.width),
            Int32(box.height))
        return image
    }

    /// `unitScale`, or less where the gradient's extent (`reach`) or the box's corners (through
    /// `canvasToSpace`) lie so far out that scaled they would leave 16.16 fixed point.
    private static func scale(reaching reach: Double, through canvasToSpace: Matrix3, box: PixelBox) -> Double {
        let m = canvasToSpace.m
        var farthest = reach
        for (x, y) in [(box.minX, box.minY), (box.maxX, box.minY), (box.minX, box.maxY), (box.maxX, box.maxY)] {
            let (px, py) = (Double(x), Double(y))
            let w = m[6] * px + m[7] * py + m[8]
            // A corner beyond the horizon: the plane runs far off; keep the precision for what is near.
            guard w > 1e-9 else { continue }
            farthest = max(farthest, abs((m[0] * px + m[1] * py + m[2]) / w), abs((m[3] * px + m[4] * py + m[5]) / w))
        }
        return min(unitScale, 4096 / max(farthest, 1e-9))
    }

    /// 16.16 fixed point, clamped to its range.
    static func fixed(_ v: Double) -> pixman_fixed_t {
        pixman_fixed_t((max(-32_767, min(32_767, v.isNaN ? 0 : v)) * 65_536).rounded())
    }
}
