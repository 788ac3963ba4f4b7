import Buffers
internal import CPixman
import LayerKit
import RendererContract
import SystemCalls

/// Draws committed layer trees on the CPU with pixman (cairo rasterising shapes), for machines
/// without a hardware Vulkan device: the same trees as the Vulkan `Renderer`, the same damage
/// tracking (`DamageTracker`), frames written in place into host memory, client buffers sampled
/// straight from the client's memory.
///
/// A client's shm buffer is read by every frame that draws it, so it stays the client's only
/// once the surface commits another (the compositor releases it then), as weston's and
/// wlroots' pixman renderers do.
public final class CPURenderer: LayerTreeRenderer {
    private var damage = DamageTracker()
    private var lastClearColor: Color?
    /// The target of each buffer drawn into, by the buffer's identity (which the target holds),
    /// for each to learn what later frames changed while it was not drawn.
    private var targets: [ObjectIdentifier: CPUFrameTarget] = [:]
    /// Counts frames; a target's `lastFrame` is one of these.
    private var frameCount = 0
    /// The memory `render(_:width:height:scale:clearColor:)` draws into, and the image it last made.
    private var imageFrame: (memory: HostMemoryBuffer, image: Image?)?
    /// Shape and text layers' images, redrawn only when a shape, its text or its scale changes.
    private let rasters = TreePainter.Rasters()
    /// What each subtree may draw, so that a frame walks only the subtrees it redraws.
    private let subtreeBounds = SubtreeBounds()
    /// The occluder of the last frame, found again by a measuring walk only when the trees since
    /// changed more than contents (`damage.changedContentsAlone`), or contents' size or opacity.
    private var knownOccluder = KnownOccluder()
    /// Contents already reported as undrawable (client buffers pixman cannot read, drawables).
    private var reportedContents: [ObjectIdentifier] = []

    /// The client buffers the last frame showed: every one in a visible layer, drawn again or
    /// not (a frame where nothing changed shows what the one before it did). Their surfaces'
    /// owners are named as the contents name them: not at all once the owner went away.
    private var sampledClients: [ClientContents] = []
    /// The layers whose external contents the last frame drawn showed, kept while the trees
    /// after it change nothing but contents.
    private var shownLayers = ShownContentsLayers()

    public var sampledSurfaceOwners: [AnyObject] { sampledClients.compactMap(\.surfaceOwner) }
    public var onContentsUnavailable: ((ContentsFailure) -> Void)?
    public private(set) var lastFrameStatistics = FrameStatistics()

    public init() {}

    public var deviceName: String { "CPU (pixman \(String(cString: pixman_version_string())))" }

    /// Pixman writes through a mapping: no dma-buf layout at all.
    public var renderTargetFormats: [DmabufFormat] { [] }

    /// Draws in place before it returns: the completion is done at once. Pixman writes through a
    /// mapping: a dma-buf is refused, and the CPU renderer's displays use dumb buffers.
    public func render(
        _ tree: RenderTree, into buffer: any SwapchainBuffer, scale: Double, clearColor: Color
    ) throws -> any RenderCompletion {
        draw(tree, into: try target(for: buffer), scale: scale, clearColor: clearColor)
        return FinishedFrame.shared
    }

    /// The target of `buffer`, made the first time. A target not drawn into for 16 frames goes (a
    /// display's ring draws into each of its buffers every few frames: the display replaced it;
    /// made again, it is drawn whole).
    private func target(for buffer: any SwapchainBuffer) throws -> CPUFrameTarget {
        // Made anew only when one goes: most frames keep them all.
        if targets.values.contains(where: { $0.lastFrame <= frameCount - 16 }) {
            targets = targets.filter { $0.value.lastFrame > frameCount - 16 }
        }
        if let target = targets[ObjectIdentifier(buffer)] { return target }
        guard case .mapped(let mapping, let bytesPerRow) = buffer.memory else {
            throw UnwritableBuffer(reason: "the CPU renderer draws into memory it maps only")
        }
        let made = CPUFrameTarget(buffer, mapping: mapping, bytesPerRow: bytesPerRow)
        targets[ObjectIdentifier(buffer)] = made
        return made
    }

