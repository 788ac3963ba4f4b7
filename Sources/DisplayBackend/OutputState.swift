public import Buffers
public import Graphics
public import SystemCalls

/// What an output is to show, tested and committed as one value (the role of wlroots'
/// `wlr_output_state`): every part left nil stays as it is. A backend applies a state whole or not
/// at all.
public struct OutputState {
    /// What the primary plane scans out from the next refresh on: the frame.
    public var buffer: OutputBuffer?
    /// Whether the display is lit (false: DPMS off, on KMS the CRTC inactive; frames asked for
    /// meanwhile wait).
    public var isActive: Bool?
    /// A mode the display offers (the backend's outputs change it when their display does).
    public var mode: OutputMode?
    /// What the cursor plane shows (on outputs that have one, `HardwareCursorOutput`).
    public var cursor: CursorPlaneState?
    /// A fence (a sync_file) that signals once `buffer` holds the frame's pixels: the display
    /// shows the buffer only from the first refresh after it signalled (on KMS, the plane's
    /// IN_FENCE_FD: the kernel holds the flip), and the compositor need not wait for it. Nil:
    /// the buffer is ready now. The state keeps it open until the commit has handed it on.
    public var acquireFence: OwnedFileDescriptor?

    public init(
        buffer: OutputBuffer? = nil, isActive: Bool? = nil, mode: OutputMode? = nil, cursor: CursorPlaneState? = nil,
        acquireFence: OwnedFileDescriptor? = nil
    ) {
        self.buffer = buffer
        self.isActive = isActive
        self.mode = mode
        self.cursor = cursor
        self.acquireFence = acquireFence
    }
}

/// The buffer a frame shows, by where it comes from: each kind reaches the screen its own way.
public enum OutputBuffer {
    /// A buffer of the output's own swapchain (`BackendOutput.nextBuffer()`) that the frame was
    /// drawn into.
    case swapchain(any SwapchainBuffer)
    /// A client's buffer shown as it is (direct scanout): a dma-buf that a plane scans out, or a
    /// shm buffer that a display living in memory (the headless one) shows by reading its pixels
    /// where they lie (`PixelBuffer.withPixels`, guarded against a pool shrunk under it), which a
    /// plane cannot. Shown opaque: a format with alpha is scanned out as its opaque twin
    /// (`PixelFormat.opaqueEquivalent`), the compositor showing only buffers whose surfaces say
    /// they are opaque. The state comes with one hold on the buffer (`LentBuffer.hold()`): an
    /// output that commits the state keeps it until it no longer reads the buffer (a later frame
    /// replaced it, or the output stopped showing it) and then ends it; one that does not commit
    /// it leaves it to the caller. Until its end the client must not write into the buffer.
    case client(any LentBuffer)
}

/// A change of the cursor plane: a new image (nil hides the cursor), or the hotspot moved.
public enum CursorPlaneState {
    /// Shows `image` (premultiplied, upright as in the logical output, in hardware pixels) with its
    /// hotspot at (`hotspotX`, `hotspotY`) of its pixels; nil hides the cursor.
    case image(Image?, hotspotX: Int, hotspotY: Int)
    /// Puts the hotspot at `point`, in the output's logical points.
    case position(Point)
}
