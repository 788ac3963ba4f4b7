internal import CCairo
internal import CPixman
import Foundation
import LayerKit
import RendererContract

/// A shape in a layer's plane: a rectangle with a radius per corner (min-x/min-y, max-x/min-y,
/// max-x/max-y, min-x/max-y, as `LayerProperties.cornerRadii`).
struct RoundedRect {
    var rect: Rect
    var radii: (Double, Double, Double, Double) = (0, 0, 0, 0)

    /// Whether no corner is rounded.
    var isSquare: Bool { radii == (0, 0, 0, 0) }

    /// The shape inset by `width` on every side, its radii shrunk by as much (a border's inside).
    func insetBy(_ width: Double) -> RoundedRect {
        let r = radii
        return RoundedRect(
            rect: Rect(x: rect.minX + width, y: rect.minY + width, width: max(0, rect.width - 2 * width),
                       height: max(0, rect.height - 2 * width)),
            radii: (max(0, r.0 - width), max(0, r.1 - width), max(0, r.2 - width), max(0, r.3 - width)))
    }

    /// The outline as a polygon, arcs in straight pieces short enough at `pixelsPerUnit`.
    func polygon(pixelsPerUnit: Double) -> [(Double, Double)] {
        let (x0, y0, x1, y1) = (rect.minX, rect.minY, rect.maxX, rect.maxY)
        let corners: [(cx: Double, cy: Double, r: Double, start: Double)] = [
            (x1 - radii.1, y0 + radii.1, radii.1, -Double.pi / 2), (x1 - radii.2, y1 - radii.2, radii.2, 0),
            (x0 + radii.3, y1 - radii.3, radii.3, Double.pi / 2), (x0 + radii.0, y0 + radii.0, radii.0, Double.pi),
        ]
        var points: [(Double, Double)] = []
        for corner in corners {
            guard corner.r > 0 else {
                // A square corner: the arc's centre is the corner itself.
                points.append((corner.cx, corner.cy))
                continue
            }
            let steps = max(2, min(64, Int((corner.r * pixelsPerUnit).squareRoot() * 2)))
            for i in 0...steps {
                let angle = corner.start + Double.pi / 2 * Double(i) / Double(steps)
                points.append((corner.cx + corner.r * cos(angle), corner.cy + corner.r * sin(angle)))
            }
        }
        return points
    }
}

/// How much of each pixel a shape covers, as an a8 pixman image over `box` (target pixels):
/// shapes in a layer's plane are rasterised by cairo through the layer's transform, an affine one
/// exactly (cairo's matrix), a perspective one as a polygon projected point by point.
final class Coverage {
    let image: PixmanImage
    let box: PixelBox
    /// For a clip: the target pixels it lets through (its pixel bounding box within the whole
    /// pixels of the enclosing clips'), before the redrawn box cut them to `box`: what a tiled
    /// layer inside can show, as the Vulkan renderer's scissor and clip give it.
    var reach: Rect
    private let surface: OpaquePointer
    private let cairo: OpaquePointer

    init(box: PixelBox) {
        self.box = box
        reach = box.rect
        image = PixmanImage(format: PIXMAN_a8, width: box.width, height: box.height)
        surface = cairo_image_surface_create_for_data(
            image.bits.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_A8, Int32(box.width), Int32(box.height),
            Int32(image.bytesPerRow))
        cairo = cairo_create(surface)
        cairo_set_source_rgba(cairo, 0, 0, 0, 1)
    }

    deinit {
        cairo_destroy(cairo)
        cairo_surface_destroy(surface)
    }

