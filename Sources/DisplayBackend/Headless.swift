import Buffers
internal import CLinux
import Glibc
import Graphics
public import Signals
public import SystemCalls

/// Outputs that exist only in memory, refreshed by a timer: for tests, CI and screenshots.
///
/// Each output keeps a refresh clock from CLOCK_MONOTONIC (refresh k happens at start + k·period).
/// A scheduled frame is requested just in time for the next refresh it can make: as long before it
/// as recent frames took to render, with a margin, so that a client's commit reaches the screen at
/// the next refresh when the work fits. The frame is shown at the first refresh after it was
/// presented (as a display scanning out with vsync would), and `presented` is emitted at that
/// moment with that refresh's time and number. Each output has a ring of two frame buffers in
/// host memory that frames are written into in place (`ScanoutMemoryOutput`), as into a KMS
/// output's dumb buffers; the shown frame is read back only when captured.
public final class HeadlessBackend: DisplayBackend {
    public var outputs: [any BackendOutput] { headlessOutputs }
    private var headlessOutputs: [HeadlessOutput] = []
    /// Outputs made so far: generated names (HEADLESS-1, HEADLESS-2…) are never reused.
    private var made = 0
    public let outputAdded = Signal<any BackendOutput>()
    public let outputRemoved = Signal<any BackendOutput>()
    public let outputModeChanged = Signal<any BackendOutput>()

    public init(outputs configurations: [HeadlessOutputConfiguration]) throws(BackendError) {
        for configuration in configurations { headlessOutputs.append(try makeOutput(configuration)) }
    }

    private func makeOutput(_ configuration: HeadlessOutputConfiguration) throws(BackendError) -> HeadlessOutput {
        made += 1
        return try HeadlessOutput(index: made, configuration: configuration)
    }

    /// Plugs in another output (hotplug, for tests) at `position` in the order of importance
    /// (default: last); `outputAdded` follows.
    @discardableResult
    public func addOutput(_ configuration: HeadlessOutputConfiguration, at position: Int? = nil) throws(BackendError) -> HeadlessOutput {
        let output = try makeOutput(configuration)
        headlessOutputs.insert(output, at: min(position ?? headlessOutputs.count, headlessOutputs.count))
        outputAdded.emit(output)
        return output
    }

    /// Unplugs `output`; `outputRemoved` follows. Its frame clock stops.
    public func removeOutput(_ output: HeadlessOutput) {
        guard let index = headlessOutputs.firstIndex(where: { $0 === output }) else { return }
        headlessOutputs.remove(at: index)
        output.stop()
        outputRemoved.emit(output)
    }

    /// Gives `output` another mode, as a display resized while it stays connected;
    /// `outputModeChanged` follows.
    public func changeMode(of output: HeadlessOutput, to mode: OutputMode) throws(BackendError) {
        guard headlessOutputs.contains(where: { $0 === output }) else { return }
        try output.changeMode(to: mode)
        outputModeChanged.emit(output)
    }

    public var fileDescriptors: [FileDescriptor] { headlessOutputs.flatMap { [$0.timer.fileDescriptor, $0.cursorTimer.fileDescriptor] } }

    public func dispatch(fileDescriptor: FileDescriptor) {
        headlessOutputs.first { $0.timer.fileDescriptor == fileDescriptor }?.timerExpired()
        headlessOutputs.first { $0.cursorTimer.fileDescriptor == fileDescriptor }?.cursorTimerExpired()
    }

    /// The headless output `index` (0-based) as its concrete type, for capture.
    public func headlessOutput(_ index: Int) -> HeadlessOutput { headlessOutputs[index] }
}

/// What a headless output looks like.
public struct HeadlessOutputConfiguration: Sendable, Equatable {
    public var mode: OutputMode
    public var scaleFactor: Double
    public var transform: OutputTransform
    /// A cursor plane of this size, as a KMS CRTC has (none by default: the cursor is drawn into
    /// the frames).
    public var cursorPlane: CursorPlaneSize?
    /// Where it goes in the compositor's global space, or which output it mirrors.
    public var layout: OutputLayout
    /// Its name, as a connector's (a display plugged out and in again keeps it); nil: HEADLESS-N.
    public var name: String?

