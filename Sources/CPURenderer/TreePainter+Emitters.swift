import LayerKit
import RendererContract

/// Emitter layers (CAEmitterLayer), as the Vulkan renderer draws them: the particles alive at the
/// layer's local time of the sample, computed in closed form (`RenderTree.particleDraws`), each
/// its cell's image centred on the particle, scaled and turned about its centre, covering the
/// pixels whose centres it holds, its colour tinting the image (red, green and blue) and fading
/// it (alpha); an additive emitter adds its particles' colours to what is below. They lie above
/// the layer's contents and beneath its sublayers, clipped with masksToBounds.
extension TreePainter {
    mutating func drawParticles(of layer: RenderLayer, _ emitter: EmitterProperties, transform: Transform3D, opacity: Double, clip: Coverage?) {
        let outerTint = tint
        defer { tint = outerTint }
        for particle in tree.particleDraws(of: layer, emitter) {
            let color = particle.color
            tint = (outerTint.0 * color.red, outerTint.1 * color.green, outerTint.2 * color.blue)
            var placement = ContentsPlacement(raster: particle.frame, roundedClip: nil, upright: false)
            (placement.contentsRect, placement.contentsScale) = (particle.contentsRect, particle.contentsScale)
            placement.isAdditive = emitter.renderMode == .additive
            draw(
                particle.image, placed: placement, transform: particle.transform.concatenating(transform),
                opacity: opacity * color.alpha, clip: clip)
        }
    }
}
