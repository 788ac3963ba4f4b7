import Dispatch
import Glibc
import Synchronization
import Testing
@testable import LayerKit

/// A thread-safe drawing delegate, as CATiledLayer requires: it fills each tile and records what
/// it was asked for (the clip's bounding box, the CTM's scale) and on which thread. When gated,
/// each tile signals `entered`, then waits for `gate`, holding the drawing queue.
final class TileRecorder: LayerDrawingDelegate, Sendable {
    struct Call: Equatable, Sendable {
        var rect: Rect
        var scale: Double
        var thread: pthread_t
    }

    private let log = Mutex<[Call]>([])
    let gate = DispatchSemaphore(value: 0)
    let entered = DispatchSemaphore(value: 0)
    private let gated: Bool

    init(gated: Bool = false) { self.gated = gated }

    var calls: [Call] { log.withLock { $0 } }
    var rects: Set<Rect> { Set(calls.map(\.rect)) }

    func draw(_ layer: Layer, in context: GraphicsContext) {
        if gated {
            entered.signal()
            gate.wait()
        }
        let box = context.clipBoundingBox
        log.withLock { $0.append(Call(rect: box, scale: context.ctm.a, thread: pthread_self())) }
        context.setFillColor(.red)
        context.fill(box)
    }
}

@MainActor
@Suite struct TiledLayerTests {
    func bigLayer(_ delegate: TileRecorder) -> TiledLayer {
        let layer = TiledLayer()
        layer.bounds = Rect(x: 0, y: 0, width: 20_000, height: 20_000)
        layer.delegate = delegate
        return layer
    }

    func grid(_ layer: TiledLayer) -> TileGrid {
        layer.properties.tiled!.grid(contentsScale: layer.contentsScale)
    }

    /// The tiles of `rect` at `pixelsPerPoint`, asked at time `t`, once the queue has drawn them.
    @discardableResult
    func show(_ layer: TiledLayer, _ rect: Rect, pixelsPerPoint: Double = 1, at t: Double? = nil) -> [ShownTile] {
        let tiles = layer.tileCache.tiles(
            visibleRect: rect, pixelsPerPoint: pixelsPerPoint, grid: grid(layer), fadeDuration: TiledLayer.fadeDuration,
            atTime: t)
        layer.tileCache.waitUntilIdle()
        return tiles
    }

    // MARK: - Values

    @Test func defaultsAreCoreAnimations() {
        let layer = TiledLayer()
        #expect(layer.tileSize == Size(width: 256, height: 256))
        #expect(layer.levelsOfDetail == 1)
        #expect(layer.levelsOfDetailBias == 0)
        #expect(TiledLayer.fadeDuration == 0.25)
        #expect(layer.value(forKey: "tileSize") as? Size == Size(width: 256, height: 256))
        #expect(TiledLayer.defaultValue(forKey: "levelsOfDetail") as? Int == 1)
        layer.setValue(3, forKey: "levelsOfDetailBias")
        #expect(layer.levelsOfDetailBias == 3)
    }

    @Test func aSubclassSetsItsFadeDuration() {
        final class Quick: TiledLayer {
            override class var fadeDuration: Double { 0 }
        }
        #expect(Quick().properties.tiled?.fadeDuration == 0)
    }

    // MARK: - Grid maths

    @Test func aTileCoversTileSizeOverItsLevelsPixelsPerPoint() {
        let grid = TileGrid(tileSize: Size(width: 256, height: 128), levelsOfDetail: 4, levelsOfDetailBias: 1)
        #expect(grid.frame(of: TileKey(level: 0, column: 2, row: 1)) == Rect(x: 512, y: 128, width: 256, height: 128))
        #expect(grid.frame(of: TileKey(level: 2, column: 1, row: 0)) == Rect(x: 1024, y: 0, width: 1024, height: 512))
        #expect(grid.frame(of: TileKey(level: -1, column: 3, row: 3)) == Rect(x: 384, y: 192, width: 128, height: 64))
        // At contentsScale 2, full resolution is two pixels a point: a 256-pixel tile is 128 points.
        let retina = TileGrid(tileSize: Size(width: 256, height: 256), contentsScale: 2)
        #expect(retina.frame(of: TileKey(level: 0, column: 1, row: 1)) == Rect(x: 128, y: 128, width: 128, height: 128))
        #expect(retina.pixelsPerPoint(ofLevel: 0) == 2)
    }

