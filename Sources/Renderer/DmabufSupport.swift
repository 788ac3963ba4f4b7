import Buffers
internal import CVulkan

/// A DRM render node's device number.
public struct RenderNode: Hashable, Sendable, CustomStringConvertible {
    public let major: UInt32
    public let minor: UInt32

    public var description: String { "\(major):\(minor)" }
}

/// Why the renderer cannot import client dma-bufs.
public enum DmabufUnsupportedReason: Hashable, Sendable, CustomStringConvertible {
    /// The device lacks these Vulkan extensions (Mesa 22.3's lavapipe lacks the dma-buf one).
    case missingExtensions([String])
    /// The device cannot back a transfer-source buffer with dma-buf memory.
    case noImportableFormat

    public var description: String {
        switch self {
        case .missingExtensions(let names):
            return "dma-buf import needs Vulkan extensions the device lacks: " + names.joined(separator: ", ")
        case .noImportableFormat:
            return "the Vulkan device cannot read a buffer from dma-buf memory"
        }
    }
}

/// Whether the renderer can import client dma-bufs, and what: the compositor advertises
/// zwp_linux_dmabuf_v1 with exactly these formats, and only when supported. The render node is
/// the device's own where it reports one (a GPU; lavapipe has none).
public enum DmabufSupport: Hashable, Sendable, CustomStringConvertible {
    case supported(renderNode: RenderNode?, formats: [DmabufFormat])
    case unsupported(DmabufUnsupportedReason)

    public var description: String {
        switch self {
        case .supported(let node, let formats):
            let device = node.map { "render node \($0)" } ?? "a device without a render node"
            return "dma-buf import on \(device): \(formats.count) format/modifier pair(s)"
        case .unsupported(let reason):
            return "no dma-buf import: \(reason)"
        }
    }
}

extension PixelFormat {
    /// The formats the renderer samples from dma-bufs (those of its shm path).
    static let sampledFromDmabufs: [PixelFormat] = [.argb8888, .xrgb8888, .abgr8888, .xbgr8888]

    /// The Vulkan format whose memory layout this format has, among those the renderer samples.
    /// DRM codes name the channels of a little-endian word, so ARGB8888 is the bytes B, G, R, A:
    /// `VK_FORMAT_B8G8R8A8_UNORM`. The X formats read as their A twins; the alpha byte must be
    /// ignored when sampling them.
    var vulkanFormat: VkFormat? {
        switch self {
        case .argb8888, .xrgb8888: VK_FORMAT_B8G8R8A8_UNORM
        case .abgr8888, .xbgr8888: VK_FORMAT_R8G8B8A8_UNORM
        default: nil
        }
    }
}

extension VulkanContext {
    /// Asks the device honestly: the extensions, then whether a buffer can be bound to imported
    /// dma-buf memory, then which modifiers it samples (`importableModifiers(of:)`).
    func dmabufSupport() throws -> DmabufSupport {
        let properties: [VkExtensionProperties] = try enumerate("vkEnumerateDeviceExtensionProperties") {
            instanceCommands.vkEnumerateDeviceExtensionProperties(physicalDevice, nil, $0, $1)
        }
        let available = Set(properties.map { string(fromCArray: $0.extensionName) })
        let missing = Self.dmabufExtensions.filter { !available.contains($0) }
        guard missing.isEmpty else { return .unsupported(.missingExtensions(missing)) }
        guard canImportDmabufBuffers else { return .unsupported(.noImportableFormat) }
        let formats = PixelFormat.sampledFromDmabufs.flatMap { format in
            importableModifiers(of: format).map { DmabufFormat(format, modifier: $0) }
        }
        let node = available.contains("VK_EXT_physical_device_drm") ? drmRenderNode() : nil
        return .supported(renderNode: node, formats: formats)
    }

    /// The modifiers of `format` that client dma-bufs are imported with: linear, which every
    /// device that imports dma-buf memory reads (sampled in place where the driver's row pitch
    /// allows, copied otherwise), and each single-plane modifier the device samples from imported
    /// memory (`VK_EXT_image_drm_format_modifier`), read only in place.
    func importableModifiers(of format: PixelFormat) -> [UInt64] {
        guard let vulkanFormat = format.vulkanFormat else { return [] }
        let usage = DmabufImport.sampledUsage
        let tiled = drmFormatModifiers(of: vulkanFormat, usage: usage).filter {
            $0 != FormatModifier.linear && dmabufImageSupport(format: vulkanFormat, tiling: .modifier($0), usage: usage) != nil
        }
        return [FormatModifier.linear] + tiled
    }

    /// The single-plane modifiers of XRGB8888 that frames are copied into, as images over
    /// imported dma-buf memory with that modifier (`VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT`):
    /// the layouts a display's GBM buffers may take. Empty without `VK_EXT_image_drm_format_modifier`
    /// (linear buffers are written through a buffer import on every device).
    func renderTargetModifiers() -> [UInt64] {
        guard let vulkanFormat = PixelFormat.xrgb8888.vulkanFormat else { return [] }
        let usage = TiledTarget.usage
        return drmFormatModifiers(of: vulkanFormat, usage: usage).filter {
            dmabufImageSupport(format: vulkanFormat, tiling: .modifier($0), usage: usage) != nil
        }
    }

    /// Whether a transfer-source buffer can be bound to imported dma-buf memory.
    private var canImportDmabufBuffers: Bool {
        var info = VkPhysicalDeviceExternalBufferInfo()
        info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO
        info.usage = VkBufferUsageFlags(VK_BUFFER_USAGE_TRANSFER_SRC_BIT.rawValue)
        info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
        var properties = VkExternalBufferProperties()
        properties.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES
        instanceCommands.vkGetPhysicalDeviceExternalBufferProperties(physicalDevice, &info, &properties)
        let features = properties.externalMemoryProperties.externalMemoryFeatures
        return features & VkExternalMemoryFeatureFlags(VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT.rawValue) != 0
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
            instanceCommands.vkGetPhysicalDeviceProperties2(physicalDevice, &properties)
            let result = drmPointer.pointee
            guard result.hasRender == VkBool32(VK_TRUE) else { return nil }
            return RenderNode(major: UInt32(result.renderMajor), minor: UInt32(result.renderMinor))
        }
    }
}
