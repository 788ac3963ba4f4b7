internal import CVulkan

/// How a pipeline's one colour attachment takes a fragment.
enum AttachmentBlend {
    /// Premultiplied "over": result = source + destination × (1 − source alpha), for alpha too.
    case premultipliedOver
    /// The fragment replaces what is there.
    case replace
}

/// Makes the graphics pipelines Vitrine draws with, which share one shape: a vertex and a fragment
/// stage built from `main`, no vertex input (the vertex shader makes its triangles from
/// `gl_VertexIndex`), a triangle list, no culling (a layer turned over by its transform shows its
/// back unless the shader decides otherwise), dynamic viewport and scissor, one sample, and one
/// colour attachment of `colorFormat` drawn with dynamic rendering.
///
/// `constants` are specialization constants 0, 1, … for both stages (the i-th is the data's
/// i-th 4-byte word); none leaves the shaders' defaults.
func makeGraphicsPipeline(
    device: VkDevice, commands: VulkanDeviceCommands, cache: VkPipelineCache?, layout: VkPipelineLayout, vertexModule: VkShaderModule,
    fragmentModule: VkShaderModule, constants: [UInt32] = [], colorFormat: VkFormat, blend: AttachmentBlend
) throws -> VkPipeline {
    try withCallArena { arena in
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
        rasterization.cullMode = VkCullModeFlags(VK_CULL_MODE_NONE.rawValue)
        rasterization.frontFace = VK_FRONT_FACE_CLOCKWISE
        rasterization.lineWidth = 1

        var multisample = VkPipelineMultisampleStateCreateInfo()
        multisample.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO
        multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT

        var blendAttachment = VkPipelineColorBlendAttachmentState()
        if blend == .premultipliedOver {
            blendAttachment.blendEnable = VkBool32(VK_TRUE)
            blendAttachment.srcColorBlendFactor = VK_BLEND_FACTOR_ONE
            blendAttachment.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA
            blendAttachment.colorBlendOp = VK_BLEND_OP_ADD
            blendAttachment.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE
            blendAttachment.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA
            blendAttachment.alphaBlendOp = VK_BLEND_OP_ADD
        }
        blendAttachment.colorWriteMask = VkColorComponentFlags(
            VK_COLOR_COMPONENT_R_BIT.rawValue | VK_COLOR_COMPONENT_G_BIT.rawValue
                | VK_COLOR_COMPONENT_B_BIT.rawValue | VK_COLOR_COMPONENT_A_BIT.rawValue)
        var blendState = VkPipelineColorBlendStateCreateInfo()
        blendState.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO
        blendState.attachmentCount = 1
        blendState.pAttachments = UnsafePointer(arena.pointer(to: blendAttachment))

        let dynamicStates = [VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR]
        var dynamic = VkPipelineDynamicStateCreateInfo()
        dynamic.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO
        dynamic.dynamicStateCount = UInt32(dynamicStates.count)
        dynamic.pDynamicStates = UnsafePointer(arena.pointer(to: dynamicStates))

        var rendering = VkPipelineRenderingCreateInfo()
        rendering.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO
        rendering.colorAttachmentCount = 1
        rendering.pColorAttachmentFormats = UnsafePointer(arena.pointer(to: colorFormat))

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
        info.pColorBlendState = UnsafePointer(arena.pointer(to: blendState))
        info.pDynamicState = UnsafePointer(arena.pointer(to: dynamic))
        info.layout = layout
        var pipeline: VkPipeline?
        try check(commands.vkCreateGraphicsPipelines(device, cache, 1, &info, nil, &pipeline), "vkCreateGraphicsPipelines")
        return pipeline!
    }
}
