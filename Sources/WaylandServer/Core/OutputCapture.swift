/// One copy of what an output shows into a client's wl_shm buffer, whichever capture protocol
/// asked for it (wlr-screencopy's frames, ext-image-copy-capture's). The compositor's
/// `OutputCaptureHandler` fills it.
public protocol OutputCaptureFrame: AnyObject {
    /// The output captured; nil once it is gone (the copy fails).
    var output: Output? { get }
    /// The rectangle copied, in the pixels of what the output shows.
    var rect: IntRect { get }
    /// The copies that damage is counted between: what changed since this session's last copy.
    var session: ObjectIdentifier { get }
    /// Whether the copy waits until the output shows something other than the session's last copy.
    var waitsForDamage: Bool { get }
    /// Whether the client hears which rectangles changed.
    var reportsDamage: Bool { get }
    /// Whether the copy is of the pointer cursor's image (a cursor session's) rather than of the
    /// output.
    var capturesCursorImage: Bool { get }
    /// Whether the copy shows the pointer cursor (screencopy's overlay_cursor, ext-image-copy-
    /// capture's paint_cursors); without, it is left out wherever the output draws it.
    var includesCursor: Bool { get }
    /// Writes into the buffer's memory: `body` gets the address of its first pixel and the bytes
    /// between rows. False when the buffer is gone (the caller fails the copy).
    func writePixels(_ body: (UnsafeMutableRawPointer, _ bytesPerRow: Int) -> Void) -> Bool
    /// The copy is in the buffer: `damage` is what changed since the session's last copy, in the
    /// frame's own pixels; `presentedNanoseconds` when the copied picture was shown (CLOCK_MONOTONIC).
    func ready(damage: [IntRect], presentedNanoseconds: UInt64)
    /// The copy cannot be made (the output or the buffer went away).
    func fail()
}

/// What the compositor does for screen capture: it knows what each output shows and copies it into
/// the frames' buffers.
public protocol OutputCaptureHandler: AnyObject {
    /// The output's picture size in pixels (what a whole-output copy needs); nil when the output
    /// is not the compositor's.
    func pixelSize(of output: Output) -> SurfaceSize?
    /// The rectangle, in the pixels of what `output` shows, that a capture of `region` (in the
    /// output's logical coordinates; nil: all of it) copies, clipped to the output; nil when the
    /// output shows nothing to copy (the frame fails).
    func captureRect(of output: Output, region: IntRect?) -> IntRect?
    /// The pointer cursor shown on `output`, as a cursor capture session reports it; nil when
    /// none is (the pointer is elsewhere or the cursor hidden).
    func cursor(on output: Output) -> CapturedCursor?
    /// `frame` has its buffer: copy into it and call `ready` (at once, or once the output shows a
    /// change when `frame.waitsForDamage`), or `fail`.
    func copyRequested(_ frame: any OutputCaptureFrame)
    /// `frame` went away before it was ready or failed.
    func copyAbandoned(_ frame: any OutputCaptureFrame)
    /// The session `session` (`OutputCaptureFrame.session`) ended: what its copies showed can be
    /// forgotten.
    func sessionEnded(_ session: ObjectIdentifier)
}

/// The pointer cursor on an output as ext-image-copy-capture's cursor sessions describe it, in
/// the output's pixels (upright, as its logical coordinates run): the image's size, the hotspot
/// in the image, and where on the output the hotspot is.
public struct CapturedCursor: Equatable, Sendable {
    public var width: Int32
    public var height: Int32
    public var hotspotX: Int32
    public var hotspotY: Int32
    public var x: Int32
    public var y: Int32

    public init(width: Int32, height: Int32, hotspotX: Int32, hotspotY: Int32, x: Int32, y: Int32) {
        self.width = width
        self.height = height
        self.hotspotX = hotspotX
        self.hotspotY = hotspotY
        self.x = x
        self.y = y
    }
}
