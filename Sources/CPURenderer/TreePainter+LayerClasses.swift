internal import CPixman
import LayerKit
import RendererContract

/// The layer classes the CPU renderer draws beyond plain layers: shape and text layers'
/// images, rasterised by LayerKit (cairo, Pango) at contentsScale and kept per layer while
/// unchanged (`RasterCache`, as the Vulkan renderer keeps them), and replicators' instances,
/// whose colour tints everything they draw, images included, as the Vulkan shader multiplies
/// every colour it writes by the instance's. Gradient, tiled and emitter layers have files of
/// their own.
extension TreePainter {
    /// The renderer's caches of shape and text layers' images, and of pixman's views of the
    /// client buffers frames read.
    struct Rasters {
        var shapes = RasterCache<ShapeProperties>()
        var texts = RasterCache<TextRasterSource>()
        /// Shadow paths' blurred masks; 64 MiB at most kept from one frame to the next.
        var shadowMasks = RasterCache<ShadowMaskSource>(budgetBytes: 64 << 20)
        var views = PixmanViews()
    }

    /// A colour multiplied by the replicator instance's tint (red, green and blue).
    func tinted(_ c: (Double, Double, Double, Double)) -> (Double, Double, Double, Double) {
        (c.0 * tint.0, c.1 * tint.1, c.2 * tint.2, c.3)
    }

    /// A shape layer's shape or a text layer's text, between its contents and its sublayers,
    /// cut to the rounded bounds with masksToBounds. Text reads upright under an odd number of
    /// flips (ca-semantics G10); a shape is geometry and flips with the layer. `p`: the layer's values.
    mutating func drawRasters(
        of layer: RenderLayer, _ p: LayerProperties, transform: Transform3D, opacity: Double, clip: Coverage?, flipped: Bool
    ) {
        let roundedClip = p.masksToBounds ? RoundedRect(rect: p.bounds, radii: p.cornerRadii) : nil
        if let shape = p.shape,
            let raster = rasters.shapes.raster(for: layer.id, source: shape, scale: p.contentsScale, draw: { $0.rasterized(scale: $1) })
        {
            draw(
                raster.image, placed: ContentsPlacement(raster: raster.frame, roundedClip: roundedClip, upright: false),
                transform: transform, opacity: opacity, clip: clip)
        }
        if let text = p.text,
            let raster = rasters.texts.raster(
                for: layer.id, source: TextRasterSource(text: text, bounds: p.bounds), scale: p.contentsScale,
                draw: { $0.text.rasterized(in: $0.bounds, scale: $1) })
        {
            draw(
                raster.image, placed: ContentsPlacement(raster: raster.frame, roundedClip: roundedClip, upright: flipped),
                transform: transform, opacity: opacity, clip: clip)
        }
    }

    /// A replicator's sublayers once per instance (`RenderTree.replicatorInstances(of:)`), the
    /// instance's colour tinting what they draw and its alpha the opacity.
    mutating func drawInstances(of layer: RenderLayer, transform: Transform3D, opacity: Double, clip: Coverage?, flipped: Bool) {
        let (outerTint, sample, bounds) = (tint, tree, subtreeBounds)
        defer { (tint, tree, subtreeBounds) = (outerTint, sample, bounds) }
        subtreeBounds = nil
        for instance in sample.replicatorInstances(of: layer) {
            (tint, tree) = (instance.tint(within: outerTint), instance.tree)
            let alpha = instance.color.alpha
            switch instance.part {
            case .plane(let plane):
                place(
                    plane.layer, transform: plane.transform.flattened.concatenating(transform),
                    opacity: opacity * alpha * plane.opacity, clip: clip, flipped: flipped != plane.isFlipped)
            case .sublayers(let sublayers, let space):
                for sublayer in sublayers {
                    visit(sublayer, parentSpace: space, parentTransform: transform, opacity: opacity * alpha, clip: clip, flipped: flipped)
                }
            }
        }
    }
}

extension TreePainter {
    /// Composites an image (its pixel (0, 0) at target pixel `origin`, or addressed in canvas
    /// pixels through its transform when nil) through `mask` over the canvas within `box`, its
    /// red, green and blue multiplied by the tint, or added to what is below with `additive` (an
    /// additive emitter's particles: the shader writes them with alpha 0, so the canvas's alpha
    /// stays). Plain images go straight to the canvas; a tinted or added one is first drawn
    /// through the mask into an image of the box, there multiplied by the tint.
    mutating func composite(image source: PixmanImage, at origin: (x: Int, y: Int)? = nil, mask: Coverage?, box: PixelBox, additive: Bool) {
        let untinted = tint == (1, 1, 1)
        guard !untinted || additive else { return canvas.composite(source, at: origin, mask: mask, box: box) }
        let drawn = PixmanImage(format: PIXMAN_a8r8g8b8, width: box.width, height: box.height)
        let (sourceX, sourceY) = origin.map { (box.minX - $0.x, box.minY - $0.y) } ?? (box.minX - canvas.origin.x, box.minY - canvas.origin.y)
        pixman_image_composite32(
            PIXMAN_OP_SRC, source.handle, mask?.image.handle, drawn.handle, Int32(sourceX), Int32(sourceY),
            Int32(box.minX - (mask?.box.minX ?? 0)), Int32(box.minY - (mask?.box.minY ?? 0)), 0, 0, Int32(box.width), Int32(box.height))
        if !untinted {
            // Each channel times the tint's (component alpha): IN_REVERSE with an opaque source
            // multiplies the destination by the mask, channel by channel.
            let (white, channels) = (PixmanImage(solid: (1, 1, 1, 1)), PixmanImage(solid: (tint.0, tint.1, tint.2, 1)))
            pixman_image_set_component_alpha(channels.handle, 1)
            withExtendedLifetime((white, channels)) {
                pixman_image_composite32(
                    PIXMAN_OP_IN_REVERSE, white.handle, channels.handle, drawn.handle, 0, 0, 0, 0, 0, 0, Int32(box.width),
                    Int32(box.height))
            }
        }
        if additive {
            // Red, green and blue added; alpha added times 0 (component alpha).
            let colourOnly = PixmanImage(solid: (1, 1, 1, 0))
            pixman_image_set_component_alpha(colourOnly.handle, 1)
            withExtendedLifetime((drawn, colourOnly)) {
                pixman_image_composite32(
                    PIXMAN_OP_ADD, drawn.handle, colourOnly.handle, canvas.image.handle, 0, 0, 0, 0,
                    Int32(box.minX - canvas.origin.x), Int32(box.minY - canvas.origin.y), Int32(box.width), Int32(box.height))
            }
        } else {
            canvas.composite(drawn, at: (box.minX, box.minY), mask: nil, box: box)
        }
    }
}
