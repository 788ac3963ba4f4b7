import Buffers
internal import CDRM
internal import CLinux
import DisplayBackend
import Glibc
import SystemCalls
import Graphics
import Signals

/// One lit connector: its CRTC and primary plane, the mode, and a ring of dumb buffers.
///
/// The frame cycle follows the backend contract (see `HeadlessOutput`): a scheduled frame is
/// started just in time (`onFrame`) for the first refresh it can make, as long before it as
/// recent frames took to draw and commit (see `RefreshClock`), `present` copies the frame into
/// the back buffer and commits it as a nonblocking atomic page flip, and the flip event delivers
/// `presented` with the kernel's timestamp and sequence. At most one flip is pending, so the
/// buffer being written is never the one being scanned out.
public final class KMSOutput: BackendOutput, ScanoutMemoryOutput {
    public let name: String
    public var description: String { "\(name) on \(device.path) (\(mode))" }
    /// Changes only when the display's mode is followed (`changeMode`).
    public private(set) var mode: OutputMode
    public let scaleFactor: Double
    public let transform: OutputTransform
    public let layout: OutputLayout
    public var onFrame: ((FrameRequest) -> Void)?
    public let presented = Signal<PresentationTiming>()
    public var onCursorPresented: ((PresentationTiming) -> Void)?
    public var onCursorPlaneLost: (() -> Void)?
    /// Told how a refused page flip was recovered from (`FlipRecovery`), for the log.
    public var onRecovery: ((String) -> Void)?
    /// Whether the commit in flight changes the cursor plane's image (its flip presents it).
    private var cursorImageInFlight = false

    /// What the output shows now: the presented image, or the front buffer's pixels for a frame
    /// written there in place (read once, when first asked); nil while a client's buffer is
    /// scanned out directly.
    public var lastShownImage: Image? {
        if shownImage == nil, case .inPlace = shownFrame { shownImage = try? buffers[front].withPixels(Image.init(copying:)) }
        return shownImage
    }
    private var shownImage: Image?
    private var shownFrame: ShownFrame?
    public private(set) var presentedFrameCount = 0
    /// Whether the CRTC has a hardware vblank counter (flip sequences count refreshes); virtio-gpu
    /// has none, and reports sequence 0 with the time the flip completed.
    public private(set) var hasVblankCounter = false
    /// CLOCK_MONOTONIC time the modeset's flip completed: the output was first lit then.
    public private(set) var modesetCompletedNanoseconds: UInt64?
    /// From the page-flip commit to its flip event, for the last presented frame.
    public private(set) var lastCommitToFlipNanoseconds: UInt64?
    private var commitNanoseconds: UInt64 = 0

    private let device: DRMDevice
    private let connector: UInt32
    private let crtc: UInt32
    private let plane: UInt32
    private let planeFramebufferProperty: UInt32
    private var modeBlob: UInt32
    private var buffers: [DumbBuffer]
    /// The buffer scanned out now.
    private var front = 0
    private let saved: SavedCRTC
    /// Starts frames: armed for a frame's start when one is scheduled and no flip is pending.
    let timer: MonotonicTimer
    /// The refreshes, set by the modeset's flip and each flip after it.
    private var clock: RefreshClock?
    /// How long frames take from their start to their page-flip commit (drawing and the copy).
    private var renderTimes = RenderTimePredictor()
    /// How the frame now in the works was planned and when it started.
    private var pacing: FramePacing?
    /// How the last presented frame was paced.
    public private(set) var lastFramePacing: FramePacing?

