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
    func renderFrames(_ root: Layer, _ tiled: TiledLayer, at times: [Double]) throws -> Image {
        let tree = try commit(root)
        let renderer = try validatingRenderer.get()
        _ = try renderer.render(tree.sampled(atMediaTime: 0), width: 256, height: 192)
        tiled.tileCache.waitUntilIdle()
        var image: Image?
        for t in times { image = try renderer.render(tree.sampled(atMediaTime: t), width: 256, height: 192) }
        #expect(renderer.takeValidationMessages() == [])
        return try #require(image)
    }

    @Test(.enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment))
    func atScaleOneTheVisibleTilesShowAtFullResolution() throws {
        let drawer = CheckerTiles()
        let (root, tiled) = scene(drawer: drawer)
        let image = try renderFrames(root, tiled, at: [1, 2])
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
        try golden.check(image, named: "tiled-layer-scale-1")
    }

    @Test(.enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment))
    func zoomedOutTheCoarserLevelShows() throws {
        let drawer = CheckerTiles()
        let (root, tiled) = scene(zoom: 0.5, drawer: drawer)
        let image = try renderFrames(root, tiled, at: [1, 2])
        // Half a pixel per point: level 1, whose 64-pixel tiles are 128 points, for layer points
        // 40…552 × 24…408.
        #expect(Set(drawer.calls.map(\.rect)) == frames(tiled, Rect(x: 40, y: 24, width: 512, height: 384), level: 1))
        #expect(drawer.calls.allSatisfy { $0.scale == 0.5 })
        // Output pixel (5, 3) shows layer point (51, 31), in the dark green square (1, 0); pixel
        // (20, 3) shows (81, 31), in the light square (2, 0). Squares are 16 output pixels now.
        #expect(isNear(pixel(image, 5, 3), [0, 64, 0, 255]))
        #expect(isNear(pixel(image, 20, 3), [0, 128, 0, 255]))
        try golden.check(image, named: "tiled-layer-zoomed-out")
    }

    @Test(.enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment))
    func midFadeTilesAreHalfOverWhatIsBehind() throws {
        let drawer = CheckerTiles()
        let (root, tiled) = scene(drawer: drawer)
        // First shown at 1: halfway through the 0.25-second fade at 1.125, over the white root.
        let image = try renderFrames(root, tiled, at: [1, 1.125])
        #expect(isNear(pixel(image, 10, 6), [128, 128, 192, 255]))
        #expect(isNear(pixel(image, 50, 6), [128, 128, 255, 255]))
        try golden.check(image, named: "tiled-layer-mid-fade")
    }

    // MARK: - Without a GPU

    @Test func theEncoderAsksForTheVisibleRegionThroughTransformsClipsAndTheOutputScale() throws {
        let drawer = CheckerTiles()
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
