public import Buffers
public import Graphics
public import Signals
public import SystemCalls

/// A source of outputs (KMS, headless, later nested): the compositor renders frames for them and
/// learns when each frame reached the screen. Backends are poll-driven so that the compositor's one
/// event loop can watch them: it polls `fileDescriptors` for input and calls `dispatch` when one
/// is readable.
///
/// Outputs may come and go while the backend runs (a display plugged in or out): `outputAdded`
/// and `outputRemoved` tell the compositor (and anyone else listening, such as a presentation
/// log), and `fileDescriptors` may change with them.
public protocol DisplayBackend: AnyObject {
    var outputs: [any BackendOutput] { get }
    /// The backend's own descriptors to watch for readability (page-flip events, refresh timers,
    /// hotplug), besides each output's frame timer (`FrameScheduler.timer`), which the loop hands
    /// to its scheduler itself. They change only as outputs come and go: read them again in
    /// `outputAdded` and `outputRemoved` (a removed output's descriptors are still open then, so a
    /// number cannot have been reused yet).
    var fileDescriptors: [FileDescriptor] { get }
    /// Handles what became ready on one of `fileDescriptors`.
    func dispatch(fileDescriptor: FileDescriptor)
    /// Emitted when an output appeared (it is in `outputs` by then).
    var outputAdded: Signal<any BackendOutput> { get }
    /// Emitted when an output went away (it has left `outputs`; no frame or presentation follows).
    var outputRemoved: Signal<any BackendOutput> { get }
    /// Emitted when an output's mode changed while its display stayed connected (another monitor
    /// on the same port, a virtual display resized): `mode` is the new one and the next frames
    /// are drawn at its size; the buffers of the old size are gone.
    var outputModeChanged: Signal<any BackendOutput> { get }
    /// The renderer renders frames into dma-bufs of these layouts besides linear ones
    /// (`LayerTreeRenderer.renderTargetFormats`; empty: linear ones only). A backend whose
    /// swapchains are dma-bufs lays its buffers out in one of them where its planes scan it out:
    /// the outputs it lights from now on, and those it has (with a new ring where their layout
    /// changes).
    func useRenderTargetFormats(_ formats: [DmabufFormat])
}

/// One display of a backend: its frame cycle (`frameScheduler`, the same for every backend), the
/// buffers frames are drawn into (its swapchain), and the state it shows, tested and committed as
/// a whole (`OutputState`).
public protocol BackendOutput: AnyObject {
    var name: String { get }
    var description: String { get }
    var mode: OutputMode { get }
    /// Points per pixel the compositor's layers are drawn at (becomes their contentsScale).
    var scaleFactor: Double { get }
    var transform: OutputTransform { get }
    /// Where the output goes in the compositor's global space, or whose picture it mirrors.
    var layout: OutputLayout { get }
    /// Asks for frames just in time for a refresh (`onFrame`) and announces their presentation.
    var frameScheduler: FrameScheduler { get }

    /// The swapchain buffer the next frame is drawn into: never the one on screen or on its way
    /// there. Each buffer keeps the pixels last written into it, so a writer may update only what
    /// changed since its own last frame there. Nil when none can be written now.
    func nextBuffer() -> (any SwapchainBuffer)?
    /// The renderer cannot draw into the swapchain's buffers (it could not import them): from now
    /// on the output gives out simpler ones (on KMS, linear GBM buffers in place of tiled ones,
    /// then dumb buffers, which the CPU maps). False where its buffers are as simple as they get
    /// (mapped memory).
    func useSimplerBuffers(because reason: String) throws -> Bool
    /// Whether the display would take `state` as it is (on KMS, a TEST_ONLY commit); nothing changes.
    func test(_ state: OutputState) -> Bool
    /// Applies `state` at the next refresh. A state with a buffer is the frame the scheduler asked
    /// for, and its presentation follows (`FrameScheduler.presented`). Returns false, with nothing
    /// changed, where the display cannot take the state (a client's buffer it cannot scan out: the
    /// frame is to be composed instead; a cursor image its plane cannot show); throws when it
    /// refused a frame that it should have taken (the display keeps what it showed).
    @discardableResult
    func commit(_ state: OutputState) throws -> Bool
    /// What the output shows now, as far as the backend can tell (nil where it cannot read it
    /// back): a capture, copied when asked for.
    var lastShownImage: Image? { get }
    /// False while the display is powered down (DPMS off).
    var isPoweredOn: Bool { get }
}