    private enum Phase {
        case idle
        case waitingToRender(FrameRequest)
        case rendering(FrameRequest)
        /// A commit of `buffer` is on its way; `frame` is nil for the modeset's blank frame.
        case flipPending(frame: ShownFrame?, buffer: Int)
        /// A commit that only moves or changes the cursor plane is on its way.
        case cursorPending
        /// A refused commit of `frame` in `buffer` is made again when the timer expires.
        case retryPending(frame: ShownFrame, buffer: Int)
    }
    private var phase = Phase.idle
    private var wantsAnotherFrame = false
    /// While the session is switched away: nothing is committed.
    private var isSuspended = false
    /// False while the CRTC is inactive (DPMS off): nothing is committed.
    public private(set) var isPoweredOn = true
    /// The CRTC's ACTIVE property, for DPMS.
    private var activeProperty: UInt32 = 0
    /// The modeset's property values except the plane's framebuffer, to set the mode again on resume.
    private var modesetValues: [(object: UInt32, property: UInt32, value: UInt64)] = []
    /// The CRTC's cursor plane, when the configuration asks for it and the CRTC has one; nil
    /// once a flip with it was refused and it was turned off for good.
    private var cursorPlane: CursorPlane?
    /// The cursor plane was turned off for good: `onCursorPlaneLost` follows the flip.
    private var cursorPlaneDropped = false
    /// How the refusals of the frame being committed were handled so far.
    private var flipRecovery = FlipRecovery()
    private let cursorPlaneID: UInt32?
    /// Every commit's user data: the backend, which hands each flip event to the output that
    /// drives the event's CRTC.
    private let eventTarget: UnsafeMutableRawPointer
    /// Set once the output was turned off for good (its display unplugged).
    private var isTurnedOff = false

    /// The CRTC driving the connector, and the planes it scans out with.
    var crtcID: UInt32 { crtc }
    var planeIDs: [UInt32] { [plane] + (cursorPlaneID.map { [$0] } ?? []) }

    /// What the CRTC showed before this output took it, to leave it as found.
    private struct SavedCRTC {
        let framebuffer: UInt32
        let x: UInt32
        let y: UInt32
        let mode: drmModeModeInfo?
    }