    @Test func levelsRunFromTheBiasedMagnifiedOnesToTheCoarsest() {
        #expect(TileGrid(tileSize: Size(width: 256, height: 256)).levels == 0...0)
        #expect(TileGrid(tileSize: Size(width: 256, height: 256), levelsOfDetail: 4).levels == 0...3)
        #expect(TileGrid(tileSize: Size(width: 256, height: 256), levelsOfDetail: 4, levelsOfDetailBias: 2).levels == -2...1)
        #expect(TileGrid(tileSize: Size(width: 256, height: 256), levelsOfDetail: 1, levelsOfDetailBias: 1).levels == -1...(-1))
    }

    @Test(arguments: [
        (1.0, 0), (0.5, 1), (0.3, 1), (0.25, 2), (0.2, 2), (0.125, 3), (0.01, 3), (2.0, 0),
    ])
    func theLevelIsTheCoarsestNotMagnified(pixelsPerPoint: Double, level: Int) {
        let grid = TileGrid(tileSize: Size(width: 256, height: 256), levelsOfDetail: 4)
        #expect(grid.level(forPixelsPerPoint: pixelsPerPoint) == level)
    }

    @Test(arguments: [(8.0, -2), (4.0, -2), (3.0, -2), (2.0, -1), (1.5, -1), (1.0, 0), (0.5, 1), (0.1, 2)])
    func magnifiedLevelsServeZoomingIn(pixelsPerPoint: Double, level: Int) {
        let grid = TileGrid(tileSize: Size(width: 256, height: 256), levelsOfDetail: 5, levelsOfDetailBias: 2)
        #expect(grid.level(forPixelsPerPoint: pixelsPerPoint) == level)
    }

    @Test func contentsScaleShiftsTheLevels() {
        let grid = TileGrid(tileSize: Size(width: 256, height: 256), contentsScale: 2, levelsOfDetail: 3)
        #expect(grid.level(forPixelsPerPoint: 2) == 0)
        #expect(grid.level(forPixelsPerPoint: 1) == 1)
        #expect(grid.level(forPixelsPerPoint: 0.5) == 2)
    }

