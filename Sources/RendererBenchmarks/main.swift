import CPURenderer
import Foundation
import LayerKit
import Renderer

// Frames of 1920×1080 scenes on lavapipe: 100, 1,000 and 10,000 layers with rounded corners,
// borders, shadows and textures, full frames and frames with one small damaged region; 1,000
// shape layers whose rings animate (every shape rasterised again each frame); and an emitter
// keeping 10,000 particles alive, a frame at each of successive moments; a full-screen
// background blur over the 1,000-layer scene; a VulkanLayer animated by its own Vulkan commands
// (VulkanLayerBenchmark.swift); a 20,000-point tiled layer browsed (TiledLayerBenchmark.swift);
// 200 shadow paths with their masks kept or made again (ShadowPathBenchmark.swift); and a KMS
// output's frames into dumb-buffer-like host memory, copied or in place (HostBufferBenchmark.swift).
// Run: swift run -c release RendererBenchmarks (medians of repeated frames); with the argument
// shadow-paths or host-buffers, only that case; with cpu, the 100, 1,000 and 10,000-layer scenes
// and the frosted panel drawn by the CPU renderer (pixman), without Vulkan.

@MainActor
func makeScene(
    layers count: Int, texture: Image, width: Double = 1920, height: Double = 1080
) -> (root: Layer, context: RenderContext, tiles: [Layer]) {
    let root = Layer()
    root.bounds = Rect(x: 0, y: 0, width: width, height: height)
    root.anchorPoint = .zero
    root.backgroundColor = Color(white: 0.95)
    let columns = Int(Double(count).squareRoot().rounded(.up))
    let w = width / Double(columns), h = height / Double(columns)
    var tiles: [Layer] = []
    for i in 0..<count - 1 {
        let tile = Layer()
        tile.frame = Rect(x: Double(i % columns) * w + 1, y: Double(i / columns) * h + 1, width: w - 2, height: h - 2)
        switch i % 4 {
        case 0:
            tile.backgroundColor = Color(red: 0.2, green: 0.5, blue: 0.9)
            tile.cornerRadius = min(w, h) / 4
        case 1:
            tile.backgroundColor = .white
            tile.borderWidth = 2
            tile.borderColor = Color(white: 0.2)
        case 2:
            tile.backgroundColor = Color(red: 1, green: 0.7, blue: 0.2)
            tile.shadowOpacity = 0.5
            tile.shadowRadius = 3
            tile.shadowOffset = Size(width: 0, height: 2)
        default:
            tile.contents = texture
            tile.contentsGravity = .resizeAspect
        }
        root.addSublayer(tile)
        tiles.append(tile)
    }
    let context = RenderContext(rootLayer: root)
    Transaction.flush()
    return (root, context, tiles)
}

/// Checkerboard texture, 64×64.
func makeTexture() throws -> Image {
    let context = try GraphicsContext(width: 64, height: 64)
    for y in 0..<8 {
        for x in 0..<8 {
            context.setFillColor((x + y) % 2 == 0 ? Color(red: 0.9, green: 0.1, blue: 0.3) : .white)
            context.fill(Rect(x: Double(x * 8), y: Double(y * 8), width: 8, height: 8))
        }
    }
    return context.makeImage()
}
/// The median of `runs` measurements of `body`, which returns the frame's statistics.
@MainActor
func median(runs: Int, _ body: () throws -> FrameStatistics) rethrows -> (encode: Double, total: Double, draws: Int, last: FrameStatistics) {
    var encode: [Double] = [], total: [Double] = []
    var last = FrameStatistics()
    for _ in 0..<runs {
        last = try body()
        encode.append(last.encodeSeconds)
        total.append(last.totalSeconds)
    }
    encode.sort()
    total.sort()
    return (encode[runs / 2], total[runs / 2], last.drawCount, last)
}

func milliseconds(_ seconds: Double) -> String { String(format: "%8.2f ms", seconds * 1000) }

