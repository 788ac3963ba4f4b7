internal import CVulkan
import LayerKit

/// The pixel formats a `VulkanLayer`'s drawables can have (CAMetalLayer's `pixelFormat`). Colours
/// are sRGB-encoded and premultiplied by alpha, as every contents the renderer composites.
public enum VulkanDrawablePixelFormat: Sendable, Hashable {
    /// `VK_FORMAT_B8G8R8A8_UNORM`, the renderer's own format.
    case bgra8Unorm
    /// `VK_FORMAT_R8G8B8A8_UNORM`, which compute shaders can write as a storage image on most
    /// devices, lavapipe included.
    case rgba8Unorm

    var vulkanFormat: VkFormat {
        switch self {
        case .bgra8Unorm: VK_FORMAT_B8G8R8A8_UNORM
        case .rgba8Unorm: VK_FORMAT_R8G8B8A8_UNORM
        }
    }

    /// The `VkFormat` value, for code that records commands against the drawable's image.
    public var vulkanFormatRawValue: UInt32 { UInt32(vulkanFormat.rawValue) }
}

/// The renderer's device, for code that records its own Vulkan commands into drawables: the
/// handles of `VkInstance`, `VkPhysicalDevice`, `VkDevice` and `VkQueue`, as the opaque pointers
/// Swift imports them as. Objects made on the device (pipelines, buffers) belong to their maker,
/// who destroys them before the renderer goes. The queue is the renderer's: submit to it only
/// through `VulkanDrawable.encode(_:)`, on the renderer's thread.
public struct VulkanDeviceHandles: @unchecked Sendable {
    public let instance: OpaquePointer
    public let physicalDevice: OpaquePointer
    public let device: OpaquePointer
    public let queue: OpaquePointer
    public let queueFamilyIndex: UInt32
}

/// What one `VulkanDrawable.encode(_:)` call records into: a command buffer in the recording
/// state, and the drawable's image and view (with the usage `imageUsageRawValue` says). The image
/// is in `VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL` when the body starts and must be left so; its
/// pixels are undefined in the first encode of a drawable (render all of them, as with a
/// CAMetalDrawable's texture) and kept between encodes.
public struct DrawableEncoder {
    /// A `VkCommandBuffer`.
    public let commandBuffer: OpaquePointer
    /// A `VkImage`.
    public let image: OpaquePointer
    /// A `VkImageView` of all of `image`.
    public let imageView: OpaquePointer
    public let width: Int
    public let height: Int
    public let pixelFormat: VulkanDrawablePixelFormat
    /// The image's `VkImageUsageFlags`: see `VulkanLayer.framebufferOnly`.
    public let imageUsageRawValue: UInt32
    public let device: VulkanDeviceHandles
}

/// A layer whose contents are Vulkan images that code in the same process renders through the
/// renderer's device: the role of CAMetalLayer.
///
/// Use it as a CAMetalLayer: `nextDrawable()` hands out one of at most `maximumDrawableCount`
/// images of `drawableSize` pixels, `VulkanDrawable.encode(_:)` records commands into it, and
/// `present()` makes it the layer's contents. The renderer samples the image itself, with no copy.
///
/// Recording is closure-based: the renderer begins and submits the command buffer and adds the
/// barriers and semaphores around the body, so the caller can neither forget the layout the
/// compositor samples in nor the synchronisation (a frame that samples a drawable waits on the GPU
/// for its rendering through a timeline semaphore, and a drawable is handed out again only once
/// the frames that sampled it are done). The body gets the raw handles as opaque pointers
/// (`DrawableEncoder`), so the public interface names no C module while code that imports the
/// Vulkan headers records anything the device can do. In Vitrine only the Renderer module imports
/// them, so Vitrine's own content lives there (`AnimatedPatternRenderer`); an application that
/// embeds Vitrine's modules may import them itself, and links or opens the Vulkan loader itself
/// (the Renderer opens it with `dlopen` and lends its commands to no one).
///
/// LayerKit's CPU drawing (`render(in:)`) cannot read GPU images: it draws no external contents.
///
/// Drawables, presents and rendering happen on the thread that renders the layer tree, as
/// everything of one `Renderer` does; the queue is not synchronised for other threads.
open class VulkanLayer: ExternalContentsLayer {
    let queue: DrawableQueue
    /// Told of presents made outside transactions, which no commit announces.
    private weak var renderer: Renderer?