    @Test func theKeysOfARectAreTheTilesItTouches() {
        let grid = TileGrid(tileSize: Size(width: 256, height: 256), levelsOfDetail: 2)
        #expect(grid.keys(covering: Rect(x: 300, y: 100, width: 300, height: 200), level: 0) == [
            TileKey(level: 0, column: 1, row: 0), TileKey(level: 0, column: 2, row: 0),
            TileKey(level: 0, column: 1, row: 1), TileKey(level: 0, column: 2, row: 1),
        ])
        // Edges on the grid touch no further tile.
        #expect(grid.keys(covering: Rect(x: 256, y: 0, width: 256, height: 256), level: 0) == [TileKey(level: 0, column: 1, row: 0)])
        // Level 1's tiles are 512 points.
        #expect(grid.keys(covering: Rect(x: 300, y: 100, width: 300, height: 200), level: 1) == [
            TileKey(level: 1, column: 0, row: 0), TileKey(level: 1, column: 1, row: 0),
        ])
        #expect(grid.keys(covering: .null, level: 0) == [])
        #expect(TileKey(level: 0, column: 5, row: 2).parent == TileKey(level: 1, column: 2, row: 1))
    }

    // MARK: - Drawing on demand

    @Test func onlyTheVisibleTilesAreDrawnEachOnceOffTheCommittingThread() {
        let recorder = TileRecorder()
        let layer = bigLayer(recorder)
        let visible = Rect(x: 1000, y: 2000, width: 800, height: 600)
        #expect(show(layer, visible, at: 0).isEmpty)
        // Columns 3…7 and rows 7…10: 20 tiles, each drawn at full resolution with its own rectangle as clip.
        let expected = Set(grid(layer).keys(covering: visible, level: 0).map { grid(layer).frame(of: $0) })
        #expect(expected.count == 20)
        #expect(recorder.rects == expected)
        #expect(recorder.calls.count == 20)
        #expect(recorder.calls.allSatisfy { $0.scale == 1 })
        #expect(recorder.calls.allSatisfy { pthread_equal($0.thread, pthread_self()) == 0 })
        // Asked again, they are all there and none is drawn again.
        #expect(show(layer, visible, at: 1).count == 20)
        #expect(recorder.calls.count == 20)
        #expect(layer.tileCache.drawCount == 20)
    }

    @Test func zoomedOutTheCoarserLevelIsDrawnWithAScaledContext() {
        let recorder = TileRecorder()
        let layer = bigLayer(recorder)
        layer.levelsOfDetail = 3
        // A quarter of full resolution: level 2, whose 256-pixel tiles are 1024 points.
        show(layer, Rect(x: 0, y: 0, width: 2000, height: 1000), pixelsPerPoint: 0.25)
        #expect(recorder.rects == [
            Rect(x: 0, y: 0, width: 1024, height: 1024), Rect(x: 1024, y: 0, width: 1024, height: 1024),
        ])
        #expect(recorder.calls.allSatisfy { $0.scale == 0.25 })
        let image = layer.tileCache.tiles(
            visibleRect: Rect(x: 0, y: 0, width: 10, height: 10), pixelsPerPoint: 0.25, grid: grid(layer),
            fadeDuration: 0, atTime: nil)[0].image
        #expect(image.width == 256 && image.height == 256)
    }

    @Test func tilesFadeInFromTheFirstFrameThatShowsThem() {
        let layer = bigLayer(TileRecorder())
        let visible = Rect(x: 0, y: 0, width: 100, height: 100)
        show(layer, visible, at: 10)
        #expect(show(layer, visible, at: 11).map(\.opacity) == [0])
        #expect(show(layer, visible, at: 11.125).map(\.opacity) == [0.5])
        #expect(layer.tileCache.isFading(after: 11.125))
        #expect(show(layer, visible, at: 11.25).map(\.opacity) == [1])
        #expect(!layer.tileCache.isFading(after: 11.25))
        // A frame that is no sample shows tiles whole.
        #expect(show(layer, visible, at: nil).map(\.opacity) == [1])
    }

    @Test func coarserTilesStandInUntilTheFinerOnesAreDrawn() {
        let recorder = TileRecorder(gated: true)
        let layer = bigLayer(recorder)
        layer.levelsOfDetail = 2
        let visible = Rect(x: 0, y: 0, width: 500, height: 500)
        recorder.gate.signal()
        show(layer, visible, pixelsPerPoint: 0.5)
        #expect(layer.tileCache.cachedKeys == [TileKey(level: 1, column: 0, row: 0)])
        // Zoomed in: the four level-0 tiles are queued (the gate holds them), and the level-1 tile stands in.
        let shown = layer.tileCache.tiles(
            visibleRect: visible, pixelsPerPoint: 1, grid: grid(layer), fadeDuration: 0.25, atTime: 5)
        #expect(shown.map(\.key) == [TileKey(level: 1, column: 0, row: 0)])
        for _ in 0..<4 { recorder.gate.signal() }
        layer.tileCache.waitUntilIdle()
        #expect(show(layer, visible, at: 6).map(\.key.level) == [0, 0, 0, 0])
    }

    @Test func tilesScrolledPastBeforeTheirTurnAreNeverDrawn() {
        let recorder = TileRecorder(gated: true)
        let layer = bigLayer(recorder)
        let cache = layer.tileCache
        // The first tile starts drawing and waits at the gate; the other three wait in the queue.
        _ = cache.tiles(visibleRect: Rect(x: 0, y: 0, width: 400, height: 400), pixelsPerPoint: 1, grid: grid(layer), fadeDuration: 0, atTime: 0)
        recorder.entered.wait()
        // The view moves far away before they are drawn: only the new tile is wanted now.
        _ = cache.tiles(visibleRect: Rect(x: 10_000, y: 10_000, width: 100, height: 100), pixelsPerPoint: 1, grid: grid(layer), fadeDuration: 0, atTime: 0)
        recorder.gate.signal()
        recorder.gate.signal()
        cache.waitUntilIdle()
        #expect(recorder.calls.count == 2)
        #expect(recorder.rects.contains(Rect(x: 9984, y: 9984, width: 256, height: 256)))
    }

    // MARK: - Invalidation

    @Test func setNeedsDisplayInARectDropsOnlyTheTilesItTouches() {
        let recorder = TileRecorder()
        let layer = bigLayer(recorder)
        let visible = Rect(x: 0, y: 0, width: 768, height: 512)
        show(layer, visible)
        #expect(layer.tileCache.cachedTileCount == 6)
        let revision = layer.tileCache.revision
        // Marked rectangles add up to their bounding box (260…310 × 10…310): tiles (1, 0) and (1, 1).
        layer.setNeedsDisplay(in: Rect(x: 300, y: 10, width: 10, height: 10))
        layer.setNeedsDisplay(in: Rect(x: 260, y: 300, width: 10, height: 10))
        layer.displayIfNeeded()
        #expect(layer.tileCache.cachedKeys == [
            TileKey(level: 0, column: 0, row: 0), TileKey(level: 0, column: 2, row: 0),
            TileKey(level: 0, column: 0, row: 1), TileKey(level: 0, column: 2, row: 1),
        ])
        #expect(layer.tileCache.revision != revision)
        show(layer, visible)
        #expect(recorder.calls.count == 8)
        #expect(Set(recorder.calls.suffix(2).map(\.rect)) == [
            Rect(x: 256, y: 0, width: 256, height: 256), Rect(x: 256, y: 256, width: 256, height: 256),
        ])
    }

    @Test func setNeedsDisplayDropsEveryTile() {
        let recorder = TileRecorder()
        let layer = bigLayer(recorder)
        show(layer, Rect(x: 0, y: 0, width: 768, height: 512))
        layer.setNeedsDisplay(in: Rect(x: 0, y: 0, width: 1, height: 1))
        layer.setNeedsDisplay()
        layer.displayIfNeeded()
        #expect(layer.tileCache.cachedTileCount == 0)
        show(layer, Rect(x: 0, y: 0, width: 768, height: 512))
        #expect(recorder.calls.count == 12)
    }

    @Test func aNewTileSizeOrScaleStartsAFreshGrid() {
        let recorder = TileRecorder()
        let layer = bigLayer(recorder)
        show(layer, Rect(x: 0, y: 0, width: 256, height: 256))
        layer.tileSize = Size(width: 128, height: 128)
        show(layer, Rect(x: 0, y: 0, width: 256, height: 256))
        #expect(layer.tileCache.cachedTileCount == 4)
        layer.contentsScale = 2
        show(layer, Rect(x: 0, y: 0, width: 256, height: 256), pixelsPerPoint: 2)
        #expect(layer.tileCache.cachedKeys == Set((0..<4).flatMap { r in (0..<4).map { TileKey(level: 0, column: $0, row: r) } }))
        #expect(recorder.calls.suffix(16).allSatisfy { $0.scale == 2 && $0.rect.width == 64 })
    }

    // MARK: - Memory

    @Test func scrollingAcrossTheWholeImageKeepsTheCacheWithinItsBudget() {
        let drawn = Mutex(0)
        let budget = 8 << 20  // 32 tiles of 256 × 256
        let cache = TileCache(maximumBytes: budget) { context in
            drawn.withLock { $0 += 1 }
            context.setFillColor(.blue)
            context.fill(context.clipBoundingBox)
        }
        let grid = TileGrid(tileSize: Size(width: 256, height: 256))
        // A 1024 × 768 view down the diagonal of 20,000 × 20,000 points, 400 points a step.
        var seen = Set<TileKey>()
        for step in 0...48 {
            let view = Rect(x: Double(step) * 400, y: Double(step) * 400, width: 1024, height: 768)
                .intersection(Rect(x: 0, y: 0, width: 20_000, height: 20_000))
            seen.formUnion(grid.keys(covering: view, level: 0))
            let shown = cache.tiles(visibleRect: view, pixelsPerPoint: 1, grid: grid, fadeDuration: 0, atTime: nil)
            cache.waitUntilIdle()
            #expect(cache.cachedBytes <= budget)
            #expect(shown.allSatisfy { $0.frame.intersects(view) })
        }
        // Every tile that was in view was drawn once, and nothing else.
        #expect(drawn.withLock { $0 } == seen.count)
        #expect(seen.count == 552)
        #expect(cache.peakBytes <= budget)
        #expect(cache.cachedBytes == 32 * 256 * 256 * 4)
    }

    @Test func aViewNeedingMoreTilesThanTheBudgetGetsItsCentralOnes() {
        let cache = TileCache(maximumBytes: 4 * 256 * 256 * 4) { _ in }
        let grid = TileGrid(tileSize: Size(width: 256, height: 256))
        _ = cache.tiles(
            visibleRect: Rect(x: 0, y: 0, width: 768, height: 768), pixelsPerPoint: 1, grid: grid, fadeDuration: 0, atTime: nil)
        cache.waitUntilIdle()
        #expect(cache.cachedTileCount == 4)
        #expect(cache.cachedKeys.contains(TileKey(level: 0, column: 1, row: 1)))
    }

    @Test func theDefaultBudgetIs64MiB() {
        #expect(TileCache.defaultMaximumBytes == 64 * 1024 * 1024)
        #expect(TiledLayer().tileCache.maximumBytes == TileCache.defaultMaximumBytes)
    }

    @Test func renderInContextDrawsTheLayerInOnePieceClippedToItsBounds() throws {
        let recorder = TileRecorder()
        let layer = TiledLayer()
        layer.bounds = Rect(x: 0, y: 0, width: 30, height: 20)
        layer.delegate = recorder
        let context = try GraphicsContext(width: 30, height: 20)
        layer.render(in: context)
        #expect(recorder.rects == [Rect(x: 0, y: 0, width: 30, height: 20)])
        #expect(context.makeImage().pixel(x: 29, y: 19) == PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(layer.tileCache.drawCount == 0)
    }

    // MARK: - Render tree

    @Test func theRenderTreeCarriesTheLayersCache() throws {
        let root = makeLayer(100, 100)
        let tiled = bigLayer(TileRecorder())
        root.addSublayer(tiled)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let tree = try #require(context.renderTree)
        #expect(tree.tiledLayerIDs == [tiled.id])
        #expect(tree[tiled.id]?.properties.tiled?.cache === tiled.tileCache)
        #expect(tree.sampled(atMediaTime: 1).tiledLayerIDs == [tiled.id])
        tiled.removeFromSuperlayer()
        Transaction.flush()
        #expect(try #require(context.renderTree).tiledLayerIDs.isEmpty)
    }

    @Test func aTreeAnimatesWhileTilesAreDrawnOrFading() throws {
        let root = makeLayer(100, 100)
        let tiled = bigLayer(TileRecorder())
        root.addSublayer(tiled)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let tree = try #require(context.renderTree)
        #expect(!tree.hasVisibleAnimations)
        let visible = Rect(x: 0, y: 0, width: 100, height: 100)
        show(tiled, visible, at: 0)
        // Drawn since the last frame asked: the next frame shows it.
        #expect(tree.hasVisibleAnimations)
        show(tiled, visible, at: 1)
        #expect(tree.hasVisibleAnimations)
        show(tiled, visible, at: 1.2)
        #expect(tree.hasVisibleAnimations)
        show(tiled, visible, at: 1.25)
        #expect(!tree.hasVisibleAnimations)
    }

    @Test func setNeedsDisplayOnATiledLayerCommitsAChange() throws {
        let root = makeLayer(100, 100)
        let tiled = bigLayer(TileRecorder())
        root.addSublayer(tiled)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let generation = try #require(context.renderTree).generation
        tiled.setNeedsDisplay()
        Transaction.flush()
        #expect(try #require(context.renderTree).generation == generation + 1)
    }
}