/// `count` progress rings (shape layers, 40 points across) whose strokeEnd animates from 0 to 1
/// over two seconds, each starting a little later, in a grid over 1920×1080.
@MainActor
func makeRings(count: Int) -> RenderContext {
    let root = Layer()
    root.bounds = Rect(x: 0, y: 0, width: 1920, height: 1080)
    root.anchorPoint = .zero
    root.backgroundColor = Color(white: 0.1)
    let columns = 40
    for i in 0..<count {
        let ring = ShapeLayer()
        ring.frame = Rect(x: Double(i % columns) * 48 + 4, y: Double(i / columns) * 43 + 4, width: 40, height: 40)
        ring.path = Path(ellipseIn: Rect(x: 4, y: 4, width: 32, height: 32))
        ring.fillColor = nil
        ring.strokeColor = Color(red: 0.3, green: 0.8, blue: 1)
        ring.lineWidth = 4
        let progress = BasicAnimation(keyPath: "strokeEnd")
        progress.fromValue = 0.0
        progress.toValue = 1.0
        progress.duration = 2
        progress.beginTime = Double(i % 50) / 50
        progress.repeatCount = .infinity
        ring.add(progress, forKey: "progress")
        root.addSublayer(ring)
    }
    let context = RenderContext(rootLayer: root)
    Transaction.flush()
    return context
}

/// An emitter across the screen's bottom: 5,000 particles a second living 2 s, 10,000 alive.
@MainActor
func makeEmitterScene(texture: Image) -> RenderContext {
    let root = Layer()
    root.bounds = Rect(x: 0, y: 0, width: 1920, height: 1080)
    root.anchorPoint = .zero
    root.backgroundColor = .black
    let emitter = EmitterLayer()
    emitter.frame = root.bounds
    emitter.emitterPosition = Point(x: 960, y: 1080)
    emitter.emitterSize = Size(width: 1600, height: 0)
    emitter.emitterShape = .line
    var cell = EmitterCell()
    (cell.contents, cell.contentsScale, cell.birthRate, cell.lifetime) = (texture, 4, 5_000, 2)
    (cell.velocity, cell.velocityRange, cell.emissionLongitude, cell.emissionRange) = (500, 200, -Double.pi / 2, 0.5)
    (cell.yAcceleration, cell.spin, cell.spinRange, cell.alphaSpeed) = (200, 1, 2, -0.4)
    emitter.emitterCells = [cell]
    root.addSublayer(emitter)
    let context = RenderContext(rootLayer: root)
    Transaction.flush()
    return context
}

/// The 100, 1,000 and 10,000-layer scenes: full frames, one tile damaged, nothing changed; with
/// the layers the last frame placed and the subtree boxes it made again.
@MainActor
func benchmarkScenes(renderer: any LayerTreeRenderer, texture: Image) throws {
    print("scene          frame              draws  encode (CPU)   to finished   placed  measured")
    for count in [100, 1_000, 10_000] {
        let scene = makeScene(layers: count, texture: texture)
        let runs = count == 10_000 ? 5 : 11
        let full = try median(runs: runs) {
            renderer.invalidatePreviousFrame()
            _ = try renderer.render(scene.context.renderTree!, width: 1920, height: 1080, scale: 1, clearColor: .clear)
            return renderer.lastFrameStatistics
        }
        var flip = false
        let tile = scene.tiles[scene.tiles.count / 2]
        let damaged = try median(runs: runs) {
            flip.toggle()
            Transaction.begin()
            Transaction.disableActions = true
            tile.backgroundColor = flip ? .green : .red
            Transaction.commit()
            _ = try renderer.render(scene.context.renderTree!, width: 1920, height: 1080, scale: 1, clearColor: .clear)
            return renderer.lastFrameStatistics
        }
        let idle = try median(runs: runs) {
            _ = try renderer.render(scene.context.renderTree!, width: 1920, height: 1080, scale: 1, clearColor: .clear)
            return renderer.lastFrameStatistics
        }
        for (name, m) in [("full", full), ("one tile damaged", damaged), ("nothing changed", idle)] {
            let scene = "\(count) layers".padding(toLength: 14, withPad: " ", startingAt: 0)
            let frame = name.padding(toLength: 17, withPad: " ", startingAt: 0)
            let counts = String(format: "%8d  %8d", m.last.placedLayerCount, m.last.measuredLayerCount)
            print("\(scene) \(frame) \(String(format: "%6d", m.draws)) \(milliseconds(m.encode))    \(milliseconds(m.total))  \(counts)")
        }
    }
}

