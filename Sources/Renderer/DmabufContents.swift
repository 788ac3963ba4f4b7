import Buffers
internal import CVulkan
import Glibc
import Graphics
import LayerKit

/// Why a dma-buf cannot be imported.
public enum DmabufImportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The format or modifier is not one `dmabufSupport()` reports.
    case unsupportedFormat(DmabufFormat)
    /// The device imports no dma-bufs at all.
    case unsupportedDevice
    /// The layout cannot be read as rows of 4-byte pixels inside the buffer.
    case badLayout(String)

    public var description: String {
        switch self {
        case .unsupportedFormat(let format):
            return "format \(format.format) with modifier 0x\(String(format.modifier, radix: 16)) is not importable"
        case .unsupportedDevice:
            return "the Vulkan device cannot import dma-bufs"
        case .badLayout(let reason):
            return "the dma-buf's layout cannot be read: \(reason)"
        }
    }
}

/// A client's dma-buf imported into the renderer's device, for as long as the client's buffer
/// lives. What it holds reaches the screen through `DmabufContents`, copies made when the client
/// commits it.
public final class DmabufImport {
    let memory: ImportedBuffer
    let format: PixelFormat
    let vulkanFormat: VkFormat
    public let width: Int
    public let height: Int
    let offset: Int
    let stride: Int
    /// Signalled by the copies out of the buffer, one value each.
    let copies: TimelineSemaphore

    init(context: VulkanContext, layout: DmabufLayout) throws {
        guard context.getMemoryFdProperties != nil else { throw DmabufImportError.unsupportedDevice }
        guard PixelFormat.sampledFromDmabufs.contains(layout.format), let vulkanFormat = layout.format.vulkanFormat,
            layout.modifier == FormatModifier.linear
        else { throw DmabufImportError.unsupportedFormat(DmabufFormat(layout.format, modifier: layout.modifier)) }
        guard layout.width > 0, layout.height > 0 else {
            throw DmabufImportError.badLayout("the size is \(layout.width)×\(layout.height)")
        }
        // Copies address rows in whole pixels from an offset aligned to one.
        guard layout.stride % 4 == 0, layout.offset % 4 == 0, layout.stride >= layout.width * 4 else {
            throw DmabufImportError.badLayout(
                "offset \(layout.offset) and stride \(layout.stride) must be multiples of 4, the stride at least \(layout.width * 4)")
        }
        let needed = layout.offset + layout.stride * (layout.height - 1) + layout.width * 4
        // An exporter that cannot seek says nothing of its size: trust the layout, as the protocol does.
        let end = lseek(layout.fileDescriptor, 0, SEEK_END)
        let size = end > 0 ? Int(end) : needed
        guard needed <= size else {
            throw DmabufImportError.badLayout("its rows need \(needed) bytes but the dma-buf has \(size)")
        }
        memory = try ImportedBuffer.dmabuf(context: context, fileDescriptor: layout.fileDescriptor, size: size)
        copies = try TimelineSemaphore(context: context)
        format = layout.format
        self.vulkanFormat = vulkanFormat
        width = layout.width
        height = layout.height
        offset = layout.offset
        stride = layout.stride
    }

    /// The region of `rect` in the buffer, as a copy into the same place of an image.
    func copyRegion(of rect: ImageRect) -> VkBufferImageCopy {
        VkBufferImageCopy(
            bufferOffset: VkDeviceSize(offset + rect.y * stride + rect.x * 4), bufferRowLength: UInt32(stride / 4),
            bufferImageHeight: 0,
            imageSubresource: VkImageSubresourceLayers(
                aspectMask: VkImageAspectFlags(VK_IMAGE_ASPECT_COLOR_BIT.rawValue), mipLevel: 0, baseArrayLayer: 0,
                layerCount: 1),
            imageOffset: VkOffset3D(x: Int32(rect.x), y: Int32(rect.y), z: 0),
            imageExtent: VkExtent3D(width: UInt32(rect.width), height: UInt32(rect.height), depth: 1))
    }
}

/// What a dma-buf showed when it was committed, as a layer's `externalContents`: a texture of
/// the renderer's own, so the client may draw into the buffer again at once.
public final class DmabufContents: ExternalContents, @unchecked Sendable {
    let texture: Texture

    init(texture: Texture) {
        self.texture = texture
    }

    public var pixelSize: (width: Int, height: Int)? { (texture.width, texture.height) }
}

