/// Thrown by `LayerTreeRenderer.render(_:into:scale:clearColor:)` for a swapchain buffer the
/// renderer cannot draw into: a dma-buf, for the CPU renderer (pixman writes through a mapping)
/// or for a device that cannot import it. Its display turns to buffers the CPU maps.
public struct UnwritableBuffer: Error, CustomStringConvertible {
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
