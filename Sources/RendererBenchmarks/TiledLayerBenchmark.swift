import Foundation
import LayerKit
import Renderer
import Synchronization

/// Draws a tiled layer's tiles as a two-colour checker of 64-point squares with a diagonal
/// stroke per square: some fill and some path work per tile, from any thread.
final class CheckerDrawer: LayerDrawingDelegate, Sendable {
    func draw(_ layer: Layer, in context: GraphicsContext) {
        let box = context.clipBoundingBox
        let square = 64.0
        context.setStrokeColor(Color(white: 0.3))
        context.setLineWidth(2)
        for row in Int(box.minY / square)..<Int((box.maxY / square).rounded(.up)) {
            for column in Int(box.minX / square)..<Int((box.maxX / square).rounded(.up)) {
                let rect = Rect(x: Double(column) * square, y: Double(row) * square, width: square, height: square)
                context.setFillColor((row + column) % 2 == 0 ? Color(red: 0.2, green: 0.5, blue: 0.9) : .white)
                context.fill(rect)
                context.beginPath()
                context.move(to: rect.origin)
                context.addLine(to: Point(x: rect.maxX, y: rect.maxY))
                context.strokePath()
            }
        }
    }
}

/// A 20,000 × 20,000-point tiled layer browsed on a 1920 × 1080 output: scrolled down its
/// diagonal 60 points a frame without waiting for tiles, then zoomed out to a quarter. Reports
/// the frames' times, the tiles drawn and the cache's peak.
@MainActor
func benchmarkTiledLayer(renderer: Renderer) throws {
    let root = Layer()
    root.bounds = Rect(x: 0, y: 0, width: 1920, height: 1080)
    root.anchorPoint = .zero
    root.backgroundColor = Color(white: 0.9)
    let tiled = TiledLayer()
    let drawer = CheckerDrawer()
    tiled.delegate = drawer
    tiled.levelsOfDetail = 4
    tiled.bounds = Rect(x: 0, y: 0, width: 20_000, height: 20_000)
    tiled.anchorPoint = .zero
    root.addSublayer(tiled)
    let context = RenderContext(rootLayer: root)
    Transaction.flush()

    var time = 0.0
    func frame() throws -> Double {
        time += 1.0 / 60
        let start = ContinuousClock.now
        _ = try renderer.render(context.renderTree!.sampled(atMediaTime: time), width: 1920, height: 1080)
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
    func move(to offset: Double, zoom: Double = 1) {
        Transaction.begin()
        Transaction.disableActions = true
        tiled.position = Point(x: -offset * zoom, y: -offset * zoom)
        tiled.transform = Transform3D(scaleX: zoom, y: zoom)
        Transaction.commit()
    }

    // A cold screenful: from the first frame's request until every visible tile is drawn.
    let coldStart = ContinuousClock.now
    _ = try frame()
    tiled.tileCache.waitUntilIdle()
    let cold = coldStart.duration(to: .now)
    let coldTiles = tiled.tileCache.drawCount

    var times: [Double] = []
    var offset = 0.0
    while offset < 20_000 - 1920 {
        offset += 60
        move(to: offset)
        times.append(try frame())
    }
    tiled.tileCache.waitUntilIdle()
    let scrolled = tiled.tileCache.drawCount - coldTiles
    times.sort()
    move(to: 8_000, zoom: 0.25)
    _ = try frame()
    tiled.tileCache.waitUntilIdle()
    let zoomedTiles = tiled.tileCache.drawCount - coldTiles - scrolled

    let mib = Double(tiled.tileCache.peakBytes) / Double(1 << 20)
    print("tiled layer    cold screenful    \(String(format: "%6d", coldTiles)) tiles drawn in \(milliseconds(Double(cold.components.attoseconds) * 1e-18 + Double(cold.components.seconds)))")
    print("tiled layer    scrolling frames  \(String(format: "%6d", times.count)) frames, median \(milliseconds(times[times.count / 2])), 90th \(milliseconds(times[times.count * 9 / 10])); \(scrolled) tiles drawn")
    print("tiled layer    zoomed to 1/4          \(zoomedTiles) level-2 tiles drawn; cache peak \(String(format: "%.1f", mib)) MiB of \(TileCache.defaultMaximumBytes >> 20)")
}
