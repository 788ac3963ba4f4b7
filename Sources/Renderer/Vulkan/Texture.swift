import Buffers
internal import CVulkan
import LayerKit

/// An `Image` or a client's buffer on the GPU, sampled by layer draws.
///
/// Pixels to upload are staged (or, for a client's dma-buf, found where they lie) when the
/// texture is made or updated; the first frame that draws the texture records the copy into the
/// image ahead of its draws, so uploads ride along with frames instead of each waiting for a
/// submission of its own.
final class Texture {
    let image: GPUImage
    /// The pixels still to be copied into `image`; nil once a submitted frame has copied them.
    private(set) var pending: PendingUpload?

    /// Where pixels still to be copied into a texture's image are, and which part of it they go to.
    enum PendingUpload {
        /// In a staging buffer of host memory.
        case staged(StagingBuffer, VkBufferImageCopy)
        /// In a client's dma-buf, read by the GPU where it lies: the memory is acquired from the
        /// external queue family for the copy and handed back after it.
        case dmabuf(DmabufImport, VkBufferImageCopy)

        var region: VkBufferImageCopy {
            switch self {
            case .staged(_, let region), .dmabuf(_, let region): region
            }
        }

        /// What the copy reads: kept alive by the frame that records it.
        var resource: AnyObject {
            switch self {
            case .staged(let staging, _): staging
            case .dmabuf(let source, _): source
            }
        }

        var buffer: VkBuffer {
            switch self {
            case .staged(let staging, _): staging.buffer.handle
            case .dmabuf(let source, _): source.memory!.handle
            }
        }
    }

    var width: Int { image.width }
    var height: Int { image.height }
    /// For a drawable's image (see `VulkanLayer`): the submission of the rendering into it, which
    /// a frame sampling it waits for on the GPU.
    var readyPoint: TimelinePoint?
    /// The last submitted frame that sampled the texture: its image may be written again once
    /// that frame is done.
    var lastReadPoint: TimelinePoint?

    /// A texture over an image that commands render into (a drawable's), with nothing to upload;
    /// whoever renders it leaves it in `SHADER_READ_ONLY_OPTIMAL` and sets `readyPoint`.
    init(rendered image: GPUImage) {
        self.image = image
        pending = nil
        isForeign = false
    }

    /// A texture over a client's dma-buf imported as an image (`GPUImage.importing`), sampled
    /// where it lies: nothing is ever uploaded. Its producer owns it between frames, so each frame
    /// that samples it acquires it from `VulkanContext.externalQueueFamily` and releases it back.
    init(inPlace image: GPUImage) {
        self.image = image
        pending = nil
        isForeign = true
    }

    /// Whether the image belongs to a producer outside this device's queue between frames.
    let isForeign: Bool

    /// Uploads `source`, either pixel format; xrgb8888 reads as opaque whatever its top byte
    /// holds. The staging buffer comes from `pool`.
    init(image source: Image, pool: StagingBufferPool) throws {
        image = try GPUImage(
            context: pool.context, width: source.width, height: source.height,
            usage: VkImageUsageFlags(VK_IMAGE_USAGE_SAMPLED_BIT.rawValue | VK_IMAGE_USAGE_TRANSFER_DST_BIT.rawValue),
            opaque: source.pixelFormat == .xrgb8888)
        pending = .staged(try source.withRows { try Self.stage($0, in: nil, pool: pool) }, image.bufferCopyRegion)
        isForeign = false
    }

    /// An empty texture of `width`×`height` pixels in `format` (opaque: alpha reads as one), for
    /// a client's buffers to be uploaded into.
    init(width: Int, height: Int, format: VkFormat, opaque: Bool, context: VulkanContext) throws {
        image = try GPUImage(
            context: context, width: width, height: height,
            usage: VkImageUsageFlags(VK_IMAGE_USAGE_SAMPLED_BIT.rawValue | VK_IMAGE_USAGE_TRANSFER_DST_BIT.rawValue),
            opaque: opaque, format: format)
        pending = nil
        isForeign = false
    }

