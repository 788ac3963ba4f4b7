import CPURenderer
import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// VulkanLayer: drawables rendered with Vulkan commands become a layer's contents without a copy,
/// from a pool that recycles an image only once the frames sampling it are done.
@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct RenderVulkanLayerTests {
    /// A layer of `frame` in `root` with drawables of `size` pixels.
    func vulkanLayer(in root: Layer, frame: Rect, drawableSize: Size) throws -> VulkanLayer {
        let layer = try VulkanLayer(renderer: try validatingRenderer.get())
        layer.frame = frame
        layer.drawableSize = drawableSize
        root.addSublayer(layer)
        return layer
    }

    /// Renders one plain-colour frame into the layer's next drawable and presents it.
    func present(_ color: (red: Double, green: Double, blue: Double), on layer: VulkanLayer) throws {
        let pattern = try AnimatedPatternRenderer(layer: layer)
        #expect(try pattern.renderFrame(clearColor: color, angle: nil))
    }

    @Test func aPresentedDrawableIsTheLayersContentsWithGravityOpacityAndCornerRadius() throws {
        let root = makeRoot(120, 80)
        // Red, filling its bounds, at 0.6 opacity and clipped to corners of radius 12.
        let rounded = try vulkanLayer(in: root, frame: Rect(x: 10, y: 10, width: 40, height: 60),
            drawableSize: Size(width: 16, height: 16))
        rounded.opacity = 0.6
        rounded.cornerRadius = 12
        rounded.masksToBounds = true
        try present((1, 0, 0), on: rounded)
        // 40×20 pixels fitted into 50×60 points: 50×25, from y = 27.5 to 52.5.
        let fitted = try vulkanLayer(in: root, frame: Rect(x: 60, y: 10, width: 50, height: 60),
            drawableSize: Size(width: 40, height: 20))
        fitted.contentsGravity = .resizeAspect
        let pattern = try AnimatedPatternRenderer(layer: fitted)
        #expect(try pattern.renderFrame(clearColor: (0, 0, 1), angle: 0))

        let image = try render(root)
        // 0.6 × red over white: (255, 0.4 × 255, 0.4 × 255).
        #expect(pixel(image, 30, 40) == [255, 102, 102, 255])
        #expect(pixel(image, 16, 64) == [255, 102, 102, 255])
        // Outside the rounded corners the root shows.
        #expect(pixel(image, 10, 10) == [255, 255, 255, 255])
        #expect(pixel(image, 49, 69) == [255, 255, 255, 255])
        // The fitted drawable: its blue clear colour left of the triangle, the root above and below it.
        #expect(pixel(image, 62, 30) == [0, 0, 255, 255])
        #expect(pixel(image, 62, 50) == [0, 0, 255, 255])
        #expect(pixel(image, 85, 20) == [255, 255, 255, 255])
        #expect(pixel(image, 85, 60) == [255, 255, 255, 255])
        try golden.check(image, named: "vulkan-layer-gravity-opacity-corners")
    }

    /// A `VulkanLayer`'s drawable cannot be sampled without a Vulkan device: a tree showing one
    /// drawn by the CPU renderer has the layer's background and border without the drawable, and
    /// the renderer says so once.
    @Test func theCPURendererDrawsAVulkanLayerWithoutItsDrawableAndSaysSo() throws {
        let root = makeRoot(40, 40)
        let layer = try vulkanLayer(in: root, frame: Rect(x: 10, y: 10, width: 20, height: 20), drawableSize: Size(width: 8, height: 8))
        layer.backgroundColor = .blue
        try present((1, 0, 0), on: layer)
        let renderer = CPURenderer()
        var failures: [ContentsFailure] = []
        renderer.onContentsUnavailable = { failures.append($0) }
        let tree = try commit(root)
        var image = try renderer.render(tree, width: 40, height: 40)
        #expect(pixel(image, 20, 20) == [0, 0, 255, 255])
        renderer.invalidatePreviousFrame()
        image = try renderer.render(tree, width: 40, height: 40)
        #expect(pixel(image, 20, 20) == [0, 0, 255, 255])
        #expect(failures == [
            ContentsFailure(width: 8, height: 8, reason: "only a Vulkan renderer samples a VulkanLayer's drawables")
        ])
    }

    @Test func thePoolHandsOutAtMostMaximumDrawableCountDrawables() throws {
        let root = makeRoot(40, 40)
        let layer = try vulkanLayer(in: root, frame: Rect(x: 0, y: 0, width: 40, height: 40),
            drawableSize: Size(width: 8, height: 8))
        #expect(layer.maximumDrawableCount == 3)
        layer.maximumDrawableCount = 2
        var first = try layer.nextDrawable()
        let second = try #require(try layer.nextDrawable())
        #expect(first != nil)
        // Both are held here: waiting on this thread could free neither.
        #expect(try layer.nextDrawable() == nil)
        #expect(layer.queue.slots.count == 2)
        let firstSlot = first?.slot
        first = nil
        // A drawable dropped without a present goes back to the pool.
        let third = try #require(try layer.nextDrawable())
        #expect(third.slot === firstSlot)
        #expect(third.slot !== second.slot)
        #expect(layer.queue.slots.count == 2)
    }

    @Test func aSampledDrawableComesBackOnlyOnceTheFrameThatSampledItIsDone() throws {
        let renderer = try validatingRenderer.get()
        let root = makeRoot(40, 40)
        let layer = try vulkanLayer(in: root, frame: Rect(x: 0, y: 0, width: 40, height: 40),
            drawableSize: Size(width: 8, height: 8))
        layer.maximumDrawableCount = 2
        try present((1, 0, 0), on: layer)
        _ = try render(root)
        let shown = try #require(layer.queue.slots.first)
        // The frame sampled it and waited for its rendering: both are timeline values.
        let read = try #require(shown.texture.lastReadPoint)
        let rendered = try #require(shown.texture.readyPoint)
        #expect(read.timeline !== rendered.timeline)
        #expect(read.timeline.completedValue >= read.value)
        #expect(rendered.timeline.completedValue == rendered.value)
        // Shown, it stays out of the pool; the other image is made.
        let next = try #require(try layer.nextDrawable())
        #expect(next.slot !== shown)
        next.present()  // never encoded: back to the pool, the shown image still shown
        #expect(shown.shownBy != nil)

        // Stand in for a frame still sampling the free image: until its timeline value is reached,
        // nextDrawable gives nil at once, and hands the image out once it is.
        let inFlight = try TimelineSemaphore(context: renderer.context)
        next.slot.texture.lastReadPoint = TimelinePoint(timeline: inFlight, value: 1)
        #expect(try layer.nextDrawable() == nil)
        try inFlight.signalFromHost(1)
        let recycled = try #require(try layer.nextDrawable())
        #expect(recycled.slot === next.slot)
        #expect(renderer.takeValidationMessages() == [])
    }

    @Test func aNewDrawableSizeReallocatesTheImages() throws {
        let root = makeRoot(40, 40)
        let layer = try vulkanLayer(in: root, frame: Rect(x: 0, y: 0, width: 40, height: 40), drawableSize: .zero)
        // Zero follows the bounds times contentsScale.
        layer.contentsScale = 2
        let sized = try #require(try layer.nextDrawable())
        #expect((sized.width, sized.height) == (80, 80))
        sized.present()
        layer.drawableSize = Size(width: 32, height: 8)
        try present((0, 1, 0), on: layer)
        let image = try render(root)
        #expect(pixel(image, 20, 20) == [0, 255, 0, 255])
        // The 80×80 image was free and is gone; the shown one is 32×8, and so is the next.
        #expect(layer.queue.slots.map { [$0.texture.width, $0.texture.height] } == [[32, 8]])
        let next = try #require(try layer.nextDrawable())
        #expect((next.width, next.height) == (32, 8))
    }

    @Test func presentingTwiceBeforeAFrameShowsTheLatestAndFreesTheFirst() throws {
        let root = makeRoot(40, 40)
        let layer = try vulkanLayer(in: root, frame: Rect(x: 0, y: 0, width: 40, height: 40),
            drawableSize: Size(width: 8, height: 8))
        try present((1, 0, 0), on: layer)
        try present((0, 1, 0), on: layer)
        let image = try render(root)
        #expect(pixel(image, 20, 20) == [0, 255, 0, 255])
        #expect(layer.queue.slots.count == 2)
        #expect(layer.queue.slots.filter(\.isFree).count == 1)
    }

    @Test func aPresentOutsideTransactionsShowsAtTheNextFrameWithoutACommit() throws {
        let renderer = try validatingRenderer.get()
        let root = makeRoot(40, 40)
        let layer = try vulkanLayer(in: root, frame: Rect(x: 10, y: 10, width: 20, height: 20),
            drawableSize: Size(width: 8, height: 8))
        var presents = 0
        renderer.onDrawablePresented = { presents += 1 }
        defer { renderer.onDrawablePresented = nil }
        try present((1, 0, 0), on: layer)
        #expect(presents == 1)
        let tree = try commit(root)
        let red = try renderer.render(tree, width: 40, height: 40)
        #expect(pixel(red, 20, 20) == [255, 0, 0, 255])
        try present((0, 0, 1), on: layer)
        #expect(presents == 2)
        // The same tree: only the layer is redrawn.
        let blue = try renderer.render(tree, width: 40, height: 40)
        #expect(pixel(blue, 20, 20) == [0, 0, 255, 255])
        #expect(pixel(blue, 5, 5) == [255, 255, 255, 255])
        #expect(renderer.lastFrameStatistics.damage == .region(x: 9, y: 9, width: 22, height: 22))
        #expect(renderer.takeValidationMessages() == [])
    }

    @Test func aPresentInsideAReplicatorRedrawsEveryInstance() throws {
        let renderer = try validatingRenderer.get()
        let root = makeRoot(60, 40)
        let replicator = ReplicatorLayer()
        replicator.frame = Rect(x: 0, y: 0, width: 60, height: 40)
        replicator.instanceCount = 2
        replicator.instanceTransform = Transform3D(translationX: 30, y: 0, z: 0)
        root.addSublayer(replicator)
        let layer = try vulkanLayer(in: replicator, frame: Rect(x: 5, y: 10, width: 20, height: 20),
            drawableSize: Size(width: 8, height: 8))
        try present((1, 0, 0), on: layer)
        let tree = try commit(root)
        let red = try renderer.render(tree, width: 60, height: 40)
        #expect(pixel(red, 15, 20) == [255, 0, 0, 255])
        #expect(pixel(red, 45, 20) == [255, 0, 0, 255])
        try present((0, 1, 0), on: layer)
        let green = try renderer.render(tree, width: 60, height: 40)
        #expect(pixel(green, 15, 20) == [0, 255, 0, 255])
        #expect(pixel(green, 45, 20) == [0, 255, 0, 255])
        #expect(renderer.takeValidationMessages() == [])
    }

    @Test func withPresentsWithTransactionADrawableShowsWithTheCommit() throws {
        let renderer = try validatingRenderer.get()
        let root = makeRoot(40, 40)
        let layer = try vulkanLayer(in: root, frame: Rect(x: 0, y: 0, width: 40, height: 40),
            drawableSize: Size(width: 8, height: 8))
        layer.presentsWithTransaction = true
        // The commit announces these presents.
        renderer.onDrawablePresented = { Issue.record("a present with the transaction asked for a frame of its own") }
        defer { renderer.onDrawablePresented = nil }
        let context = RenderContext(rootLayer: root)
        try present((1, 0, 0), on: layer)
        Transaction.flush()
        let redTree = try #require(context.renderTree)
        try present((0, 1, 0), on: layer)
        // Until the transaction commits, frames show the drawable of the last commit.
        #expect(pixel(try renderer.render(redTree, width: 40, height: 40), 20, 20) == [255, 0, 0, 255])
        Transaction.flush()
        let greenTree = try #require(context.renderTree)
        #expect(pixel(try renderer.render(greenTree, width: 40, height: 40), 20, 20) == [0, 255, 0, 255])
        #expect(renderer.takeValidationMessages() == [])
    }

    @Test func removingTheLayerReleasesItsImages() throws {
        // A renderer of its own: the shared one frees other tests' textures and drawables on its
        // own schedule, which would move the count this test reads.
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        let root = makeRoot(40, 40)
        // A layer drawn over the background (which a clear paints) samples the white texture, as
        // the VulkanLayer's draw does: its upload happens in the first frame.
        _ = sublayer(root, frame: Rect(x: 0, y: 0, width: 4, height: 4), background: .red)
        func frame() throws { _ = try renderer.render(try commit(root), width: 40, height: 40) }
        // The first frames' staging resources go as their ring slots come round.
        for _ in 0..<3 { try frame() }
        let before = renderer.context.liveMemoryAllocations
        do {
            let layer = try VulkanLayer(renderer: renderer)
            layer.frame = Rect(x: 0, y: 0, width: 40, height: 40)
            layer.drawableSize = Size(width: 8, height: 8)
            root.addSublayer(layer)
            try present((1, 0, 0), on: layer)
            try present((0, 1, 0), on: layer)
            try frame()
            #expect(renderer.context.liveMemoryAllocations == before + 2)
            layer.removeFromSuperlayer()
        }
        // Frames in flight keep what they sampled until their ring slots come round again.
        try frame()
        try frame()
        try frame()
        #expect(renderer.context.liveMemoryAllocations == before)
        #expect(renderer.takeValidationMessages() == [])
    }

    @Test func rgbaDrawablesShowTheirColoursAndFramebufferOnlyLimitsTheUsage() throws {
        let root = makeRoot(40, 40)
        let layer = try vulkanLayer(in: root, frame: Rect(x: 0, y: 0, width: 40, height: 40),
            drawableSize: Size(width: 8, height: 8))
        layer.pixelFormat = .rgba8Unorm
        #expect(layer.framebufferOnly)
        let pattern = try AnimatedPatternRenderer(layer: layer)
        #expect(try pattern.renderFrame(clearColor: (1, 0.2, 0), angle: nil))
        #expect(pixel(try render(root), 20, 20) == [255, 51, 0, 255])
        // Colour attachment (0x10) and sampled (0x4) only.
        #expect(layer.queue.slots.map(\.usage) == [0x14])
        layer.framebufferOnly = false
        #expect(try pattern.renderFrame(clearColor: (0, 0.2, 1), angle: nil))
        #expect(pixel(try render(root), 20, 20) == [0, 51, 255, 255])
        // With transfer source (0x1) and destination (0x2) and, lavapipe allowing it, storage (0x8).
        #expect(layer.queue.slots.map(\.usage) == [0x14, 0x1f])
    }

    @Test func theAnimatedPatternClearsToItsCyclingColourAndTurnsItsTriangle() throws {
        let root = makeRoot(64, 64)
        let layer = try vulkanLayer(in: root, frame: Rect(x: 0, y: 0, width: 64, height: 64), drawableSize: .zero)
        let pattern = try AnimatedPatternRenderer(layer: layer)
        #expect(try pattern.renderFrame(at: 1))
        let image = try render(root)
        let c = AnimatedPatternRenderer.clearColor(at: 1)
        #expect(isNear(pixel(image, 2, 2), [c.red, c.green, c.blue, 1].map { Int(($0 * 255).rounded()) }))
        try golden.check(image, named: "vulkan-layer-animated-pattern-t1")
    }
}