    public func render(_ tree: RenderTree, width: Int, height: Int, scale: Double = 1, clearColor: Color = .clear) throws -> Image {
        if imageFrame?.memory.width != width || imageFrame?.memory.height != height {
            guard let memory = HostMemoryBuffer(width: width, height: height, format: .argb8888) else {
                throw CPURendererError.outOfMemory(width: width, height: height)
            }
            imageFrame = (memory, nil)
        }
        let (memory, last) = imageFrame!
        guard let drawn = draw(tree, into: try target(for: memory), scale: scale, clearColor: clearColor) else {
            if let last { return last }
            return try Image(width: width, height: height, pixelFormat: .argb8888, bytesPerRow: memory.bytesPerRow, bytes: UnsafeRawBufferPointer(memory.mapping))
        }
        let image: Image
        if let last, drawn != PixelBox(x: 0, y: 0, width: width, height: height) {
            // Only the redrawn pixels are copied: the rest of the frame is the last one's.
            image = try Image(updating: last, in: ImageRect(x: drawn.minX, y: drawn.minY, width: drawn.width, height: drawn.height)) { origin, bytesPerRow in
                for row in 0..<drawn.height {
                    (origin + row * bytesPerRow).copyMemory(
                        from: memory.mapping.baseAddress! + (drawn.minY + row) * memory.bytesPerRow + drawn.minX * 4,
                        byteCount: drawn.width * 4)
                }
            }
        } else {
            image = try Image(width: width, height: height, pixelFormat: .argb8888, bytesPerRow: memory.bytesPerRow, bytes: UnsafeRawBufferPointer(memory.mapping))
        }
        imageFrame!.image = image
        return image
    }

    public func invalidatePreviousFrame() {
        damage.reset()
        knownOccluder.forget()
        for target in targets.values { target.stale.add(PixelBox(x: 0, y: 0, width: target.width, height: target.height)) }
        imageFrame?.image = nil
    }

    /// Drops the images kept for shape and text layers, which later frames draw again.
    public func purgeCaches() {
        rasters.shapes.removeAll()
        rasters.texts.removeAll()
        rasters.shadowMasks.removeAll()
    }

