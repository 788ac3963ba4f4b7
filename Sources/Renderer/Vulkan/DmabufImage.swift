import Buffers
internal import CVulkan
import Glibc
import SystemCalls

/// How an image reads a single-plane dma-buf where it lies.
enum DmabufTiling: Equatable {
    /// `VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT`: the buffer's own modifier, offset and stride,
    /// given to the driver as they are.
    case modifier(UInt64)
    /// `VK_IMAGE_TILING_LINEAR`, on a device without format modifiers: the driver chooses the row
    /// pitch, so the image reads the buffer only where that pitch is the buffer's stride.
    case linear
}

/// What the device says of images over imported dma-buf memory of one format, tiling and usage.
struct DmabufImageSupport: Equatable {
    /// The memory must be imported as a dedicated allocation of the image.
    var needsDedicatedMemory: Bool
}

extension VulkanContext {
    /// The format features an image needs for `usage`.
    private static func features(for usage: VkImageUsageFlags) -> VkFormatFeatureFlags {
        var needed: UInt32 = 0
        if usage & VkImageUsageFlags(VK_IMAGE_USAGE_SAMPLED_BIT.rawValue) != 0 { needed |= VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT.rawValue }
        if usage & VkImageUsageFlags(VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT.rawValue) != 0 {
            needed |= VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT.rawValue
        }
        if usage & VkImageUsageFlags(VK_IMAGE_USAGE_TRANSFER_DST_BIT.rawValue) != 0 { needed |= VK_FORMAT_FEATURE_TRANSFER_DST_BIT.rawValue }
        if usage & VkImageUsageFlags(VK_IMAGE_USAGE_TRANSFER_SRC_BIT.rawValue) != 0 { needed |= VK_FORMAT_FEATURE_TRANSFER_SRC_BIT.rawValue }
        return VkFormatFeatureFlags(needed)
    }

    /// The single-plane modifiers of `format` whose images have the features `usage` needs
    /// (`VkDrmFormatModifierPropertiesListEXT`); empty without `VK_EXT_image_drm_format_modifier`.
    func drmFormatModifiers(of format: VkFormat, usage: VkImageUsageFlags) -> [UInt64] {
        guard hasDrmFormatModifiers else { return [] }
        let needed = Self.features(for: usage)
        return withCallArena { arena in
            var list = VkDrmFormatModifierPropertiesListEXT()
            list.sType = VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_EXT
            let listPointer = arena.pointer(to: list)
            var properties = VkFormatProperties2()
            properties.sType = VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2
            properties.pNext = UnsafeMutableRawPointer(listPointer)
            instanceCommands.vkGetPhysicalDeviceFormatProperties2(physicalDevice, format, &properties)
            let count = Int(listPointer.pointee.drmFormatModifierCount)
            guard count > 0 else { return [] }
            let modifiers = UnsafeMutablePointer<VkDrmFormatModifierPropertiesEXT>.allocate(capacity: count)
            defer { modifiers.deallocate() }
            listPointer.pointee.pDrmFormatModifierProperties = modifiers
            instanceCommands.vkGetPhysicalDeviceFormatProperties2(physicalDevice, format, &properties)
            return (0..<Int(listPointer.pointee.drmFormatModifierCount)).compactMap { index in
                let entry = modifiers[index]
                guard entry.drmFormatModifierPlaneCount == 1, entry.drmFormatModifierTilingFeatures & needed == needed else { return nil }
                return entry.drmFormatModifier
            }
        }
    }

