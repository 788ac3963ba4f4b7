internal import CVulkan

/// One pass of a frame: draws into the target or into one of the frame's intermediate images,
/// over a clear colour of its own.
///
/// A frame renders its passes in order. A pass may sample, through `DrawCall.sampledIntermediate`
/// and `sampledIntermediate2`, any intermediate that an earlier pass of the same frame rendered;
/// group opacity, masks and blurred shadows are built that way.
struct RenderPass {
    enum Destination: Equatable {
        case target
        /// An index into the frame's `intermediates`.
        case intermediate(Int)
    }

    var destination: Destination
    /// Premultiplied RGBA. For the target pass it is ignored when the frame loads the previous
    /// contents instead, unless `clearsRedrawnArea`.
    var clearColor: (Float, Float, Float, Float)
    var draws: [DrawCall]
    /// For the target pass: a partial redraw clears its area to `clearColor` too, rather than
    /// loading what the target held there (the scene's bottom layer fills it with that colour).
    var clearsRedrawnArea = false
}

/// The size of one of a frame's intermediate images, in pixels.
struct IntermediateSize: Hashable {
    var width: Int
    var height: Int
}

/// Intermediate images (color attachments that later passes sample), reused across frames by size.
///
/// Within a frame each request gets an image of its own; the next frame hands the same images out
/// again. Reuse needs no waiting on the CPU: every pass into an intermediate starts with a barrier
/// ordering its writes after all fragment reads submitted before it (earlier frames' included, as
/// they are on the same queue), and each frame keeps the images it used alive until its timeline
/// value is reached. Sizes unused for `maximumIdleFrames` frames are dropped.
final class IntermediatePool {
    let context: VulkanContext
    let maximumIdleFrames: Int
    private var images: [IntermediateSize: [GPUImage]] = [:]
    private var lastUsed: [IntermediateSize: Int] = [:]
    private var frame = 0

    /// `maximumIdleFrames` defaults to about a second at 60 Hz, so that an effect pausing briefly
    /// (an animation between steps) keeps its images.
    init(context: VulkanContext, maximumIdleFrames: Int = 60) {
        self.context = context
        self.maximumIdleFrames = maximumIdleFrames
    }

    /// How many images the pool holds.
    var count: Int { images.values.reduce(0) { $0 + $1.count } }

    /// Images for one frame's `sizes`, in order, distinct from each other.
    func images(for sizes: [IntermediateSize]) throws -> [GPUImage] {
        frame += 1
        var handedOut: [IntermediateSize: Int] = [:]
        var result: [GPUImage] = []
        result.reserveCapacity(sizes.count)
        for size in sizes {
            let index = handedOut[size, default: 0]
            handedOut[size] = index + 1
            lastUsed[size] = frame
            if let pooled = images[size], index < pooled.count {
                result.append(pooled[index])
                continue
            }
            let image = try GPUImage(
                context: context, width: size.width, height: size.height,
                usage: VkImageUsageFlags(
                    VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT.rawValue | VK_IMAGE_USAGE_SAMPLED_BIT.rawValue))
            images[size, default: []].append(image)
            result.append(image)
        }
        for (size, used) in lastUsed where frame - used >= maximumIdleFrames {
            images[size] = nil
            lastUsed[size] = nil
        }
        return result
    }
}
