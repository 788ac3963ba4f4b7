import Buffers
import LayerKit
import RendererContract
import SystemCalls

/// Draws committed layer trees with Vulkan: the only module that talks to the GPU.
///
/// A renderer owns one device (a DRM render node's when the display backend names one, otherwise
/// the first device: lavapipe on machines without a GPU), its pipeline, a ring of per-frame
/// resources and a texture cache that uploads each contents image once while it stays in use.
public final class Renderer {
    let context: VulkanContext
    let frames: FrameRenderer
    private let textures: TextureCache
    /// Shape layers' images, redrawn only when a shape or its scale changes.
    let shapes = RasterCache<ShapeProperties>()
    /// Text layers' images, redrawn only when the text, its attributes, the bounds or the scale change.
    let texts = RasterCache<TextRasterSource>()
    /// Shadow paths' blurred masks, redrawn only when a path, its shadowRadius or its scale
    /// change; 64 MiB at most (the tile cache's budget) are kept from one frame to the next.
    let shadowMasks = RasterCache<ShadowMaskSource>(budgetBytes: 64 << 20)
    private var target: OffscreenTarget?
    private var damage = DamageTracker()
    /// What each subtree may draw, so that a frame encodes only the subtrees it redraws.
    private let subtreeBounds = SubtreeBounds()
    var liveContents = LiveContentsRegistry()
    /// The state of frames drawn into swapchain buffers, and each buffer's target (BufferTarget.swift).
    var host = HostFrameState()
    private var lastClearColor: Color?
    private var lastImage: Image?
    /// The client buffers the frame being drawn reads on the GPU, held until it is done.
    private var readsAfterFrame: [any LentBuffer] = []

    /// The client buffers the last frame drawn showed (a frame where nothing changed shows what
    /// the one before it did): whose surfaces' frame callbacks and presentation feedback it
    /// answers.
    public internal(set) var sampledClientContents: [ClientBufferContents] = []

    /// Called after a `VulkanLayer` of this renderer presents outside transactions: no commit
    /// announces such a present, so whoever schedules frames (the compositor's output) asks for
    /// one here.
    public var onDrawablePresented: (() -> Void)?

    /// Called the first time a contents image cannot become a texture (the device is out of
    /// memory for it, or it exceeds the device's image size): its layer is drawn without its
    /// contents, everything else as usual, and each later frame that draws the layer tries again
    /// (the frame after a failure is drawn in full, so the layer's place is redrawn). Called once
    /// per image, not per frame.
    public var onContentsUnavailable: ((ContentsFailure) -> Void)?

    /// How the last frame went.
    public internal(set) var lastFrameStatistics = FrameStatistics()

    public convenience init(options: VulkanOptions = VulkanOptions()) throws {
        try self.init(context: VulkanContext(options: options))
    }

    /// A renderer on `other`'s device, with targets and caches of its own: it draws the same trees,
    /// `VulkanLayer`s of `other` included, into another target (a mirrored display's frames).
    public convenience init(sharingDeviceOf other: Renderer) throws {
        try self.init(context: other.context)
    }

    private init(context: VulkanContext) throws {
        self.context = context
        frames = try FrameRenderer(
            context: context, vertexSPIRV: ShaderLibrary.layerVertex, fragmentSPIRV: ShaderLibrary.layerFragment,
            pushConstantSize: DrawConstants.size)
        textures = TextureCache(context: context)
    }

    deinit {
        // Reads recorded into a frame that failed before its submission, the renderer replaced
        // since (its device lost): nothing will read those buffers.
        for buffer in readsAfterFrame { buffer.endHold() }
    }

    /// Starts making, on another thread, the pipeline a layer showing an image draws with (every
    /// client's window), so that the first frame with a window waits less for the driver's
    /// compiler: a compositor calls it when it has made its renderer, and the work runs while
    /// the rest of it starts and the first client connects.
    public func prepareWindowPipeline() {
        frames.preparePipeline(variants: [[EncodedDraw.Kind.body.rawValue, SceneEncoder.Flags.hasContents.rawValue]])
    }