    /// A staging buffer holding `rect` of `source` (all of it when nil) as packed 0xAARRGGBB
    /// words: rows copied as they are, or converted from the source's format while staged.
    private static func stage(_ source: PixelRows, in rect: ImageRect?, pool: StagingBufferPool) throws -> StagingBuffer {
        let rect = rect ?? ImageRect(x: 0, y: 0, width: source.width, height: source.height)
        guard let bytesPerPixel = source.format.bytesPerPixel else { preconditionFailure("\(source.format) cannot be uploaded") }
        let rowBytes = rect.width * 4
        let buffer = try pool.take(size: rowBytes * rect.height)
        let start = source.bytes.baseAddress! + rect.y * source.bytesPerRow + rect.x * bytesPerPixel
        if source.format.isNativeWord {
            for row in 0..<rect.height {
                (buffer.buffer.contents + row * rowBytes).copyMemory(from: start + row * source.bytesPerRow, byteCount: rowBytes)
            }
        } else {
            source.format.convert(
                width: rect.width, height: rect.height, stride: source.bytesPerRow, from: start,
                into: buffer.buffer.contents.assumingMemoryBound(to: UInt32.self))
        }
        return buffer
    }

    /// The copy region of `rect` of the image (all of it when nil), from packed rows at offset 0.
    private func region(_ rect: ImageRect?) -> VkBufferImageCopy {
        var region = image.bufferCopyRegion
        if let rect {
            region.imageOffset = VkOffset3D(x: Int32(rect.x), y: Int32(rect.y), z: 0)
            region.imageExtent = VkExtent3D(width: UInt32(rect.width), height: UInt32(rect.height), depth: 1)
        }
        return region
    }

    /// Stages the pixels of `rect` from `source` (the same size and format as the texture) to be
    /// copied over what the texture holds; the rest of it keeps its pixels. Frames already
    /// submitted still read the old pixels: the copy waits for their fragment shaders.
    func update(from source: Image, in rect: ImageRect, pool: StagingBufferPool) throws {
        try source.withRows { try update(from: $0, in: rect, pool: pool) }
    }

    /// Stages `rect` of `source` (all of it when nil), rows in any readable format of the
    /// texture's size, to be copied over what the texture holds, as `update(from:in:pool:)` does.
    func update(from source: PixelRows, in rect: ImageRect?, pool: StagingBufferPool) throws {
        precondition(source.width == width && source.height == height, "an update keeps the texture's size")
        // Pixels staged earlier and never copied (their frame was not submitted): stage all.
        let rect = pending == nil ? rect : nil
        pending = .staged(try Self.stage(source, in: rect, pool: pool), region(rect))
    }

    /// Records that `rect` of `source` (all of it when nil; a client's dma-buf of the texture's
    /// size) is to be copied over what the texture holds by the next frame that draws it.
    func update(from source: DmabufImport, in rect: ImageRect?) {
        precondition(source.width == width && source.height == height, "an update keeps the texture's size")
        let rect = pending == nil ? rect : nil
        pending = .dmabuf(source, source.copyRegion(of: rect ?? ImageRect(x: 0, y: 0, width: width, height: height)))
    }

