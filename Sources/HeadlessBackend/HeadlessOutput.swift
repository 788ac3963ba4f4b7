public import Buffers
public import DisplayBackend
import Glibc
public import Graphics
public import SystemCalls

/// A display that exists only in memory, refreshed by a timer as a panel is by its vblank.
///
/// Its refreshes are a clock from CLOCK_MONOTONIC (refresh k at start + k·period). Frames are
/// paced by the shared `FrameScheduler` and start at a refresh, where KMS starts them just in time
/// before one. The clock is virtual: a frame asked for after an idle spell (nothing shown for a
/// period or more, or nothing yet) starts at once and the refreshes restart from it
/// (`RefreshClock.restarted`), as wlroots' headless output starts a frame at once when none is
/// pending; frames that follow each other keep the cadence. There is no scanout to wait for: a frame shows at the refresh it was started at,
/// and `presented` is emitted with that refresh's time and number as soon as the frame is
/// committed, so that one wakeup draws a frame and shows it (as wlroots' headless output presents
/// at commit). A frame whose acquire fence has not signalled when it is committed shows at the
/// first refresh at which it has. Frames are drawn in place into a ring of two buffers of host
/// memory, as into a KMS output's swapchain; the shown frame is read back only when captured. A
/// client's XRGB8888 buffer of the mode's size, a dma-buf or a shm buffer, can be shown as the frame
/// (direct scanout: nothing is copied; a capture reads the client's buffer), and a
/// configured cursor plane shows its image from the refresh after each change.
public final class HeadlessOutput: BackendOutput, HardwareCursorOutput {
    public let name: String
    public var description: String { "Vitrine headless output \(index) (\(mode))" }
    public private(set) var mode: OutputMode
    private let index: Int
    public let scaleFactor: Double
    public let transform: OutputTransform
    public let layout: OutputLayout
    public let frameScheduler: FrameScheduler
    /// The simulated vblank: armed for the next refresh while a frame or a cursor change waits to
    /// be shown.
    let refreshTimer: MonotonicTimer
    private var refreshes: RefreshClock
    /// The refresh `refreshTimer` is armed for.
    private var armedRefresh: Refresh?
    /// The last refresh that showed a frame or the cursor plane's change; nil before the first.
    private var lastUsedRefresh: Refresh?
    /// Whether the clock restarted after an idle spell and no frame was shown since: the next one
    /// shown is the wake frame.
    private var isWaking = false
    /// The refresh the wake frame was shown at: while it is the last used, the clock may restart
    /// once more (`RefreshClock.restarted`).
    private var wakeRefresh: Refresh?

    /// What a committed frame shows: a buffer of the ring, or a client's buffer, held from its
    /// client while the frame waits or is shown (let go by `drop(_:)`).
    private enum ShownFrame {
        case buffer(Int)
        case client(HeadlessClientBuffer)

        /// The ring buffer's index, for a frame drawn into the output's own.
        var bufferIndex: Int? {
            if case .buffer(let index) = self { index } else { nil }
        }
    }
    /// The frame committed and waiting for its refresh, and for its acquire fence to signal.
    private var pendingFrame: ShownFrame?
    private var pendingFence: OwnedFileDescriptor?
    /// The frame buffers written in place, and the one shown now (the other is written next).
    private var buffers: [HostMemoryBuffer]
    private var front = 1
    private var shownFrame: ShownFrame?
    /// The shown frame as an image, once asked for.
    private var shownImage: Image?

    /// The last frame shown: the shown buffer's pixels, a frame drawn in place or a client's
    /// buffer scanned out (copied once, when first asked for).
    public var lastShownImage: Image? {
        if shownImage == nil {
            switch shownFrame {
            case .buffer(let index): shownImage = try? buffers[index].withPixels(Image.init(copying:))
            case .client(let buffer): shownImage = try? buffer.withPixels(Image.init(copying:))
            case nil: break
            }
        }
        return shownImage
    }
    /// The client dma-buf the output scans out now (direct scanout), its descriptor the one the
    /// output holds; nil while it shows a frame of its own or a shm buffer.
    public var scannedOutDmabuf: DmabufLayout? {
        if case .client(let buffer) = shownFrame { buffer.dmabuf } else { nil }
    }
    /// How many frames were shown.
    public private(set) var presentedFrameCount = 0
    /// Whether a committed frame waits for its refresh, so `lastShownImage` is not the latest yet.
    public var hasFrameWaitingToShow: Bool { pendingFrame != nil }
    public private(set) var isPoweredOn = true
    private var isUnplugged = false