extension Renderer {
    /// Imports a client's dma-buf (checked against `dmabufSupport()`); throws `DmabufImportError`
    /// or the device's refusal.
    public func importDmabuf(_ layout: DmabufLayout) throws -> DmabufImport {
        try onDevice { try DmabufImport(context: context, layout: layout) }
    }

    /// Copies what `source` holds now into a texture and returns contents showing it. With
    /// `previous` contents of the same size and format that no submitted frame still samples, only
    /// `damage` (all of it when nil) is copied, into `previous`'s texture; otherwise all of it,
    /// into a new one. The copy is finished when this returns, so the client's buffer can be
    /// released at once.
    public func contents(
        copying source: DmabufImport, updating previous: DmabufContents?, damage: ImageRect?
    ) throws -> DmabufContents {
        try onDevice { try copyContents(of: source, updating: previous, damage: damage) }
    }

    private func copyContents(of source: DmabufImport, updating previous: DmabufContents?, damage: ImageRect?) throws -> DmabufContents {
        precondition(source.memory.context === context, "a dma-buf is copied by renderers of the device that imported it")
        let whole = ImageRect(x: 0, y: 0, width: source.width, height: source.height)
        let reusable = previous.map(\.texture).flatMap { texture -> Texture? in
            guard texture.width == source.width, texture.height == source.height,
                texture.image.format == source.vulkanFormat, texture.image.context === context
            else { return nil }
            guard let read = texture.lastReadPoint else { return texture }
            return read.timeline.completedValue >= read.value ? texture : nil
        }
        let rect = reusable == nil ? whole : damage.flatMap { Self.clip($0, to: whole) } ?? whole
        let texture = try reusable ?? Texture(
            rendered: GPUImage(
                context: context, width: source.width, height: source.height,
                usage: VkImageUsageFlags(VK_IMAGE_USAGE_SAMPLED_BIT.rawValue | VK_IMAGE_USAGE_TRANSFER_DST_BIT.rawValue),
                opaque: !source.format.hasAlpha, format: source.vulkanFormat))
        try copy(rect, of: source, into: texture.image, discarding: reusable == nil)
        return DmabufContents(texture: texture)
    }

    /// The part of `rect` inside `bounds`; nil when they do not meet.
    private static func clip(_ rect: ImageRect, to bounds: ImageRect) -> ImageRect? {
        let x0 = max(rect.x, bounds.x), y0 = max(rect.y, bounds.y)
        let x1 = min(rect.x + rect.width, bounds.x + bounds.width), y1 = min(rect.y + rect.height, bounds.y + bounds.height)
        guard x1 > x0, y1 > y0 else { return nil }
        return ImageRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Records and runs one copy of `rect` from the dma-buf into `image`, then waits for it.
    private func copy(_ rect: ImageRect, of source: DmabufImport, into image: GPUImage, discarding: Bool) throws {
        var commandBuffer: VkCommandBuffer? = try context.makeCommandBuffer()
        defer { vkFreeCommandBuffers(context.device, context.commandPool, 1, &commandBuffer) }
        var begin = VkCommandBufferBeginInfo()
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        begin.flags = VkCommandBufferUsageFlags(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT.rawValue)
        try check(vkBeginCommandBuffer(commandBuffer, &begin), "vkBeginCommandBuffer")

        // The memory is the client's: it is acquired from outside Vulkan for the copy and handed
        // back after it (an ownership transfer with the external queue family).
        var acquire = bufferBarrier(
            source.memory.handle, from: (VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE),
            to: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT))
        acquire.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL
        acquire.dstQueueFamilyIndex = context.queueFamilyIndex
        pipelineBarrier(
            commandBuffer!,
            images: [image.barrier(
                to: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, discardContents: discarding,
                from: (VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_NONE),
                to: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT))],
            buffers: [acquire])
        var region = source.copyRegion(of: rect)
        vkCmdCopyBufferToImage(
            commandBuffer, source.memory.handle, image.handle, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region)
        var ready = image.barrier(
            to: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
            from: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT),
            to: (VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT))
        ready.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL
        var release = bufferBarrier(
            source.memory.handle, from: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT),
            to: (VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE))
        release.srcQueueFamilyIndex = context.queueFamilyIndex
        release.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL
        pipelineBarrier(commandBuffer!, images: [ready], buffers: [release])
        try check(vkEndCommandBuffer(commandBuffer), "vkEndCommandBuffer")

        let point = try submitCommands(commandBuffer!, on: context, signalling: source.copies)
        source.memory.lastUse = point
        image.layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL
        try point.wait()
    }
}