    init(device: DRMDevice, candidate: OutputCandidate, configuration: KMSOutputConfiguration, events: UnsafeMutableRawPointer) throws(KMSError) {
        self.device = device
        eventTarget = events
        name = candidate.name
        connector = candidate.connector
        crtc = candidate.crtc
        plane = candidate.plane
        mode = OutputMode(candidate.mode)
        scaleFactor = configuration.scaleFactor
        transform = configuration.transform
        layout = configuration.layout
        let modeName = Self.modeName(candidate.mode)

        let connectorProperties = try device.properties(of: connector, type: UInt32(DRM_MODE_OBJECT_CONNECTOR), describedAs: "connector \(name)")
        let crtcProperties = try device.properties(of: crtc, type: UInt32(DRM_MODE_OBJECT_CRTC), describedAs: "CRTC \(crtc)")
        let planeProperties = try device.properties(of: plane, type: UInt32(DRM_MODE_OBJECT_PLANE), describedAs: "plane \(plane)")
        planeFramebufferProperty = try planeProperties.id("FB_ID")

        if let current = drmModeGetCrtc(device.fd, crtc) {
            saved = SavedCRTC(framebuffer: current.pointee.buffer_id, x: current.pointee.x, y: current.pointee.y,
                              mode: current.pointee.mode_valid != 0 ? current.pointee.mode : nil)
            drmModeFreeCrtc(current)
        } else {
            saved = SavedCRTC(framebuffer: 0, x: 0, y: 0, mode: nil)
        }

        var blob: UInt32 = 0
        var modeInfo = candidate.mode
        try KMSError.check(drmModeCreatePropertyBlob(device.fd, &modeInfo, MemoryLayout<drmModeModeInfo>.size, &blob),
                           "drmModeCreatePropertyBlob(mode \(modeName))")
        modeBlob = blob
        do throws(KMSError) {
            let size = (width: mode.width, height: mode.height)
            buffers = try (0..<2).map { _ throws(KMSError) in try DumbBuffer(device: device, width: size.width, height: size.height) }
        } catch {
            _ = drmModeDestroyPropertyBlob(device.fd, blob)
            throw error
        }
        do throws(SystemCallError) {
            timer = try MonotonicTimer()
        } catch {
            _ = drmModeDestroyPropertyBlob(device.fd, blob)
            throw KMSError.system(error)
        }

        // The modeset: connector → CRTC with the mode → primary plane showing a black buffer at
        // full size (SRC_* are 16.16 fixed point). Tested first, so that a refusal names the
        // connector and mode and changes nothing.
        cursorPlaneID = candidate.cursorPlane
        if let cursor = candidate.cursorPlane {
            let geometry = CursorPlaneGeometry(mode: mode, scaleFactor: configuration.scaleFactor, transform: configuration.transform)
            cursorPlane = try CursorPlane(device: device, plane: cursor, geometry: geometry)
        } else {
            cursorPlane = nil
        }
        buffers[0].clear()
        activeProperty = try crtcProperties.id("ACTIVE")
        modesetValues = [
            (connector, try connectorProperties.id("CRTC_ID"), UInt64(crtc)),
            (crtc, try crtcProperties.id("MODE_ID"), UInt64(blob)),
            (crtc, activeProperty, 1),
        ]
        let planeValues: [(String, UInt64)] = [
            ("CRTC_ID", UInt64(crtc)),
            ("SRC_X", 0), ("SRC_Y", 0), ("SRC_W", UInt64(mode.width) << 16), ("SRC_H", UInt64(mode.height) << 16),
            ("CRTC_X", 0), ("CRTC_Y", 0), ("CRTC_W", UInt64(mode.width)), ("CRTC_H", UInt64(mode.height)),
        ]
        for (property, value) in planeValues {
            modesetValues.append((plane, try planeProperties.id(property), value))
        }
        // The cursor plane starts off (another compositor may have left its cursor there).
        cursorPlane?.addDisabled(to: &modesetValues)
        let request = try modesetRequest(framebuffer: buffers[0].framebuffer)
        let modeset = UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET)
        if let code = request.commit(on: device, flags: modeset | UInt32(DRM_MODE_ATOMIC_TEST_ONLY), userData: nil) {
            throw KMSError.configurationRejected(connector: name, mode: modeName, errno: code)
        }
        if let code = request.commit(on: device, flags: modeset | UInt32(DRM_MODE_PAGE_FLIP_EVENT), userData: eventTarget) {
            throw KMSError.configurationRejected(connector: name, mode: modeName, errno: code)
        }
        cursorPlane?.turnedOff()
        phase = .flipPending(frame: nil, buffer: 0)
    }

    /// A mode as errors name it: size, refresh and the driver's name for it.
    private static func modeName(_ info: drmModeModeInfo) -> String {
        "\(OutputMode(info)) (\(withUnsafeBytes(of: info.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }))"
    }

    /// Whether a page flip or cursor commit of this output is on its way.
    var hasCommitInFlight: Bool {
        switch phase {
        case .flipPending, .cursorPending: true
        default: false
        }
    }

    /// The display's mode changed while it stayed connected: the new mode, with a new ring of
    /// buffers of its size showing black, is tested first, then set (blocking; while the display
    /// is powered down it is kept for power-up, and while the session is away for its return).
    /// A frame follows. Call with no commit in flight; a refused mode leaves the output as it was.
    func changeMode(to info: drmModeModeInfo) throws(KMSError) {
        let newMode = OutputMode(info)
        var blob: UInt32 = 0
        var modeInfo = info
        try KMSError.check(drmModeCreatePropertyBlob(device.fd, &modeInfo, MemoryLayout<drmModeModeInfo>.size, &blob),
                           "drmModeCreatePropertyBlob(mode \(Self.modeName(info)))")
        let newBuffers: [DumbBuffer]
        var values = modesetValues
        do throws(KMSError) {
            newBuffers = try (0..<2).map { _ throws(KMSError) in try DumbBuffer(device: device, width: newMode.width, height: newMode.height) }
            newBuffers[0].clear()
            // Property ids are the device's, shared by every CRTC (and plane): only this CRTC's and
            // primary plane's entries change.
            let crtcProperties = try device.properties(of: crtc, type: UInt32(DRM_MODE_OBJECT_CRTC), describedAs: "CRTC \(crtc)")
            let planeProperties = try device.properties(of: plane, type: UInt32(DRM_MODE_OBJECT_PLANE), describedAs: "plane \(plane)")
            let crtcValues: [UInt32: UInt64] = [try crtcProperties.id("MODE_ID"): UInt64(blob)]
            let planeValues: [UInt32: UInt64] = [
                try planeProperties.id("SRC_W"): UInt64(newMode.width) << 16, try planeProperties.id("SRC_H"): UInt64(newMode.height) << 16,
                try planeProperties.id("CRTC_W"): UInt64(newMode.width), try planeProperties.id("CRTC_H"): UInt64(newMode.height),
            ]
            values = modesetValues.map { entry in
                let replacement = entry.object == crtc ? crtcValues[entry.property] : entry.object == plane ? planeValues[entry.property] : nil
                return (entry.object, entry.property, replacement ?? entry.value)
            }
            if !isSuspended {
                let request = try AtomicRequest()
                for (object, property, value) in values { try request.set(object, property, value) }
                try request.set(plane, planeFramebufferProperty, UInt64(newBuffers[0].framebuffer))
                let modeset = UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET)
                if let code = request.commit(on: device, flags: modeset | UInt32(DRM_MODE_ATOMIC_TEST_ONLY), userData: nil) {
                    throw KMSError.configurationRejected(connector: name, mode: Self.modeName(info), errno: code)
                }
                if isPoweredOn, let code = request.commit(on: device, flags: modeset, userData: nil) {
                    throw KMSError.configurationRejected(connector: name, mode: Self.modeName(info), errno: code)
                }
            }
        } catch {
            _ = drmModeDestroyPropertyBlob(device.fd, blob)
            throw error
        }
        _ = drmModeDestroyPropertyBlob(device.fd, modeBlob)
        modeBlob = blob
        modesetValues = values
        buffers = newBuffers
        front = 0
        mode = newMode
        shownFrame = nil
        shownImage = nil
        cursorPlane?.follow(CursorPlaneGeometry(mode: newMode, scaleFactor: scaleFactor, transform: transform))
        cursorPlane?.turnedOff()
        // The refreshes of the old mode are gone: the next frame's schedule starts from now.
        clock = nil
        lastFramePacing = nil
        pacing = nil
        timer.disarm()
        phase = .idle
        wantsAnotherFrame = true
        if !isSuspended, isPoweredOn { scheduleAnotherIfWanted() }
    }

    /// The modeset showing `framebuffer`.
    private func modesetRequest(framebuffer: UInt32) throws(KMSError) -> AtomicRequest {
        let request = try AtomicRequest()
        for (object, property, value) in modesetValues { try request.set(object, property, value) }
        try request.set(plane, planeFramebufferProperty, UInt64(framebuffer))
        return request
    }

    func suspend() {
        isSuspended = true
    }

    /// DPMS: off makes the CRTC inactive (keeping its mode, blocking until a flip in flight is
    /// done); on sets the mode again showing the last frame, then draws what changed meanwhile.
    /// While the session is switched away only the wish is kept, for its return.
    public func setPowered(_ on: Bool) throws {
        guard on != isPoweredOn else { return }
        isPoweredOn = on
        guard !isSuspended else { return }
        if on {
            try resume()
            return
        }
        let request = try AtomicRequest()
        try request.set(crtc, activeProperty, 0)
        if let code = request.commit(on: device, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), userData: nil) {
            isPoweredOn = true
            throw KMSError.system(SystemCallError("turning \(name) off (CRTC ACTIVE = 0)", errno: code))
        }
    }

    /// Sets the mode again showing the front buffer (the last frame), blocking, then asks for a
    /// frame; an output powered off stays off.
    func resume() throws(KMSError) {
        isSuspended = false
        guard isPoweredOn else {
            wantsAnotherFrame = true
            return
        }
        // A flip in flight when the session went away may never report back.
        switch phase {
        case .flipPending, .cursorPending, .retryPending: phase = .idle
        default: break
        }
        flipRecovery = FlipRecovery()
        let request = try modesetRequest(framebuffer: buffers[front].framebuffer)
        if let code = request.commit(on: device, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), userData: nil) {
            throw KMSError.configurationRejected(connector: name, mode: mode.description, errno: code)
        }
        cursorPlane?.turnedOff()
        wantsAnotherFrame = true
        scheduleAnotherIfWanted()
    }

    /// The display was unplugged: the CRTC is turned off and freed (blocking, after a flip in
    /// flight), and nothing is committed any more. What the CRTC showed before is not put back:
    /// nothing shows it.
    func turnOff() {
        guard !isTurnedOff else { return }
        isTurnedOff = true
        isSuspended = true
        phase = .idle
        wantsAnotherFrame = false
        disableCRTC()
    }

    deinit {
        if !isTurnedOff { restoreCRTC() }
        _ = drmModeDestroyPropertyBlob(device.fd, modeBlob)
    }

    /// Puts back what the CRTC showed before (a console's framebuffer), or turns it off.
    private func restoreCRTC() {
        if saved.framebuffer != 0, var mode = saved.mode {
            var connectorID = connector
            _ = drmModeSetCrtc(device.fd, crtc, saved.framebuffer, saved.x, saved.y, &connectorID, 1, &mode)
        } else {
            disableCRTC()
        }
    }

    /// Detaches the connector and turns the CRTC and its plane off.
    private func disableCRTC() {
        if let request = try? AtomicRequest(),
           let connectorCRTC = try? device.properties(of: connector, type: UInt32(DRM_MODE_OBJECT_CONNECTOR), describedAs: name).id("CRTC_ID"),
           let crtcProperties = try? device.properties(of: crtc, type: UInt32(DRM_MODE_OBJECT_CRTC), describedAs: "CRTC"),
           let planeProperties = try? device.properties(of: plane, type: UInt32(DRM_MODE_OBJECT_PLANE), describedAs: "plane") {
            // An inactive CRTC may keep no plane on: the cursor plane goes off with the primary.
            var cursorValues: [(object: UInt32, property: UInt32, value: UInt64)] = []
            cursorPlane?.addDisabled(to: &cursorValues)
            for value in cursorValues { try? request.set(value.object, value.property, value.value) }
            try? request.set(connector, connectorCRTC, 0)
            try? request.set(crtc, (try? crtcProperties.id("ACTIVE")) ?? 0, 0)
            try? request.set(crtc, (try? crtcProperties.id("MODE_ID")) ?? 0, 0)
            try? request.set(plane, planeFramebufferProperty, 0)
            try? request.set(plane, (try? planeProperties.id("CRTC_ID")) ?? 0, 0)
            _ = request.commit(on: device, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), userData: nil)
        }
    }

    private var period: UInt64 { mode.refreshNanoseconds }

    /// The wp_presentation flags a flip event earns: the kernel signalled completion, on the
    /// monotonic clock, and in step with vblank when the CRTC counts them.
    private var presentationFlags: UInt32 {
        var flags: UInt32 = 0x4
        if device.hasMonotonicTimestamps { flags |= 0x2 }
        if hasVblankCounter { flags |= 0x1 }
        return flags
    }

    public func scheduleFrame() {
        if isSuspended || !isPoweredOn {
            wantsAnotherFrame = true
            return
        }
        switch phase {
        case .idle:
            // With a counter, the CRTC's latest vblank: after an idle spell the last flip may be
            // long past, and the display's clock drifts from the CPU's.
            var vblankSequence: UInt64 = 0
            var vblankNanoseconds: UInt64 = 0
            if hasVblankCounter, drmCrtcGetSequence(device.fd, crtc, &vblankSequence, &vblankNanoseconds) == 0 {
                clock = RefreshClock(anchorNanoseconds: vblankNanoseconds, anchorSequence: vblankSequence, period: period)
            }
            let now = monotonicNanoseconds()
            let lead = renderTimes.leadNanoseconds
            let refreshes = clock ?? RefreshClock(anchorNanoseconds: now, anchorSequence: 0, period: period)
            let schedule = refreshes.schedule(now: now, lead: lead, after: lastFramePacing?.target)
            let request = FrameRequest(targetPresentationNanoseconds: schedule.target.nanoseconds, sequence: schedule.target.sequence)
            phase = .waitingToRender(request)
            pacing = FramePacing(requestedNanoseconds: now, leadNanoseconds: lead, target: schedule.target,
                                 startedNanoseconds: 0, committedNanoseconds: 0)
            timer.arm(at: schedule.startNanoseconds)
        case .waitingToRender:
            break
        case .rendering, .flipPending, .cursorPending, .retryPending:
            wantsAnotherFrame = true
        }
    }

    func timerExpired() {
        guard timer.acknowledgeExpiration() else { return }
        switch phase {
        case .waitingToRender(let request):
            phase = .rendering(request)
            pacing?.startedNanoseconds = monotonicNanoseconds()
            onFrame?(request)
        case .retryPending(let frame, let buffer):
            retry(frame, buffer: buffer)
        default:
            break
        }
    }

    /// Copies `image` into the back buffer and commits it as a page flip.
    ///
    /// The renderer's pixels are premultiplied ARGB8888 (native-endian 0xAARRGGBB); the plane
    /// scans out XRGB8888 with the same byte order and no alpha, which shows a premultiplied
    /// pixel over black: exactly its colour components. So rows are copied unchanged.
    public func present(_ image: Image, for request: FrameRequest) throws {
        guard image.width == mode.width, image.height == mode.height else {
            throw KMSError.imageSizeMismatch(output: name, expected: mode.description, width: image.width, height: image.height)
        }
        try commitBackBuffer(showing: .image(image)) { buffer in
            image.withUnsafeBytes { bytes in
                guard let source = bytes.baseAddress else { return }
                for row in 0..<image.height {
                    (buffer.mapping.baseAddress! + row * buffer.bytesPerRow).copyMemory(from: source + row * image.bytesPerRow, byteCount: image.width * 4)
                }
            }
        }
    }

    /// The back buffer's mapping, for the renderer to write the next frame into in place. Each
    /// dumb buffer keeps its pixels, so the renderer writes only what changed since its own last
    /// frame in that buffer.
    public func nextScanoutBuffer() -> (any MappedPixelBuffer)? {
        buffers[(front + 1) % buffers.count]
    }

    /// Commits the back buffer, which the frame was written into in place, as a page flip.
    public func presentScanoutBuffer(_ buffer: any MappedPixelBuffer, for request: FrameRequest) throws {
        guard buffer === buffers[(front + 1) % buffers.count] else { throw KMSError.notTheBackBuffer(output: name) }
        try commitBackBuffer(showing: .inPlace) { _ in }
    }

    /// Fills the back buffer with `fill` and commits it as a nonblocking page flip.
    private func commitBackBuffer(showing frame: ShownFrame, fill: (DumbBuffer) -> Void) throws {
        if isSuspended || !isPoweredOn {
            // The frame waits for the session to come back or the display to be on (both draw a new one).
            phase = .idle
            wantsAnotherFrame = true
            return
        }
        let back = (front + 1) % buffers.count
        fill(buffers[back])
        try commitFrame(showing: frame, buffer: back)
    }

    /// Commits `frame` (in `buffer`, or the client's framebuffer) as a nonblocking page flip that
    /// shows it; `buffer` becomes the front buffer when it completes. A refusal is handled as
    /// `FlipRecovery` says: false when a client's buffer scanned out directly was refused and the
    /// frame is to be composed instead; a throw when the frame is given up (the display keeps what
    /// it showed). `retrying`: a commit made again after EBUSY, when composing is too late.
    @discardableResult
    private func commitFrame(showing frame: ShownFrame, buffer back: Int, retrying: Bool = false) throws -> Bool {
        var withoutCursorPlane = false
        var modeset = false
        while true {
            let framebuffer: UInt32 = if case .direct(let client) = frame { client.id } else { buffers[back].framebuffer }
            let request: AtomicRequest
            var cursorChange: CursorPlane.Change?
            if modeset {
                request = try modesetRequest(framebuffer: framebuffer)
            } else {
                request = try AtomicRequest()
                try request.set(plane, planeFramebufferProperty, UInt64(framebuffer))
                if withoutCursorPlane {
                    var off: [(object: UInt32, property: UInt32, value: UInt64)] = []
                    cursorPlane?.addDisabled(to: &off)
                    for value in off { try request.set(value.object, value.property, value.value) }
                } else if let cursor = cursorPlane, cursor.needsCommit {
                    // Cursor changes since the last commit ride along with the frame.
                    cursorChange = try cursor.addChanges(to: request, crtc: crtc)
                }
            }
            let flags = modeset
                ? UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET) | UInt32(DRM_MODE_PAGE_FLIP_EVENT)
                : UInt32(DRM_MODE_ATOMIC_NONBLOCK) | UInt32(DRM_MODE_PAGE_FLIP_EVENT)
            guard let code = request.commit(on: device, flags: flags, userData: eventTarget) else {
                if withoutCursorPlane {
                    cursorPlane = nil
                    cursorPlaneDropped = true
                }
                // A modeset turns the cursor plane off: the next commit sets it again.
                if modeset { cursorPlane?.turnedOff() }
                flipCommitted(frame, buffer: back, cursorChange: cursorChange, retried: retrying)
                return true
            }
            let carried = FlipRecovery.Commit(
                directScanout: frame.isDirect, cursorPlane: !withoutCursorPlane && (cursorChange != nil || cursorPlane?.showsImage == true))
            let refusal = "\(modeset ? "setting the mode again" : "the page flip") on \(name) was refused: \(code) (errno \(code.rawValue))"
            switch flipRecovery.refused(code, commit: carried) {
            case .retryAfterRefresh:
                onRecovery?("\(refusal); committing the frame again a refresh later")
                phase = .retryPending(frame: frame, buffer: back)
                timer.arm(after: period)
                return true
            case .compose where !retrying:
                onRecovery?("\(refusal); composing the frame instead of scanning the client's buffer out")
                flipRecovery = FlipRecovery()
                return false
            case .retryWithoutCursorPlane:
                onRecovery?("\(refusal); committing the frame again with the cursor plane off for good (the cursor is drawn into frames)")
                withoutCursorPlane = true
            case .modeset:
                onRecovery?("\(refusal); setting the mode again with the frame")
                modeset = true
            case .compose, .giveUp:
                onRecovery?("\(refusal); the frame is dropped and the display keeps what it showed")
                flipRecovery = FlipRecovery()
                throw KMSError.system(SystemCallError("page flip on \(name)", errno: code))
            }
        }
    }

    /// A committed flip of `frame`: it is on its way, and the refusals before it are forgotten.
    private func flipCommitted(_ frame: ShownFrame, buffer back: Int, cursorChange: CursorPlane.Change?, retried: Bool) {
        flipRecovery = FlipRecovery()
        if let cursorChange {
            cursorPlane?.committed(cursorChange)
            cursorImageInFlight = cursorChange.changesImage
        }
        commitNanoseconds = monotonicNanoseconds()
        // A frame committed again after a refusal waited on purpose: no measure of drawing.
        if !retried, let started = pacing?.startedNanoseconds {
            renderTimes.record(commitNanoseconds - started)
        }
        pacing?.committedNanoseconds = commitNanoseconds
        phase = .flipPending(frame: frame, buffer: back)
    }

    /// Commits again a frame the driver refused with EBUSY a refresh ago; given up, it leaves the
    /// display as it is and the next frame starts afresh.
    private func retry(_ frame: ShownFrame, buffer: Int) {
        guard !isSuspended, isPoweredOn else {
            phase = .idle
            flipRecovery = FlipRecovery()
            wantsAnotherFrame = true
            return
        }
        do {
            try commitFrame(showing: frame, buffer: buffer, retrying: true)
        } catch {
            phase = .idle
            scheduleAnotherIfWanted()
            commitCursorIfIdle()
        }
    }

    public func skipFrame(_ request: FrameRequest) {
        phase = .idle
        scheduleAnotherIfWanted()
        commitCursorIfIdle()
    }

    /// The page-flip event of this output's last commit.
    func flipCompleted(sequence: UInt32, nanoseconds: UInt64) {
        // Timestamps on another clock than CLOCK_MONOTONIC cannot feed wp_presentation: take the
        // time the event was read instead.
        let time = device.hasMonotonicTimestamps ? nanoseconds : monotonicNanoseconds()
        if cursorImageInFlight {
            cursorImageInFlight = false
            onCursorPresented?(PresentationTiming(nanoseconds: time, refreshNanoseconds: period, sequence: UInt64(sequence), flags: presentationFlags))
        }
        if case .cursorPending = phase {
            phase = .idle
            scheduleAnotherIfWanted()
            commitCursorIfIdle()
            return
        }
        guard case .flipPending(let frame, let buffer) = phase else { return }
        front = buffer
        phase = .idle
        if cursorPlaneDropped {
            cursorPlaneDropped = false
            onCursorPlaneLost?()
        }
        if frame != nil, clock != nil {
            clock?.flipCompleted(at: time, sequence: hasVblankCounter ? UInt64(sequence) : nil, aimedAt: pacing?.target)
        } else {
            clock = RefreshClock(anchorNanoseconds: time, anchorSequence: UInt64(sequence), period: period)
        }
        if let frame {
            lastFramePacing = pacing
            pacing = nil
            shownFrame = frame
            if case .image(let image) = frame { shownImage = image } else { shownImage = nil }
            presentedFrameCount += 1
            lastCommitToFlipNanoseconds = monotonicNanoseconds() - commitNanoseconds
            // wp_presentation's zero_copy: the client's own buffer was scanned out.
            let zeroCopy: UInt32 = if case .direct = frame { 0x8 } else { 0 }
            let timing = PresentationTiming(
                nanoseconds: time, refreshNanoseconds: period, sequence: UInt64(sequence), flags: presentationFlags | zeroCopy)
            presented.emit(timing)
        } else {
            modesetCompletedNanoseconds = time
            var count: UInt64 = 0
            var countTime: UInt64 = 0
            hasVblankCounter = drmCrtcGetSequence(device.fd, crtc, &count, &countTime) == 0
        }
        scheduleAnotherIfWanted()
        commitCursorIfIdle()
    }

    private func scheduleAnotherIfWanted() {
        guard wantsAnotherFrame, case .idle = phase else { return }
        wantsAnotherFrame = false
        scheduleFrame()
    }
}

