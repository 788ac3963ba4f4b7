import CPURenderer
import Glibc
import Graphics
import LayerKit
import Synchronization
import Testing
@testable import Renderer

/// Draws a tiled layer's tiles as a checkerboard of 32-point squares, blue at full resolution and
/// green at half, each tile outlined by one white pixel, and records each tile's clip box, scale
/// and thread. Thread-safe, as CATiledLayer's drawing must be.
final class CheckerTiles: LayerDrawingDelegate, Sendable {
    struct Call: Sendable {
        var rect: Rect
        var scale: Double
        var thread: pthread_t
    }

    private let log = Mutex<[Call]>([])
    var calls: [Call] { log.withLock { $0 } }

    static let light = [Color(red: 0, green: 0, blue: 1), Color(red: 0, green: 0.5, blue: 0)]
    static let dark = [Color(red: 0, green: 0, blue: 0.5), Color(red: 0, green: 0.25, blue: 0)]

    func draw(_ layer: Layer, in context: GraphicsContext) {
        let box = context.clipBoundingBox
        let scale = context.ctm.a
        log.withLock { $0.append(Call(rect: box, scale: scale, thread: pthread_self())) }
        let level = scale < 1 ? 1 : 0
        let square = 32.0
        for row in Int(box.minY / square)..<Int((box.maxY / square).rounded(.up)) {
            for column in Int(box.minX / square)..<Int((box.maxX / square).rounded(.up)) {
                context.setFillColor((row + column) % 2 == 0 ? Self.light[level] : Self.dark[level])
                context.fill(Rect(x: Double(column) * square, y: Double(row) * square, width: square, height: square))
            }
        }
        let pixel = 1 / scale
        context.setStrokeColor(.white)
        context.setLineWidth(pixel)
        context.stroke(box.insetBy(dx: pixel / 2, dy: pixel / 2))
    }
}

/// TiledLayer on the renderer: tiles of the visible region at the output's scale, fading in.
@MainActor
@Suite(.serialized) struct RenderTiledLayerTests {
    /// A 256 × 192 root showing a 20,000-point-square tiled layer of 64-pixel tiles from its
    /// point (40, 24), magnified by `zoom`.
    func scene(zoom: Double = 1, drawer: CheckerTiles) -> (root: Layer, tiled: TiledLayer) {
        let root = makeRoot(256, 192)
        let tiled = TiledLayer()
        tiled.tileSize = Size(width: 64, height: 64)
        tiled.levelsOfDetail = 2
        tiled.bounds = Rect(x: 0, y: 0, width: 20_000, height: 20_000)
        tiled.anchorPoint = .zero
        tiled.position = Point(x: -40 * zoom, y: -24 * zoom)
        tiled.transform = Transform3D(scaleX: zoom, y: zoom)
        tiled.delegate = drawer
        root.addSublayer(tiled)
        return (root, tiled)
    }

    /// The frames of the tiles of `level` covering `rect`, as the grid of `tiled` places them.
    func frames(_ tiled: TiledLayer, _ rect: Rect, level: Int) -> Set<Rect> {
        let grid = tiled.properties.tiled!.grid(contentsScale: 1)
        return Set(grid.keys(covering: rect, level: level).map { grid.frame(of: $0) })
    }

