internal import CVulkan

/// A 2D image, `VK_FORMAT_B8G8R8A8_UNORM` unless made with another format, with its own
/// device-local memory and a view.
///
/// The format's bytes in memory are B, G, R, A: `PixelFormat.argb8888` (and
/// `xrgb8888`) on little-endian machines, so pixels move between them without conversion.
final class GPUImage {
    static let format = VK_FORMAT_B8G8R8A8_UNORM

    let context: VulkanContext
    let handle: VkImage
    let view: VkImageView
    let width: Int
    let height: Int
    let format: VkFormat
    /// Whether the view reads alpha as 1.
    let isOpaque: Bool
    /// The layout the image is in once every recorded command has run; whoever records a
    /// transition updates it (after the submission succeeds).
    var layout = VK_IMAGE_LAYOUT_UNDEFINED
    private let memory: VkDeviceMemory

    /// `opaque` makes the view read alpha as 1 whatever the image holds (for xrgb pixels, whose
    /// top byte is undefined).
    init(
        context: VulkanContext, width: Int, height: Int, usage: VkImageUsageFlags, opaque: Bool = false,
        format: VkFormat = GPUImage.format
    ) throws {
        let maximum = Int(context.limits.maxImageDimension2D)
        guard (1...maximum).contains(width), (1...maximum).contains(height) else {
            throw VulkanError.imageTooLarge(width: width, height: height, maximum: maximum)
        }
        isOpaque = opaque
        var info = Self.createInfo(width: width, height: height, format: format, usage: usage, tiling: VK_IMAGE_TILING_OPTIMAL)
        var image: VkImage?
        try check(context.commands.vkCreateImage(context.device, &info, nil, &image), "vkCreateImage")
        var memory: VkDeviceMemory?
        var view: VkImageView?
        var succeeded = false
        defer {
            if !succeeded {
                if let view { context.commands.vkDestroyImageView(context.device, view, nil) }
                if let memory { context.freeMemory(memory) }
                context.commands.vkDestroyImage(context.device, image, nil)
            }
        }
        var requirements = VkMemoryRequirements()
        context.commands.vkGetImageMemoryRequirements(context.device, image, &requirements)
        // Device-local where the device has it (every GPU does); unified-memory devices such as
        // lavapipe may have no such type at all, and then any memory does.
        memory = try context.allocateMemory(
            requirements, preferred: VkMemoryPropertyFlags(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.rawValue), required: 0)
        try check(context.commands.vkBindImageMemory(context.device, image, memory, 0), "vkBindImageMemory")

        view = try Self.makeView(of: image!, format: format, opaque: opaque, context: context)

        self.context = context
        handle = image!
        self.memory = memory!
        self.view = view!
        self.width = width
        self.height = height
        self.format = format
        succeeded = true
        context.liveImages += 1
    }

    /// An image made elsewhere (`importing(_:size:format:usage:opaque:context:)`), whose handle,
    /// view and memory it owns from now on.
    init(
        context: VulkanContext, handle: VkImage, view: VkImageView, memory: VkDeviceMemory, width: Int, height: Int,
        format: VkFormat, opaque: Bool
    ) {
        self.context = context
        self.handle = handle
        self.view = view
        self.memory = memory
        self.width = width
        self.height = height
        self.format = format
        isOpaque = opaque
        context.liveImages += 1
    }

    /// A 2D image of one level and layer, exclusive to one queue family, starting undefined.
    static func createInfo(width: Int, height: Int, format: VkFormat, usage: VkImageUsageFlags, tiling: VkImageTiling)
        -> VkImageCreateInfo
    {
        var info = VkImageCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO
        info.imageType = VK_IMAGE_TYPE_2D
        info.format = format
        info.extent = VkExtent3D(width: UInt32(width), height: UInt32(height), depth: 1)
        info.mipLevels = 1
        info.arrayLayers = 1
        info.samples = VK_SAMPLE_COUNT_1_BIT
        info.tiling = tiling
        info.usage = usage
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
        info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED
        return info
    }

    /// A view of all of `image`; `opaque` makes it read alpha as 1 whatever the image holds (for
    /// xrgb pixels, whose top byte is undefined).
    static func makeView(of image: VkImage, format: VkFormat, opaque: Bool, context: VulkanContext) throws -> VkImageView {
        var viewInfo = VkImageViewCreateInfo()
        viewInfo.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO
        viewInfo.image = image
        viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D
        viewInfo.format = format
        viewInfo.components = VkComponentMapping(
            r: VK_COMPONENT_SWIZZLE_IDENTITY, g: VK_COMPONENT_SWIZZLE_IDENTITY, b: VK_COMPONENT_SWIZZLE_IDENTITY,
            a: opaque ? VK_COMPONENT_SWIZZLE_ONE : VK_COMPONENT_SWIZZLE_IDENTITY)
        viewInfo.subresourceRange = colorRange
        var view: VkImageView?
        try check(context.commands.vkCreateImageView(context.device, &viewInfo, nil, &view), "vkCreateImageView")
        return view!
    }

    deinit {
        context.liveImages -= 1
        context.commands.vkDestroyImageView(context.device, view, nil)
        context.commands.vkDestroyImage(context.device, handle, nil)
        context.freeMemory(memory)
    }

    static let colorRange = VkImageSubresourceRange(
        aspectMask: VkImageAspectFlags(VK_IMAGE_ASPECT_COLOR_BIT.rawValue), baseMipLevel: 0, levelCount: 1,
        baseArrayLayer: 0, layerCount: 1)

    /// The whole image as a copy region to or from a tightly packed buffer.
    var bufferCopyRegion: VkBufferImageCopy {
        VkBufferImageCopy(
            bufferOffset: 0, bufferRowLength: 0, bufferImageHeight: 0,
            imageSubresource: VkImageSubresourceLayers(
                aspectMask: VkImageAspectFlags(VK_IMAGE_ASPECT_COLOR_BIT.rawValue), mipLevel: 0, baseArrayLayer: 0,
                layerCount: 1),
            imageOffset: VkOffset3D(x: 0, y: 0, z: 0),
            imageExtent: VkExtent3D(width: UInt32(width), height: UInt32(height), depth: 1))
    }

    /// A barrier that moves the image from `layout` to `newLayout`, for `vkCmdPipelineBarrier2`.
    /// `discardContents` transitions from `UNDEFINED` instead, which lets the driver skip preserving
    /// pixels about to be overwritten.
    func barrier(
        to newLayout: VkImageLayout, discardContents: Bool = false,
        from source: (stage: VkPipelineStageFlags2, access: VkAccessFlags2),
        to destination: (stage: VkPipelineStageFlags2, access: VkAccessFlags2)
    ) -> VkImageMemoryBarrier2 {
        var barrier = VkImageMemoryBarrier2()
        barrier.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2
        barrier.srcStageMask = source.stage
        barrier.srcAccessMask = source.access
        barrier.dstStageMask = destination.stage
        barrier.dstAccessMask = destination.access
        barrier.oldLayout = discardContents ? VK_IMAGE_LAYOUT_UNDEFINED : layout
        barrier.newLayout = newLayout
        barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED
        barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED
        barrier.image = handle
        barrier.subresourceRange = Self.colorRange
        return barrier
    }
}