    /// Whether an image of `format` for `usage` with `tiling` can be bound to imported dma-buf
    /// memory, and how (`vkGetPhysicalDeviceImageFormatProperties2`); nil where it cannot.
    func dmabufImageSupport(format: VkFormat, tiling: DmabufTiling, usage: VkImageUsageFlags) -> DmabufImageSupport? {
        if case .linear = tiling {
            var properties = VkFormatProperties()
            instanceCommands.vkGetPhysicalDeviceFormatProperties(physicalDevice, format, &properties)
            let needed = Self.features(for: usage)
            guard properties.linearTilingFeatures & needed == needed else { return nil }
        }
        return withCallArena { arena in
            var external = VkPhysicalDeviceExternalImageFormatInfo()
            external.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO
            external.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
            var info = VkPhysicalDeviceImageFormatInfo2()
            info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2
            info.format = format
            info.type = VK_IMAGE_TYPE_2D
            info.usage = usage
            switch tiling {
            case .linear:
                info.tiling = VK_IMAGE_TILING_LINEAR
            case .modifier(let modifier):
                var modifierInfo = VkPhysicalDeviceImageDrmFormatModifierInfoEXT()
                modifierInfo.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_DRM_FORMAT_MODIFIER_INFO_EXT
                modifierInfo.drmFormatModifier = modifier
                modifierInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE
                external.pNext = UnsafeRawPointer(arena.pointer(to: modifierInfo))
                info.tiling = VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT
            }
            info.pNext = UnsafeRawPointer(arena.pointer(to: external))
            var externalProperties = VkExternalImageFormatProperties()
            externalProperties.sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES
            let externalPointer = arena.pointer(to: externalProperties)
            var properties = VkImageFormatProperties2()
            properties.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2
            properties.pNext = UnsafeMutableRawPointer(externalPointer)
            guard instanceCommands.vkGetPhysicalDeviceImageFormatProperties2(physicalDevice, &info, &properties) == VK_SUCCESS else { return nil }
            let features = externalPointer.pointee.externalMemoryProperties.externalMemoryFeatures
            guard features & VkExternalMemoryFeatureFlags(VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT.rawValue) != 0 else { return nil }
            return DmabufImageSupport(
                needsDedicatedMemory: features & VkExternalMemoryFeatureFlags(VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT.rawValue) != 0)
        }
    }

    /// How an image for `usage` reads a single-plane dma-buf of `format` with `modifier` where it
    /// lies, or nil where the device cannot (then its pixels are copied): with the modifier where
    /// the device has format modifiers and lists it, linear tiling where it has none and the
    /// buffer is linear.
    func inPlaceTiling(format: VkFormat, modifier: UInt64, usage: VkImageUsageFlags) -> DmabufTiling? {
        let tiling: DmabufTiling
        if hasDrmFormatModifiers {
            guard drmFormatModifiers(of: format, usage: usage).contains(modifier) else { return nil }
            tiling = .modifier(modifier)
        } else {
            guard modifier == FormatModifier.linear else { return nil }
            tiling = .linear
        }
        return dmabufImageSupport(format: format, tiling: tiling, usage: usage) == nil ? nil : tiling
    }
}

