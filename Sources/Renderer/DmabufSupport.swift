internal import CVulkan

/// A DRM pixel format and layout modifier that the renderer's device can import from a dma-buf
/// and sample.
public struct DmabufImportFormat: Hashable, Sendable {
    /// The DRM fourcc code (drm_fourcc.h), e.g. 0x34325241 for ARGB8888.
    public let fourcc: UInt32
    public let modifier: UInt64
    /// How many memory planes a buffer of this pair has (a modifier may add metadata planes).
    public let planeCount: Int
}

/// A DRM render node's device number.
public struct RenderNode: Hashable, Sendable, CustomStringConvertible {
    public let major: UInt32
    public let minor: UInt32

    public var description: String { "\(major):\(minor)" }
}

/// Why the renderer cannot import client dma-bufs.
public enum DmabufUnsupportedReason: Hashable, Sendable, CustomStringConvertible {
    /// The device lacks these Vulkan extensions (lavapipe lacks the last three).
    case missingExtensions([String])
    /// The device does not say which DRM render node it is, so clients cannot be told where to allocate.
    case noRenderNode
    /// None of the formats the renderer samples can be imported with any modifier.
    case noImportableFormat

    public var description: String {
        switch self {
        case .missingExtensions(let names):
            return "dma-buf import needs Vulkan extensions the device lacks: " + names.joined(separator: ", ")
        case .noRenderNode:
            return "the Vulkan device reports no DRM render node"
        case .noImportableFormat:
            return "the Vulkan device can import none of ARGB8888, XRGB8888, ABGR8888, XBGR8888 from a dma-buf"
        }
    }
}

/// Whether the renderer can import client dma-bufs, and what: the compositor advertises
/// zwp_linux_dmabuf_v1 with exactly these formats and this render node, and only when supported.
public enum DmabufSupport: Hashable, Sendable, CustomStringConvertible {
    case supported(renderNode: RenderNode, formats: [DmabufImportFormat])
    case unsupported(DmabufUnsupportedReason)

    public var description: String {
        switch self {
        case .supported(let node, let formats):
            return "dma-buf import on render node \(node): \(formats.count) format/modifier pair(s)"
        case .unsupported(let reason):
            return "no dma-buf import: \(reason)"
        }
    }
}

/// The DRM formats the renderer samples (those of its shm path), with the Vulkan format whose
/// memory layout each one has. DRM codes name the channels of a little-endian 32-bit word, so
/// ARGB8888 is the bytes B, G, R, A: `VK_FORMAT_B8G8R8A8_UNORM`. The X formats read as their A
/// twins; the alpha byte must be ignored when sampling them.
enum DmabufSampledFormat: UInt32, CaseIterable {
    case argb8888 = 0x3432_5241  // "AR24"
    case xrgb8888 = 0x3432_5258  // "XR24"
    case abgr8888 = 0x3432_4241  // "AB24"
    case xbgr8888 = 0x3432_4258  // "XB24"

    var vulkanFormat: VkFormat {
        switch self {
        case .argb8888, .xrgb8888: VK_FORMAT_B8G8R8A8_UNORM
        case .abgr8888, .xbgr8888: VK_FORMAT_R8G8B8A8_UNORM
        }
    }
}

extension VulkanContext {
    /// What dma-buf import needs: fd memory import, of dma-buf handles, with explicit layouts
    /// (modifiers), and the device's render node for the feedback main device.
    static let dmabufRequiredExtensions = [
        "VK_KHR_external_memory_fd", "VK_EXT_external_memory_dma_buf", "VK_EXT_image_drm_format_modifier",
        "VK_EXT_physical_device_drm",
    ]

    /// Asks the device honestly: the extensions, its render node, then for each sampled format the
    /// modifiers it can sample and import from a dma-buf. (`init` enables the first three whenever
    /// the device has them; the fourth only adds a property query and needs no enabling.)
    func dmabufSupport() throws -> DmabufSupport {
        let properties: [VkExtensionProperties] = try enumerate("vkEnumerateDeviceExtensionProperties") {
            vkEnumerateDeviceExtensionProperties(physicalDevice, nil, $0, $1)
        }
        let available = Set(properties.map { string(fromCArray: $0.extensionName) })
        let missing = Self.dmabufRequiredExtensions.filter { !available.contains($0) }
        guard missing.isEmpty else { return .unsupported(.missingExtensions(missing)) }
        guard let node = drmRenderNode() else { return .unsupported(.noRenderNode) }
        let sampled = VkFormatFeatureFlags(VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT.rawValue)
        var formats: [DmabufImportFormat] = []
        for format in DmabufSampledFormat.allCases {
            for candidate in modifiers(of: format.vulkanFormat) where candidate.drmFormatModifierTilingFeatures & sampled != 0 {
                guard try canImport(format.vulkanFormat, modifier: candidate.drmFormatModifier) else { continue }
                formats.append(DmabufImportFormat(
                    fourcc: format.rawValue, modifier: candidate.drmFormatModifier,
                    planeCount: Int(candidate.drmFormatModifierPlaneCount)))
            }
        }
        guard !formats.isEmpty else { return .unsupported(.noImportableFormat) }
        return .supported(renderNode: node, formats: formats)
    }

