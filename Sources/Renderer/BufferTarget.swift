import Buffers
import LayerKit
import RendererContract

/// The renderer's hold on a swapchain buffer it writes frames straight into: `height` rows of
/// `width` premultiplied ARGB8888 pixels (native-endian 0xAARRGGBB, the byte order of Wayland's and
/// DRM's ARGB8888 and XRGB8888), `bytesPerRow` apart. A GBM buffer object's dma-buf, or host
/// memory (a dumb buffer's mapping, a headless output's).
///
/// A dma-buf is imported once (`VK_EXT_external_memory_dma_buf`) and the GPU copies each frame's
/// changed rectangle into it: a linear one as a buffer, a tiled one as an image with its modifier
/// (`TiledTarget`, where the device has `VK_EXT_image_drm_format_modifier`). Host memory is
/// imported as a buffer where the device has `VK_EXT_external_memory_host` and the memory's
/// address and size keep the alignment it asks for (a page on lavapipe); otherwise the rectangle
/// goes through the renderer's readback buffer and the CPU copies it. Each target remembers the frame it last received, so a ring of them (a
/// display's buffers) each gets what changed since its own last frame: its buffer age. The
/// renderer keeps the target, keyed by the buffer, while it draws into the buffer
/// (`HostFrameState.target(for:context:)`).
final class BufferTarget {
    let width: Int
    let height: Int
    let bytesPerRow: Int
    /// The CPU's way in, for a target without an import; nil for a dma-buf.
    let memory: UnsafeMutableRawBufferPointer?
    /// The buffer: held so that its memory stays valid (the import goes first, `deinit`) and its
    /// identity, the target's key, names no other buffer meanwhile.
    let buffer: AnyObject
    private(set) var imported: ImportedBuffer?
    /// A tiled dma-buf's import; nil for linear memory.
    private(set) var tiled: TiledTarget?
    /// The renderer's host frame that last wrote this memory; nil while its pixels are unknown.
    var lastFrame: Int?

    /// Whether the GPU writes into the memory itself (`VK_EXT_external_memory_host`, a dma-buf),
    /// rather than the CPU copying each frame from the readback buffer.
    var importsMemory: Bool { imported != nil || tiled != nil }

    /// Where the GPU copies frames, nil where the CPU copies them from the readback buffer.
    func destination() -> HostCopy.Destination? {
        if let tiled { return .image(tiled) }
        return imported.map { .buffer($0, bytesPerRow: bytesPerRow) }
    }

    /// Imports `buffer` on `context`'s device: a mapping where the device and the alignment allow
    /// (otherwise frames reach it through the readback buffer), a dma-buf where the device can
    /// write into it (otherwise `UnwritableBuffer` is thrown).
    init(_ buffer: any SwapchainBuffer, context: VulkanContext) throws {
        (self.buffer, width, height) = (buffer, buffer.width, buffer.height)
        switch buffer.memory {
        case .mapped(let mapping, let bytesPerRow):
            precondition(bytesPerRow >= width * 4 && bytesPerRow % 4 == 0, "\(bytesPerRow) bytes per row for \(width) pixels")
            precondition(
                mapping.baseAddress != nil && mapping.count >= bytesPerRow * (height - 1) + width * 4,
                "\(mapping.count) bytes for \(height) rows of \(bytesPerRow)")
            (memory, self.bytesPerRow) = (mapping, bytesPerRow)
            imported = try ImportedBuffer.hostMemory(context: context, pointer: mapping.baseAddress!, size: mapping.count)
        case .dmabuf(let layout):
            // A tiled buffer's plane starts where its layout says; a linear one is copied into
            // from its first byte, row for row.
            let linear = layout.modifier == FormatModifier.linear
            precondition(layout.stride >= layout.width * 4 && layout.stride % 4 == 0 && (!linear || layout.offset == 0),
                         "a dma-buf target of \(layout.width) pixels, \(layout.stride) bytes per row from \(layout.offset)")
            (memory, bytesPerRow) = (nil, layout.stride)
            do {
                if linear {
                    imported = try ImportedBuffer.dmabuf(
                        context: context, fileDescriptor: layout.fileDescriptor, size: layout.stride * layout.height, usage: .destination)
                } else {
                    tiled = try TiledTarget(layout: layout, context: context)
                }
            } catch VulkanError.deviceLost(let function) {
                throw VulkanError.deviceLost(while: function)
            } catch {
                throw UnwritableBuffer(reason: "\(error)")
            }
        }
    }

    deinit {
        // The import maps the buffer's memory: it goes while the buffer still holds it.
        imported = nil
        tiled = nil
    }
}

/// The swapchain buffers' side of a renderer: one GPU image that holds the latest frame whichever
/// buffer it went to, redrawn where the scene changed, the changed rectangle of each recent frame,
/// from which a buffer's own damage follows, and the target of each buffer drawn into.
struct HostFrameState {
    var image: OffscreenTarget?
    /// By the buffer's identity.
    private(set) var targets: [ObjectIdentifier: BufferTarget] = [:]
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

    /// The target of `buffer`, imported on `context`'s device the first time. A target not drawn
    /// into for `historyLength` frames goes (its buffer would get a whole frame anyway, and a
    /// display's ring draws into each of its buffers every few frames: the display replaced it),
    /// as do all at a new frame size (`clearTargets()`).
    mutating func target(for buffer: any SwapchainBuffer, context: VulkanContext) throws -> BufferTarget {
        targets = targets.filter { $0.value.lastFrame.map { $0 > frameCount - Self.historyLength } ?? false }
        if let target = targets[ObjectIdentifier(buffer)] { return target }
        let made = try BufferTarget(buffer, context: context)
        targets[ObjectIdentifier(buffer)] = made
        return made
    }

    /// Lets go of every target: frames of a new size go into other buffers.
    mutating func clearTargets() {
        targets = [:]
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