    /// Renders at media times 0 (which asks for the tiles), then `times`, after the tiles are
    /// drawn; returns the last frame.
    func renderFrames(_ root: Layer, _ tiled: TiledLayer, at times: [Double], with sceneRenderer: SceneRenderer) throws -> Image {
        let tree = try commit(root)
        let renderer: any LayerTreeRenderer = sceneRenderer == .cpu ? CPURenderer() : try validatingRenderer.get()
        _ = try renderer.render(tree.sampled(atMediaTime: 0), width: 256, height: 192, scale: 1, clearColor: .clear)
        tiled.tileCache.waitUntilIdle()
        var image: Image?
        for t in times { image = try renderer.render(tree.sampled(atMediaTime: t), width: 256, height: 192, scale: 1, clearColor: .clear) }
        if sceneRenderer == .vulkan { #expect(try validatingRenderer.get().takeValidationMessages() == []) }
        return try #require(image)
    }

    @Test(.enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment), arguments: SceneRenderer.allCases)
    func atScaleOneTheVisibleTilesShowAtFullResolution(_ renderer: SceneRenderer) throws {
        let drawer = CheckerTiles()
        let (root, tiled) = scene(drawer: drawer)
        let image = try renderFrames(root, tiled, at: [1, 2], with: renderer)
        // Layer points 40…296 × 24…216 show: columns 0…4, rows 0…3, drawn once each, off this thread.
        #expect(Set(drawer.calls.map(\.rect)) == frames(tiled, Rect(x: 40, y: 24, width: 256, height: 192), level: 0))
        #expect(drawer.calls.count == 20)
        #expect(drawer.calls.allSatisfy { $0.scale == 1 && pthread_equal($0.thread, pthread_self()) == 0 })
        // Output pixel (10, 6) shows layer point (50.5, 30.5), in the dark square (1, 0); pixel
        // (50, 6) shows (90.5, 30.5), in the light square (2, 0).
        #expect(isNear(pixel(image, 10, 6), [0, 0, 128, 255]))
        #expect(isNear(pixel(image, 50, 6), [0, 0, 255, 255]))
        // Tile (1, 0) starts at layer x 64: a white outline pixel at output x 24.
        #expect(isNear(pixel(image, 24, 40), [255, 255, 255, 255]))
        // CPU: tiles land texel for pixel, copied; 1 of 255 for rounding.
        try renderer.check(image, named: "tiled-layer-scale-1", cpu: (1, 0))
    }

