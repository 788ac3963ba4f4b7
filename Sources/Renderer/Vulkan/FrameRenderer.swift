internal import CVulkan
import SystemCalls
import RendererContract

/// One layer draw: a quad (or whatever the vertex shader makes of `vertexCount` vertices) with its
/// push constants, two textures and a sampler for both.
struct DrawCall {
    var vertexCount: UInt32 = 6
    /// Instances drawn, from the one the push constants name on.
    var instanceCount: UInt32 = 1
    /// The values of the shaders' specialization constants 0, 1, … for this draw (its pipeline).
    var specialization: [UInt32] = []
    /// At most the pipeline's `pushConstantSize` bytes, a multiple of 4; written at offset 0.
    var pushConstants: [UInt8]
    /// Binding 1: the layer's contents (the white texture for layers without).
    var texture: Texture
    /// Binding 2: a mask or the image being cross-faded from (the white texture when unused).
    var texture2: Texture
    var sampler: SamplerKind
    /// In target pixels; nil draws anywhere on the target. Parts outside the target are ignored,
    /// and a draw whose scissor misses the target is skipped.
    var scissor: (x: Int32, y: Int32, width: UInt32, height: UInt32)?
    /// When set, binding 1 samples this intermediate of the frame (rendered by an earlier pass)
    /// instead of `texture`.
    var sampledIntermediate: Int? = nil
    /// When set, binding 2 samples this intermediate instead of `texture2`.
    var sampledIntermediate2: Int? = nil
}

/// Where a frame goes instead of the target's readback buffer; only `region` of it is written.
struct HostCopy {
    enum Destination {
        /// Memory imported as a buffer (`ImportedBuffer`) that mirrors the target row for row,
        /// `bytesPerRow` apart: host memory, or a linear dma-buf.
        case buffer(ImportedBuffer, bytesPerRow: Int)
        /// A tiled dma-buf imported as an image in its own layout.
        case image(TiledTarget)
    }
    var destination: Destination
    var region: PixelRect
}

/// Records and submits frames of layer draws: the device, the frame ring, the pipeline (made on
/// first use from the SPIR-V given at init), samplers and the white texture.
final class FrameRenderer {
    let context: VulkanContext
    /// Opaque white, 1×1: the texture for layers without contents and for draws without a second
    /// texture.
    let whiteTexture: Texture
    private let ring: FrameRing
    private let linearSampler: Sampler
    private let nearestSampler: Sampler
    private let vertexSPIRV: [UInt32]
    private let fragmentSPIRV: [UInt32]
    private let pushConstantSize: Int
    private var pipeline: LayerPipeline?
    /// The pipeline being made on another thread (`preparePipeline(variants:)`).
    private var pipelineInProgress: PipelineInProgress?
    private let intermediatePool: IntermediatePool

    init(
        context: VulkanContext, vertexSPIRV: [UInt32], fragmentSPIRV: [UInt32], pushConstantSize: Int,
        framesInFlight: Int = 2
    ) throws {
        self.context = context
        self.vertexSPIRV = vertexSPIRV
        self.fragmentSPIRV = fragmentSPIRV
        self.pushConstantSize = pushConstantSize
        ring = try FrameRing(context: context, count: framesInFlight)
        linearSampler = try Sampler(context: context, kind: .linear)
        nearestSampler = try Sampler(context: context, kind: .nearest)
        whiteTexture = try Texture.white(context: context)
        intermediatePool = IntermediatePool(context: context)
    }

    /// Lets go of what finished frames kept alive (their textures, staging buffers, client
    /// buffers' imports), as the next submission would.
    func releaseFinishedFrames() throws {
        try ring.releaseFinishedFrames()
    }

    deinit {
        // The pipeline, samplers and white texture belong to this renderer rather than to the
        // frames, so frames still running must finish before they go.
        try? ring.timeline.wait(for: ring.timeline.lastSubmittedValue)
    }