    /// Records the pending copies of `textures` (those with pixels to upload) into
    /// `commandBuffer`, leaving them in `SHADER_READ_ONLY_OPTIMAL` for fragment shaders, and
    /// acquires the client dma-bufs among them that are sampled in place from `externalFamily`
    /// (`recordReleases` hands them back after the frame). Their state changes only in
    /// `uploadSubmitted()`, once the submission is accepted.
    static func recordUploads(
        _ textures: [Texture], into commandBuffer: VkCommandBuffer, commands: VulkanDeviceCommands, queueFamily: UInt32,
        externalFamily: UInt32
    ) {
        let pending = textures.filter { $0.pending != nil }
        // A producer outside Vulkan keeps its buffer in the general layout; its pixels stay as they are.
        let acquired = textures.filter(\.isForeign).map { texture in
            var acquire = texture.image.barrier(
                to: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, from: (VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE),
                to: (VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT))
            acquire.oldLayout = VK_IMAGE_LAYOUT_GENERAL
            acquire.srcQueueFamilyIndex = externalFamily
            acquire.dstQueueFamilyIndex = queueFamily
            return acquire
        }
        guard !pending.isEmpty else {
            if !acquired.isEmpty { commands.pipelineBarrier(commandBuffer, images: acquired) }
            return
        }
        // Client dma-bufs are acquired from outside Vulkan for the copy, and handed back after it.
        let external = pending.compactMap { texture -> VkBuffer? in
            if case .dmabuf = texture.pending { texture.pending!.buffer } else { nil }
        }
        commands.pipelineBarrier(
            commandBuffer,
            images: acquired + pending.map {
                // A whole image's old pixels are not needed; an update keeps them, after earlier
                // frames' shaders have read them.
                $0.isWhollyPending
                    ? $0.image.barrier(
                        to: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, discardContents: true,
                        from: (VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE),
                        to: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT))
                    : $0.image.barrier(
                        to: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                        from: (VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_NONE),
                        to: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT))
            },
            buffers: external.map { buffer in
                var acquire = bufferBarrier(
                    buffer, from: (VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE),
                    to: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT))
                acquire.srcQueueFamilyIndex = externalFamily
                acquire.dstQueueFamilyIndex = queueFamily
                return acquire
            })
        for texture in pending {
            var region = texture.pending!.region
            commands.vkCmdCopyBufferToImage(
                commandBuffer, texture.pending!.buffer, texture.image.handle, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region)
        }
        commands.pipelineBarrier(
            commandBuffer,
            images: pending.map {
                var barrier = $0.image.barrier(
                    to: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                    from: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT),
                    to: (VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT))
                barrier.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL
                return barrier
            },
            buffers: external.map { buffer in
                var release = bufferBarrier(
                    buffer, from: (VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT),
                    to: (VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE))
                release.srcQueueFamilyIndex = queueFamily
                release.dstQueueFamilyIndex = externalFamily
                return release
            })
    }

    /// Hands the client dma-bufs among `textures` that the frame sampled in place back to
    /// `externalFamily`, once its fragment shaders are done with them.
    static func recordReleases(
        _ textures: [Texture], into commandBuffer: VkCommandBuffer, commands: VulkanDeviceCommands, queueFamily: UInt32,
        externalFamily: UInt32
    ) {
        let released = textures.filter(\.isForeign).map { texture in
            var release = texture.image.barrier(
                to: VK_IMAGE_LAYOUT_GENERAL, from: (VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_NONE),
                to: (VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE))
            release.oldLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL
            release.srcQueueFamilyIndex = queueFamily
            release.dstQueueFamilyIndex = externalFamily
            return release
        }
        if !released.isEmpty { commands.pipelineBarrier(commandBuffer, images: released) }
    }

    private var isWhollyPending: Bool {
        guard let region = pending?.region else { return false }
        return image.layout == VK_IMAGE_LAYOUT_UNDEFINED
            || region.imageExtent.width == UInt32(width) && region.imageExtent.height == UInt32(height)
    }

    /// Marks the upload as done by a submitted frame, which keeps what it reads alive itself
    /// until it finishes.
    func uploadSubmitted() {
        if isForeign { image.layout = VK_IMAGE_LAYOUT_GENERAL }
        guard pending != nil else { return }
        pending = nil
        image.layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL
    }

    /// A 1×1 opaque white texture, for layers without contents: sampling it multiplies by one.
    static func white(context: VulkanContext) throws -> Texture {
        try Texture(
            image: Image(width: 1, height: 1, fill: PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255)),
            pool: StagingBufferPool(context: context))
    }
}