    @Test(.enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment), arguments: SceneRenderer.allCases)
    func zoomedOutTheCoarserLevelShows(_ renderer: SceneRenderer) throws {
        let drawer = CheckerTiles()
        let (root, tiled) = scene(zoom: 0.5, drawer: drawer)
        let image = try renderFrames(root, tiled, at: [1, 2], with: renderer)
        // Half a pixel per point: level 1, whose 64-pixel tiles are 128 points, for layer points
        // 40…552 × 24…408.
        #expect(Set(drawer.calls.map(\.rect)) == frames(tiled, Rect(x: 40, y: 24, width: 512, height: 384), level: 1))
        #expect(drawer.calls.allSatisfy { $0.scale == 0.5 })
        // Output pixel (5, 3) shows layer point (51, 31), in the dark green square (1, 0); pixel
        // (20, 3) shows (81, 31), in the light square (2, 0). Squares are 16 output pixels now.
        #expect(isNear(pixel(image, 5, 3), [0, 64, 0, 255]))
        #expect(isNear(pixel(image, 20, 3), [0, 128, 0, 255]))
        try renderer.check(image, named: "tiled-layer-zoomed-out", cpu: (1, 0))
    }

    @Test(.enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment), arguments: SceneRenderer.allCases)
    func midFadeTilesAreHalfOverWhatIsBehind(_ renderer: SceneRenderer) throws {
        let drawer = CheckerTiles()
        let (root, tiled) = scene(drawer: drawer)
        // First shown at 1: halfway through the 0.25-second fade at 1.125, over the white root.
        let image = try renderFrames(root, tiled, at: [1, 1.125], with: renderer)
        #expect(isNear(pixel(image, 10, 6), [128, 128, 192, 255]))
        #expect(isNear(pixel(image, 50, 6), [128, 128, 255, 255]))
        try renderer.check(image, named: "tiled-layer-mid-fade", cpu: (1, 0))
    }

    // MARK: - Without a GPU

    /// A 200 × 100 root whose 100 × 60 clip at (50, 20) shows a tiled layer magnified twice from
    /// its point (15, 5), with three levels of detail biased by two.
    func clippedScene(drawer: CheckerTiles) -> (root: Layer, tiled: TiledLayer) {
        let root = makeRoot(200, 100)
        let clip = sublayer(root, frame: Rect(x: 50, y: 20, width: 100, height: 60))
        clip.masksToBounds = true
        let tiled = TiledLayer()
        tiled.levelsOfDetail = 3
        tiled.levelsOfDetailBias = 2
        tiled.bounds = Rect(x: 0, y: 0, width: 20_000, height: 20_000)
        tiled.anchorPoint = .zero
        tiled.position = Point(x: -30, y: -10)
        tiled.transform = Transform3D(scaleX: 2, y: 2)
        tiled.delegate = drawer
        clip.addSublayer(tiled)
        return (root, tiled)
    }

    @Test func theEncoderAsksForTheVisibleRegionThroughTransformsClipsAndTheOutputScale() throws {
        let drawer = CheckerTiles()
        let (root, tiled) = clippedScene(drawer: drawer)
        let tree = try commit(root)
        _ = SceneEncoder(tree: tree.sampled(atMediaTime: 0), scale: 2, targetSize: (400, 200))
        tiled.tileCache.waitUntilIdle()
        // The clip shows layer points 15…65 × 5…35, at 2 × 2 = 4 pixels a point: level −2, whose
        // 256-pixel tiles are 64 points.
        #expect(Set(drawer.calls.map(\.rect)) == [
            Rect(x: 0, y: 0, width: 64, height: 64), Rect(x: 64, y: 0, width: 64, height: 64),
        ])
        #expect(drawer.calls.allSatisfy { $0.scale == 4 })
        // Drawn since, the tiles are drawn by the next frame once their fade has begun.
        let shown = SceneEncoder(tree: tree.sampled(atMediaTime: 1), scale: 2, targetSize: (400, 200))
        #expect(shown.draws.filter { $0.contents != nil }.isEmpty)
        let faded = SceneEncoder(tree: tree.sampled(atMediaTime: 2), scale: 2, targetSize: (400, 200))
        #expect(faded.draws.filter { $0.contents != nil }.count == 2)
    }

    /// The CPU renderer asks for the same tiles as the Vulkan encoder (the part the clip shows,
    /// at the output's scale) and draws them within the clip.
    @Test func theCPURendererAsksForTheVisibleRegionThroughClipsAndTheOutputScale() throws {
        let drawer = CheckerTiles()
        let (root, tiled) = clippedScene(drawer: drawer)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let tree = try #require(context.renderTree)
        let renderer = CPURenderer()
        _ = try renderer.render(tree.sampled(atMediaTime: 0), width: 400, height: 200, scale: 2)
        tiled.tileCache.waitUntilIdle()
        // The clip shows layer points 15…65 × 5…35, at 2 × 2 = 4 pixels a point: level −2, whose
        // 256-pixel tiles are 64 points.
        #expect(Set(drawer.calls.map(\.rect)) == [
            Rect(x: 0, y: 0, width: 64, height: 64), Rect(x: 64, y: 0, width: 64, height: 64),
        ])
        #expect(drawer.calls.allSatisfy { $0.scale == 4 })
        // Shown from 5 on, faded in by 6. Layer point (x, y) is output pixel (40 + 4x, 20 + 4y):
        // pixel (110, 50) shows (17.6, 7.6), in the light square (0, 0); (200, 52) shows (40.1,
        // 8.1), in the dark square (1, 0). The clip starts at pixel 100.
        _ = try renderer.render(tree.sampled(atMediaTime: 5), width: 400, height: 200, scale: 2)
        let image = try renderer.render(tree.sampled(atMediaTime: 6), width: 400, height: 200, scale: 2)
        #expect(isNear(pixel(image, 110, 50), [0, 0, 255, 255]))
        #expect(isNear(pixel(image, 200, 52), [0, 0, 128, 255]))
        #expect(isNear(pixel(image, 98, 50), [255, 255, 255, 255]))
    }

    @Test func drawnTilesDamageTheLayerAndAFinishedFadeDamagesNothing() throws {
        let drawer = CheckerTiles()
        let (root, tiled) = scene(drawer: drawer)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let tree = try #require(context.renderTree)
        var tracker = DamageTracker()
        func frame(at t: Double) -> Damage {
            let sample = tree.sampled(atMediaTime: t)
            let damage = tracker.damage(for: sample, scale: 1, width: 256, height: 192)
            _ = SceneEncoder(tree: sample, scale: 1, targetSize: (256, 192))
            return damage
        }
        #expect(frame(at: 0) == .full)
        tiled.tileCache.waitUntilIdle()
        // The layer covers the whole output, so its damage is all of it.
        #expect(frame(at: 1) == .full)
        #expect(frame(at: 1.1) == .full)
        #expect(frame(at: 1.3) == .full)
        #expect(frame(at: 1.4) == .none)
    }
}
