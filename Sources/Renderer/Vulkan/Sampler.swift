internal import CVulkan

/// How a layer's contents are filtered (Core Animation's `minificationFilter`/`magnificationFilter`).
enum SamplerKind: Sendable, Hashable {
    case linear
    case nearest
}

/// A sampler that clamps to the edge, because Core Animation extends a contents image's edge
/// pixels rather than repeating or fading them.
final class Sampler {
    let context: VulkanContext
    let handle: VkSampler

    init(context: VulkanContext, kind: SamplerKind) throws {
        let filter = kind == .linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST
        var info = VkSamplerCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO
        info.magFilter = filter
        info.minFilter = filter
        info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST
        info.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
        info.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
        info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
        info.maxLod = 0
        var sampler: VkSampler?
        try check(context.commands.vkCreateSampler(context.device, &info, nil, &sampler), "vkCreateSampler")
        self.context = context
        handle = sampler!
    }

    deinit {
        context.commands.vkDestroySampler(context.device, handle, nil)
    }
}
