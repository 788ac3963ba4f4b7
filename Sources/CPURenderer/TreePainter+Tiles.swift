import LayerKit
import RendererContract

/// Tiled layers (CATiledLayer), as the Vulkan renderer draws them: each frame that draws the
/// layer asks its `TileCache` for the tiles of the part the output shows (the whole target cut
/// by the clips above, not only what the frame redraws, since each request replaces the queued
/// work) at the level of detail the transform's scale needs (`RenderTree.tileDraws`), and draws
/// the ready ones as contents: the pixels whose centres lie in the tile and the bounds, cut to the
/// rounded bounds with masksToBounds, each at its fade.
extension TreePainter {
    /// `p`: the layer's values.
    mutating func drawTiles(of layer: RenderLayer, _ p: LayerProperties, transform: Transform3D, opacity: Double, clip: Coverage?) {
        guard let tiled = p.tiled else { return }
        let visible = clip?.reach ?? canvas.target.rect
        for tile in tree.tileDraws(of: layer, tiled, transform: transform, visible: visible) {
            let rounded = p.masksToBounds ? RoundedRect(rect: p.bounds, radii: p.cornerRadii) : nil
            var placement = ContentsPlacement(raster: tile.frame, roundedClip: rounded, upright: false)
            (placement.contentsScale, placement.filter, placement.cut) = (tile.contentsScale, p.magnificationFilter, p.bounds)
            draw(tile.image, placed: placement, transform: transform, opacity: opacity * tile.opacity, clip: clip)
        }
    }

    /// The bounding box in target pixels of the corners of `rect` that `transform` puts in front
    /// of the eye, whatever the canvas.
    func targetRect(of rect: Rect, _ transform: Transform3D) -> Rect {
        Rect(boundingPoints: rect.corners.compactMap { c in transform.apply(x: c.x, y: c.y).map { Point(x: $0.x, y: $0.y) } })
    }
}
