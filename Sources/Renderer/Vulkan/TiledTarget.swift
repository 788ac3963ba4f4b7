internal import CVulkan
import Buffers
import Glibc
import SystemCalls

/// A display's dma-buf with a tiled modifier (a GBM buffer object), imported as an image in its
/// own layout, the plane's offset and stride given explicitly
/// (`VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT`), that each frame's changed rectangle is copied
/// into: what `ImportedBuffer` is for a linear one. Between frames the image belongs to
/// `VulkanContext.externalQueueFamily` (the display reads it), in the general layout.
final class TiledTarget {
    let image: GPUImage
    /// The sync_file of the last frame copied into the image, where the device exports them,
    /// until that frame's completion takes it.
    var renderFence: OwnedFileDescriptor?

    /// What the image is for: the frame is rendered elsewhere and copied in. A colour attachment
    /// too, since an image's view needs a usage views take (the copy itself does not).
    static let usage = VkImageUsageFlags(VK_IMAGE_USAGE_TRANSFER_DST_BIT.rawValue | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT.rawValue)

    /// Throws where the device does not render into `layout`'s modifier
    /// (`VulkanContext.renderTargetModifiers`) or cannot import this buffer with it.
    init(layout: DmabufLayout, context: VulkanContext) throws {
        guard layout.format == .xrgb8888, let format = layout.format.vulkanFormat,
            context.renderTargetModifiers().contains(layout.modifier)
        else {
            let wanted = DmabufFormat(layout.format, modifier: layout.modifier)
            throw VulkanError.missingExtension("VK_EXT_image_drm_format_modifier for \(wanted)")
        }
        // A tiled buffer's size is not rows times stride: the exporter knows it.
        let size = lseek(layout.fileDescriptor, 0, SEEK_END)
        guard size > 0, let image = try GPUImage.importing(
            layout, size: Int(size), format: format, usage: Self.usage, opaque: true, context: context)
        else { throw VulkanError.dmabufUnusable(size: Int(max(size, 0))) }
        self.image = image
    }
}