extension GPUImage {
    /// An image over the dma-buf `layout` where it lies, `size` bytes in all, for `usage`, in
    /// `format` (its view reads alpha as one when `opaque`); nil where the device cannot read
    /// this layout in place (`VulkanContext.inPlaceTiling`, and for linear tiling a row pitch or
    /// memory alignment of the driver's that differs from the buffer's). The memory holds its own
    /// duplicate of the descriptor, so the image outlives the caller's.
    ///
    /// The image belongs to `VulkanContext.externalQueueFamily` between uses: whoever records a
    /// use acquires it from there first and releases it back after (`Texture.recordUploads`).
    static func importing(
        _ layout: DmabufLayout, size: Int, format: VkFormat, usage: VkImageUsageFlags, opaque: Bool, context: VulkanContext
    ) throws -> GPUImage? {
        guard let getProperties = context.getMemoryFdProperties,
            let tiling = context.inPlaceTiling(format: format, modifier: layout.modifier, usage: usage),
            let support = context.dmabufImageSupport(format: format, tiling: tiling, usage: usage)
        else { return nil }
        let maximum = Int(context.limits.maxImageDimension2D)
        guard (1...maximum).contains(layout.width), (1...maximum).contains(layout.height) else { return nil }
        let image: VkImage = try withCallArena { arena in
            var external = VkExternalMemoryImageCreateInfo()
            external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO
            external.handleTypes = VkExternalMemoryHandleTypeFlags(VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT.rawValue)
            // External memory requires the undefined initial layout; the pixels are the producer's
            // all the same (see `Texture`).
            var info = GPUImage.createInfo(
                width: layout.width, height: layout.height, format: format, usage: usage,
                tiling: tiling == .linear ? VK_IMAGE_TILING_LINEAR : VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT)
            if case .modifier(let modifier) = tiling {
                // The plane's offset and stride as the producer laid it out; size must be 0.
                let plane = VkSubresourceLayout(
                    offset: VkDeviceSize(layout.offset), size: 0, rowPitch: VkDeviceSize(layout.stride), arrayPitch: 0,
                    depthPitch: 0)
                var explicit = VkImageDrmFormatModifierExplicitCreateInfoEXT()
                explicit.sType = VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_EXPLICIT_CREATE_INFO_EXT
                explicit.drmFormatModifier = modifier
                explicit.drmFormatModifierPlaneCount = 1
                explicit.pPlaneLayouts = UnsafePointer(arena.pointer(to: plane))
                external.pNext = UnsafeRawPointer(arena.pointer(to: explicit))
            }
            info.pNext = UnsafeRawPointer(arena.pointer(to: external))
            var image: VkImage?
            try check(context.commands.vkCreateImage(context.device, &info, nil, &image), "vkCreateImage (dma-buf)")
            return image!
        }
        var bound: VkDeviceMemory?
        var view: VkImageView?
        defer {
            if view == nil {
                if let bound { context.freeMemory(bound) }
                context.commands.vkDestroyImage(context.device, image, nil)
            }
        }
        // With linear tiling the driver lays the rows out; the memory is bound at the plane's
        // offset. With a modifier the offset is in the plane layout and the memory starts at 0.
        var memoryOffset = 0
        var requirements = VkMemoryRequirements()
        context.commands.vkGetImageMemoryRequirements(context.device, image, &requirements)
        if tiling == .linear {
            var subresource = VkImageSubresource(aspectMask: VkImageAspectFlags(VK_IMAGE_ASPECT_COLOR_BIT.rawValue), mipLevel: 0, arrayLayer: 0)
            var rows = VkSubresourceLayout()
            context.commands.vkGetImageSubresourceLayout(context.device, image, &subresource, &rows)
            memoryOffset = layout.offset
            guard rows.offset == 0, rows.rowPitch == VkDeviceSize(layout.stride),
                memoryOffset % Int(max(requirements.alignment, 1)) == 0, !support.needsDedicatedMemory || memoryOffset == 0
            else { return nil }
        }
        guard VkDeviceSize(memoryOffset) + requirements.size <= VkDeviceSize(size) else { return nil }
        var fdProperties = VkMemoryFdPropertiesKHR()
        fdProperties.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR
        try check(
            getProperties(context.device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, layout.fileDescriptor, &fdProperties),
            "vkGetMemoryFdPropertiesKHR")
        guard let type = try? context.memoryTypeIndex(bits: requirements.memoryTypeBits & fdProperties.memoryTypeBits, properties: 0)
        else { return nil }
        bound = try context.importDmabufMemory(
            layout.fileDescriptor, size: size, memoryTypeIndex: type, dedicatedTo: support.needsDedicatedMemory ? image : nil)
        try check(context.commands.vkBindImageMemory(context.device, image, bound, VkDeviceSize(memoryOffset)), "vkBindImageMemory (dma-buf)")
        view = try makeView(of: image, format: format, opaque: opaque, context: context)
        return GPUImage(
            context: context, handle: image, view: view!, memory: bound!, width: layout.width, height: layout.height, format: format,
            opaque: opaque)
    }
}