    /// Draws the frame's changes, and what `target` missed of earlier frames, into `target`;
    /// returns the box of the pixels written, or nil when none were.
    @discardableResult
    func draw(_ tree: RenderTree, into target: CPUFrameTarget, scale: Double, clearColor: Color) -> PixelBox? {
        let start = monotonicNanoseconds()
        let full = PixelBox(x: 0, y: 0, width: target.width, height: target.height)
        subtreeBounds.update(for: tree)
        let measured = subtreeBounds.measuredCount
        if clearColor != lastClearColor {
            damage.reset()
            lastClearColor = clearColor
        }
        let changed: PixelBox = switch damage.damage(for: tree, scale: scale, width: target.width, height: target.height) {
        case .none: .empty
        case .full: full
        case .region(let r): PixelBox(r)
        }
        if !damage.changedContentsAlone {
            shownLayers.forget()
            knownOccluder.noteChangeBeyondContents()
        }
        for other in targets.values { other.stale.add(changed) }
        frameCount += 1
        target.lastFrame = frameCount
        guard !target.stale.isEmpty else {
            lastFrameStatistics = FrameStatistics(damage: .none)
            return nil
        }
        let region = target.stale
        if damage.mayShowBackdrops { region.growForBackdrops(in: tree, scale: scale, within: full) }
        let box = region.extents.intersection(full)
        pixman_image_set_clip_region32(target.image.handle, region.region)
        defer { pixman_image_set_clip_region32(target.image.handle, nil) }
        let canvas = Canvas(image: target.image, origin: (0, 0), box: box, target: full)
        if !knownOccluder.holds(for: tree, box: box, target: full) {
            var measure = TreePainter(measuring: tree, scale: scale, canvas: canvas, rasters: rasters)
            measure.subtreeBounds = subtreeBounds
            if let root = damage.lastRoot { measure.paintTree(root: root) }
            knownOccluder.occluder = measure.occluder
        }
        let occluder = knownOccluder.occluder
        var painter = TreePainter(tree: tree, scale: scale, canvas: canvas, rasters: rasters, startingAt: occluder)
        painter.subtreeBounds = subtreeBounds
        if occluder == nil {
            canvas.composite(PixmanImage(solid: clearColor.premultipliedSRGB(times: 1)), mask: nil, box: box, operation: PIXMAN_OP_SRC)
            painter.composites += 1
        }
        let encoded = monotonicNanoseconds()
        // The damage tracker looked the root up in this tree: not looked up again.
        if let root = damage.lastRoot { painter.paintTree(root: root) }
        // A partial frame skipped the layers it does not redraw: their images stay.
        let walkedWhole = box == full
        rasters.shapes.endFrame(of: tree, walkedWhole: walkedWhole)
        rasters.texts.endFrame(of: tree, walkedWhole: walkedWhole)
        rasters.shadowMasks.endFrame(of: tree, walkedWhole: walkedWhole)
        rasters.views.endFrame()
        region.removeAll()
        // A VulkanLayer's drawables are external contents only the Vulkan renderer samples.
        sampledClients.removeAll(keepingCapacity: true)
        var undrawable: [any ExternalContents] = []
        shownLayers.forEach(in: tree) { contents in
            if let client = contents as? ClientContents { sampledClients.append(client) } else { undrawable.append(contents) }
        }
        if !painter.unreadableClients.isEmpty || !undrawable.isEmpty { report(painter.unreadableClients, undrawable: undrawable) }
        lastFrameStatistics = FrameStatistics(
            damage: box == full ? .full : .region(x: box.minX, y: box.minY, width: box.width, height: box.height),
            drawCount: painter.composites, encodeSeconds: seconds(encoded - start), totalSeconds: seconds(monotonicNanoseconds() - start),
            placedLayerCount: painter.placedLayers, measuredLayerCount: subtreeBounds.measuredCount - measured)
        return box
    }

    /// Reports each contents object the frame could not draw, once.
    private func report(_ clients: [ClientContents], undrawable others: [any ExternalContents]) {
        let failures = clients.map { client in
            (ObjectIdentifier(client), ContentsFailure(
                width: client.buffer.width, height: client.buffer.height,
                reason: "pixman cannot read \(client.buffer.format) \(client.buffer.kind)s"))
        } + others.map { contents in
            (ObjectIdentifier(contents), ContentsFailure(
                width: contents.pixelSize?.width ?? 0, height: contents.pixelSize?.height ?? 0,
                reason: "only a Vulkan renderer samples a VulkanLayer's drawables"))
        }
        for (id, failure) in failures where !reportedContents.contains(id) {
            reportedContents.append(id)
            if reportedContents.count > 64 { reportedContents.removeFirst() }
            onContentsUnavailable?(failure)
        }
    }

    private func seconds(_ nanoseconds: UInt64) -> Double {
        Double(nanoseconds) * 1e-9
    }
}

/// Why the CPU renderer could not draw.
public enum CPURendererError: Error, Equatable, CustomStringConvertible {
    /// No memory for a frame of this size.
    case outOfMemory(width: Int, height: Int)

    public var description: String {
        switch self {
        case let .outOfMemory(width, height): "no memory for a \(width)×\(height) frame"
        }
    }
}

/// A frame the CPU renderer drew before returning it: done, with nothing left to finish.
final class FinishedFrame: RenderCompletion, Sendable {
    /// One for every frame: it holds nothing, and a frame need not allocate it.
    static let shared = FinishedFrame()

    var completionDescriptor: FileDescriptor? { nil }
    var isComplete: Bool { true }
    func finish() {}
}
