import Renderer

/// The compositor's own GPU content: a `VulkanLayer` renders through the renderer of the output
/// that shows it, and a display link tells it when to draw the next frame.
extension Compositor {
    /// A `VulkanLayer` on the device of output `index`'s renderer. Show it only in that output's
    /// layer tree (under `rootView(ofOutputAt:)`): another output's renderer cannot sample its
    /// drawables. Presents outside transactions schedule a frame on that output.
    public func makeVulkanLayer(forOutputAt index: Int = 0) throws -> VulkanLayer {
        try VulkanLayer(renderer: outputs[index].renderer)
    }

    /// Calls `callback` on every frame output `index` is about to draw, until the link is
    /// invalidated; the first frame is scheduled now.
    public func addDisplayLink(onOutputAt index: Int = 0, _ callback: @escaping (DisplayLink) -> Void) -> DisplayLink {
        outputs[index].addDisplayLink(callback)
    }
}