    public init(
        mode: OutputMode, scaleFactor: Double = 1, transform: OutputTransform = .normal, cursorPlane: CursorPlaneSize? = nil,
        layout: OutputLayout = .automatic, name: String? = nil
    ) {
        self.mode = mode
        self.scaleFactor = scaleFactor
        self.transform = transform
        self.cursorPlane = cursorPlane
        self.layout = layout
        self.name = name
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
    case system(SystemCallError)
    case imageSizeMismatch(expected: OutputMode, width: Int, height: Int)
    case notTheBackBuffer(output: String)

    public var description: String {
        switch self {
        case .invalidMode(let text): "\"\(text)\" is not a mode: write WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, e.g. 1920x1080@60"
        case .invalidScale(let scale): "scale factor \(scale) is out of range (0 < scale ≤ 8)"
        case .system(let error): error.description
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

public final class HeadlessOutput: BackendOutput, ScanoutMemoryOutput, DirectScanoutOutput {
    public let name: String
    public var description: String { "Vitrine headless output \(index) (\(mode))" }
    public private(set) var mode: OutputMode
    private let index: Int
    public let scaleFactor: Double
    public let transform: OutputTransform
    public let layout: OutputLayout
    public var onFrame: ((FrameRequest) -> Void)?
    public let presented = Signal<PresentationTiming>()

    /// The timerfd that paces this output.
    let timer: MonotonicTimer
    private var clock: RefreshClock
    private enum Phase: Equatable {
        case idle
        /// Waiting for the refresh at which `onFrame` is called.
        case waitingToRender(FrameRequest)
        /// `onFrame` ran; the compositor has not presented or skipped yet.
        case rendering(FrameRequest)
        /// A frame is on its way to `refresh`.
        case waitingToShow(refresh: Refresh, frame: ShownFrame)
    }
    /// What a presented frame shows: an image handed over, a frame buffer written in place, or a
    /// client's buffer scanned out directly.
    private enum ShownFrame: Equatable {
        case image(Image)
        case buffer(Int)
        case client(HeadlessClientBuffer)

        static func == (a: ShownFrame, b: ShownFrame) -> Bool {
            switch (a, b) {
            case (.image(let x), .image(let y)): x == y
            case (.buffer(let x), .buffer(let y)): x == y
            case (.client(let x), .client(let y)): x === y
            default: false
            }
        }
    }
    private var phase = Phase.idle
    private var wantsAnotherFrame = false
    /// When the frame being rendered was started, and how long the last few frames took.
    private var renderStart: UInt64 = 0
    private var renderTimes = RenderTimePredictor()

    /// The frame buffers written in place, and the one shown now (the other is written next).
    private var buffers: [HostMemoryBuffer]
    private var front = 1
    private var shownFrame: ShownFrame?
    /// The shown frame as an image, once asked for.
    private var shownImage: Image?

    /// The last frame shown: the presented image, or the shown buffer's pixels for a frame written
    /// in place or a client's buffer scanned out (copied once, when first asked for).
    public var lastShownImage: Image? {
        if shownImage == nil {
            switch shownFrame {
            case .buffer(let index): shownImage = try? buffers[index].withPixels(Image.init(copying:))
            case .client(let buffer): shownImage = try? buffer.withPixels(Image.init(copying:))
            case .image, nil: break
            }
        }
        return shownImage
    }
    /// How many frames were shown.
    public private(set) var presentedFrameCount = 0
    /// Whether a presented frame waits for its refresh, so `lastShownImage` is not the latest yet.
    public var hasFrameWaitingToShow: Bool {
        if case .waitingToShow = phase { true } else { false }
    }
    public private(set) var isPoweredOn = true
    private var isUnplugged = false

    /// Paces the cursor plane: a change shows at the next refresh.
    let cursorTimer: MonotonicTimer
    private let cursorPlaneSize: CursorPlaneSize?
    private var cursorGeometry: CursorPlaneGeometry
    private var wantedCursor: (image: Image, hotspotX: Int, hotspotY: Int)?
    private var cursorPointer = Point.zero
    /// Whether `setCursor` was called since the cursor plane last showed its image.
    private var cursorImageIsNew = false
    private var cursorRefreshPending = false
    public var onCursorPresented: ((PresentationTiming) -> Void)?
    /// Never called: a headless cursor plane is not refused.
    public var onCursorPlaneLost: (() -> Void)?
    /// What the cursor plane shows: the image turned for the panel, and the panel pixel of its
    /// top-left corner (it may hang over the panel's edges).
    public private(set) var shownCursor: (image: Image, x: Int, y: Int)?

    init(index: Int, configuration: HeadlessOutputConfiguration) throws(BackendError) {
        name = configuration.name ?? "HEADLESS-\(index)"
        self.index = index
        mode = configuration.mode
        scaleFactor = configuration.scaleFactor
        transform = configuration.transform
        layout = configuration.layout
        cursorPlaneSize = configuration.cursorPlane
        cursorGeometry = CursorPlaneGeometry(mode: mode, scaleFactor: scaleFactor, transform: transform)
        do throws(SystemCallError) {
            timer = try MonotonicTimer()
            cursorTimer = try MonotonicTimer()
        } catch {
            throw .system(error)
        }
        clock = RefreshClock(anchorNanoseconds: monotonicNanoseconds(), anchorSequence: 0, period: configuration.mode.refreshNanoseconds)
        buffers = try Self.frameBuffers(for: configuration.mode)
    }

    /// The two frame buffers of `mode`, in host memory: premultiplied ARGB8888, as the renderer writes.
    private static func frameBuffers(for mode: OutputMode) throws(BackendError) -> [HostMemoryBuffer] {
        try (0..<2).map { _ throws(BackendError) in
            guard let buffer = HostMemoryBuffer(width: mode.width, height: mode.height, format: .argb8888) else {
                throw BackendError.system(.current("mmap of a \(mode.width)×\(mode.height) frame buffer"))
            }
            return buffer
        }
    }

    private var period: UInt64 { mode.refreshNanoseconds }

    /// How long before its refresh a frame is requested: the predicted render time, a period at
    /// most. A later frame is shown at the first refresh after it is presented, so a slow frame
    /// starts within a period instead of waiting for a refresh it would make: tests on a loaded
    /// machine keep their frame rate.
    public var renderMarginNanoseconds: UInt64 {
        min(period, renderTimes.leadNanoseconds)
    }

    public func setPowered(_ on: Bool) {
        guard on != isPoweredOn else { return }
        isPoweredOn = on
        if on { scheduleAnotherIfWanted() }
    }

    public func scheduleFrame() {
        guard !isUnplugged else { return }
        guard isPoweredOn else {
            wantsAnotherFrame = true
            return
        }
        switch phase {
        case .idle:
            let schedule = clock.schedule(now: monotonicNanoseconds(), lead: renderMarginNanoseconds)
            let request = FrameRequest(targetPresentationNanoseconds: schedule.target.nanoseconds, sequence: schedule.target.sequence)
            phase = .waitingToRender(request)
            timer.arm(at: schedule.startNanoseconds)
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
    public func nextScanoutBuffer() -> (any MappedPixelBuffer)? {
        buffers[(front + 1) % buffers.count]
    }

    public func presentScanoutBuffer(_ buffer: any MappedPixelBuffer, for request: FrameRequest) throws {
        let back = (front + 1) % buffers.count
        guard buffer === buffers[back] else { throw BackendError.notTheBackBuffer(output: name) }
        show(.buffer(back))
    }

    /// Shows `frame` at the first refresh from now.
    private func show(_ frame: ShownFrame) {
        let now = monotonicNanoseconds()
        renderTimes.record(now - renderStart)
        let shown = clock.refresh(after: now)
        phase = .waitingToShow(refresh: shown, frame: frame)
        timer.arm(at: shown.nanoseconds)
    }

    /// Shows an XRGB8888 client buffer of the mode's size as the frame, read where it lies.
    public func scanOut(_ buffer: DmabufLayout, for request: FrameRequest, released: @escaping () -> Void) throws -> Bool {
        guard buffer.width == mode.width, buffer.height == mode.height, let client = HeadlessClientBuffer(buffer) else {
            return false
        }
        client.released = released
        show(.client(client))
        return true
    }

    public func skipFrame(_ request: FrameRequest) {
        phase = .idle
        scheduleAnotherIfWanted()
    }

    /// A new mode with new frame buffers of its size and a refresh clock from now: a frame on its
    /// way in the old size is dropped (never presented), and a frame follows.
    func changeMode(to newMode: OutputMode) throws(BackendError) {
        buffers = try Self.frameBuffers(for: newMode)
        mode = newMode
        cursorGeometry = CursorPlaneGeometry(mode: newMode, scaleFactor: scaleFactor, transform: transform)
        clock = RefreshClock(anchorNanoseconds: monotonicNanoseconds(), anchorSequence: 0, period: newMode.refreshNanoseconds)
        front = 1
        shownFrame = nil
        shownImage = nil
        timer.disarm()
        if phase != .idle { wantsAnotherFrame = true }
        phase = .idle
        scheduleAnotherIfWanted()
    }

    /// Unplugged: no frame or cursor update is asked for or shown any more.
    func stop() {
        isUnplugged = true
        phase = .idle
        wantsAnotherFrame = false
        cursorRefreshPending = false
        timer.disarm()
        cursorTimer.disarm()
    }

    func timerExpired() {
        guard timer.acknowledgeExpiration() else { return }
        switch phase {
        case .waitingToRender(let request):
            phase = .rendering(request)
            renderStart = monotonicNanoseconds()
            onFrame?(request)
        case .waitingToShow(let refresh, let frame):
            shownFrame = frame
            switch frame {
            case .image(let image): shownImage = image
            case .buffer(let index):
                front = index
                shownImage = nil
            case .client:
                shownImage = nil
            }
            presentedFrameCount += 1
            phase = .idle
            // vsync, and zero-copy for a client's own buffer.
            let flags: UInt32 = if case .client = frame { 0x9 } else { 0x1 }
            presented.emit(PresentationTiming(
                nanoseconds: refresh.nanoseconds, refreshNanoseconds: period, sequence: refresh.sequence, flags: flags))
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

/// A cursor plane in memory: it shows its image turned for the panel as KMS's does, from the
/// refresh after each change, without a frame.
extension HeadlessOutput: HardwareCursorOutput {
    public func setCursor(_ image: Image?, hotspotX: Int, hotspotY: Int) -> Bool {
        guard let size = cursorPlaneSize else { return false }
        var fits = true
        if let image {
            let turned = cursorGeometry.turnedSize(width: image.width, height: image.height)
            fits = turned.width <= size.width && turned.height <= size.height
        }
        wantedCursor = fits ? image.map { ($0, hotspotX, hotspotY) } : nil
        // A refused image hides the cursor, and no presentation is promised for it.
        if fits { cursorImageIsNew = true }
        if fits || shownCursor != nil { scheduleCursorRefresh() }
        return fits
    }

    public func moveCursor(to point: Point) {
        guard cursorPlaneSize != nil else { return }
        cursorPointer = point
        if wantedCursor != nil { scheduleCursorRefresh() }
    }

    private func scheduleCursorRefresh() {
        guard !cursorRefreshPending else { return }
        cursorRefreshPending = true
        cursorTimer.arm(at: clock.refresh(after: monotonicNanoseconds()).nanoseconds)
    }

    func cursorTimerExpired() {
        guard cursorTimer.acknowledgeExpiration(), cursorRefreshPending else { return }
        cursorRefreshPending = false
        shownCursor = wantedCursor.flatMap { wanted in
            let turned = cursorGeometry.turnedSize(width: wanted.image.width, height: wanted.image.height)
            var pixels = [UInt8](repeating: 0, count: turned.width * turned.height * 4)
            pixels.withUnsafeMutableBytes { cursorGeometry.turn(wanted.image, into: $0.baseAddress!, bytesPerRow: turned.width * 4) }
            guard let image = try? pixels.withUnsafeBytes({
                try Image(width: turned.width, height: turned.height, pixelFormat: .argb8888, bytesPerRow: turned.width * 4, bytes: $0)
            }) else { return nil }
            let origin = cursorGeometry.origin(pointer: cursorPointer, hotspotX: wanted.hotspotX, hotspotY: wanted.hotspotY,
                                               imageWidth: wanted.image.width, imageHeight: wanted.image.height)
            return (image, origin.x, origin.y)
        }
        guard cursorImageIsNew else { return }
        cursorImageIsNew = false
        // The timer fired at the refresh it was armed for: the one just past.
        let next = clock.refresh(after: monotonicNanoseconds())
        onCursorPresented?(PresentationTiming(nanoseconds: next.nanoseconds - period, refreshNanoseconds: period, sequence: next.sequence - 1, flags: 0x1))
    }
}
