internal import CVulkan
import LayerKit
import RendererContract

/// A color image to render into, with a buffer that each frame copies it to for the CPU to read:
/// the target for tests, screenshots and frames checked against what was meant.
final class OffscreenTarget {
    let image: GPUImage
    let readbackBuffer: GPUBuffer
    var width: Int { image.width }
    var height: Int { image.height }
    /// The submission that last rendered into the target and copied it to `readbackBuffer`.
    var lastSubmission: TimelinePoint?

    init(context: VulkanContext, width: Int, height: Int) throws {
        image = try GPUImage(
            context: context, width: width, height: height,
            usage: VkImageUsageFlags(
                VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT.rawValue | VK_IMAGE_USAGE_TRANSFER_SRC_BIT.rawValue))
        readbackBuffer = try GPUBuffer(
            context: context, size: width * height * 4,
            usage: VkBufferUsageFlags(VK_BUFFER_USAGE_TRANSFER_DST_BIT.rawValue), cached: true)
    }

    /// The pixels of the last frame rendered into the target, once that frame has finished. With
    /// `previous` (the frame before, read back from this target) and the `region` the last frame
    /// redrew and copied, only that region is read: the image is an update of `previous`.
    func readback(updating previous: Image? = nil, region: PixelRect? = nil) throws -> Image {
        guard let lastSubmission else {
            preconditionFailure("readback() of an OffscreenTarget that no frame has rendered into")
        }
        try lastSubmission.wait()
        if let previous, let region, previous.width == width, previous.height == height {
            let rect = ImageRect(x: Int(region.x), y: Int(region.y), width: Int(region.width), height: Int(region.height))
            return try Image(updating: previous, in: rect) { origin, bytesPerRow in
                let source = readbackBuffer.contents + (rect.y * width + rect.x) * 4
                for row in 0..<rect.height {
                    (origin + row * bytesPerRow).copyMemory(from: source + row * width * 4, byteCount: rect.width * 4)
                }
            }
        }
        return try Image(
            width: width, height: height, pixelFormat: .argb8888, bytesPerRow: width * 4,
            bytes: UnsafeRawBufferPointer(start: readbackBuffer.contents, count: readbackBuffer.size))
    }
}
