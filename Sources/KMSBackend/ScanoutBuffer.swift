import Buffers

/// A buffer of an output's swapchain as the device scans it out: a framebuffer on the primary
/// plane (a GBM buffer object, or a dumb buffer).
protocol ScanoutBuffer: SwapchainBuffer {
    var framebuffer: UInt32 { get }
}
