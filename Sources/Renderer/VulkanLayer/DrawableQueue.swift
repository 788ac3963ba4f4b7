internal import CVulkan
import LayerKit
import RendererContract

/// One image of a `VulkanLayer`'s pool and the command buffer its rendering is recorded into.
///
/// An image is free to hand out again when no drawable holds it, no presented frame that could
/// still be drawn shows it, and the last frame that sampled it (`texture.lastReadPoint`) is done.
final class DrawableSlot {
    let texture: Texture
    let commandBuffer: VkCommandBuffer
    let pixelFormat: VulkanDrawablePixelFormat
    let framebufferOnly: Bool
    /// The image's `VkImageUsageFlags`.
    let usage: UInt32
    var isAcquired = false
    /// The presented frame showing the image, while any render tree or layer holds it.
    weak var shownBy: PresentedFrame?

    init(
        context: VulkanContext, width: Int, height: Int, pixelFormat: VulkanDrawablePixelFormat, framebufferOnly: Bool
    ) throws {
        // Rendering and the compositor's sampling need only these; GPUs may compress such images.
        var usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT.rawValue | VK_IMAGE_USAGE_SAMPLED_BIT.rawValue
        if !framebufferOnly {
            usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT.rawValue | VK_IMAGE_USAGE_TRANSFER_DST_BIT.rawValue
            if Self.supportsStorage(pixelFormat, context: context) { usage |= VK_IMAGE_USAGE_STORAGE_BIT.rawValue }
        }
        self.usage = usage
        self.framebufferOnly = framebufferOnly
        texture = Texture(
            rendered: try GPUImage(
                context: context, width: width, height: height, usage: VkImageUsageFlags(usage),
                format: pixelFormat.vulkanFormat))
        commandBuffer = try context.makeCommandBuffer()
        self.pixelFormat = pixelFormat
    }

    deinit {
        // The command buffer's last submission must be done before it is freed.
        try? texture.readyPoint?.wait()
        var commandBuffer: VkCommandBuffer? = commandBuffer
        texture.image.context.commands.vkFreeCommandBuffers(texture.image.context.device, texture.image.context.commandPool, 1, &commandBuffer)
    }

    private static func supportsStorage(_ format: VulkanDrawablePixelFormat, context: VulkanContext) -> Bool {
        var properties = VkFormatProperties()
        context.instanceCommands.vkGetPhysicalDeviceFormatProperties(context.physicalDevice, format.vulkanFormat, &properties)
        return properties.optimalTilingFeatures & VkFormatFeatureFlags(VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT.rawValue) != 0
    }

    /// Whether a frame that sampled the image may still run.
    var isBeingRead: Bool {
        guard let point = texture.lastReadPoint else { return false }
        return point.timeline.completedValue < point.value
    }

    var isFree: Bool { !isAcquired && shownBy == nil }
}

/// One present of a drawable: what a render tree holds to show it. The image stays out of the
/// pool while this object lives.
///
/// Sendable as render trees require; like everything of a renderer, it is used on the
/// renderer's thread only.
final class PresentedFrame: ExternalContents, @unchecked Sendable {
    let slot: DrawableSlot

    init(slot: DrawableSlot) {
        self.slot = slot
        slot.shownBy = self
    }

    var pixelSize: (width: Int, height: Int)? { (slot.texture.width, slot.texture.height) }
}

/// The contents of a `VulkanLayer` that presents outside transactions: whatever drawable was
/// presented last, looked up when a frame is drawn. The renderer redraws the layer when `serial`
/// moved since the frame it last drew.
final class LiveDrawableContents: ExternalContents, @unchecked Sendable {
    /// The layer showing these contents (set once the layer exists).
    var layerID: LayerID?
    private(set) var frame: PresentedFrame?
    /// Counts presents.
    private(set) var serial: UInt64 = 0

    func show(_ frame: PresentedFrame) {
        self.frame = frame
        serial += 1
    }

    var pixelSize: (width: Int, height: Int)? { frame?.pixelSize }
}

/// A `VulkanLayer`'s pool of drawables and the timeline its rendering signals; the settings are
/// the layer's.
final class DrawableQueue {
    let context: VulkanContext
    let timeline: TimelineSemaphore
    let live: LiveDrawableContents
    var drawableSize = Size.zero
    var pixelFormat = VulkanDrawablePixelFormat.bgra8Unorm
    var framebufferOnly = true
    var maximumDrawableCount = 3
    private(set) var slots: [DrawableSlot] = []

    init(context: VulkanContext) throws {
        self.context = context
        timeline = try TimelineSemaphore(context: context)
        live = LiveDrawableContents()
    }

    var handles: VulkanDeviceHandles {
        VulkanDeviceHandles(
            instance: context.instance, physicalDevice: context.physicalDevice, device: context.device,
            queue: context.queue, queueFamilyIndex: context.queueFamilyIndex)
    }