    /// A layer drawing through `renderer`'s device; the renderer that composites the layer must be
    /// this one.
    public init(renderer: Renderer) throws {
        queue = try DrawableQueue(context: renderer.context)
        self.renderer = renderer
        super.init()
        queue.live.layerID = id
        renderer.register(queue.live)
        // Shows nothing until the first present.
        externalContents = queue.live
    }

    /// A presentation copy, which shares the model layer's drawables.
    public required init(layer: Layer) {
        guard let model = layer as? VulkanLayer else { preconditionFailure("a VulkanLayer copies only a VulkanLayer") }
        queue = model.queue
        renderer = model.renderer
        super.init(layer: layer)
    }

    /// The device drawables belong to (CAMetalLayer's `device`).
    public var device: VulkanDeviceHandles { queue.handles }

    /// The drawables' size in pixels. Zero, the default, follows the bounds times contentsScale,
    /// as CAMetalLayer's does until set. A new size takes effect at the next `nextDrawable()`;
    /// drawables of the old size are released as they come free.
    public var drawableSize: Size {
        get { queue.drawableSize }
        set { queue.drawableSize = newValue }
    }

    /// Applies from the next drawable handed out.
    public var pixelFormat: VulkanDrawablePixelFormat {
        get { queue.pixelFormat }
        set { queue.pixelFormat = newValue }
    }

    /// Whether drawables serve only as colour attachments (rendered by render passes), as
    /// CAMetalLayer's `framebufferOnly`: true, the default, makes images with colour-attachment
    /// and sampled usage only, which GPUs may keep compressed; false adds transfer source and
    /// destination, and storage where the format allows it, for compute shaders and copies.
    /// Applies from the next drawable handed out.
    public var framebufferOnly: Bool {
        get { queue.framebufferOnly }
        set { queue.framebufferOnly = newValue }
    }

    /// How many drawables may exist at once: 2 or 3 (the default), as for CAMetalLayer.
    public var maximumDrawableCount: Int {
        get { queue.maximumDrawableCount }
        set {
            precondition((2...3).contains(newValue), "maximumDrawableCount is 2 or 3, not \(newValue)")
            queue.maximumDrawableCount = newValue
        }
    }

    /// When false (the default), a presented drawable shows at the next frame the renderer draws,
    /// whatever the transactions do; when true, `present()` sets the layer's contents in the
    /// current transaction, so the drawable shows with that transaction's other changes.
    public var presentsWithTransaction = false

    /// The size drawables are made at now: `drawableSize`, or the bounds times contentsScale.
    var effectiveDrawableSize: (width: Int, height: Int) {
        let size = drawableSize
        if size.width > 0 && size.height > 0 { return (Int(size.width.rounded()), Int(size.height.rounded())) }
        let scale = contentsScale > 0 ? contentsScale : 1
        return (Int((bounds.width * scale).rounded()), Int((bounds.height * scale).rounded()))
    }

    /// A drawable to render the next frame into, or nil at once: when the drawable size is empty,
    /// or when every drawable is held, shown or still sampled by a frame on the GPU. Unlike
    /// CAMetalLayer's, it never waits: it is called on the compositor's thread, which waits for
    /// no GPU work.
    public func nextDrawable() throws -> VulkanDrawable? {
        let size = effectiveDrawableSize
        guard size.width > 0, size.height > 0 else { return nil }
        guard let slot = try queue.context.onDevice({ try queue.acquire(width: size.width, height: size.height) }) else { return nil }
        return VulkanDrawable(layer: self, slot: slot)
    }

