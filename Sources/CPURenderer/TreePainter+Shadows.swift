internal import CPixman
import LayerKit
import RendererContract

/// Shadows (ca-semantics A5), in the layer's own plane as the Vulkan renderer draws them:
/// shadowOffset moves the shape in the layer's coordinates before its transform, σ is
/// shadowRadius layer units. A shadowPath, or the rounded bounds of a layer that has only a
/// background, is filled and blurred once in the layer's plane (`ShadowMaskSource`, kept per layer
/// while the path, radius and scale stay) and projected like contents; any other shadow takes the
/// layer's composited alpha, drawn offset into an image of target pixels and blurred there. The
/// mask's alpha, cut by the clip, lets the shadow colour through.
extension TreePainter {
    mutating func drawShadow(of layer: RenderLayer, color: Color, transform: Transform3D, opacity: Double, clip: Coverage?, flipped: Bool) {
        let p = layer.properties
        let premultiplied = tinted(color.premultipliedSRGB(times: p.shadowOpacity * opacity))
        let offsetTransform = Transform3D(translationX: p.shadowOffset.width, y: p.shadowOffset.height).concatenating(transform)
        let backgroundOnly = p.contentsLogicalSize == nil && p.shape == nil && p.text == nil && !tree.hasVisibleSublayers(layer)
        if p.shadowPath != nil || backgroundOnly {
            guard let path = p.shadowPath ?? (p.bounds.isEmpty ? nil : RoundedRect(rect: p.bounds, radii: p.cornerRadii).path) else {
                return
            }
            let source = ShadowMaskSource(path: path, radius: max(0, p.shadowRadius))
            guard
                let mask = rasters.shadowMasks.raster(
                    for: layer.id, source: source, scale: source.scale(under: offsetTransform), draw: { $0.rasterized(scale: $1) })
            else { return }
            tint(mask.image, frame: mask.frame, transform: offsetTransform, color: premultiplied, clip: clip)
            return
        }
        // The composited alpha: the layer without its shadow, offset, as one image of the pixels
        // it and its shadow can reach (shapes off the canvas cast shadows onto it from up to the
        // blur away), blurred in target pixels.
        let sigma = ShadowBlur.sigma(pixels: max(0, p.shadowRadius) * transform.pixelsPerUnit)
        let reach = ShadowBlur.reach(sigma: sigma)
        var box = canvas.box.insetBy(dx: -reach, dy: -reach)
        let subtree = DamageTracker.pixelBounds(ofSubtree: layer.id, in: tree, scale: scale)
        if !subtree.isNull { box = box.intersection(PixelBox(covering: subtree)) }
        guard !box.isEmpty else { return }
        let image = PixmanImage(format: PIXMAN_a8r8g8b8, width: box.width, height: box.height)
        var shape = TreePainter(
            tree: tree, scale: scale, canvas: Canvas(image: image, origin: (box.minX, box.minY), box: box, target: canvas.target),
            rasters: rasters)
        shape.drawLayer(layer, transform: offsetTransform, opacity: 1, clip: nil, flipped: flipped, shadow: false)
        absorb(shape)
        guard
            let drawn = try? Image(
                width: box.width, height: box.height, pixelFormat: .argb8888, bytesPerRow: image.bytesPerRow,
                bytes: UnsafeRawBufferPointer(start: image.bits, count: image.bytesPerRow * box.height))
        else { return }
        let target = Transform3D(translationX: Double(box.minX), y: Double(box.minY))
        tint(
            drawn.gaussianBlurredMask(sigma: sigma), frame: Rect(x: 0, y: 0, width: Double(box.width), height: Double(box.height)),
            transform: target, color: premultiplied, clip: clip)
    }

    /// Composites `color` (premultiplied) through `mask`'s alpha, which `transform` places from
    /// `frame` (its plane's units) onto the target, cut by the clip.
    private mutating func tint(_ mask: Image, frame: Rect, transform: Transform3D, color: (Double, Double, Double, Double), clip: Coverage?) {
        let box = pixelBox(of: frame, transform)
        guard !box.isEmpty else { return }
        let coverage = Coverage(box: box)
        // The mask's alpha, drawn as contents onto the coverage's a8 pixels.
        var stamp = TreePainter(
            tree: tree, scale: scale, canvas: Canvas(image: coverage.image, origin: (box.minX, box.minY), box: box), rasters: rasters)
        stamp.draw(mask, placed: ContentsPlacement(raster: frame, roundedClip: nil, upright: false), transform: transform, opacity: 1, clip: nil)
        if let clip { coverage.intersect(with: clip) }
        canvas.composite(PixmanImage(solid: color), mask: coverage, box: box)
        composites += 1
    }
}

extension RoundedRect {
    /// The outline as a path (clockwise on screen from the top edge), for cairo to fill.
    var path: Path {
        let (x0, y0, x1, y1) = (rect.minX, rect.minY, rect.maxX, rect.maxY)
        var path = Path()
        path.move(to: Point(x: x0 + radii.0, y: y0))
        path.addArc(center: Point(x: x1 - radii.1, y: y0 + radii.1), radius: radii.1, startAngle: -.pi / 2, endAngle: 0, clockwise: true)
        path.addArc(center: Point(x: x1 - radii.2, y: y1 - radii.2), radius: radii.2, startAngle: 0, endAngle: .pi / 2, clockwise: true)
        path.addArc(center: Point(x: x0 + radii.3, y: y1 - radii.3), radius: radii.3, startAngle: .pi / 2, endAngle: .pi, clockwise: true)
        path.addArc(center: Point(x: x0 + radii.0, y: y0 + radii.0), radius: radii.0, startAngle: .pi, endAngle: 3 * .pi / 2, clockwise: true)
        path.closeSubpath()
        return path
    }
}