    /// Starts making the pipeline, and its variants among `variants`, on another thread, so that
    /// the first frame that needs them does not wait for the driver's compiler (or waits only for
    /// what is left of its work). Does nothing once the pipeline exists or is being made.
    func preparePipeline(variants: Set<[UInt32]>) {
        guard pipeline == nil, pipelineInProgress == nil else { return }
        // Vulkan lets a device's objects be created on any thread; this thread touches nothing else.
        // It holds the context, and a renderer gone meanwhile waits for it.
        nonisolated(unsafe) let context = context
        let (vertexSPIRV, fragmentSPIRV, pushConstantSize) = (vertexSPIRV, fragmentSPIRV, pushConstantSize)
        pipelineInProgress = PipelineInProgress {
            let made = try LayerPipeline(
                context: context, vertexSPIRV: vertexSPIRV, fragmentSPIRV: fragmentSPIRV, pushConstantSize: pushConstantSize)
            try made.prepare(variants)
            return made
        }
    }

    /// The pipeline: made on first use (pipeline creation is the slow part of start-up, and a
    /// renderer that never draws should not pay for it), or taken from `preparePipeline`'s thread.
    func layerPipeline() throws -> LayerPipeline {
        if let pipeline { return pipeline }
        if let work = pipelineInProgress {
            pipelineInProgress = nil
            let made = try work.take()
            pipeline = made
            return made
        }
        let made = try LayerPipeline(
            context: context, vertexSPIRV: vertexSPIRV, fragmentSPIRV: fragmentSPIRV, pushConstantSize: pushConstantSize
        )
        pipeline = made
        return made
    }

    /// Renders `draws` into `target` over `clearColor` (premultiplied RGBA), or over what the target
    /// held after its last frame when `loadPrevious` (for redrawing only damaged regions; a target
    /// never rendered into is cleared regardless), and copies the result to the target's readback
    /// buffer. `instanceBytes` become storage buffer 0 for every draw. Returns once the frame is
    /// submitted; `target.readback()` waits for it.
    func renderFrame(
        into target: OffscreenTarget, clearColor: (Float, Float, Float, Float), instanceBytes: UnsafeRawBufferPointer,
        draws: [DrawCall], loadPrevious: Bool
    ) throws {
        try renderFrame(
            into: target, instanceBytes: instanceBytes, intermediates: [],
            passes: [RenderPass(destination: .target, clearColor: clearColor, draws: draws)], loadPrevious: loadPrevious)
    }