    /// Makes `slot`'s image the layer's contents.
    func present(_ slot: DrawableSlot) {
        let frame = PresentedFrame(slot: slot)
        if presentsWithTransaction {
            externalContents = frame
        } else {
            queue.live.show(frame)
            // Set once; later presents reach the renderer without a commit.
            externalContents = queue.live
            renderer?.onDrawablePresented?()
        }
    }
}

/// One image of a `VulkanLayer` to render and present (CAMetalDrawable).
public final class VulkanDrawable {
    private let layer: VulkanLayer
    let slot: DrawableSlot
    private var isPresented = false
    private var hasEncoded = false

    init(layer: VulkanLayer, slot: DrawableSlot) {
        self.layer = layer
        self.slot = slot
    }

    deinit {
        // A drawable dropped without being presented goes back to the pool.
        if !isPresented { slot.isAcquired = false }
    }

    public var width: Int { slot.texture.width }
    public var height: Int { slot.texture.height }
    public var pixelFormat: VulkanDrawablePixelFormat { slot.pixelFormat }

    /// Records `body`'s commands into the image (see `DrawableEncoder` for the layout contract)
    /// and submits them; a frame that shows the drawable waits for them on the GPU. May be called
    /// more than once before `present()`, each call a submission of its own.
    public func encode(_ body: (DrawableEncoder) throws -> Void) throws {
        precondition(!isPresented, "a drawable is rendered before it is presented")
        try slot.texture.image.context.onDevice { try record(body) }
    }

    private func record(_ body: (DrawableEncoder) throws -> Void) throws {
        let image = slot.texture.image
        let commandBuffer = slot.commandBuffer
        // The command buffer of an earlier encode may still run.
        try slot.texture.readyPoint?.wait()
        try check(image.context.commands.vkResetCommandBuffer(commandBuffer, 0), "vkResetCommandBuffer")
        var begin = VkCommandBufferBeginInfo()
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        begin.flags = VkCommandBufferUsageFlags(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT.rawValue)
        try check(image.context.commands.vkBeginCommandBuffer(commandBuffer, &begin), "vkBeginCommandBuffer")
        // The frames that sampled the image last are done (the pool hands out only such images),
        // so only earlier writes of this drawable's own encodes are ordered here.
        image.context.commands.pipelineBarrier(
            commandBuffer,
            images: [
                image.barrier(
                    to: VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, discardContents: !hasEncoded,
                    from: (VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT),
                    to: (
                        VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                        VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT
                    ))
            ])
        do {
            try body(
                DrawableEncoder(
                    commandBuffer: commandBuffer, image: image.handle, imageView: image.view, width: image.width,
                    height: image.height, pixelFormat: slot.pixelFormat, imageUsageRawValue: slot.usage,
                    device: layer.queue.handles))
        } catch {
            _ = image.context.commands.vkEndCommandBuffer(commandBuffer)
            throw error
        }
        var toSampled = image.barrier(
            to: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
            from: (VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT),
            to: (VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT))
        toSampled.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL
        image.context.commands.pipelineBarrier(commandBuffer, images: [toSampled])
        try check(image.context.commands.vkEndCommandBuffer(commandBuffer), "vkEndCommandBuffer")
        let point = try submitCommands(commandBuffer, on: image.context, signalling: layer.queue.timeline)
        slot.texture.readyPoint = point
        image.layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL
        hasEncoded = true
    }

    /// Makes the drawable the layer's contents: at the next frame, or with the current transaction
    /// when the layer `presentsWithTransaction`. A drawable never encoded has undefined pixels and
    /// is not shown; it goes back to the pool. Presenting twice is presenting once.
    public func present() {
        guard !isPresented else { return }
        isPresented = true
        guard hasEncoded else {
            slot.isAcquired = false
            return
        }
        slot.isAcquired = false
        layer.present(slot)
    }
}
