internal import CVulkan

/// The graphics pipelines layer draws use: one per set of specialization constants, made on first
/// use and kept (shaders specialized to what a draw needs run far faster on CPU drivers).
///
/// Resources come through one push-descriptor set, so a draw needs no descriptor pool:
/// binding 0 is the frame's storage buffer (vertex and fragment), bindings 1 and 2 are combined
/// image samplers (fragment): the layer's contents and a second texture for masks and
/// cross-fades. Push constants of `pushConstantSize` bytes reach both stages. There is no vertex
/// input (the vertex shader builds its quad from `gl_VertexIndex`), no culling, viewport and
/// scissor are dynamic, and blending is premultiplied-alpha "over" into one B8G8R8A8_UNORM
/// attachment rendered with dynamic rendering.
final class LayerPipeline {
    let context: VulkanContext
    let layout: VkPipelineLayout
    let setLayout: VkDescriptorSetLayout
    let pushConstantSize: Int
    private let vertexModule: VkShaderModule
    private let fragmentModule: VkShaderModule
    /// Lets variants share what the driver already compiled.
    private let cache: VkPipelineCache
    /// Pipelines by the values of specialization constants 0, 1, … (both stages).
    private var variants: [[UInt32]: VkPipeline] = [:]

    static let pushConstantStages = VkShaderStageFlags(
        VK_SHADER_STAGE_VERTEX_BIT.rawValue | VK_SHADER_STAGE_FRAGMENT_BIT.rawValue)

    init(context: VulkanContext, vertexSPIRV: [UInt32], fragmentSPIRV: [UInt32], pushConstantSize: Int) throws {
        precondition(
            pushConstantSize >= 0 && pushConstantSize % 4 == 0
                && pushConstantSize <= context.limits.maxPushConstantsSize,
            "push constants must be a multiple of 4 bytes and at most maxPushConstantsSize (\(context.limits.maxPushConstantsSize))"
        )
        let device = context.device
        var setLayout: VkDescriptorSetLayout?
        var layout: VkPipelineLayout?
        var vertexModule: VkShaderModule?
        var fragmentModule: VkShaderModule?
        var cache: VkPipelineCache?
        var succeeded = false
        defer {
            if !succeeded {
                if let cache { context.commands.vkDestroyPipelineCache(device, cache, nil) }
                if let fragmentModule { context.commands.vkDestroyShaderModule(device, fragmentModule, nil) }
                if let vertexModule { context.commands.vkDestroyShaderModule(device, vertexModule, nil) }
                if let layout { context.commands.vkDestroyPipelineLayout(device, layout, nil) }
                if let setLayout { context.commands.vkDestroyDescriptorSetLayout(device, setLayout, nil) }
            }
        }

        let fragmentStage = VkShaderStageFlags(VK_SHADER_STAGE_FRAGMENT_BIT.rawValue)
        try withCallArena { arena in
            let bindings = [
                VkDescriptorSetLayoutBinding(
                    binding: 0, descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: 1,
                    stageFlags: Self.pushConstantStages, pImmutableSamplers: nil),
                VkDescriptorSetLayoutBinding(
                    binding: 1, descriptorType: VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, descriptorCount: 1,
                    stageFlags: fragmentStage, pImmutableSamplers: nil),
                VkDescriptorSetLayoutBinding(
                    binding: 2, descriptorType: VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, descriptorCount: 1,
                    stageFlags: fragmentStage, pImmutableSamplers: nil),
            ]
            var setInfo = VkDescriptorSetLayoutCreateInfo()
            setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
            setInfo.flags = VkDescriptorSetLayoutCreateFlags(
                VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR.rawValue)
            setInfo.bindingCount = UInt32(bindings.count)
            setInfo.pBindings = UnsafePointer(arena.pointer(to: bindings))
            try check(context.commands.vkCreateDescriptorSetLayout(device, &setInfo, nil, &setLayout), "vkCreateDescriptorSetLayout")

            var layoutInfo = VkPipelineLayoutCreateInfo()
            layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO
            layoutInfo.setLayoutCount = 1
            layoutInfo.pSetLayouts = UnsafePointer(arena.pointer(to: [setLayout]))
            if pushConstantSize > 0 {
                layoutInfo.pushConstantRangeCount = 1
                layoutInfo.pPushConstantRanges = UnsafePointer(
                    arena.pointer(
                        to: VkPushConstantRange(
                            stageFlags: Self.pushConstantStages, offset: 0, size: UInt32(pushConstantSize))))
            }
            try check(context.commands.vkCreatePipelineLayout(device, &layoutInfo, nil, &layout), "vkCreatePipelineLayout")
        }

        vertexModule = try Self.makeShaderModule(context: context, code: vertexSPIRV)
        fragmentModule = try Self.makeShaderModule(context: context, code: fragmentSPIRV)
        var cacheInfo = VkPipelineCacheCreateInfo()
        cacheInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO
        try check(context.commands.vkCreatePipelineCache(device, &cacheInfo, nil, &cache), "vkCreatePipelineCache")

        self.context = context
        self.layout = layout!
        self.setLayout = setLayout!
        self.vertexModule = vertexModule!
        self.fragmentModule = fragmentModule!
        self.cache = cache!
        self.pushConstantSize = pushConstantSize
        succeeded = true
    }

