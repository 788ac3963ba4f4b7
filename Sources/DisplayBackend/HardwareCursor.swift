import Graphics

/// An output that may show the pointer cursor on a plane of its own (a KMS cursor plane), so that
/// cursor motion costs a register write instead of a frame: it takes `OutputState.cursor`.
/// Optional: the compositor draws the cursor into its frames on outputs without it, and whenever
/// the plane refuses an image (a commit of it returns false; the plane is then to be emptied).
public protocol HardwareCursorOutput: BackendOutput {
    /// Called when the display shows the image last committed (the refresh that first shows it,
    /// with that refresh's timing); changes made in quick succession may share one call. Each
    /// committed image is followed by one, even when it is the same object as before (its client
    /// asked for a frame callback).
    var onCursorPresented: ((PresentationTiming) -> Void)? { get set }
    /// Called when the plane is gone for good (the driver refused a frame's flip with it): the
    /// cursor is drawn into frames from then on, and the plane refuses every image.
    var onCursorPlaneLost: (() -> Void)? { get set }
}

/// The size of a cursor plane's buffers: the largest image it scans out (KMS's
/// DRM_CAP_CURSOR_WIDTH/HEIGHT).
public struct CursorPlaneSize: Sendable, Equatable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// Where a cursor image goes on a panel that is turned and scaled: a cursor plane scans its buffer
/// out as is, so the image is turned into the buffer with the output's transform and the plane
/// placed where the turned image's top-left corner lands.
public struct CursorPlaneGeometry: Sendable, Equatable {
    public let mode: OutputMode
    public let scaleFactor: Double
    public let transform: OutputTransform

    public init(mode: OutputMode, scaleFactor: Double, transform: OutputTransform) {
        self.mode = mode
        self.scaleFactor = scaleFactor
        self.transform = transform
    }

    /// The size of a `width`×`height` image once turned for the panel.
    public func turnedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        transform.swapsAxes ? (height, width) : (width, height)
    }

    /// The panel pixel where the turned image's top-left corner goes when the hotspot (in the
    /// upright image's pixels) is at `pointer` (logical points, rounded to the nearest pixel).
    /// It may be negative: the plane hangs over the panel's edge.
    public func origin(pointer: Point, hotspotX: Int, hotspotY: Int, imageWidth: Int, imageHeight: Int) -> (x: Int, y: Int) {
        let logical = transform.swapsAxes ? (width: mode.height, height: mode.width) : (width: mode.width, height: mode.height)
        // Logical pixels to panel pixels: the content transform turns about the centres.
        let toPanel = AffineTransform2D(translationX: -Double(logical.width) / 2, y: -Double(logical.height) / 2)
            .concatenating(transform.contentTransform)
            .concatenating(AffineTransform2D(translationX: Double(mode.width) / 2, y: Double(mode.height) / 2))
        let left = (pointer.x * scaleFactor).rounded() - Double(hotspotX)
        let top = (pointer.y * scaleFactor).rounded() - Double(hotspotY)
        let panel = Rect(x: left, y: top, width: Double(imageWidth), height: Double(imageHeight)).applying(toPanel)
        return (Int(panel.origin.x.rounded()), Int(panel.origin.y.rounded()))
    }

    /// Writes `image` turned for the panel into 32-bit pixels at `destination` (rows of
    /// `bytesPerRow`), from its top-left corner; the rest of the buffer is left as it is. The pixel
    /// words are copied unchanged (premultiplied ARGB8888 is the plane's format too), but for the
    /// alpha of an opaque (XRGB8888) image, whose top byte is undefined: it becomes 255.
    public func turn(_ image: Image, into destination: UnsafeMutableRawPointer, bytesPerRow: Int) {
        let turning = transform.contentTransform
        let alpha: UInt32 = image.pixelFormat == .xrgb8888 ? 0xFF00_0000 : 0
        // Pixel centres turn onto pixel centres; the turned image's bounds start at `corner`.
        let corner = Rect(x: 0, y: 0, width: Double(image.width), height: Double(image.height)).applying(turning).origin
        image.withUnsafeBytes { source in
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let centre = Point(x: Double(x) + 0.5, y: Double(y) + 0.5).applying(turning)
                    let column = Int((centre.x - corner.x).rounded(.down))
                    let row = Int((centre.y - corner.y).rounded(.down))
                    let word = source.load(fromByteOffset: y * image.bytesPerRow + x * 4, as: UInt32.self) | alpha
                    destination.storeBytes(of: word, toByteOffset: row * bytesPerRow + column * 4, as: UInt32.self)
                }
            }
        }
    }
}
