import LayerKit
import RendererContract

extension SceneEncoder {
    /// A tiled layer's tiles, between its background and its sublayers: the encoder is where the
    /// visible part of the layer is known (the target, the scissor and clips above, the transform
    /// to pixels), so it asks for that part's tiles (`RenderTree.tileDraws`), and draws the ready
    /// ones, each at its fade.
    mutating func drawTiles(
        of layer: RenderLayer, _ tiled: TiledProperties, transform: Transform3D, opacity: Double, clip: Clip?,
        scissor: PixelRect?
    ) {
        let p = layer.properties
        var visible = Rect(x: 0, y: 0, width: Double(targetSize.width), height: Double(targetSize.height))
        if let scissor {
            visible = visible.intersection(
                Rect(x: Double(scissor.x), y: Double(scissor.y), width: Double(scissor.width), height: Double(scissor.height)))
        }
        if let clip { visible = visible.intersection(clip.pixelBox) }
        var flags: Flags = [.hasContents]
        if p.masksToBounds { flags.insert(.contentsRounded) }
        for tile in tree.tileDraws(of: layer, tiled, transform: transform, visible: visible) {
            // Contents end sharply at their frame, so neighbouring tiles meet without a seam.
            let quad = tile.frame.intersection(p.bounds)
            guard !quad.isNull, !quad.isEmpty else { continue }
            append(
                Instance(
                    transform: transform, clip: clip, quad: quad, bounds: p.bounds, radii: p.cornerRadii,
                    contentsFrame: tile.frame, opacity: opacity * tile.opacity, flags: flags, contentsScale: tile.contentsScale),
                kind: .body, scissor: scissor, contents: tile.image, filter: p.magnificationFilter)
        }
    }
}