    deinit {
        for pipeline in variants.values { context.commands.vkDestroyPipeline(context.device, pipeline, nil) }
        context.commands.vkDestroyPipelineCache(context.device, cache, nil)
        context.commands.vkDestroyShaderModule(context.device, fragmentModule, nil)
        context.commands.vkDestroyShaderModule(context.device, vertexModule, nil)
        context.commands.vkDestroyPipelineLayout(context.device, layout, nil)
        context.commands.vkDestroyDescriptorSetLayout(context.device, setLayout, nil)
    }

    /// Compiles the variants among `wanted` not compiled yet, side by side on the CPU's cores:
    /// a frame needing several new ones (the first frame, above all) waits for the slowest rather
    /// than for their sum.
    func prepare(_ wanted: Set<[UInt32]>) throws {
        let missing = wanted.filter { variants[$0] == nil }
        guard missing.count > 1 else {
            for constants in missing { _ = try pipeline(specializedWith: constants) }
            return
        }
        let work = Array(missing)
        // Vulkan allows pipelines of one device and one (internally synchronized) cache to be
        // created from several threads; each thread writes only its own slot.
        nonisolated(unsafe) let device = context.device
        let commands = context.commands
        nonisolated(unsafe) let layout = layout, cache = cache
        nonisolated(unsafe) let vertexModule = vertexModule, fragmentModule = fragmentModule
        let results = UnsafeMutableBufferPointer<Result<VkPipeline, any Error>?>.allocate(capacity: work.count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        nonisolated(unsafe) let slots = results
        WorkerThread.concurrentPerform(iterations: work.count) { index in
            slots[index] = Result {
                try makeGraphicsPipeline(
                    device: device, commands: commands, cache: cache, layout: layout, vertexModule: vertexModule,
                    fragmentModule: fragmentModule, constants: work[index], colorFormat: GPUImage.format,
                    blend: .premultipliedOver)
            }
        }
        var firstError: (any Error)?
        for (index, result) in results.enumerated() {
            switch result {
            case .success(let pipeline): variants[work[index]] = pipeline
            case .failure(let error): firstError = firstError ?? error
            case nil: break
            }
        }
        if let firstError { throw firstError }
    }

    /// The specialization constants of the variants made so far.
    var madeVariants: Set<[UInt32]> { Set(variants.keys) }

    /// The pipeline whose specialization constants 0, 1, … have `constants`' values (none: the
    /// shaders' defaults), compiled the first time it is asked for.
    func pipeline(specializedWith constants: [UInt32]) throws -> VkPipeline {
        if let pipeline = variants[constants] { return pipeline }
        let made = try makeGraphicsPipeline(
            device: context.device, commands: context.commands, cache: cache, layout: layout, vertexModule: vertexModule,
            fragmentModule: fragmentModule, constants: constants, colorFormat: GPUImage.format, blend: .premultipliedOver)
        variants[constants] = made
        return made
    }

    static func makeShaderModule(context: VulkanContext, code: [UInt32]) throws -> VkShaderModule {
        precondition(!code.isEmpty, "empty SPIR-V")
        return try code.withUnsafeBufferPointer { code in
            var info = VkShaderModuleCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
            info.codeSize = code.count * MemoryLayout<UInt32>.size
            info.pCode = code.baseAddress
            var module: VkShaderModule?
            try check(context.commands.vkCreateShaderModule(context.device, &info, nil, &module), "vkCreateShaderModule")
            return module!
        }
    }
}