extension BackendOutput {
    /// Asks for one frame (`FrameScheduler.scheduleFrame()`).
    public func scheduleFrame() {
        frameScheduler.scheduleFrame()
    }

    /// Emitted when a committed frame reached the screen, with the display's own timing.
    public var presented: Signal<PresentationTiming> { frameScheduler.presented }

    /// Powers the display down (DPMS off; no frames are drawn meanwhile, those asked for wait) or
    /// up again, showing the last frame and then drawing what changed.
    public func setPowered(_ on: Bool) throws {
        try commit(OutputState(isActive: on))
    }
}

/// A display mode in hardware pixels.
public struct OutputMode: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var refreshMillihertz: Int

    public init(width: Int, height: Int, refreshMillihertz: Int) {
        self.width = width
        self.height = height
        self.refreshMillihertz = refreshMillihertz
    }

    /// The refresh period in nanoseconds.
    public var refreshNanoseconds: UInt64 { 1_000_000_000_000 / UInt64(max(1, refreshMillihertz)) }

    public var description: String {
        "\(width)x\(height)@\(Double(refreshMillihertz) / 1000)"
    }
}

/// Where an output sits in the compositor's global (logical) space, which is what wl_output's
/// geometry and xdg_output's logical position report, or that it has no place of its own there.
public enum OutputLayout: Hashable, Sendable {
    /// Right of the lit output whose right edge is furthest right, top-aligned with it (0,0 for
    /// the first).
    case automatic
    /// Its top-left corner at this point, in logical pixels.
    case origin(x: Int32, y: Int32)
    /// It shows the picture of the output named `source`, scaled to fit: no place, no windows, and
    /// no wl_output of its own.
    case mirror(of: String)
}

/// The rotation and flip of an output (wl_output.transform's values).
public enum OutputTransform: Int, Sendable, CaseIterable {
    case normal = 0, rotated90, rotated180, rotated270, flipped, flipped90, flipped180, flipped270

    /// A rotation counter-clockwise by a multiple of 90 degrees, after a mirror when `flipped`.
    public init?(degrees: Int, flipped: Bool) {
        guard degrees % 90 == 0 else { return nil }
        self.init(rawValue: (degrees / 90 % 4 + 4) % 4 + (flipped ? 4 : 0))
    }

    /// Whether the logical output is the mode turned a quarter: its width is the mode's height.
    public var swapsAxes: Bool { rawValue % 2 == 1 }

    /// What turns the output's logical content into the scanout, about the centre, in y-down
    /// coordinates: a mirror around the vertical axis for the flipped cases, then a rotation
    /// counter-clockwise by 90° per step. Exact quarter turns, so pixels land on pixels.
    public var contentTransform: AffineTransform2D {
        let mirror = rawValue >= 4 ? AffineTransform2D(a: -1, b: 0, c: 0, d: 1, tx: 0, ty: 0) : .identity
        let rotation: AffineTransform2D = switch rawValue % 4 {
        case 1: AffineTransform2D(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: 0)
        case 2: AffineTransform2D(a: -1, b: 0, c: 0, d: -1, tx: 0, ty: 0)
        case 3: AffineTransform2D(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0)
        default: .identity
        }
        return mirror.concatenating(rotation)
    }
}

/// One frame the backend asks for.
public struct FrameRequest: Sendable, Equatable {
    /// The refresh the frame is meant for (CLOCK_MONOTONIC, nanoseconds) and its sequence number.
    public let targetPresentationNanoseconds: UInt64
    public let sequence: UInt64

    public init(targetPresentationNanoseconds: UInt64, sequence: UInt64) {
        self.targetPresentationNanoseconds = targetPresentationNanoseconds
        self.sequence = sequence
    }
}

/// When a frame was shown (wp_presentation's terms).
public struct PresentationTiming: Sendable, Equatable {
    /// CLOCK_MONOTONIC time of the refresh that showed the frame.
    public let nanoseconds: UInt64
    /// The output's refresh period.
    public let refreshNanoseconds: UInt64
    /// The refresh counter of that refresh.
    public let sequence: UInt64
    /// wp_presentation_feedback kind flags: vsync 0x1, hw_clock 0x2, hw_completion 0x4, zero_copy 0x8.
    public let flags: UInt32

    public init(nanoseconds: UInt64, refreshNanoseconds: UInt64, sequence: UInt64, flags: UInt32) {
        self.nanoseconds = nanoseconds
        self.refreshNanoseconds = refreshNanoseconds
        self.sequence = sequence
        self.flags = flags
    }
}
