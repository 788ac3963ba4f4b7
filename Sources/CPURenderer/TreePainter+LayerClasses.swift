import LayerKit
import RendererContract

/// The layer classes the CPU renderer draws beyond plain layers: shape and text layers'
/// images, rasterised by LayerKit (cairo, Pango) at contentsScale and kept per layer while
/// unchanged (`RasterCache`, as the Vulkan renderer keeps them), and replicators' instances.
extension TreePainter {
    /// The renderer's caches of shape and text layers' images.
    struct Rasters {
        var shapes = RasterCache<ShapeProperties>()
        var texts = RasterCache<TextRasterSource>()
        /// Shadow paths' blurred masks; 64 MiB at most kept from one frame to the next.
        var shadowMasks = RasterCache<ShadowMaskSource>(budgetBytes: 64 << 20)
    }

    /// A colour multiplied by the replicator instance's tint (red, green and blue).
    func tinted(_ c: (Double, Double, Double, Double)) -> (Double, Double, Double, Double) {
        (c.0 * tint.0, c.1 * tint.1, c.2 * tint.2, c.3)
    }

    /// A shape layer's shape or a text layer's text, between its contents and its sublayers,
    /// cut to the rounded bounds with masksToBounds. Text reads upright under an odd number of
    /// flips (ca-semantics G10); a shape is geometry and flips with the layer.
    mutating func drawRasters(of layer: RenderLayer, transform: Transform3D, opacity: Double, clip: Coverage?, flipped: Bool) {
        let p = layer.properties
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
    /// instance's colour tinting the colours drawn (images are drawn untinted) and its alpha the
    /// opacity.
    mutating func drawInstances(of layer: RenderLayer, transform: Transform3D, opacity: Double, clip: Coverage?, flipped: Bool) {
        let (outerTint, sample) = (tint, tree)
        defer { (tint, tree) = (outerTint, sample) }
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
