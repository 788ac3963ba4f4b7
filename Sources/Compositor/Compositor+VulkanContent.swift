import Renderer

/// The compositor's own GPU content: a `VulkanLayer` renders through the renderer of the output
/// that shows it, and a display link tells it when to draw the next frame.
extension Compositor {
    /// A `VulkanLayer` on the device of output `index`'s renderer. Show it only in that output's
    /// layer tree (under `rootView(ofOutputAt:)`): another output's renderer cannot sample its
    /// drawables. Presents outside transactions schedule a frame on that output. Throws
    /// `VulkanContentError.noVulkanDevice` when the CPU renderer draws: it has no device to run
    /// the layer's commands on.
    public func makeVulkanLayer(forOutputAt index: Int = 0) throws -> VulkanLayer {
        guard let renderer = outputs[index].renderer as? Renderer else { throw VulkanContentError.noVulkanDevice }
        return try VulkanLayer(renderer: renderer)
    }

    /// Calls `callback` on every frame output `index` is about to draw, until the link is
    /// invalidated; the first frame is scheduled now.
    public func addDisplayLink(onOutputAt index: Int = 0, _ callback: @escaping (DisplayLink) -> Void) -> DisplayLink {
        outputs[index].addDisplayLink(callback)
    }
}

/// Why the compositor cannot make Vulkan content.
public enum VulkanContentError: Error, Equatable, CustomStringConvertible {
    /// The CPU renderer draws the outputs; there is no Vulkan device.
    case noVulkanDevice

    public var description: String {
        "the CPU renderer draws this output and has no Vulkan device for a VulkanLayer (renderer = \"vulkan\" has one)"
    }
}
