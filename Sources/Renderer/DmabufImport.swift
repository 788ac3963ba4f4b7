import Buffers
internal import CVulkan
import Glibc
import Graphics
import LayerKit

/// Why a dma-buf cannot be imported.
public enum DmabufImportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The format or modifier is not one `dmabufSupport()` reports, or the device cannot read this
    /// buffer's layout of a tiled modifier.
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
/// lives. What it holds reaches the screen through `ClientBufferContents`: where the device can
/// read the buffer's layout as an image (`VK_EXT_image_drm_format_modifier` with its modifier, or
/// on a device without modifiers a linear buffer whose stride is the driver's row pitch), frames
/// sample that image where the buffer lies and nothing is copied; otherwise the frames that draw
/// a commit copy its damaged rectangle into the surface's texture.
public final class DmabufImport {
    /// The buffer as an image that frames sample in place; nil where its pixels are copied.
    let inPlace: Texture?
    /// The buffer as memory that copies read from; nil where it is sampled in place.
    let memory: ImportedBuffer?
    let format: PixelFormat
    let vulkanFormat: VkFormat
    public let width: Int
    public let height: Int
    let offset: Int
    let stride: Int

    /// Whether frames sample the buffer where it lies rather than copying it.
    public var isSampledInPlace: Bool { inPlace != nil }

    var context: VulkanContext { inPlace?.image.context ?? memory!.context }

    init(context: VulkanContext, layout: DmabufLayout) throws {
        guard context.getMemoryFdProperties != nil else { throw DmabufImportError.unsupportedDevice }
        guard PixelFormat.sampledFromDmabufs.contains(layout.format), let vulkanFormat = layout.format.vulkanFormat,
            context.importableModifiers(of: layout.format).contains(layout.modifier)
        else { throw DmabufImportError.unsupportedFormat(DmabufFormat(layout.format, modifier: layout.modifier)) }
        guard layout.width > 0, layout.height > 0 else {
            throw DmabufImportError.badLayout("the size is \(layout.width)×\(layout.height)")
        }
        // An exporter that cannot seek says nothing of its size: trust the layout, as the protocol does.
        let end = lseek(layout.fileDescriptor, 0, SEEK_END)
        let opaque = !layout.format.hasAlpha
        if layout.modifier != FormatModifier.linear {
            // A tiled buffer is only ever read in place: its plane layout is the driver's to check.
            guard let image = try GPUImage.importing(
                layout, size: Int(max(end, 0)), format: vulkanFormat, usage: Self.sampledUsage, opaque: opaque, context: context)
            else { throw DmabufImportError.unsupportedFormat(DmabufFormat(layout.format, modifier: layout.modifier)) }
            inPlace = Texture(inPlace: image)
            memory = nil
        } else {
            // Copies address rows in whole pixels from an offset aligned to one.
            guard layout.stride % 4 == 0, layout.offset % 4 == 0, layout.stride >= layout.width * 4 else {
                throw DmabufImportError.badLayout(
                    "offset \(layout.offset) and stride \(layout.stride) must be multiples of 4, the stride at least \(layout.width * 4)")
            }
            let needed = layout.offset + layout.stride * (layout.height - 1) + layout.width * 4
            let size = end > 0 ? Int(end) : needed
            guard needed <= size else {
                throw DmabufImportError.badLayout("its rows need \(needed) bytes but the dma-buf has \(size)")
            }
            if let image = try GPUImage.importing(
                layout, size: size, format: vulkanFormat, usage: Self.sampledUsage, opaque: opaque, context: context)
            {
                inPlace = Texture(inPlace: image)
                memory = nil
            } else {
                inPlace = nil
                memory = try ImportedBuffer.dmabuf(context: context, fileDescriptor: layout.fileDescriptor, size: size)
            }
        }
        format = layout.format
        self.vulkanFormat = vulkanFormat
        width = layout.width
        height = layout.height
        offset = layout.offset
        stride = layout.stride
    }

    static let sampledUsage = VkImageUsageFlags(VK_IMAGE_USAGE_SAMPLED_BIT.rawValue)

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

extension Renderer {
    /// Imports a client's dma-buf (checked against `dmabufSupport()`); throws `DmabufImportError`
    /// or the device's refusal.
    public func importDmabuf(_ layout: DmabufLayout) throws -> DmabufImport {
        try onDevice { try DmabufImport(context: context, layout: layout) }
    }
}
