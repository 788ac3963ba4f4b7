public import Buffers
import LayerKit
import RendererContract

/// A buffer that a renderer writes frames straight into: `height` rows of `width`
/// premultiplied ARGB8888 pixels (native-endian 0xAARRGGBB, the byte order of Wayland's and
/// DRM's ARGB8888 and XRGB8888), `bytesPerRow` apart. A GBM buffer object's dma-buf, or host
/// memory (a dumb buffer's mapping, a headless output's).
///
/// A dma-buf is imported once (`VK_EXT_external_memory_dma_buf`) and the GPU copies each frame's
/// changed rectangle into it. Host memory is imported the same way where the device has
/// `VK_EXT_external_memory_host` and the memory's address and size keep the alignment it asks
/// for (a page on lavapipe); otherwise the rectangle goes through the renderer's readback buffer
/// and the CPU copies it. Each target remembers the frame it last received, so a ring of them (a
/// display's buffers) each gets what changed since its own last frame: its buffer age. The
/// import is released when the target goes.
public final class BufferTarget {
    public let width: Int
    public let height: Int
    public let bytesPerRow: Int
    /// The CPU's way in, for a target without an import; nil for a dma-buf.
    let memory: UnsafeMutableRawBufferPointer?
    /// Keeps the memory valid for as long as the target (and its import) lives.
    private let owner: AnyObject?
    let imported: ImportedBuffer?
    let renderer: ObjectIdentifier
    /// The renderer's host frame that last wrote this memory; nil while its pixels are unknown.
    var lastFrame: Int?

    /// Whether the GPU writes into the memory itself (`VK_EXT_external_memory_host`), rather than
    /// the CPU copying each frame from the readback buffer.
    public var importsMemory: Bool { imported != nil }

    init(
        memory: UnsafeMutableRawBufferPointer?, width: Int, height: Int, bytesPerRow: Int, owner: AnyObject?,
        imported: ImportedBuffer?, renderer: ObjectIdentifier
    ) {
        (self.memory, self.width, self.height, self.bytesPerRow) = (memory, width, height, bytesPerRow)
        (self.owner, self.imported, self.renderer) = (owner, imported, renderer)
    }
}

/// The host targets' side of a renderer: one GPU image that holds the latest frame whichever
/// memory it went to, redrawn where the scene changed, and the changed rectangle of each recent
/// frame, from which a target's own damage follows.
struct HostFrameState {
    var image: OffscreenTarget?
    var damage = DamageTracker()
    var lastClearColor: Color?
    /// Counts frames; a target's `lastFrame` is one of these.
    var frameCount = 0
    /// The rectangle each of the last frames changed (nil: all of it), newest last.
    var history: [(frame: Int, region: PixelRect?)] = []
    static let historyLength = 16

    mutating func reset() {
        damage.reset()
        history = []
    }

    /// What changed since `lastFrame` before the frame now being drawn, as one rectangle (nil: the
    /// whole target), or empty when nothing did.
    func changes(since lastFrame: Int?) -> PixelRect?? {
        guard let lastFrame, lastFrame <= frameCount else { return .some(nil) }
        // Every frame after `lastFrame` must still be in the history.
        let wanted = history.filter { $0.frame > lastFrame }
        guard wanted.count == frameCount - lastFrame else { return .some(nil) }
        var union: PixelRect?
        for entry in wanted {
            guard let region = entry.region else { return .some(nil) }
            union = union.map { HostFrameState.union($0, region) } ?? region
        }
        return union.map { .some($0) } ?? .none
    }

    static func union(_ a: PixelRect, _ b: PixelRect) -> PixelRect {
        if a.width == 0 || a.height == 0 { return b }
        if b.width == 0 || b.height == 0 { return a }
        let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
        let x1 = max(Int64(a.x) + Int64(a.width), Int64(b.x) + Int64(b.width))
        let y1 = max(Int64(a.y) + Int64(a.height), Int64(b.y) + Int64(b.height))
        return PixelRect(x: x0, y: y0, width: UInt32(x1 - Int64(x0)), height: UInt32(y1 - Int64(y0)))
    }
}