    /// A free image of this size and format, made or remade as needed; nil when none is free now:
    /// an image a frame still samples is not waited for (the compositor's thread never waits for
    /// the GPU), and the layer's next display link callback asks again.
    func acquire(width: Int, height: Int) throws -> DrawableSlot? {
        func fits(_ slot: DrawableSlot) -> Bool {
            slot.texture.width == width && slot.texture.height == height && slot.pixelFormat == pixelFormat
                && slot.framebufferOnly == framebufferOnly
        }
        // Images of another size or format are released as soon as nothing uses them.
        slots.removeAll { $0.isFree && !$0.isBeingRead && !fits($0) }
        let free = slots.filter(\.isFree)
        var slot = free.first { !$0.isBeingRead }
        if slot == nil, slots.count < maximumDrawableCount {
            let made = try DrawableSlot(
                context: context, width: width, height: height, pixelFormat: pixelFormat, framebufferOnly: framebufferOnly)
            slots.append(made)
            slot = made
        }
        slot?.isAcquired = true
        return slot
    }
}

extension TimelineSemaphore {
    /// The highest value the semaphore has reached.
    var completedValue: UInt64 {
        var value: UInt64 = 0
        _ = context.commands.vkGetSemaphoreCounterValue(context.device, handle, &value)
        return value
    }

    /// Sets the semaphore to `value` from the host, as a submission signalling it would (a
    /// value the host stands in for, not one the queue signals: see `didSubmitNextValue`).
    func signalFromHost(_ value: UInt64) throws {
        var info = VkSemaphoreSignalInfo()
        info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO
        info.semaphore = handle
        info.value = value
        try check(context.commands.vkSignalSemaphore(context.device, &info), "vkSignalSemaphore")
    }

}

extension Texture: Equatable {
    static func == (a: Texture, b: Texture) -> Bool { a === b }

    /// The texture external contents show now, when this module made them: a `VulkanLayer`'s
    /// presented drawable. (A client's buffer is brought up to date when a frame draws it.)
    static func showing(_ contents: (any ExternalContents)?) -> Texture? {
        switch contents {
        case let frame as PresentedFrame: frame.slot.texture
        case let live as LiveDrawableContents: live.frame?.slot.texture
        default: nil
        }
    }
}

/// The `VulkanLayer`s that present outside transactions, with the present each was last drawn
/// at: their presents change no render tree, so the renderer finds what they damaged here.
struct LiveContentsRegistry {
    private var entries: [(contents: Weak, drawnSerial: UInt64)] = []

    private struct Weak {
        weak var contents: LiveDrawableContents?
    }

    mutating func register(_ contents: LiveDrawableContents) {
        entries.append((Weak(contents: contents), 0))
    }

    /// `damage` with the subtrees of the layers in `tree` presented to since the last call added.
    mutating func damage(
        adding damage: Damage, tree: RenderTree, scale: Double, width: Int, height: Int
    ) -> Damage {
        entries.removeAll { $0.contents.contents == nil }
        var box = Rect.null
        for index in entries.indices {
            guard let contents = entries[index].contents.contents, var id = contents.layerID else { continue }
            guard contents.serial != entries[index].drawnSerial else { continue }
            entries[index].drawnSerial = contents.serial
            guard tree[id]?.properties.externalContents === contents else { continue }
            // Inside a replicator the layer shows once per instance, as DamageTracker reasons.
            for replicator in DamageTracker.replicators(above: id, in: tree) {
                guard replicator.properties.replicator?.instanceDelay == 0 else { return .full }
                id = replicator.id
            }
            box = box.union(DamageTracker.pixelBounds(ofSubtree: id, in: tree, scale: scale))
        }
        guard !box.isNull, !box.isEmpty else { return damage }
        // As DamageTracker rounds: outwards, with a pixel to spare for anti-aliased edges.
        let x0 = max(0, Int((box.minX - 1).rounded(.down))), y0 = max(0, Int((box.minY - 1).rounded(.down)))
        let x1 = min(width, Int((box.maxX + 1).rounded(.up))), y1 = min(height, Int((box.maxY + 1).rounded(.up)))
        guard x1 > x0, y1 > y0 else { return damage }
        switch damage {
        case .full:
            return .full
        case .none:
            return .region(PixelRect(x: Int32(x0), y: Int32(y0), width: UInt32(x1 - x0), height: UInt32(y1 - y0)))
        case .region(let r):
            let ux0 = min(x0, Int(r.x)), uy0 = min(y0, Int(r.y))
            let ux1 = max(x1, Int(r.x) + Int(r.width)), uy1 = max(y1, Int(r.y) + Int(r.height))
            return .region(PixelRect(x: Int32(ux0), y: Int32(uy0), width: UInt32(ux1 - ux0), height: UInt32(uy1 - uy0)))
        }
    }
}
