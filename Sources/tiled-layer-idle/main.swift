import Foundation
import LayerKit

// An app with a TiledLayer, for IdleThreadsTests: draws the tiles of a 1024 × 1024 point view
// through the layer's tile cache, says how many it drew on standard output, then sleeps until its
// standard input ends. Whatever of its threads wakes while it waits was woken by the tile drawing.

/// Fills each tile; tiles are drawn away from the main thread, as CATiledLayer's are.
final class Filler: LayerDrawingDelegate, Sendable {
    func draw(_ layer: Layer, in context: GraphicsContext) {
        context.setFillColor(Color(red: 0.2, green: 0.5, blue: 0.9))
        context.fill(context.clipBoundingBox)
    }
}

let filler = Filler()
let layer = TiledLayer()
layer.bounds = Rect(x: 0, y: 0, width: 4096, height: 4096)
layer.delegate = filler
_ = layer.tileCache.tiles(
    visibleRect: Rect(x: 0, y: 0, width: 1024, height: 1024), pixelsPerPoint: 1,
    grid: layer.properties.tiled!.grid(contentsScale: layer.contentsScale), fadeDuration: TiledLayer.fadeDuration,
    atTime: nil)
layer.tileCache.waitUntilIdle()
FileHandle.standardOutput.write(Data("drew \(layer.tileCache.drawCount) tiles\n".utf8))
while readLine() != nil {}
