/// A buffer of a display's swapchain, which frames are drawn into: mapped for the CPU (a dumb
/// buffer, host memory), or reached as a dma-buf that the renderer imports (a GBM buffer object).
public protocol SwapchainBuffer: PixelBuffer {
    /// How a writer reaches the pixels.
    var memory: SwapchainMemory { get }
    /// Fills the buffer with opaque black.
    func clear()
}

/// Where a swapchain buffer's pixels are for a writer.
public enum SwapchainMemory {
    /// `mapping` holds the rows, `bytesPerRow` apart, valid while the buffer lives.
    case mapped(UnsafeMutableRawBufferPointer, bytesPerRow: Int)
    /// A dma-buf the renderer imports and draws into.
    case dmabuf(DmabufLayout)
}

extension SwapchainBuffer where Self: MappedPixelBuffer {
    public var memory: SwapchainMemory { .mapped(mapping, bytesPerRow: bytesPerRow) }

    public func clear() {
        for row in 0..<height {
            (mapping.baseAddress! + row * bytesPerRow).initializeMemory(as: UInt32.self, repeating: 0xFF00_0000, count: width)
        }
    }
}