    /// Renders `passes` in order: each into the target or into one of `intermediates` (images of
    /// those sizes, taken from a pool and valid for this frame only), which later passes may
    /// sample. Exactly one pass, the last, renders into the target; `loadPrevious` applies to it
    /// as in `renderFrame(into:clearColor:instanceBytes:draws:loadPrevious:)`. An intermediate
    /// must be rendered before it is sampled, and a pass cannot sample its own destination.
    func renderFrame(
        into target: OffscreenTarget, instanceBytes: UnsafeRawBufferPointer, intermediates: [IntermediateSize],
        passes: [RenderPass], loadPrevious: Bool, readbackRegion: (x: Int32, y: Int32, width: UInt32, height: UInt32)? = nil,
        hostCopy: HostCopy? = nil
    ) throws {
        precondition(
            passes.last?.destination == .target && passes.dropLast().allSatisfy { $0.destination != .target },
            "a frame renders into its target exactly once, in its last pass")
        Self.checkIntermediateUse(passes, count: intermediates.count)
        let pipeline = try layerPipeline()
        try pipeline.prepare(Set(passes.flatMap { $0.draws.map(\.specialization) }))
        let images = try intermediatePool.images(for: intermediates)
        let slot = try ring.acquire()
        try slot.upload(instanceBytes)

        var textures: [Texture] = []
        var seen = Set<ObjectIdentifier>()
        for pass in passes {
            for draw in pass.draws {
                for texture in [draw.texture, draw.texture2] where seen.insert(ObjectIdentifier(texture)).inserted {
                    textures.append(texture)
                }
            }
        }

        let commandBuffer = slot.commandBuffer
        var begin = VkCommandBufferBeginInfo()
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        begin.flags = VkCommandBufferUsageFlags(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT.rawValue)
        try check(context.commands.vkBeginCommandBuffer(commandBuffer, &begin), "vkBeginCommandBuffer")

        Texture.recordUploads(
            textures, into: commandBuffer, commands: context.commands, queueFamily: context.queueFamilyIndex,
            externalFamily: context.externalQueueFamily)

        let load = loadPrevious && target.image.layout != VK_IMAGE_LAYOUT_UNDEFINED
        for pass in passes {
            switch pass.destination {
            case .target:
                // The previous frame's copy out of the image must finish before rendering overwrites
                // it; its rendering's writes were made available by the barrier before that copy.
                context.commands.pipelineBarrier(
                    commandBuffer,
                    images: [
                        target.image.barrier(
                            to: VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, discardContents: !load,
                            from: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_NONE),
                            to: (
                                VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT
                            ))
                    ])
                // A partial redraw renders within its region alone (its draws are scissored to it),
                // so that lavapipe bins and rasterizes only the tiles there.
                let area = load ? readbackRegion.map {
                    VkRect2D(offset: VkOffset2D(x: $0.x, y: $0.y), extent: VkExtent2D(width: $0.width, height: $0.height))
                } : nil
                try recordRendering(
                    pass.draws, pipeline: pipeline, slot: slot, destination: target.image, intermediates: images,
                    clearColor: pass.clearColor, load: load && !pass.clearsRedrawnArea, area: area)
            case .intermediate(let index):
                let image = images[index]
                // Every earlier read of the image (this frame's passes, or earlier frames' sharing the
                // pooled image) must finish before it is overwritten; its old pixels are not needed.
                context.commands.pipelineBarrier(
                    commandBuffer,
                    images: [
                        image.barrier(
                            to: VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, discardContents: true,
                            from: (VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_NONE),
                            to: (VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT))
                    ])
                try recordRendering(
                    pass.draws, pipeline: pipeline, slot: slot, destination: image, intermediates: images,
                    clearColor: pass.clearColor, load: false)
                // The pass's writes must be visible to the fragment shaders of later passes that sample it.
                var toSampled = image.barrier(
                    to: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                    from: (VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT),
                    to: (VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT))
                toSampled.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL
                context.commands.pipelineBarrier(commandBuffer, images: [toSampled])
            }
        }