/// What a presented frame showed: an image copied into the buffer, pixels written there in place,
/// or a client's buffer scanned out directly.
enum ShownFrame {
    case image(Image)
    case inPlace
    case direct(ClientFramebuffer)

    var isDirect: Bool {
        if case .direct = self { true } else { false }
    }
}

/// A fullscreen client buffer on the primary plane instead of a composed frame.
extension KMSOutput: DirectScanoutOutput {
    public func scanOut(_ buffer: DmabufLayout, for request: FrameRequest, released: @escaping () -> Void) throws -> Bool {
        guard !isSuspended, isPoweredOn, buffer.width == mode.width, buffer.height == mode.height,
            let framebuffer = ClientFramebuffer(device: device, buffer: buffer)
        else { return false }
        let commit = try AtomicRequest()
        try commit.set(plane, planeFramebufferProperty, UInt64(framebuffer.id))
        // The plane's formats, pitch and the buffer's memory are the driver's to judge.
        guard commit.commit(on: device, flags: UInt32(DRM_MODE_ATOMIC_TEST_ONLY), userData: nil) == nil else { return false }
        // The dumb buffers stay as they are: the next composed frame goes into the back one.
        guard try commitFrame(showing: .direct(framebuffer), buffer: front) else { return false }
        framebuffer.released = released
        return true
    }
}

