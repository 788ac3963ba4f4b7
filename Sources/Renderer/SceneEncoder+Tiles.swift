import LayerKit
import RendererContract

extension SceneEncoder {
    /// A tiled layer's tiles, between its background and its sublayers: the encoder is where the
    /// visible part of the layer is known (the target, the scissor and clips above, the transform
    /// to pixels), so it asks the layer's cache for that rectangle's tiles at the scale the
    /// transform shows it at (see `TileCache`), and draws the ready ones, each at its fade.
    mutating func drawTiles(
        of layer: RenderLayer, _ tiled: TiledProperties, transform: Transform3D, opacity: Double, clip: Clip?,
        scissor: PixelRect?
    ) {
        let p = layer.properties
        guard let visible = visibleRect(of: p.bounds, transform: transform, clip: clip, scissor: scissor) else { return }
        let grid = tiled.grid(contentsScale: p.contentsScale)
        let tiles = tiled.cache.tiles(
            visibleRect: visible, pixelsPerPoint: pixelsPerPoint(transform), grid: grid,
            fadeDuration: tiled.fadeDuration, atTime: tree.sampleTime)
        var flags: Flags = [.hasContents]
        if p.masksToBounds { flags.insert(.contentsRounded) }
        for tile in tiles where tile.opacity > 0 {
            // Contents end sharply at their frame, so neighbouring tiles meet without a seam.
            let quad = tile.frame.intersection(p.bounds)
            guard !quad.isNull, !quad.isEmpty else { continue }
            append(
                Instance(
                    transform: transform, clip: clip, quad: quad, bounds: p.bounds, radii: p.cornerRadii,
                    contentsFrame: tile.frame, opacity: opacity * tile.opacity, flags: flags,
                    contentsScale: grid.pixelsPerPoint(ofLevel: tile.key.level)),
                kind: .body, scissor: scissor, contents: tile.image, filter: p.magnificationFilter)
        }
    }

    /// The part of `bounds` that can show on the target: the target cut by the scissor and clip,
    /// mapped back into the bounds space. Nil when none of it shows; all of it when the map back
    /// is lost behind the eye.
    func visibleRect(of bounds: Rect, transform: Transform3D, clip: Clip?, scissor: PixelRect?) -> Rect? {
        var box = Rect(x: 0, y: 0, width: Double(targetSize.width), height: Double(targetSize.height))
        if let scissor {
            box = box.intersection(
                Rect(x: Double(scissor.x), y: Double(scissor.y), width: Double(scissor.width), height: Double(scissor.height)))
        }
        if let clip { box = box.intersection(clip.pixelBox) }
        guard !box.isNull, !box.isEmpty, let inverse = transform.planeInverse else { return nil }
        let corners = box.corners.compactMap { c in inverse.apply(x: c.x, y: c.y).map { Point(x: $0.x, y: $0.y) } }
        let visible = corners.count == 4 ? Rect(boundingPoints: corners).intersection(bounds) : bounds
        return visible.isNull || visible.isEmpty ? nil : visible
    }

    /// Output pixels per point of the layer along its more magnified axis.
    func pixelsPerPoint(_ t: Transform3D) -> Double {
        let sx = (t.m11 * t.m11 + t.m12 * t.m12).squareRoot()
        let sy = (t.m21 * t.m21 + t.m22 * t.m22).squareRoot()
        return max(sx, sy)
    }
}
