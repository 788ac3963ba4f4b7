public import SystemCalls

/// A frame rendered into host memory, for the caller not to wait for: done at once (the CPU
/// renderer draws in place before `render` returns), or once a device finishes it (the Vulkan
/// renderer's `FrameCompletion`), when `completionDescriptor` turns readable; `finish()` then
/// completes it on the caller's thread.
public protocol RenderCompletion: AnyObject {
    /// Readable once the frame is done; nil for a frame that was done when it was returned.
    var completionDescriptor: FileDescriptor? { get }
    /// Whether the frame is done (without waiting).
    var isComplete: Bool { get }
    /// Completes the frame, waiting for it where it is not done yet; calling it again does nothing.
    func finish() throws
    /// A sync_file that signals once the frame is done, for the display to wait on instead of
    /// the caller; nil where the renderer has none (the default), or once taken.
    func takeAcquireFence() -> OwnedFileDescriptor?
}

extension RenderCompletion {
    public func takeAcquireFence() -> OwnedFileDescriptor? { nil }
}