    private let cursorPlaneSize: CursorPlaneSize?
    private var cursorGeometry: CursorPlaneGeometry
    private var wantedCursor: (image: Image, hotspotX: Int, hotspotY: Int)?
    private var cursorPointer = Point.zero
    /// Whether the cursor's image changed since the cursor plane last showed it.
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
        let period = configuration.mode.refreshNanoseconds
        refreshes = RefreshClock(anchorNanoseconds: monotonicNanoseconds(), anchorSequence: 0, period: period)
        do throws(SystemCallError) {
            frameScheduler = try FrameScheduler(period: period, clock: refreshes, maximumLead: 0)
            refreshTimer = try MonotonicTimer()
        } catch {
            throw .system(error)
        }
        buffers = try Self.frameBuffers(for: configuration.mode)
        // unowned(unsafe): `unowned` cost a checked retain and a release every frame asked for. The
        // scheduler is this output's, and the reader goes with the output (deinit): it never runs
        // without it.
        frameScheduler.latestRefresh = { [unowned(unsafe) self] now in refreshForAskedFrame(at: now) }
    }

    deinit {
        frameScheduler.latestRefresh = nil
        // A client's buffer still shown goes back to it.
        drop(shownFrame)
        drop(pendingFrame)
    }

    /// The latest refresh when a frame is asked for at `now` with none on its way: after an idle
    /// spell, with no refresh awaited either, the clock restarts at `now` and this is a refresh
    /// then; so too within the period after such a wake when its frame alone was shown and
    /// nothing waited for it.
    private func refreshForAskedFrame(at now: UInt64) -> Refresh {
        if armedRefresh == nil {
            let wokeFromIdle = refreshes.isIdle(at: now, lastUsed: lastUsedRefresh)
            let unawaitedWake = lastUsedRefresh != nil && lastUsedRefresh == wakeRefresh && !frameScheduler.lastPresentationWasAwaited
            let restarted = refreshes.restarted(at: now, lastUsed: lastUsedRefresh, lastUsedWasUnawaitedWake: unawaitedWake)
            if restarted != refreshes {
                refreshes = restarted
                isWaking = wokeFromIdle
                wakeRefresh = nil
            }
        }
        return refreshes.refresh(atOrBefore: now)
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

    /// Its buffers are mapped host memory already.
    public func useSimplerBuffers(because reason: String) -> Bool { false }

    /// The buffer that is not shown: nothing reads it until it is committed.
    public func nextBuffer() -> (any SwapchainBuffer)? {
        buffers[(front + 1) % buffers.count]
    }

    public func test(_ state: OutputState) -> Bool {
        // Switched on as a local: on the state's own field, the compiler copies the whole optional
        // through its value witnesses (a metadata lookup, a retain and a release) every frame.
        let buffer = state.buffer
        switch buffer {
        case .swapchain(let buffer): guard buffer === buffers[(front + 1) % buffers.count] else { return false }
        case .client(let buffer): guard HeadlessClientBuffer.canShow(buffer, width: mode.width, height: mode.height) else { return false }
        case nil: break
        }
        if case .image(let image?, _, _) = state.cursor, !cursorFits(image) { return false }
        return true
    }

    /// Applies `state`: a new mode (with new frame buffers and a refresh clock from now; a frame on
    /// its way in the old size is dropped), the display lit or not, the cursor plane, and the
    /// frame, shown at the first refresh from now. False for a state the output cannot show: a
    /// client's buffer it cannot read (nothing changes), a cursor image larger than its plane
    /// (the plane is left empty).
    public func commit(_ state: OutputState) throws -> Bool {
        guard !isUnplugged else { return false }
        guard test(state) else {
            if case .swapchain(let buffer) = state.buffer, buffer !== buffers[(front + 1) % buffers.count] {
                throw BackendError.notTheBackBuffer(output: name)
            }
            // A refused image leaves the plane empty, as KMS's does; no presentation is promised for it.
            if case .image(_?, _, _) = state.cursor, cursorPlaneSize != nil {
                wantedCursor = nil
                if shownCursor != nil { scheduleRefresh(forCursor: true) }
            }
            return false
        }
        if let newMode = state.mode, newMode != mode { try changeMode(to: newMode) }
        if let active = state.isActive { setPowered(active) }
        switch state.cursor {
        case .image(let image, let hotspotX, let hotspotY):
            guard cursorPlaneSize != nil else { return false }
            wantedCursor = image.map { ($0, hotspotX, hotspotY) }
            cursorImageIsNew = true
            scheduleRefresh(forCursor: true)
        case .position(let point):
            guard cursorPlaneSize != nil else { return false }
            cursorPointer = point
            if wantedCursor != nil { scheduleRefresh(forCursor: true) }
        case nil:
            break
        }
        let buffer = state.buffer
        switch buffer {
        case .swapchain:
            show(.buffer((front + 1) % buffers.count), after: state.acquireFence)
        case .client(let buffer):
            // The state's hold on the buffer is the output's from here on.
            guard let client = HeadlessClientBuffer(buffer) else { return false }
            show(.client(client), after: state.acquireFence)
        case nil:
            break
        }
        return true
    }

    /// Shows `frame` at the refresh it was started at (the last one), or, while `fence` has not
    /// signalled, at the first refresh at which it has.
    private func show(_ frame: consuming ShownFrame, after fence: OwnedFileDescriptor?) {
        let now = frameScheduler.frameCommitted()
        // A frame still waiting for its fence is replaced: never shown.
        drop(pendingFrame.take())
        guard fence.map(Self.hasSignalled) ?? true else {
            pendingFrame = frame
            pendingFence = fence
            scheduleRefresh(forCursor: false)
            return
        }
        present(frame, at: refreshes.refresh(atOrBefore: now))
    }

    /// Whether a sync_file has signalled: it reads as readable then (looked at when a frame is
    /// committed and at each refresh while one waits, as KMS's IN_FENCE_FD holds a flip).
    private static func hasSignalled(_ fence: OwnedFileDescriptor) -> Bool {
        var entry = pollfd(fd: fence.rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1
    }

    private func setPowered(_ on: Bool) {
        guard on != isPoweredOn else { return }
        isPoweredOn = on
        if on { frameScheduler.resume() } else { frameScheduler.hold() }
    }

    /// A new mode with new frame buffers of its size and a refresh clock from now: a frame on its
    /// way in the old size is dropped (never presented), and a frame follows.
    func changeMode(to newMode: OutputMode) throws(BackendError) {
        buffers = try Self.frameBuffers(for: newMode)
        mode = newMode
        cursorGeometry = CursorPlaneGeometry(mode: newMode, scaleFactor: scaleFactor, transform: transform)
        refreshes = RefreshClock(anchorNanoseconds: monotonicNanoseconds(), anchorSequence: 0, period: newMode.refreshNanoseconds)
        lastUsedRefresh = nil
        isWaking = false
        wakeRefresh = nil
        front = 1
        drop(shownFrame)
        shownFrame = nil
        shownImage = nil
        drop(pendingFrame)
        pendingFrame = nil
        pendingFence = nil
        refreshTimer.disarm()
        armedRefresh = nil
        if cursorRefreshPending { scheduleRefresh(forCursor: true) }
        frameScheduler.restart(period: newMode.refreshNanoseconds, clock: refreshes)
    }

    /// Unplugged: no frame or cursor update is asked for or shown any more.
    func stop() {
        isUnplugged = true
        frameScheduler.hold()
        drop(pendingFrame)
        pendingFrame = nil
        pendingFence = nil
        cursorRefreshPending = false
        refreshTimer.disarm()
    }

    /// Arms the refresh timer for the next refresh, when it is not armed for one already.
    private func scheduleRefresh(forCursor cursor: Bool) {
        if cursor { cursorRefreshPending = true }
        guard armedRefresh == nil else { return }
        let next = refreshes.refresh(after: monotonicNanoseconds())
        armedRefresh = next
        refreshTimer.arm(at: next.nanoseconds)
    }

    /// A refresh: the frame committed before it is shown, and the cursor plane's change.
    func refreshTimerExpired() {
        guard refreshTimer.acknowledgeExpiration(), let refresh = armedRefresh else { return }
        armedRefresh = nil
        if cursorRefreshPending { showCursor(at: refresh) }
        guard pendingFrame != nil else { return }
        guard pendingFence.map(Self.hasSignalled) ?? true else {
            scheduleRefresh(forCursor: false)
            return
        }
        present(pendingFrame.take()!, at: refresh)
    }

    /// `frame` is what the output shows from `refresh` on (the pending frame, or none waits).
    /// Taken, not copied: a copy of a frame showing a client's buffer is a retain and a release.
    private func present(_ frame: consuming ShownFrame, at refresh: Refresh) {
        pendingFrame = nil
        pendingFence = nil
        let index = frame.bufferIndex
        if let index { front = index }
        drop(shownFrame.take())
        shownFrame = frame
        shownImage = nil
        lastUsedRefresh = refresh
        if isWaking {
            isWaking = false
            wakeRefresh = refresh
        }
        presentedFrameCount += 1
        // vsync, and zero-copy for a client's own buffer.
        let flags: UInt32 = index == nil ? 0x9 : 0x1
        frameScheduler.framePresented(
            PresentationTiming(nanoseconds: refresh.nanoseconds, refreshNanoseconds: period, sequence: refresh.sequence, flags: flags),
            vblankCounted: true)
    }

    /// The output no longer shows or waits to show `frame`: a client's buffer goes back to it.
    private func drop(_ frame: consuming ShownFrame?) {
        if case .client(let buffer) = frame { buffer.endHold() }
    }

    private func cursorFits(_ image: Image) -> Bool {
        guard let size = cursorPlaneSize else { return false }
        let turned = cursorGeometry.turnedSize(width: image.width, height: image.height)
        return turned.width <= size.width && turned.height <= size.height
    }

    /// The cursor plane takes what was last set, turned for the panel, at `refresh`.
    private func showCursor(at refresh: Refresh) {
        cursorRefreshPending = false
        lastUsedRefresh = refresh
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
        onCursorPresented?(PresentationTiming(nanoseconds: refresh.nanoseconds, refreshNanoseconds: period, sequence: refresh.sequence, flags: 0x1))
    }
}
