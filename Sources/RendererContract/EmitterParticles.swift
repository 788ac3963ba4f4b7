import LayerKit

/// One particle as both renderers draw it: its cell's image in `frame`, placed in the emitter
/// layer's bounds space by `transform`, its colour multiplying the image (red, green and blue as
/// a tint, alpha as opacity).
public struct ParticleDraw {
    public let image: Image
    /// The image's rectangle in the particle's own space, its origin at the top left.
    public let frame: Rect
    /// The particle's space to the emitter layer's bounds space: the image centred on the
    /// particle, scaled and turned about its centre.
    public let transform: Transform3D
    public let contentsRect: Rect
    public let contentsScale: Double
    public let color: Color
}

extension RenderTree {
    /// The emitter layer's local time at the tree's sample time (0 for a tree that is not a
    /// sample): the moment its particles are computed for, in closed form.
    public func emitterTime(of layer: RenderLayer) -> Double {
        sampleTime.map { localTime(of: layer.id, atMediaTime: $0) } ?? 0
    }

    /// The particles of `layer`'s emitter alive at its local time that show something (an image,
    /// a positive scale, some alpha), in drawing order.
    public func particleDraws(of layer: RenderLayer, _ emitter: EmitterProperties) -> [ParticleDraw] {
        emitter.particles(atTime: emitterTime(of: layer)).compactMap { particle in
            let cell = emitter.cell(of: particle)
            guard let image = cell.contents, let size = emitter.particleSize(of: cell), particle.scale > 0, particle.color.alpha > 0
            else { return nil }
            let transform = Transform3D(translationX: -size.width / 2, y: -size.height / 2)
                .concatenating(Transform3D(scaleX: particle.scale, y: particle.scale))
                .concatenating(Transform3D(rotationAngle: particle.angle, x: 0, y: 0, z: 1))
                .concatenating(Transform3D(translationX: particle.position.x, y: particle.position.y))
            return ParticleDraw(
                image: image, frame: Rect(x: 0, y: 0, width: size.width, height: size.height), transform: transform,
                contentsRect: cell.contentsRect, contentsScale: cell.contentsScale, color: particle.color)
        }
    }
}