    /// The render node `VK_EXT_physical_device_drm` reports, if the device has one.
    private func drmRenderNode() -> RenderNode? {
        withCallArena { arena in
            var drm = VkPhysicalDeviceDrmPropertiesEXT()
            drm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRM_PROPERTIES_EXT
            let drmPointer = arena.pointer(to: drm)
            var properties = VkPhysicalDeviceProperties2()
            properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
            properties.pNext = UnsafeMutableRawPointer(drmPointer)
            vkGetPhysicalDeviceProperties2(physicalDevice, &properties)
            let result = drmPointer.pointee
            guard result.hasRender == VkBool32(VK_TRUE) else { return nil }
            return RenderNode(major: UInt32(result.renderMajor), minor: UInt32(result.renderMinor))
        }
    }

    /// The modifiers the device offers for `format` (Vulkan's two calls: count, then the list).
    private func modifiers(of format: VkFormat) -> [VkDrmFormatModifierPropertiesEXT] {
        withCallArena { arena in
            var list = VkDrmFormatModifierPropertiesListEXT()
            list.sType = VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_EXT
            let listPointer = arena.pointer(to: list)
            var properties = VkFormatProperties2()
            properties.sType = VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2
            properties.pNext = UnsafeMutableRawPointer(listPointer)
            vkGetPhysicalDeviceFormatProperties2(physicalDevice, format, &properties)
            let count = Int(listPointer.pointee.drmFormatModifierCount)
            guard count > 0,
                let entries = arena.pointer(to: [VkDrmFormatModifierPropertiesEXT](repeating: .init(), count: count))
            else { return [] }
            listPointer.pointee.pDrmFormatModifierProperties = entries
            vkGetPhysicalDeviceFormatProperties2(physicalDevice, format, &properties)
            return Array(UnsafeBufferPointer(start: entries, count: Int(listPointer.pointee.drmFormatModifierCount)))
        }
    }

    /// Whether a sampled 2D image of `format` with `modifier` can be bound to imported dma-buf memory.
    private func canImport(_ format: VkFormat, modifier: UInt64) throws -> Bool {
        try withCallArena { arena in
            var modifierInfo = VkPhysicalDeviceImageDrmFormatModifierInfoEXT()
            modifierInfo.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_DRM_FORMAT_MODIFIER_INFO_EXT
            modifierInfo.drmFormatModifier = modifier
            modifierInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE
            var externalInfo = VkPhysicalDeviceExternalImageFormatInfo()
            externalInfo.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO
            externalInfo.pNext = UnsafeRawPointer(arena.pointer(to: modifierInfo))
            externalInfo.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
            var info = VkPhysicalDeviceImageFormatInfo2()
            info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2
            info.pNext = UnsafeRawPointer(arena.pointer(to: externalInfo))
            info.format = format
            info.type = VK_IMAGE_TYPE_2D
            info.tiling = VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT
            info.usage = VkImageUsageFlags(VK_IMAGE_USAGE_SAMPLED_BIT.rawValue)

            var external = VkExternalImageFormatProperties()
            external.sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES
            let externalPointer = arena.pointer(to: external)
            var properties = VkImageFormatProperties2()
            properties.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2
            properties.pNext = UnsafeMutableRawPointer(externalPointer)
            let result = vkGetPhysicalDeviceImageFormatProperties2(physicalDevice, &info, &properties)
            if result == VK_ERROR_FORMAT_NOT_SUPPORTED { return false }
            try check(result, "vkGetPhysicalDeviceImageFormatProperties2")
            let features = externalPointer.pointee.externalMemoryProperties.externalMemoryFeatures
            return features & VkExternalMemoryFeatureFlags(VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT.rawValue) != 0
        }
    }
}