    /// The physical device's name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
    public var deviceName: String { context.deviceName }

    /// Whether the device can import client dmabufs, and which formats and modifiers.
    public func dmabufSupport() throws -> DmabufSupport { try context.dmabufSupport() }

    /// Runs `body` on the renderer's device (`VulkanContext.onDevice`).
    func onDevice<Result>(_ body: () throws -> Result) throws -> Result {
        try context.onDevice(body)
    }

    /// Validation-layer errors and warnings collected since the last call (with validation on).
    public func takeValidationMessages() -> [String] { context.takeValidationMessages() }

    /// Renders `tree` (sample it first to show animations) into a `width`×`height`-pixel image at
    /// `scale` pixels per point, over `clearColor`.
    ///
    /// The target keeps its pixels between frames: only what changed since the last frame is
    /// redrawn (the changed layers' subtrees before and after, and animated layers when the sample
    /// time moved), and a frame where nothing changed returns the last image without GPU work.
    public func render(
        _ tree: RenderTree, width: Int, height: Int, scale: Double = 1, clearColor: Color = .clear
    ) throws -> Image {
        try onDevice { try renderImage(tree, width: width, height: height, scale: scale, clearColor: clearColor) }
    }

    private func renderImage(_ tree: RenderTree, width: Int, height: Int, scale: Double, clearColor: Color) throws -> Image {
        let start = monotonicNanoseconds()
        let target = try offscreenTarget(width: width, height: height)
        if clearColor != lastClearColor {
            damage.reset()
            lastClearColor = clearColor
        }
        let frameDamage = liveContents.damage(
            adding: damage.damage(for: tree, scale: scale, width: width, height: height), tree: tree, scale: scale,
            width: width, height: height)
        if frameDamage == .none, let lastImage {
            lastFrameStatistics = FrameStatistics(damage: .none)
            return lastImage
        }
        var region: PixelRect?
        if case let .region(r) = frameDamage { region = r }
        do {
            let (drawCount, encoded, placed, measured) = try draw(tree, into: target, scale: scale, clearColor: clearColor, region: region)
            // Only the redrawn region is read back: the rest of the frame is the last one's.
            let image = try target.readback(updating: region == nil ? nil : lastImage, region: region)
            for buffer in takeClientReads() { buffer.endHold() }
            lastImage = image
            lastFrameStatistics = FrameStatistics(
                damage: region.map { .region(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)) } ?? .full,
                drawCount: drawCount, encodeSeconds: seconds(encoded - start), totalSeconds: seconds(monotonicNanoseconds() - start),
                placedLayerCount: placed, measuredLayerCount: measured)
            return image
        } catch {
            // A frame that failed leaves the target's pixels unknown: draw the next one in full.
            damage.reset()
            throw error
        }
    }

    /// The contract's frame (`LayerTreeRenderer.render(_:into:scale:clearColor:)`): renders `tree`
    /// into the swapchain buffer `buffer` at `scale` pixels per point over `clearColor`, without
    /// waiting for the GPU: the pixels are there once the returned completion's descriptor turns
    /// readable and it is finished (`FrameCompletion`). The buffer is imported the first time
    /// (`BufferTarget`). Only what changed since the buffer's own last frame is written (bytes
    /// outside that rectangle keep whatever they held), and only what changed since the
    /// renderer's last frame is redrawn; a frame that changes nothing the buffer lacks does no GPU
    /// work. One frame of a renderer at a time: the next is rendered once this one is finished.
    public func render(
        _ tree: RenderTree, into buffer: any SwapchainBuffer, scale: Double, clearColor: Color
    ) throws -> any RenderCompletion {
        try onDevice {
            // A new size lets go of the targets first.
            let image = try hostImage(width: buffer.width, height: buffer.height)
            return try renderFrame(tree, into: host.target(for: buffer, context: context), image: image, scale: scale, clearColor: clearColor)
        }
    }

    /// Whether the GPU writes frames into `buffer` itself (its memory imported), rather than the CPU
    /// copying them from the readback buffer; false before the first frame into it.
    public func importsMemory(of buffer: any SwapchainBuffer) -> Bool {
        host.targets[ObjectIdentifier(buffer)]?.importsMemory ?? false
    }

    private func renderFrame(
        _ tree: RenderTree, into target: BufferTarget, image: OffscreenTarget, scale: Double, clearColor: Color
    ) throws -> FrameCompletion {
        let start = monotonicNanoseconds()
        if clearColor != host.lastClearColor {
            host.reset()
            host.lastClearColor = clearColor
        }
        let frameDamage = liveContents.damage(
            adding: host.damage.damage(for: tree, scale: scale, width: target.width, height: target.height), tree: tree,
            scale: scale, width: target.width, height: target.height)
        let full = PixelRect(x: 0, y: 0, width: UInt32(target.width), height: UInt32(target.height))
        var redrawn: PixelRect?
        switch frameDamage {
        case .full: redrawn = nil
        case .region(let r): redrawn = r
        case .none: redrawn = PixelRect(x: 0, y: 0, width: 0, height: 0)
        }
        // What the target lacks: this frame's changes and those of the frames it missed.
        let missed = host.changes(since: target.lastFrame)
        let copied: PixelRect? = switch (missed, redrawn) {
        case (.some(nil), _), (_, nil): nil
        case (.some(let m?), let r?): HostFrameState.union(m, r)
        case (.none, let r?): r
        }
        if let copied, copied.width == 0 || copied.height == 0 {
            host.frameCount += 1
            host.history.append((host.frameCount, redrawn))
            host.history.removeFirst(max(0, host.history.count - HostFrameState.historyLength))
            target.lastFrame = host.frameCount
            lastFrameStatistics = FrameStatistics(damage: .none)
            return try FrameCompletion(point: nil)
        }
        let region = copied.map { $0 == full ? nil : $0 } ?? nil
        // An imported target that lacks more than the scene changed (a buffer drawn into for the
        // first time, or one that missed frames) gets only the changes drawn again: the GPU copies
        // the rest from the image, which holds it already. Without an import the readback buffer
        // mirrors only what is drawn, so the whole region is drawn again.
        var drawn = region
        if target.importsMemory, let redrawn, redrawn.width > 0, redrawn.height > 0, redrawn != full {
            drawn = redrawn
        }
        do {
            let hostCopy = target.destination().map { HostCopy(destination: $0, region: region ?? full) }
            let (drawCount, encoded, placed, measured) = try draw(
                tree, into: image, scale: scale, clearColor: clearColor, region: drawn, hostCopy: hostCopy)
            host.frameCount += 1
            host.history.append((host.frameCount, redrawn.map { $0 == full ? nil : $0 } ?? nil))
            host.history.removeFirst(max(0, host.history.count - HostFrameState.historyLength))
            target.lastFrame = host.frameCount
            lastFrameStatistics = FrameStatistics(
                damage: drawn.map { .region(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)) } ?? .full,
                drawCount: drawCount, encodeSeconds: seconds(encoded - start), totalSeconds: seconds(monotonicNanoseconds() - start),
                placedLayerCount: placed, measuredLayerCount: measured)
            // Without an import the frame comes through the readback buffer, copied by the CPU.
            let copy: (() -> Void)? = hostCopy == nil ? { [self] in copyReadback(of: image, region: region ?? full, into: target) } : nil
            let fence = target.tiled?.renderFence ?? target.imported?.renderFence
            target.tiled?.renderFence = nil
            target.imported?.renderFence = nil
            return try FrameCompletion(
                point: image.lastSubmission, clientReads: takeClientReads(), finishing: copy, acquireFence: fence)
        } catch {
            // A frame that failed leaves the image's and the memory's pixels unknown.
            host.reset()
            target.lastFrame = nil
            throw error
        }
    }

    /// The GPU image swapchain frames of this size are drawn in; a new size starts without history
    /// and without targets (the buffers of the old size are the display's old mode's).
    private func hostImage(width: Int, height: Int) throws -> OffscreenTarget {
        if let image = host.image, image.width == width, image.height == height { return image }
        let made = try OffscreenTarget(context: context, width: width, height: height)
        host.image = made
        host.reset()
        host.clearTargets()
        return made
    }

    /// The fallback without an import: `region` of the finished frame from the readback buffer
    /// (which mirrors the image row for row) into the target's rows.
    private func copyReadback(of image: OffscreenTarget, region: PixelRect, into target: BufferTarget) {
        let (x, y, width) = (Int(region.x), Int(region.y), Int(region.width))
        for row in y..<y + Int(region.height) {
            (target.memory!.baseAddress! + row * target.bytesPerRow + x * 4).copyMemory(
                from: image.readbackBuffer.contents + (row * image.width + x) * 4, byteCount: width * 4)
        }
    }

    /// The texture of `image`, or nil when it cannot be made (reported once per image); a lost
    /// device is thrown, for the renderer to be replaced.
    private func contentsTexture(for image: Image) throws -> Texture? {
        do {
            return try textures.texture(for: image)
        } catch VulkanError.deviceLost(let function) {
            throw VulkanError.deviceLost(while: function)
        } catch {
            if textures.noteFailure(of: image) {
                onContentsUnavailable?(ContentsFailure(width: image.width, height: image.height, reason: "\(error)"))
            }
            return nil
        }
    }

    /// The texture of a client's buffer, brought up to date from the buffer, or nil when it cannot
    /// be (reported once per buffer, as an image's); a lost device is thrown.
    private func clientTexture(for client: ClientBufferContents) throws -> Texture? {
        do {
            guard let (texture, held) = try client.texture(on: context, pool: textures.stagingBuffers) else { return nil }
            if let held { readsAfterFrame.append(held) }
            return texture
        } catch VulkanError.deviceLost(let function) {
            throw VulkanError.deviceLost(while: function)
        } catch {
            onContentsUnavailable?(ContentsFailure(width: client.buffer.width, height: client.buffer.height, reason: "\(error)"))
            return nil
        }
    }

    /// The client buffers the frame just submitted reads on the GPU, each held until it is done.
    func takeClientReads() -> [any LentBuffer] {
        defer { readsAfterFrame = [] }
        return readsAfterFrame
    }

    /// Redraws `contents`' layer whenever it presents (its presents change no render tree).
    func register(_ contents: LiveDrawableContents) {
        liveContents.register(contents)
    }

    /// Forgets the last frame, so the next one is drawn in full (the benchmarks' full frames).
    public func invalidatePreviousFrame() {
        damage.reset()
        host.reset()
        lastImage = nil
    }

    /// Drops the images kept for shape and text layers and for shadow paths, which later frames
    /// draw again (memory pressure; the benchmarks' uncached frames).
    public func purgeCaches() {
        shapes.removeAll()
        texts.removeAll()
        shadowMasks.removeAll()
    }

    private func offscreenTarget(width: Int, height: Int) throws -> OffscreenTarget {
        if let target, target.width == width, target.height == height { return target }
        let made = try OffscreenTarget(context: context, width: width, height: height)
        target = made
        damage.reset()
        lastImage = nil
        return made
    }

    func seconds(_ nanoseconds: UInt64) -> Double {
        Double(nanoseconds) * 1e-9
    }

    /// The scissor of a call extended by a draw with `scissor`, or nil when they cannot share one:
    /// the same scissor, or two draws that occlusion culling kept whole within the same scissor
    /// (`EncodedDraw.wholeWithin`), whose reaches' bounding box stays inside it and adds only
    /// pixels neither quad touches.
    private static func joinedScissor(
        _ a: (x: Int32, y: Int32, width: UInt32, height: UInt32)?, _ b: PixelRect?,
        bothWholeWithin first: PixelRect??, _ second: PixelRect??
    ) -> (x: Int32, y: Int32, width: UInt32, height: UInt32)?? {
        switch (a, b) {
        case (nil, nil): return .some(nil)
        case let (a?, b?):
            if a == (b.x, b.y, b.width, b.height) { return a }
            guard let first, let second, first == second else { return nil }
            let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
            let x1 = max(Int64(a.x) + Int64(a.width), Int64(b.x) + Int64(b.width))
            let y1 = max(Int64(a.y) + Int64(a.height), Int64(b.y) + Int64(b.height))
            return (x: x0, y: y0, width: UInt32(x1 - Int64(x0)), height: UInt32(y1 - Int64(y0)))
        default: return nil
        }
    }

    /// Encodes and submits one frame; within `region` only (over the previous pixels) when given.
    /// Returns the number of draw calls, when encoding ended, and how many layers the encoder
    /// placed and measured.
    /// With `hostCopy`, the frame goes to that host memory instead of the readback buffer.
    func draw(
        _ tree: RenderTree, into target: OffscreenTarget, scale: Double, clearColor: Color, region: PixelRect?,
        hostCopy: HostCopy? = nil
    ) throws -> (Int, UInt64, placed: Int, measured: Int) {
        subtreeBounds.update(for: tree)
        let measured = subtreeBounds.measuredCount
        let full = PixelBox(x: 0, y: 0, width: target.width, height: target.height)
        // What backdrops read around the region is drawn too, so that they blur this frame's pixels.
        let redrawn = region.map { DamageTracker.growingForBackdrops(PixelBox($0), in: tree, scale: scale, within: full) } ?? full
        var encoder = SceneEncoder(
            tree: tree, scale: scale, targetSize: (target.width, target.height), shapes: shapes, texts: texts,
            shadowMasks: shadowMasks, culling: (subtreeBounds, redrawn))
        // A partial frame skipped the layers it does not redraw: their images stay.
        let walkedWhole = region == nil
        shapes.endFrame(of: tree, walkedWhole: walkedWhole)
        texts.endFrame(of: tree, walkedWhole: walkedWhole)
        shadowMasks.endFrame(of: tree, walkedWhole: walkedWhole)
        // Every client buffer the frame shows, drawn again or not: what its surfaces hear of.
        // Visited in place and kept in last frame's storage: no array made a frame.
        sampledClientContents.removeAll(keepingCapacity: true)
        tree.forEachShownExternalContents { contents in
            if let client = contents as? ClientBufferContents { sampledClientContents.append(client) }
        }
        let fill = encoder.takeBottomFill(within: region)
        encoder.cullOccludedDraws(within: region)
        textures.beginFrame()
        let white = frames.whiteTexture
        let c = clearColor.converted(to: .sRGB)
        let clear = (Float(c.red * c.alpha), Float(c.green * c.alpha), Float(c.blue * c.alpha), Float(c.alpha))
        var passes: [RenderPass] = []
        passes.reserveCapacity(encoder.passes.count)
        for pass in encoder.passes {
            let box = pass.intermediate.map { encoder.intermediates[$0] }
            let width = box.map { Float($0.width) } ?? Float(target.width)
            let height = box.map { Float($0.height) } ?? Float(target.height)
            var calls: [DrawCall] = []
            calls.reserveCapacity(pass.draws.count)
            // The instance after the last call's, when that call can take more.
            var nextInBatch: UInt32?
            var wholeWithin: PixelRect??
            for encoded in pass.draws {
                var draw = encoded
                var contents: Texture? = white
                if let texture = draw.externalTexture {
                    // Made on a device that was lost (and replaced): shown as missing until remade.
                    precondition(
                        texture.image.context === context || texture.image.context.isLost,
                        "external contents are composited by renderers of the device that made them")
                    contents = texture.image.context === context ? texture : nil
                } else if let client = draw.clientContents {
                    contents = try clientTexture(for: client)
                } else if let image = draw.contents {
                    contents = try contentsTexture(for: image)
                }
                if contents == nil {
                    guard let stripped = draw.withoutContents() else { continue }
                    draw = stripped
                }
                var previous = white
                if let image = draw.previousContents {
                    if let texture = try contentsTexture(for: image) {
                        previous = texture
                    } else {
                        draw.flags.remove(.crossFade)
                        if draw.flags.contains(.mask) { continue }
                    }
                }
                let constants = DrawConstants(instanceIndex: draw.instance, targetWidth: width, targetHeight: height)
                // On the target, a partial redraw stays inside the damaged region.
                var scissor = draw.scissor
                if pass.intermediate == nil, let region { scissor = encoder.intersect(draw.scissor, region) }
                let specialization = [draw.kind.rawValue, draw.flags.rawValue]
                // The next instance with the same pipeline, textures and scissor joins the last
                // call (particles of one cell, say): instances of one draw blend in order.
                let texture = contents ?? white
                if draw.instance == nextInBatch, draw.intermediate == nil, draw.intermediate2 == nil, let last = calls.last,
                    last.specialization == specialization, last.texture === texture, last.texture2 === previous,
                    last.sampler == (draw.filter == .nearest ? .nearest : .linear),
                    let joined = Self.joinedScissor(last.scissor, scissor, bothWholeWithin: wholeWithin, draw.wholeWithin)
                {
                    calls[calls.count - 1].instanceCount += 1
                    calls[calls.count - 1].scissor = joined
                    nextInBatch = draw.instance + 1
                    continue
                }
                nextInBatch = draw.intermediate == nil && draw.intermediate2 == nil ? draw.instance + 1 : nil
                wholeWithin = draw.wholeWithin
                calls.append(DrawCall(
                    vertexCount: 6, specialization: specialization, pushConstants: constants.bytes, texture: texture, texture2: previous,
                    sampler: draw.filter == .nearest ? .nearest : .linear,
                    scissor: scissor.map { (x: $0.x, y: $0.y, width: $0.width, height: $0.height) },
                    sampledIntermediate: draw.intermediate, sampledIntermediate2: draw.intermediate2))
            }
            // Intermediates start transparent, as what they hold is composited over the target,
            // except those holding what is behind a layer on the target.
            var clearColor = pass.intermediate == nil || pass.clearsToTargetColor ? clear : (0, 0, 0, 0)
            if pass.intermediate == nil, let fill { clearColor = (Float(fill.0), Float(fill.1), Float(fill.2), Float(fill.3)) }
            passes.append(RenderPass(
                destination: pass.intermediate.map { .intermediate($0) } ?? .target, clearColor: clearColor, draws: calls,
                clearsRedrawnArea: pass.intermediate == nil && fill != nil))
        }
        if textures.failedThisFrame {
            // The layers drawn without their contents get their place redrawn by the next frame.
            damage.reset()
            host.damage.reset()
        }
        let sizes = encoder.intermediates.map { IntermediateSize(width: Int($0.width), height: Int($0.height)) }
        let encoded = monotonicNanoseconds()
        try encoder.floats.withUnsafeBytes { bytes in
            try frames.renderFrame(
                into: target, instanceBytes: bytes, intermediates: sizes, passes: passes, loadPrevious: region != nil,
                readbackRegion: region.map { (x: $0.x, y: $0.y, width: $0.width, height: $0.height) }, hostCopy: hostCopy)
        }
        return (passes.reduce(0) { $0 + $1.draws.count }, encoded, encoder.placedLayers, subtreeBounds.measuredCount - measured)
    }
}

extension EncodedDraw {
    /// The draw without its contents image: its background (or gradient) alone, or nil when it
    /// draws nothing else.
    func withoutContents() -> EncodedDraw? {
        guard flags.contains(.hasBackground) || flags.contains(.gradient) else { return nil }
        var draw = self
        draw.flags.subtract([.hasContents, .crossFade, .ninePart, .flipContents, .contentsRounded, .tint])
        draw.contents = nil
        draw.clientContents = nil
        draw.previousContents = nil
        return draw
    }
}

/// The layer shader's push constants (Shaders/layer.glsl `Draw`): the instance index and, at
/// offset 8, the target's size in pixels.
struct DrawConstants {
    static let size = 16

    var instanceIndex: UInt32
    var targetWidth: Float
    var targetHeight: Float

    var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(DrawConstants.size)
        for word in [instanceIndex, 0, targetWidth.bitPattern, targetHeight.bitPattern] {
            withUnsafeBytes(of: word.littleEndian) { out.append(contentsOf: $0) }
        }
        return out
    }
}