        Texture.recordReleases(
            textures, into: commandBuffer, commands: context.commands, queueFamily: context.queueFamilyIndex,
            externalFamily: context.externalQueueFamily)
        switch hostCopy?.destination {
        case .buffer(let buffer, let bytesPerRow):
            recordCopy(of: target, region: hostCopy!.region, to: buffer.handle, rowPixels: bytesPerRow / 4, into: commandBuffer)
        case .image(let tiled):
            recordCopy(of: target, region: hostCopy!.region, to: tiled.image, into: commandBuffer)
        case nil:
            recordCopy(of: target, region: readbackRegion.map { PixelRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) },
                       to: target.readbackBuffer.handle,
                       rowPixels: target.width, into: commandBuffer)
        }
        try check(context.commands.vkEndCommandBuffer(commandBuffer), "vkEndCommandBuffer")

        var keptAlive: [AnyObject] = [target, pipeline]
        // A tiled destination stays with the frame, as the textures do.
        if case .image(let tiled) = hostCopy?.destination { keptAlive.append(tiled.image) }
        keptAlive.append(contentsOf: textures)
        keptAlive.append(contentsOf: textures.compactMap(\.pending?.resource))
        keptAlive.append(contentsOf: images)
        // Drawables' rendering must finish before this frame samples them.
        // A frame the GPU writes into its destination's memory itself may hand the display a fence.
        let readyPoints = textures.compactMap(\.readyPoint)
        let (point, fence): (TimelinePoint, OwnedFileDescriptor?) = hostCopy == nil
            ? (try ring.submit(slot, keepingAlive: keptAlive, waitingFor: readyPoints), nil)
            : try ring.submitExportingFence(slot, keepingAlive: keptAlive, waitingFor: readyPoints)
        // Only now, with the commands accepted, does the tracked state move on: a frame that failed
        // before submission leaves uploads pending and layouts as they were.
        for texture in textures {
            texture.uploadSubmitted()
            texture.lastReadPoint = point
        }
        for image in images { image.layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL }
        target.image.layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
        target.lastSubmission = point
        // The imported memory waits for this frame itself when it goes, rather than staying with the
        // ring: it is the caller's, to be released as soon as its target is.
        switch hostCopy?.destination {
        case .buffer(let buffer, _):
            buffer.lastUse = point
            buffer.renderFence = fence
        case .image(let tiled):
            // Handed back to the display, in the general layout (`recordCopy(of:region:to:into:)`).
            tiled.image.layout = VK_IMAGE_LAYOUT_GENERAL
            tiled.renderFence = fence
        case nil:
            break
        }
    }

    /// Sampling an intermediate no earlier pass rendered would read undefined pixels (and its own
    /// destination, a feedback loop): programming errors of the caller.
    private static func checkIntermediateUse(_ passes: [RenderPass], count: Int) {
        var rendered = Set<Int>()
        for pass in passes {
            for draw in pass.draws {
                for index in [draw.sampledIntermediate, draw.sampledIntermediate2].compactMap({ $0 }) {
                    precondition(rendered.contains(index), "a draw samples intermediate \(index) before a pass rendered it")
                    precondition(pass.destination != .intermediate(index), "a pass samples its own destination")
                }
            }
            if case .intermediate(let index) = pass.destination {
                precondition((0..<count).contains(index), "intermediate \(index) of \(count)")
                rendered.insert(index)
            }
        }
    }

    private func recordRendering(
        _ draws: [DrawCall], pipeline: LayerPipeline, slot: FrameRing.Slot, destination: GPUImage,
        intermediates: [GPUImage], clearColor: (Float, Float, Float, Float), load: Bool, area: VkRect2D? = nil
    ) throws {
        let commandBuffer = slot.commandBuffer
        let extent = VkExtent2D(width: UInt32(destination.width), height: UInt32(destination.height))
        var attachment = VkRenderingAttachmentInfo()
        attachment.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO
        attachment.imageView = destination.view
        attachment.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL
        attachment.loadOp = load ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR
        attachment.storeOp = VK_ATTACHMENT_STORE_OP_STORE
        attachment.clearValue = VkClearValue(color: VkClearColorValue(float32: clearColor))
        withUnsafePointer(to: &attachment) { attachment in
            var rendering = VkRenderingInfo()
            rendering.sType = VK_STRUCTURE_TYPE_RENDERING_INFO
            rendering.renderArea = area ?? VkRect2D(offset: VkOffset2D(x: 0, y: 0), extent: extent)
            rendering.layerCount = 1
            rendering.colorAttachmentCount = 1
            rendering.pColorAttachments = attachment
            context.commands.vkCmdBeginRendering(commandBuffer, &rendering)
        }

        if !draws.isEmpty {
            var viewport = VkViewport(
                x: 0, y: 0, width: Float(destination.width), height: Float(destination.height), minDepth: 0, maxDepth: 1)
            context.commands.vkCmdSetViewport(commandBuffer, 0, 1, &viewport)
        }
        var bound: [UInt32]?
        for draw in draws {
            guard var scissor = Self.scissor(of: draw, width: destination.width, height: destination.height) else {
                continue
            }
            if draw.specialization != bound {
                context.commands.vkCmdBindPipeline(
                    commandBuffer, VK_PIPELINE_BIND_POINT_GRAPHICS, try pipeline.pipeline(specializedWith: draw.specialization))
                bound = draw.specialization
            }
            context.commands.vkCmdSetScissor(commandBuffer, 0, 1, &scissor)
            pushDescriptors(
                for: draw, intermediates: intermediates, pipeline: pipeline, storage: slot.storage,
                commandBuffer: commandBuffer)
            precondition(
                draw.pushConstants.count <= pipeline.pushConstantSize && draw.pushConstants.count % 4 == 0,
                "\(draw.pushConstants.count) bytes of push constants for a pipeline with \(pipeline.pushConstantSize)")
            if !draw.pushConstants.isEmpty {
                draw.pushConstants.withUnsafeBytes { bytes in
                    context.commands.vkCmdPushConstants(
                        commandBuffer, pipeline.layout, LayerPipeline.pushConstantStages, 0, UInt32(bytes.count),
                        bytes.baseAddress)
                }
            }
            context.commands.vkCmdDraw(commandBuffer, draw.vertexCount, draw.instanceCount, 0, 0)
        }
        context.commands.vkCmdEndRendering(commandBuffer)
    }

    /// The draw's scissor clipped to the target, or nil when nothing of it is on the target.
    private static func scissor(of draw: DrawCall, width: Int, height: Int) -> VkRect2D? {
        guard let s = draw.scissor else {
            return VkRect2D(
                offset: VkOffset2D(x: 0, y: 0), extent: VkExtent2D(width: UInt32(width), height: UInt32(height)))
        }
        let left = max(Int(s.x), 0)
        let top = max(Int(s.y), 0)
        let right = min(Int(s.x) + Int(s.width), width)
        let bottom = min(Int(s.y) + Int(s.height), height)
        guard right > left, bottom > top else { return nil }
        return VkRect2D(
            offset: VkOffset2D(x: Int32(left), y: Int32(top)),
            extent: VkExtent2D(width: UInt32(right - left), height: UInt32(bottom - top)))
    }

    /// Pushes set 0: binding 0 the whole storage buffer, bindings 1 and 2 the draw's textures (or
    /// the intermediates it names) with its sampler.
    private func pushDescriptors(
        for draw: DrawCall, intermediates: [GPUImage], pipeline: LayerPipeline, storage: GPUBuffer,
        commandBuffer: VkCommandBuffer
    ) {
        let sampler = draw.sampler == .linear ? linearSampler : nearestSampler
        var bufferInfo = VkDescriptorBufferInfo(buffer: storage.handle, offset: 0, range: VkDeviceSize(VK_WHOLE_SIZE))
        let sampled = [
            draw.sampledIntermediate.map { intermediates[$0] } ?? draw.texture.image,
            draw.sampledIntermediate2.map { intermediates[$0] } ?? draw.texture2.image,
        ]
        var imageInfos = sampled.map {
            VkDescriptorImageInfo(
                sampler: sampler.handle, imageView: $0.view, imageLayout: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)
        }
        withUnsafePointer(to: &bufferInfo) { bufferInfo in
            imageInfos.withUnsafeMutableBufferPointer { imageInfos in
                var writes = [VkWriteDescriptorSet](repeating: VkWriteDescriptorSet(), count: 3)
                for binding in 0..<3 {
                    writes[binding].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
                    writes[binding].dstBinding = UInt32(binding)
                    writes[binding].descriptorCount = 1
                    if binding == 0 {
                        writes[binding].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                        writes[binding].pBufferInfo = bufferInfo
                    } else {
                        writes[binding].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                        writes[binding].pImageInfo = UnsafePointer(imageInfos.baseAddress! + (binding - 1))
                    }
                }
                context.cmdPushDescriptorSet(
                    commandBuffer, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.layout, 0, UInt32(writes.count), writes)
            }
        }
    }

    /// Moves the target to `TRANSFER_SRC_OPTIMAL` and copies `region` of it (all of it when nil)
    /// to the same pixels of `buffer`, whose rows are `rowPixels` pixels apart (the target's
    /// readback buffer, or imported host memory), made visible to the host once the frame's
    /// timeline value is reached. Nothing outside the region is written.
    private func recordCopy(
        of target: OffscreenTarget, region copied: PixelRect?, to buffer: VkBuffer, rowPixels: Int,
        into commandBuffer: VkCommandBuffer
    ) {
        var toTransfer = target.image.barrier(
            to: VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
            from: (VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT),
            to: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT))
        toTransfer.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL
        context.commands.pipelineBarrier(
            commandBuffer, images: [toTransfer],
            // An earlier frame's copy into the same buffer must land first (write after write).
            buffers: [
                bufferBarrier(
                    buffer, from: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT),
                    to: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT))
            ])
        var region = target.image.bufferCopyRegion
        if let copied {
            region.bufferOffset = VkDeviceSize((Int(copied.y) * rowPixels + Int(copied.x)) * 4)
            region.bufferRowLength = UInt32(rowPixels)
            region.imageOffset = VkOffset3D(x: copied.x, y: copied.y, z: 0)
            region.imageExtent = VkExtent3D(width: copied.width, height: copied.height, depth: 1)
        }
        context.commands.vkCmdCopyImageToBuffer(commandBuffer, target.image.handle, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1, &region)
        context.commands.pipelineBarrier(
            commandBuffer,
            buffers: [
                bufferBarrier(
                    buffer, from: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT),
                    to: (VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT))
            ])
    }
}

