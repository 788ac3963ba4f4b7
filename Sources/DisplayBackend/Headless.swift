internal import CLinux
import Glibc
import Graphics

/// Outputs that exist only in memory, refreshed by a timer: for tests, CI and screenshots.
///
/// Each output keeps a refresh clock from CLOCK_MONOTONIC (refresh k happens at start + k·period).
/// A scheduled frame is requested just in time for the next refresh it can make: as long before it
/// as recent frames took to render, with a margin, so that a client's commit reaches the screen at
/// the next refresh when the work fits. The frame is shown at the first refresh after it was
/// presented (as a display scanning out with vsync would), and `onPresented` is delivered at that
/// moment with that refresh's time and number. Each output has a ring of two frame buffers in
/// host memory that frames are written into in place (`ScanoutMemoryOutput`), as into a KMS
/// output's dumb buffers; the shown frame is read back only when captured.
public final class HeadlessBackend: DisplayBackend {
    public private(set) var outputs: [any BackendOutput] = []
    private var headlessOutputs: [HeadlessOutput] = []

    public init(outputs configurations: [HeadlessOutputConfiguration]) throws(BackendError) {
        for (index, configuration) in configurations.enumerated() {
            let output = try HeadlessOutput(index: index + 1, configuration: configuration)
            headlessOutputs.append(output)
            outputs.append(output)
        }
    }

    public var fileDescriptors: [Int32] { headlessOutputs.map(\.timer) }

    public func dispatch(fileDescriptor: Int32) {
        headlessOutputs.first { $0.timer == fileDescriptor }?.timerExpired()
    }

    /// The headless output `index` (0-based) as its concrete type, for capture.
    public func headlessOutput(_ index: Int) -> HeadlessOutput { headlessOutputs[index] }
}

/// What a headless output looks like.
public struct HeadlessOutputConfiguration: Sendable, Equatable {
    public var mode: OutputMode
    public var scaleFactor: Double
    public var transform: OutputTransform

    public init(mode: OutputMode, scaleFactor: Double = 1, transform: OutputTransform = .normal) {
        self.mode = mode
        self.scaleFactor = scaleFactor
        self.transform = transform
    }

    /// Parses "WIDTHxHEIGHT[@HZ]" (e.g. "1920x1080@60"); the refresh defaults to 60 Hz.
    public init(parsing text: String, scaleFactor: Double = 1) throws(BackendError) {
        let parts = text.split(separator: "@", maxSplits: 1)
        let size = parts[0].split(separator: "x")
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]), width > 0, height > 0,
              width <= 16384, height <= 16384 else {
            throw BackendError.invalidMode(text)
        }
        var refresh = 60_000
        if parts.count == 2 {
            guard let hertz = Double(parts[1]), hertz >= 1, hertz <= 1000 else { throw BackendError.invalidMode(text) }
            refresh = Int((hertz * 1000).rounded())
        }
        guard scaleFactor > 0, scaleFactor <= 8 else { throw BackendError.invalidScale(scaleFactor) }
        self.init(mode: OutputMode(width: width, height: height, refreshMillihertz: refresh), scaleFactor: scaleFactor)
    }
}

public enum BackendError: Error, Equatable, CustomStringConvertible {
    case invalidMode(String)
    case invalidScale(Double)
    case system(operation: String, errno: Int32)
    case imageSizeMismatch(expected: OutputMode, width: Int, height: Int)
    case notTheBackBuffer(output: String)

    public var description: String {
        switch self {
        case .invalidMode(let text): "\"\(text)\" is not a mode: write WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, e.g. 1920x1080@60"
        case .invalidScale(let scale): "scale factor \(scale) is out of range (0 < scale ≤ 8)"
        case .system(let operation, let code): "\(operation) failed: \(String(cString: strerror(code)))"
        case .imageSizeMismatch(let mode, let width, let height):
            "a frame of \(width)×\(height) pixels cannot be shown on a \(mode.width)×\(mode.height) output"
        case .notTheBackBuffer(let output): "\(output): a frame was presented from memory that is not its next frame buffer"
        }
    }
}

/// The current CLOCK_MONOTONIC time in nanoseconds (wp_presentation's clock).
public func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

public final class HeadlessOutput: BackendOutput, ScanoutMemoryOutput {
    public let name: String
    public let description: String
    public let mode: OutputMode
    public let scaleFactor: Double
    public let transform: OutputTransform
    public var onFrame: ((FrameRequest) -> Void)?
    public var onPresented: ((PresentationTiming) -> Void)?

    /// The timerfd that paces this output.
    let timer: Int32
    private let epoch: UInt64
    private enum Phase: Equatable {
        case idle
        /// Waiting for the refresh at which `onFrame` is called.
        case waitingToRender(FrameRequest)
        /// `onFrame` ran; the compositor has not presented or skipped yet.
        case rendering(FrameRequest)
        /// A frame is on its way to the refresh `sequence`.
        case waitingToShow(sequence: UInt64, frame: ShownFrame)
    }
    /// What a presented frame shows: an image handed over, or a frame buffer written in place.
    private enum ShownFrame: Equatable {
        case image(Image)
        case buffer(Int)
    }
    private var phase = Phase.idle
    private var wantsAnotherFrame = false
    /// When the frame being rendered was requested, and how long the last few frames took.
    private var renderStart: UInt64 = 0
    private var recentRenderDurations: [UInt64] = []

