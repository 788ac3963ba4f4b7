import Buffers

/// An output whose frames can be written into its scanout buffers in place, rather than handed
/// over as an `Image` and copied (`present(_:for:)` still works).
public protocol ScanoutMemoryOutput: BackendOutput {
    /// The buffer the next frame goes into: never the one on screen or on its way there. Each
    /// buffer keeps the pixels last written into it, so a writer may update only what changed
    /// since its own last frame there. Nil when frames cannot be written in place now.
    func nextScanoutBuffer() -> (any MappedPixelBuffer)?
    /// Shows the frame written into `buffer` (the one `nextScanoutBuffer()` gave) at the next
    /// refresh; `presented` follows then, as after `present(_:for:)`.
    func presentScanoutBuffer(_ buffer: any MappedPixelBuffer, for request: FrameRequest) throws
}