extension FrameRenderer {
    /// Moves the target to `TRANSFER_SRC_OPTIMAL` and copies `region` of it to the same pixels of
    /// `destination`, a display's tiled dma-buf: acquired from the display (the external queue
    /// family, in the general layout; undefined before its first frame), and handed back to it
    /// once written. Nothing outside the region is written.
    fileprivate func recordCopy(
        of target: OffscreenTarget, region: PixelRect, to destination: GPUImage, into commandBuffer: VkCommandBuffer
    ) {
        var toTransfer = target.image.barrier(
            to: VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
            from: (VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT),
            to: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT))
        toTransfer.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL
        var acquire = destination.barrier(
            to: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, from: (VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE),
            to: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT))
        acquire.srcQueueFamilyIndex = context.externalQueueFamily
        acquire.dstQueueFamilyIndex = context.queueFamilyIndex
        context.commands.pipelineBarrier(commandBuffer, images: [toTransfer, acquire])
        let layers = VkImageSubresourceLayers(
            aspectMask: VkImageAspectFlags(VK_IMAGE_ASPECT_COLOR_BIT.rawValue), mipLevel: 0, baseArrayLayer: 0, layerCount: 1)
        let offset = VkOffset3D(x: region.x, y: region.y, z: 0)
        var copy = VkImageCopy(
            srcSubresource: layers, srcOffset: offset, dstSubresource: layers, dstOffset: offset,
            extent: VkExtent3D(width: region.width, height: region.height, depth: 1))
        context.commands.vkCmdCopyImage(
            commandBuffer, target.image.handle, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, destination.handle,
            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy)
        var release = destination.barrier(
            to: VK_IMAGE_LAYOUT_GENERAL, from: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT),
            to: (VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE))
        release.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL
        release.srcQueueFamilyIndex = context.queueFamilyIndex
        release.dstQueueFamilyIndex = context.externalQueueFamily
        context.commands.pipelineBarrier(commandBuffer, images: [release])
    }
}

/// A pipeline made on a thread of its own, handed to the renderer's thread once done.
private final class PipelineInProgress: @unchecked Sendable {
    /// Written once by the making thread, read after it ended.
    private var result: Result<LayerPipeline, any Error>?
    private var thread: JoinableThread?

    init(_ make: @escaping @Sendable () throws -> LayerPipeline) {
        thread = JoinableThread(name: "vitrine-pipeline") { self.result = Result { try make() } }
    }

    /// Waits for the making thread to end; its error, if it failed.
    func take() throws -> LayerPipeline {
        thread?.join()
        return try result!.get()
    }
}