/// A frosted panel over the whole screen (a background blur of radius 20) above the 1,000-layer
/// scene, against the same panel without the filter: full frames, the two alternating so that a
/// changing load on the machine weighs on both alike.
@MainActor
func benchmarkFrostedPanel(renderer: any LayerTreeRenderer, texture: Image) throws {
    let busy = makeScene(layers: 1_000, texture: texture)
    let panel = Layer()
    panel.frame = busy.root.bounds
    panel.backgroundColor = Color(white: 1, alpha: 0.3)
    busy.root.addSublayer(panel)
    var frames: [Bool: [FrameStatistics]] = [:]
    for _ in 0..<9 {
        for frosted in [false, true] {
            panel.backgroundFilters = frosted ? [.gaussianBlur(radius: 20)] : []
            Transaction.flush()
            renderer.invalidatePreviousFrame()
            _ = try renderer.render(busy.context.renderTree!, width: 1920, height: 1080, scale: 1, clearColor: .clear)
            frames[frosted, default: []].append(renderer.lastFrameStatistics)
        }
    }
    for frosted in [false, true] {
        let stats = frames[frosted]!
        let encode = stats.map(\.encodeSeconds).sorted()[stats.count / 2]
        let total = stats.map(\.totalSeconds).sorted()[stats.count / 2]
        let name = frosted ? "background blur" : "panel, no filter"
        print("1000 + panel   \(name.padding(toLength: 17, withPad: " ", startingAt: 0)) \(String(format: "%6d", stats[0].drawCount)) \(milliseconds(encode))    \(milliseconds(total))")
    }
}

try MainActor.assumeIsolated {
    let texture = try makeTexture()
    if CommandLine.arguments.dropFirst().first == "cpu" {
        let renderer = CPURenderer()
        print("device: \(renderer.deviceName)")
        try benchmarkScenes(renderer: renderer, texture: texture)
        return try benchmarkFrostedPanel(renderer: renderer, texture: texture)
    }
    let renderer = try Renderer()
    print("device: \(renderer.deviceName)")
    switch CommandLine.arguments.dropFirst().first {
    case "shadow-paths": return try benchmarkShadowPaths(renderer: renderer)
    case "host-buffers": return try benchmarkHostBuffers(renderer: renderer, texture: texture)
    default: break
    }
    try benchmarkScenes(renderer: renderer, texture: texture)
    // Animated shapes: each frame samples the tree one refresh later, so every ring changes.
    let rings = makeRings(count: 1_000)
    var time = MediaTime.now
    let animated = try median(runs: 11) {
        time += 1.0 / 60
        _ = try renderer.render(rings.renderTree!.sampled(atMediaTime: time), width: 1920, height: 1080)
        return renderer.lastFrameStatistics
    }
    print("1000 animated shape layers, each frame: \(animated.draws) draws, encode \(milliseconds(animated.encode)), to finished \(milliseconds(animated.total))")
    let emitter = makeEmitterScene(texture: texture)
    var moment = 10.0
    let particles = try median(runs: 11) {
        moment += 1.0 / 60
        _ = try renderer.render(emitter.renderTree!.sampled(atMediaTime: moment), width: 1920, height: 1080)
        return renderer.lastFrameStatistics
    }
    print("emitter        10,000 particles  \(String(format: "%6d", particles.draws)) \(milliseconds(particles.encode))    \(milliseconds(particles.total))")
    try benchmarkFrostedPanel(renderer: renderer, texture: texture)
    try benchmarkVulkanLayer(renderer: renderer)
    try benchmarkTiledLayer(renderer: renderer)
    try benchmarkShadowPaths(renderer: renderer)
    try benchmarkHostBuffers(renderer: renderer, texture: texture)
}
