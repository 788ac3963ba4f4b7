internal import CVulkan
import Foundation
import LayerKit

/// A real user of `VulkanLayer`: each frame clears a drawable to a colour that cycles with time
/// and draws a turning triangle over it (Shaders/pattern.vert and pattern.frag) with a pipeline
/// of its own, then presents it. The kiosk's own animated content could be drawn this way.
public final class AnimatedPatternRenderer {
    private let layer: VulkanLayer
    private let device: VkDevice
    private let commands: VulkanDeviceCommands
    private let layout: VkPipelineLayout
    private let vertexModule: VkShaderModule
    private let fragmentModule: VkShaderModule
    /// One pipeline per drawable format, made on first use.
    private var pipelines: [VulkanDrawablePixelFormat: VkPipeline] = [:]

    public init(layer: VulkanLayer) throws {
        self.layer = layer
        let context = layer.queue.context
        (device, commands) = (context.device, context.commands)
        var range = VkPushConstantRange(
            stageFlags: VkShaderStageFlags(VK_SHADER_STAGE_VERTEX_BIT.rawValue), offset: 0, size: 8)
        var info = VkPipelineLayoutCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO
        info.pushConstantRangeCount = 1
        var layout: VkPipelineLayout?
        try withUnsafePointer(to: &range) { range in
            info.pPushConstantRanges = range
            try check(context.commands.vkCreatePipelineLayout(context.device, &info, nil, &layout), "vkCreatePipelineLayout")
        }
        self.layout = layout!
        vertexModule = try LayerPipeline.makeShaderModule(context: context, code: ShaderLibrary.patternVertex)
        fragmentModule = try LayerPipeline.makeShaderModule(context: context, code: ShaderLibrary.patternFragment)
    }

    deinit {
        // Submissions still running use the pipelines.
        try? layer.queue.timeline.wait(for: layer.queue.timeline.lastSubmittedValue)
        for pipeline in pipelines.values { commands.vkDestroyPipeline(device, pipeline, nil) }
        commands.vkDestroyShaderModule(device, fragmentModule, nil)
        commands.vkDestroyShaderModule(device, vertexModule, nil)
        commands.vkDestroyPipelineLayout(device, layout, nil)
    }

    /// The clear colour at `time` seconds: red, green and blue each swing between 0 and 1 once
    /// every 2π seconds, a third of a turn apart.
    public static func clearColor(at time: Double) -> (red: Double, green: Double, blue: Double) {
        func channel(_ phase: Double) -> Double { 0.5 + 0.5 * sin(time + phase) }
        return (channel(0), channel(2 * Double.pi / 3), channel(4 * Double.pi / 3))
    }

    /// Renders the pattern of `time` seconds (clear colour as `clearColor(at:)`, the triangle
    /// turned by `time` radians) into the layer's next drawable and presents it. False when no
    /// drawable came free.
    @discardableResult
    public func renderFrame(at time: Double) throws -> Bool {
        try renderFrame(clearColor: Self.clearColor(at: time), angle: time)
    }

    /// Renders one frame over `clearColor` (opaque sRGB components) with the triangle turned by
    /// `angle` radians, or no triangle when `angle` is nil, and presents it. False when no
    /// drawable came free.
    @discardableResult
    public func renderFrame(clearColor: (red: Double, green: Double, blue: Double), angle: Double?) throws -> Bool {
        guard let drawable = try layer.nextDrawable() else { return false }
        let pipeline = try pipeline(for: drawable.pixelFormat)
        try drawable.encode { encoder in
            let commandBuffer: VkCommandBuffer = encoder.commandBuffer
            var attachment = VkRenderingAttachmentInfo()
            attachment.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO
            attachment.imageView = encoder.imageView
            attachment.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL
            attachment.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR
            attachment.storeOp = VK_ATTACHMENT_STORE_OP_STORE
            attachment.clearValue = VkClearValue(
                color: VkClearColorValue(
                    float32: (Float(clearColor.red), Float(clearColor.green), Float(clearColor.blue), 1)))
            let extent = VkExtent2D(width: UInt32(encoder.width), height: UInt32(encoder.height))
            withUnsafePointer(to: &attachment) { attachment in
                var rendering = VkRenderingInfo()
                rendering.sType = VK_STRUCTURE_TYPE_RENDERING_INFO
                rendering.renderArea = VkRect2D(offset: VkOffset2D(x: 0, y: 0), extent: extent)
                rendering.layerCount = 1
                rendering.colorAttachmentCount = 1
                rendering.pColorAttachments = attachment
                commands.vkCmdBeginRendering(commandBuffer, &rendering)
            }
            if let angle {
                var viewport = VkViewport(
                    x: 0, y: 0, width: Float(encoder.width), height: Float(encoder.height), minDepth: 0, maxDepth: 1)
                commands.vkCmdSetViewport(commandBuffer, 0, 1, &viewport)
                var scissor = VkRect2D(offset: VkOffset2D(x: 0, y: 0), extent: extent)
                commands.vkCmdSetScissor(commandBuffer, 0, 1, &scissor)
                commands.vkCmdBindPipeline(commandBuffer, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline)
                var constants: (Float, Float) = (Float(angle), Float(encoder.width) / Float(encoder.height))
                commands.vkCmdPushConstants(
                    commandBuffer, layout, VkShaderStageFlags(VK_SHADER_STAGE_VERTEX_BIT.rawValue), 0, 8, &constants)
                commands.vkCmdDraw(commandBuffer, 3, 1, 0, 0)
            }
            commands.vkCmdEndRendering(commandBuffer)
        }
        drawable.present()
        return true
    }

    private func pipeline(for format: VulkanDrawablePixelFormat) throws -> VkPipeline {
        if let pipeline = pipelines[format] { return pipeline }
        // The triangle is opaque: it replaces the clear colour.
        let made = try makeGraphicsPipeline(
            device: device, commands: commands, cache: nil, layout: layout, vertexModule: vertexModule, fragmentModule: fragmentModule,
            colorFormat: format.vulkanFormat, blend: .replace)
        pipelines[format] = made
        return made
    }
}
