internal import CVulkan
import Dispatch

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
                if let cache { vkDestroyPipelineCache(device, cache, nil) }
                if let fragmentModule { vkDestroyShaderModule(device, fragmentModule, nil) }
                if let vertexModule { vkDestroyShaderModule(device, vertexModule, nil) }
                if let layout { vkDestroyPipelineLayout(device, layout, nil) }
                if let setLayout { vkDestroyDescriptorSetLayout(device, setLayout, nil) }
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
            try check(vkCreateDescriptorSetLayout(device, &setInfo, nil, &setLayout), "vkCreateDescriptorSetLayout")

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
            try check(vkCreatePipelineLayout(device, &layoutInfo, nil, &layout), "vkCreatePipelineLayout")
        }

        vertexModule = try Self.makeShaderModule(device: device, code: vertexSPIRV)
        fragmentModule = try Self.makeShaderModule(device: device, code: fragmentSPIRV)
        var cacheInfo = VkPipelineCacheCreateInfo()
        cacheInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO
        try check(vkCreatePipelineCache(device, &cacheInfo, nil, &cache), "vkCreatePipelineCache")

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
        for pipeline in variants.values { vkDestroyPipeline(context.device, pipeline, nil) }
        vkDestroyPipelineCache(context.device, cache, nil)
        vkDestroyShaderModule(context.device, fragmentModule, nil)
        vkDestroyShaderModule(context.device, vertexModule, nil)
        vkDestroyPipelineLayout(context.device, layout, nil)
        vkDestroyDescriptorSetLayout(context.device, setLayout, nil)
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
        nonisolated(unsafe) let layout = layout, cache = cache
        nonisolated(unsafe) let vertexModule = vertexModule, fragmentModule = fragmentModule
        let results = UnsafeMutableBufferPointer<Result<VkPipeline, any Error>?>.allocate(capacity: work.count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        nonisolated(unsafe) let slots = results
        DispatchQueue.concurrentPerform(iterations: work.count) { index in
            slots[index] = Result {
                try Self.makePipeline(
                    device: device, layout: layout, cache: cache, vertexModule: vertexModule,
                    fragmentModule: fragmentModule, constants: work[index])
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
        let made = try Self.makePipeline(
            device: context.device, layout: layout, cache: cache, vertexModule: vertexModule,
            fragmentModule: fragmentModule, constants: constants)
        variants[constants] = made
        return made
    }

    static func makeShaderModule(device: VkDevice, code: [UInt32]) throws -> VkShaderModule {
        precondition(!code.isEmpty, "empty SPIR-V")
        return try code.withUnsafeBufferPointer { code in
            var info = VkShaderModuleCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
            info.codeSize = code.count * MemoryLayout<UInt32>.size
            info.pCode = code.baseAddress
            var module: VkShaderModule?
            try check(vkCreateShaderModule(device, &info, nil, &module), "vkCreateShaderModule")
            return module!
        }
    }

    private static func makePipeline(
        device: VkDevice, layout: VkPipelineLayout, cache: VkPipelineCache, vertexModule: VkShaderModule,
        fragmentModule: VkShaderModule, constants: [UInt32]
    ) throws -> VkPipeline {
        try withCallArena { arena in
            // Constant i is the i-th 4-byte word of the data.
            let entries = constants.indices.map { i in
                VkSpecializationMapEntry(constantID: UInt32(i), offset: UInt32(i * 4), size: 4)
            }
            var specialization = VkSpecializationInfo()
            specialization.mapEntryCount = UInt32(entries.count)
            specialization.pMapEntries = UnsafePointer(arena.pointer(to: entries))
            specialization.dataSize = constants.count * 4
            specialization.pData = UnsafeRawPointer(arena.pointer(to: constants))
            let specializationPointer = constants.isEmpty ? nil : UnsafePointer(arena.pointer(to: specialization))
            let stages = [(VK_SHADER_STAGE_VERTEX_BIT, vertexModule), (VK_SHADER_STAGE_FRAGMENT_BIT, fragmentModule)]
                .map { stage, module in
                    var info = VkPipelineShaderStageCreateInfo()
                    info.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO
                    info.stage = stage
                    info.module = module
                    info.pName = arena.cString("main")
                    info.pSpecializationInfo = specializationPointer
                    return info
                }

            var vertexInput = VkPipelineVertexInputStateCreateInfo()
            vertexInput.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO

            var inputAssembly = VkPipelineInputAssemblyStateCreateInfo()
            inputAssembly.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO
            inputAssembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST

            // Counts only: the viewport and scissor themselves are dynamic.
            var viewport = VkPipelineViewportStateCreateInfo()
            viewport.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO
            viewport.viewportCount = 1
            viewport.scissorCount = 1

            var rasterization = VkPipelineRasterizationStateCreateInfo()
            rasterization.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO
            rasterization.polygonMode = VK_POLYGON_MODE_FILL
            // Layers flipped by their transforms show their back side unless the shader decides
            // otherwise (doubleSided), so the rasterizer culls nothing.
            rasterization.cullMode = VkCullModeFlags(VK_CULL_MODE_NONE.rawValue)
            rasterization.frontFace = VK_FRONT_FACE_CLOCKWISE
            rasterization.lineWidth = 1

            var multisample = VkPipelineMultisampleStateCreateInfo()
            multisample.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO
            multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT

            // Premultiplied "over": result = source + destination × (1 − source alpha), for alpha too.
            var blendAttachment = VkPipelineColorBlendAttachmentState()
            blendAttachment.blendEnable = VkBool32(VK_TRUE)
            blendAttachment.srcColorBlendFactor = VK_BLEND_FACTOR_ONE
            blendAttachment.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA
            blendAttachment.colorBlendOp = VK_BLEND_OP_ADD
            blendAttachment.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE
            blendAttachment.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA
            blendAttachment.alphaBlendOp = VK_BLEND_OP_ADD
            blendAttachment.colorWriteMask = VkColorComponentFlags(
                VK_COLOR_COMPONENT_R_BIT.rawValue | VK_COLOR_COMPONENT_G_BIT.rawValue
                    | VK_COLOR_COMPONENT_B_BIT.rawValue | VK_COLOR_COMPONENT_A_BIT.rawValue)
            var blend = VkPipelineColorBlendStateCreateInfo()
            blend.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO
            blend.attachmentCount = 1
            blend.pAttachments = UnsafePointer(arena.pointer(to: blendAttachment))

            let dynamicStates = [VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR]
            var dynamic = VkPipelineDynamicStateCreateInfo()
            dynamic.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO
            dynamic.dynamicStateCount = UInt32(dynamicStates.count)
            dynamic.pDynamicStates = UnsafePointer(arena.pointer(to: dynamicStates))

            var rendering = VkPipelineRenderingCreateInfo()
            rendering.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO
            rendering.colorAttachmentCount = 1
            rendering.pColorAttachmentFormats = UnsafePointer(arena.pointer(to: GPUImage.format))

            var info = VkGraphicsPipelineCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO
            info.pNext = UnsafeRawPointer(arena.pointer(to: rendering))
            info.stageCount = UInt32(stages.count)
            info.pStages = UnsafePointer(arena.pointer(to: stages))
            info.pVertexInputState = UnsafePointer(arena.pointer(to: vertexInput))
            info.pInputAssemblyState = UnsafePointer(arena.pointer(to: inputAssembly))
            info.pViewportState = UnsafePointer(arena.pointer(to: viewport))
            info.pRasterizationState = UnsafePointer(arena.pointer(to: rasterization))
            info.pMultisampleState = UnsafePointer(arena.pointer(to: multisample))
            info.pColorBlendState = UnsafePointer(arena.pointer(to: blend))
            info.pDynamicState = UnsafePointer(arena.pointer(to: dynamic))
            info.layout = layout
            var pipeline: VkPipeline?
            try check(vkCreateGraphicsPipelines(device, cache, 1, &info, nil, &pipeline), "vkCreateGraphicsPipelines")
            return pipeline!
        }
    }
}