/// The textures of the images a scene shows, reused while the same `Image` object is shown.
///
/// Images are immutable and compared by identity, so an image's identity names its pixels. The
/// cache holds each image strongly, which keeps that identity from being reused by another object;
/// an entry goes when its image was not asked for during `maximumIdleFrames` frames, or as soon as
/// the cache holds the image's last reference (no render tree can show it again).
final class TextureCache {
    let context: VulkanContext
    let maximumIdleFrames: Int
    /// The uploads' staging buffers, reused from frame to frame.
    let stagingBuffers: StagingBufferPool
    private var entries: [ObjectIdentifier: Entry] = [:]
    /// Entries evicted at the start of this frame because no tree shows their image any more:
    /// the texture of an image replaced by an update of it (a client's next buffer) is updated in
    /// place for the new image instead of uploaded again.
    private var replaced: [ObjectIdentifier: Entry] = [:]
    /// Images whose texture could not be made, held so that their identity stays theirs; an entry
    /// goes once its image is made a texture or no tree shows it any more.
    private var failed: [ObjectIdentifier: Image] = [:]
    /// Whether a texture could not be made in this frame.
    private(set) var failedThisFrame = false
    private var frame = 0

    private struct Entry {
        var image: Image
        let texture: Texture
        var lastUsedFrame: Int
    }

    /// `maximumIdleFrames` defaults to about a second at 60 Hz, so that layers hidden briefly keep
    /// their textures.
    init(context: VulkanContext, maximumIdleFrames: Int = 60) {
        precondition(maximumIdleFrames >= 1, "entries must survive at least the frame that used them")
        self.context = context
        self.maximumIdleFrames = maximumIdleFrames
        stagingBuffers = StagingBufferPool(context: context)
    }

    /// How many textures the cache holds.
    var count: Int { entries.count }

    /// Starts a frame: evicts entries idle for `maximumIdleFrames` frames and entries whose image
    /// only the cache still holds. Frames in flight keep the textures they draw alive themselves.
    func beginFrame() {
        frame += 1
        replaced = [:]
        failedThisFrame = false
        for key in Array(failed.keys) where isKnownUniquelyReferenced(&failed[key]!) { failed[key] = nil }
        var evicted: [ObjectIdentifier] = []
        var unshown: [ObjectIdentifier] = []
        // Index by index, not over `indices`: that collection would hold a second reference to the
        // dictionary's storage, and the in-place access below would then copy it, making every
        // image look shared.
        var index = entries.values.startIndex
        while index != entries.values.endIndex {
            let idle = frame - 1 - entries.values[index].lastUsedFrame >= maximumIdleFrames
            if isKnownUniquelyReferenced(&entries.values[index].image) {
                unshown.append(ObjectIdentifier(entries.values[index].image))
            } else if idle {
                evicted.append(ObjectIdentifier(entries.values[index].image))
            }
            entries.values.formIndex(after: &index)
        }
        for key in evicted { entries[key] = nil }
        for key in unshown { replaced[key] = entries.removeValue(forKey: key) }
    }

    /// The texture of `image`, uploaded on first request.
    func texture(for image: Image) throws -> Texture {
        let key = ObjectIdentifier(image)
        if let texture = entries[key]?.texture {
            entries[key]!.lastUsedFrame = frame
            return texture
        }
        if let texture = try updatedTexture(for: image) {
            entries[key] = Entry(image: image, texture: texture, lastUsedFrame: frame)
            failed[key] = nil
            return texture
        }
        let texture = try Texture(image: image, pool: stagingBuffers)
        entries[key] = Entry(image: image, texture: texture, lastUsedFrame: frame)
        failed[key] = nil
        return texture
    }

    /// Records that `image` could not be made a texture in this frame; true the first time.
    func noteFailure(of image: Image) -> Bool {
        failedThisFrame = true
        return failed.updateValue(image, forKey: ObjectIdentifier(image)) == nil
    }

    /// The texture of an image `image` was updated from, taken over and updated where they differ,
    /// when no draw of this frame uses it.
    private func updatedTexture(for image: Image) throws -> Texture? {
        var ancestor = image.predecessor
        for _ in 0..<8 {
            guard let candidate = ancestor else { return nil }
            let key = ObjectIdentifier(candidate)
            if let entry = replaced[key] ?? entries[key], entry.lastUsedFrame != frame,
                entry.image.pixelFormat == image.pixelFormat, let changed = image.changedRect(since: candidate)
            {
                if replaced.removeValue(forKey: key) == nil { entries[key] = nil }
                try entry.texture.update(from: image, in: changed, pool: stagingBuffers)
                return entry.texture
            }
            ancestor = candidate.predecessor
        }
        return nil
    }
}