extension Renderer {
    /// A target for frames written into `memory` (see `BufferTarget`), which `owner` keeps
    /// valid: the target holds it. `bytesPerRow` is at least `width` × 4 and a multiple of 4.
    public func makeBufferTarget(
        memory: UnsafeMutableRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, owner: AnyObject?
    ) throws -> BufferTarget {
        precondition(width > 0 && height > 0, "a host buffer target of \(width)×\(height) pixels")
        precondition(bytesPerRow >= width * 4 && bytesPerRow % 4 == 0, "\(bytesPerRow) bytes per row for \(width) pixels")
        precondition(
            memory.baseAddress != nil && memory.count >= bytesPerRow * (height - 1) + width * 4,
            "\(memory.count) bytes for \(height) rows of \(bytesPerRow)")
        let imported = try onDevice {
            try ImportedBuffer.hostMemory(context: context, pointer: memory.baseAddress!, size: memory.count, owner: owner)
        }
        return BufferTarget(
            memory: memory, width: width, height: height, bytesPerRow: bytesPerRow, owner: owner, imported: imported,
            renderer: ObjectIdentifier(self))
    }

    /// A target for frames written into the dma-buf `layout` (linear, its first row at offset 0;
    /// `owner` keeps the descriptor open: the target holds it). Throws where the device cannot
    /// import it for writing.
    public func makeBufferTarget(dmabuf layout: DmabufLayout, owner: AnyObject?) throws -> BufferTarget {
        precondition(layout.width > 0 && layout.height > 0 && layout.stride >= layout.width * 4 && layout.stride % 4 == 0 && layout.offset == 0,
                     "a dma-buf target of \(layout.width)×\(layout.height) pixels, \(layout.stride) bytes per row from \(layout.offset)")
        // Tiled layouts need VK_EXT_image_drm_format_modifier to render into.
        guard layout.modifier == FormatModifier.linear else { throw VulkanError.missingExtension("VK_EXT_image_drm_format_modifier") }
        let imported = try onDevice {
            try ImportedBuffer.dmabuf(
                context: context, fileDescriptor: layout.fileDescriptor, size: layout.stride * layout.height, usage: .destination)
        }
        return BufferTarget(
            memory: nil, width: layout.width, height: layout.height, bytesPerRow: layout.stride, owner: owner, imported: imported,
            renderer: ObjectIdentifier(self))
    }

    /// The contract's frame (`LayerTreeRenderer.render(_:into:scale:clearColor:)`): renders `tree`
    /// into `target`'s memory at `scale` pixels per point over `clearColor`, without waiting for
    /// the GPU: the pixels are there once the returned completion's descriptor turns readable and
    /// it is finished (`FrameCompletion`). Only what changed since the target's own last frame is
    /// written (bytes outside that rectangle keep whatever they held), and only what changed since
    /// the renderer's last frame is redrawn; a frame that changes nothing the target lacks does no
    /// GPU work. One frame of a renderer at a time: the next is rendered once this one is finished.
    public func render(
        _ tree: RenderTree, into target: any HostFrameTarget, scale: Double, clearColor: Color
    ) throws -> any RenderCompletion {
        guard let target = target as? BufferTarget, target.renderer == ObjectIdentifier(self) else {
            preconditionFailure("a host frame target of another renderer")
        }
        return try onDevice { try renderFrame(tree, into: target, scale: scale, clearColor: clearColor) }
    }

    private func renderFrame(_ tree: RenderTree, into target: BufferTarget, scale: Double, clearColor: Color) throws -> FrameCompletion {
        let start = ContinuousClock.now
        let image = try hostImage(width: target.width, height: target.height)
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
        if target.imported != nil, let redrawn, redrawn.width > 0, redrawn.height > 0, redrawn != full {
            drawn = redrawn
        }
        do {
            let hostCopy = target.imported.map { HostCopy(buffer: $0, bytesPerRow: target.bytesPerRow, region: region ?? full) }
            let (drawCount, encoded) = try draw(
                tree, into: image, scale: scale, clearColor: clearColor, region: drawn, hostCopy: hostCopy)
            host.frameCount += 1
            host.history.append((host.frameCount, redrawn.map { $0 == full ? nil : $0 } ?? nil))
            host.history.removeFirst(max(0, host.history.count - HostFrameState.historyLength))
            target.lastFrame = host.frameCount
            lastFrameStatistics = FrameStatistics(
                damage: drawn.map { .region(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)) } ?? .full,
                drawCount: drawCount, encodeSeconds: seconds(encoded - start), totalSeconds: seconds(.now - start))
            // Without an import the frame comes through the readback buffer, copied by the CPU.
            let copy: (() -> Void)? = hostCopy == nil ? { [self] in copyReadback(of: image, region: region ?? full, into: target) } : nil
            let fence = target.imported?.renderFence
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

    /// The GPU image host frames of this size are drawn in; a new size starts without history.
    private func hostImage(width: Int, height: Int) throws -> OffscreenTarget {
        if let image = host.image, image.width == width, image.height == height { return image }
        let made = try OffscreenTarget(context: context, width: width, height: height)
        host.image = made
        host.reset()
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
}