/// The cursor plane, when the configuration asks for it and the CRTC has one: an image turned for
/// the panel, moved without a frame.
extension KMSOutput: HardwareCursorOutput {
    public func setCursor(_ image: Image?, hotspotX: Int, hotspotY: Int) -> Bool {
        guard let cursorPlane else { return false }
        guard let image else {
            cursorPlane.show(nil, hotspotX: 0, hotspotY: 0)
            commitCursorIfIdle()
            return true
        }
        guard cursorPlane.fits(width: image.width, height: image.height) else {
            cursorPlane.hide()
            commitCursorIfIdle()
            return false
        }
        cursorPlane.show(image, hotspotX: hotspotX, hotspotY: hotspotY)
        // The driver's word first: a plane state it refuses would make the next frame's flip fail.
        guard let test = try? AtomicRequest(), (try? cursorPlane.addChanges(to: test, crtc: crtc, testOnly: true)) != nil,
              test.commit(on: device, flags: UInt32(DRM_MODE_ATOMIC_TEST_ONLY), userData: nil) == nil else {
            cursorPlane.hide()
            commitCursorIfIdle()
            return false
        }
        commitCursorIfIdle()
        return true
    }

    public func moveCursor(to point: Point) {
        guard let cursorPlane else { return }
        cursorPlane.move(to: point)
        commitCursorIfIdle()
    }

    /// Commits a cursor change on its own when no commit is in flight or coming: one commit at a
    /// time per CRTC (a second nonblocking one is refused with EBUSY), so a change made meanwhile
    /// rides along with the next frame's flip, or follows once the flip is done.
    private func commitCursorIfIdle() {
        guard let cursorPlane, cursorPlane.needsCommit, !isSuspended, isPoweredOn, case .idle = phase,
              let request = try? AtomicRequest(), let change = try? cursorPlane.addChanges(to: request, crtc: crtc) else { return }
        let flags = UInt32(DRM_MODE_ATOMIC_NONBLOCK) | UInt32(DRM_MODE_PAGE_FLIP_EVENT)
        // A refused commit leaves the change for the next frame's flip.
        guard request.commit(on: device, flags: flags, userData: eventTarget) == nil else { return }
        cursorPlane.committed(change)
        cursorImageInFlight = change.changesImage
        phase = .cursorPending
    }

    /// Whether the cursor is on the cursor plane now (it shows an image there).
    public var showsHardwareCursor: Bool { cursorPlane?.showsImage ?? false }
}
