/// One buffer an output scans out from, in memory the compositor can write a frame straight
/// into (a KMS dumb buffer's mapping): the mode's height in rows of premultiplied ARGB8888
/// pixels, `bytesPerRow` apart. `owner` keeps the memory mapped while anyone holds it.
public struct ScanoutMemory {
    public let bytes: UnsafeMutableRawBufferPointer
    public let bytesPerRow: Int
    public let owner: AnyObject

    public init(bytes: UnsafeMutableRawBufferPointer, bytesPerRow: Int, owner: AnyObject) {
        self.bytes = bytes
        self.bytesPerRow = bytesPerRow
        self.owner = owner
    }
}

/// An output whose frames can be written into its scanout buffers in place, rather than handed
/// over as an `Image` and copied (`present(_:for:)` still works).
public protocol ScanoutMemoryOutput: BackendOutput {
    /// The buffer the next frame goes into: never the one on screen or on its way there. Each
    /// buffer keeps the pixels last written into it, so a writer may update only what changed
    /// since its own last frame there. Nil when frames cannot be written in place now.
    func nextScanoutMemory() -> ScanoutMemory?
    /// Shows the frame written into `memory` (the buffer `nextScanoutMemory()` gave) at the next
    /// refresh; `presented` follows then, as after `present(_:for:)`.
    func presentScanoutMemory(_ memory: ScanoutMemory, for request: FrameRequest) throws
}
