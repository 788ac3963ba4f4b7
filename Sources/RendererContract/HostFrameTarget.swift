/// A buffer a renderer writes frames straight into: host memory (a display's dumb buffer, a
/// headless output's mapping), or for the Vulkan renderer a dma-buf (a display's GBM buffer
/// object): `height` rows of `width` premultiplied ARGB8888 pixels (native-endian 0xAARRGGBB),
/// `bytesPerRow` apart. Made by the renderer that draws into it
/// (`LayerTreeRenderer.makeHostFrameTarget`, `makeDmabufFrameTarget`), which remembers the target's last frame so that
/// each buffer of a ring gets only what changed since its own (its buffer age).
public protocol HostFrameTarget: AnyObject {
    var width: Int { get }
    var height: Int { get }
    var bytesPerRow: Int { get }
}