    /// The frame buffers written in place, and the one shown now (the other is written next).
    private let buffers: [HeadlessFrameBuffer]
    private var front = 1
    private var shownFrame: ShownFrame?
    /// The shown frame as an image, once asked for.
    private var shownImage: Image?

    /// The last frame shown: the presented image, or the shown buffer's pixels for a frame written
    /// in place (copied once, when first asked for).
    public var lastShownImage: Image? {
        if shownImage == nil, case .buffer(let index) = shownFrame { shownImage = buffers[index].image() }
        return shownImage
    }
    /// How many frames were shown.
    public private(set) var presentedFrameCount = 0
    /// Whether a presented frame waits for its refresh, so `lastShownImage` is not the latest yet.
    public var hasFrameWaitingToShow: Bool {
        if case .waitingToShow = phase { true } else { false }
    }
    public private(set) var isPoweredOn = true

    init(index: Int, configuration: HeadlessOutputConfiguration) throws(BackendError) {
        name = "HEADLESS-\(index)"
        description = "Vitrine headless output \(index) (\(configuration.mode))"
        mode = configuration.mode
        scaleFactor = configuration.scaleFactor
        transform = configuration.transform
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard fd >= 0 else { throw BackendError.system(operation: "timerfd_create", errno: errno) }
        timer = fd
        epoch = monotonicNanoseconds()
        do {
            buffers = try (0..<2).map { _ throws(BackendError) in
                try HeadlessFrameBuffer(width: configuration.mode.width, height: configuration.mode.height)
            }
        } catch {
            close(fd)
            throw error
        }
    }

    deinit {
        close(timer)
    }

    private var period: UInt64 { mode.refreshNanoseconds }

    /// The first refresh strictly after `time`.
    private func refresh(after time: UInt64) -> (sequence: UInt64, nanoseconds: UInt64) {
        let sequence = (time - epoch) / period + 1
        return (sequence, epoch + sequence * period)
    }

    /// How long before its refresh a frame is requested: the slowest of the last 8 frames plus a
    /// quarter and a millisecond (a period at most, so a frame slower than that starts at once).
    public var renderMarginNanoseconds: UInt64 {
        let slowest = recentRenderDurations.max() ?? 0
        return min(period, slowest + slowest / 4 + 1_000_000)
    }

    public func setPowered(_ on: Bool) {
        guard on != isPoweredOn else { return }
        isPoweredOn = on
        if on { scheduleAnotherIfWanted() }
    }

    public func scheduleFrame() {
        guard isPoweredOn else {
            wantsAnotherFrame = true
            return
        }
        switch phase {
        case .idle:
            let margin = renderMarginNanoseconds
            let next = refresh(after: monotonicNanoseconds() + margin)
            let request = FrameRequest(targetPresentationNanoseconds: next.nanoseconds, sequence: next.sequence)
            phase = .waitingToRender(request)
            arm(at: next.nanoseconds - margin)
        case .waitingToRender:
            break
        case .rendering, .waitingToShow:
            wantsAnotherFrame = true
        }
    }

    public func present(_ image: Image, for request: FrameRequest) throws {
        guard image.width == mode.width, image.height == mode.height else {
            throw BackendError.imageSizeMismatch(expected: mode, width: image.width, height: image.height)
        }
        show(.image(image))
    }

    /// The buffer that is not shown: nothing reads it until it is presented.
    public func nextScanoutMemory() -> ScanoutMemory? {
        buffers[(front + 1) % buffers.count].scanoutMemory
    }

    public func presentScanoutMemory(_ memory: ScanoutMemory, for request: FrameRequest) throws {
        let back = (front + 1) % buffers.count
        guard memory.owner === buffers[back] else { throw BackendError.notTheBackBuffer(output: name) }
        show(.buffer(back))
    }

    /// Shows `frame` at the first refresh from now.
    private func show(_ frame: ShownFrame) {
        let now = monotonicNanoseconds()
        recentRenderDurations.append(now - renderStart)
        if recentRenderDurations.count > 8 { recentRenderDurations.removeFirst() }
        let shown = refresh(after: now)
        phase = .waitingToShow(sequence: shown.sequence, frame: frame)
        arm(at: shown.nanoseconds)
    }

    public func skipFrame(_ request: FrameRequest) {
        phase = .idle
        scheduleAnotherIfWanted()
    }

    private func arm(at nanoseconds: UInt64) {
        var spec = itimerspec()
        spec.it_value = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        _ = timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    func timerExpired() {
        var expirations: UInt64 = 0
        guard read(timer, &expirations, 8) == 8 else { return }
        switch phase {
        case .waitingToRender(let request):
            phase = .rendering(request)
            renderStart = monotonicNanoseconds()
            onFrame?(request)
        case .waitingToShow(let sequence, let frame):
            shownFrame = frame
            switch frame {
            case .image(let image): shownImage = image
            case .buffer(let index):
                front = index
                shownImage = nil
            }
            presentedFrameCount += 1
            phase = .idle
            onPresented?(PresentationTiming(
                nanoseconds: epoch + sequence * period, refreshNanoseconds: period, sequence: sequence, flags: 0x1))
            scheduleAnotherIfWanted()
        case .idle, .rendering:
            break
        }
    }

    private func scheduleAnotherIfWanted() {
        guard wantsAnotherFrame, phase == .idle else { return }
        wantsAnotherFrame = false
        scheduleFrame()
    }
}