    /// Adds `shapes` (layer units) as seen through `transform` (layer to target pixels) to the
    /// current path; false when the transform puts part of them behind the eye.
    private func addPath(_ shapes: [RoundedRect], transform t: Transform3D) -> Bool {
        cairo_identity_matrix(cairo)
        cairo_translate(cairo, Double(-box.minX), Double(-box.minY))
        if t.m14 == 0 && t.m24 == 0 && t.m44 == 1 {
            var matrix = cairo_matrix_t(xx: t.m11, yx: t.m12, xy: t.m21, yy: t.m22, x0: t.m41, y0: t.m42)
            cairo_transform(cairo, &matrix)
            for shape in shapes {
                let (r, (a, b, c, d)) = (shape.rect, shape.radii)
                if a == 0 && b == 0 && c == 0 && d == 0 {
                    cairo_rectangle(cairo, r.minX, r.minY, r.width, r.height)
                    continue
                }
                cairo_new_sub_path(cairo)
                cairo_arc(cairo, r.maxX - b, r.minY + b, b, -Double.pi / 2, 0)
                cairo_arc(cairo, r.maxX - c, r.maxY - c, c, 0, Double.pi / 2)
                cairo_arc(cairo, r.minX + d, r.maxY - d, d, Double.pi / 2, Double.pi)
                cairo_arc(cairo, r.minX + a, r.minY + a, a, Double.pi, 3 * Double.pi / 2)
                cairo_close_path(cairo)
            }
            cairo_identity_matrix(cairo)
            return true
        }
        let pixelsPerUnit = max(abs(t.m11) + abs(t.m12), abs(t.m21) + abs(t.m22)) / max(abs(t.m44), 1e-6)
        for shape in shapes {
            var first = true
            for (x, y) in shape.polygon(pixelsPerUnit: pixelsPerUnit) {
                guard let p = t.apply(x: x, y: y) else { return false }
                if first { cairo_move_to(cairo, p.x, p.y) } else { cairo_line_to(cairo, p.x, p.y) }
                first = false
            }
            cairo_close_path(cairo)
        }
        cairo_identity_matrix(cairo)
        return true
    }

    /// Fills `shapes` (their union; even-odd, for a border's ring of two) at `alpha`, anti-aliased
    /// or, where `antialias` is false, covering the pixels whose centres they contain (as the
    /// Vulkan renderer's contents edges do).
    @discardableResult
    func fill(_ shapes: [RoundedRect], transform: Transform3D, alpha: Double = 1, evenOdd: Bool = false, antialias: Bool = true) -> Bool {
        cairo_new_path(cairo)
        guard addPath(shapes, transform: transform) else { return false }
        cairo_set_antialias(cairo, antialias ? CAIRO_ANTIALIAS_DEFAULT : CAIRO_ANTIALIAS_NONE)
        cairo_set_fill_rule(cairo, evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
        cairo_set_source_rgba(cairo, 0, 0, 0, alpha)
        cairo_fill(cairo)
        cairo_surface_flush(surface)
        return true
    }

    /// Limits later fills to `shape`, anti-aliased or by pixel centres.
    @discardableResult
    func clip(to shape: RoundedRect, transform: Transform3D, antialias: Bool) -> Bool {
        cairo_new_path(cairo)
        guard addPath([shape], transform: transform) else { return false }
        cairo_set_antialias(cairo, antialias ? CAIRO_ANTIALIAS_DEFAULT : CAIRO_ANTIALIAS_NONE)
        cairo_set_fill_rule(cairo, CAIRO_FILL_RULE_WINDING)
        cairo_clip(cairo)
        return true
    }

    /// Multiplies the coverage by `clip`'s (zero outside its box).
    func intersect(with clip: Coverage) {
        pixman_image_composite32(
            PIXMAN_OP_IN, clip.image.handle, nil, image.handle, Int32(box.minX - clip.box.minX),
            Int32(box.minY - clip.box.minY), 0, 0, 0, 0, Int32(box.width), Int32(box.height))
    }
}

extension Coverage {
    /// Covers the whole box at `alpha` (a group's opacity).
    func paint(alpha: Double) {
        pixman_image_fill_rectangles(
            PIXMAN_OP_SRC, image.handle, [pixman_color_t(red: 0, green: 0, blue: 0, alpha: UInt16(max(0, min(1, alpha)) * 65535 + 0.5))],
            1, [pixman_rectangle16_t(x: 0, y: 0, width: UInt16(box.width), height: UInt16(box.height))])
    }
}
