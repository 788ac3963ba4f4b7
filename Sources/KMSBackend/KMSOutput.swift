import Buffers
internal import CDRM
internal import CLinux
import DisplayBackend
import Glibc
import SystemCalls
import Graphics
import Signals

/// One lit connector: its CRTC and primary plane, the mode, and a ring of scanout buffers (GBM
/// buffer objects that the renderer draws into, or dumb buffers where it cannot: `swapchainPath`).
///
/// Frames are paced by the shared `FrameScheduler`; a committed state becomes one nonblocking
/// atomic commit (the frame's buffer on the primary plane, with the cursor plane's changes), and
/// its page-flip event presents it with the kernel's timestamp and sequence. At most one commit
/// is on its way, so the buffer being written is never the one being scanned out.
public final class KMSOutput: BackendOutput, HardwareCursorOutput {
    public let name: String
    public var description: String { "\(name) on \(device.path) (\(mode)), frames in \(swapchainPath)" }
    /// Which buffers frames are drawn into and scanned out from, and why dumb buffers where they are.
    public private(set) var swapchainPath: String
    /// Changes only when the display's mode is followed (`changeMode`).
    public private(set) var mode: OutputMode
    public let scaleFactor: Double
    public let transform: OutputTransform
    public let layout: OutputLayout
    public let frameScheduler: FrameScheduler
    public var onCursorPresented: ((PresentationTiming) -> Void)?
    public var onCursorPlaneLost: (() -> Void)?
    /// Told how a refused page flip was recovered from (`FlipRecovery`), and of a swapchain that
    /// turned to dumb buffers, for the log.
    public var onRecovery: ((String) -> Void)?
    /// Whether the commit in flight changes the cursor plane's image (its flip presents it).
    private var cursorImageInFlight = false

    /// What the output shows now: the front buffer's pixels (read once, when first asked); nil
    /// while a client's buffer is scanned out directly.
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
    /// The plane's IN_FENCE_FD: a state's acquire fence goes there, and the kernel holds the flip
    /// until it signals. Nil on a driver without it (such a state is not taken).
    private let planeInFenceProperty: UInt32?
    private var modeBlob: UInt32
    private var buffers: [any ScanoutBuffer]
    /// Buffers replaced while one of them was still on screen, kept until the next flip.
    private var retiredBuffers: [any ScanoutBuffer] = []
    private let allocator: SwapchainAllocator
    /// Why the output keeps to linear GBM buffers although its plane and the renderer share a
    /// tiled layout, and why to dumb buffers although GBM allocates (`useSimplerBuffers(because:)`).
    private var tiledRefused: String?
    private var mappedOnly: String?
    /// The buffer scanned out now.
    private var front = 0
    private let saved: SavedCRTC
    /// Makes a refused commit again a refresh later (`FlipRecovery`).
    let retryTimer: MonotonicTimer

    /// The commit on its way to the display, whose flip event is awaited.
    private enum Commit {
        /// The modeset's blank frame.
        case modeset
        /// A frame in `buffer` (the front one for a client's buffer).
        case frame(ShownFrame, buffer: Int)
        /// Only the cursor plane's changes.
        case cursor
    }
    private var inFlight: Commit?
    /// A frame the driver refused with EBUSY, committed again when `retryTimer` expires.
    private var retryPending: (frame: ShownFrame, buffer: Int, fence: OwnedFileDescriptor?)?
    /// The modes the display offers, for a state that asks for one (`KMSBackend` keeps it current).
    var offeredModes: [drmModeModeInfo]
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

    init(
        device: DRMDevice, allocator: SwapchainAllocator, candidate: OutputCandidate, offeredModes: [drmModeModeInfo],
        configuration: KMSOutputConfiguration, events: UnsafeMutableRawPointer
    ) throws(KMSError) {
        self.device = device
        self.allocator = allocator
        self.offeredModes = offeredModes
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
        planeInFenceProperty = try? planeProperties.id("IN_FENCE_FD")

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
            (buffers, swapchainPath) = try allocator.makeBuffers(width: mode.width, height: mode.height, plane: candidate.plane)
        } catch {
            _ = drmModeDestroyPropertyBlob(device.fd, blob)
            throw error
        }
        do throws(SystemCallError) {
            frameScheduler = try FrameScheduler(period: mode.refreshNanoseconds)
            retryTimer = try MonotonicTimer()
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
        inFlight = .modeset
        frameScheduler.displayCommitted()
        frameScheduler.latestRefresh = { [unowned self] _ in latestVblank() }
        frameScheduler.becameIdle = { [unowned self] in commitCursorIfIdle() }
    }

    /// With a vblank counter, the CRTC's latest vblank: after an idle spell the last flip may be
    /// long past, and the display's clock drifts from the CPU's.
    private func latestVblank() -> Refresh? {
        var sequence: UInt64 = 0
        var nanoseconds: UInt64 = 0
        guard hasVblankCounter, drmCrtcGetSequence(device.fd, crtc, &sequence, &nanoseconds) == 0 else { return nil }
        return Refresh(nanoseconds: nanoseconds, sequence: sequence)
    }

    /// A mode as errors name it: size, refresh and the driver's name for it.
    private static func modeName(_ info: drmModeModeInfo) -> String {
        "\(OutputMode(info)) (\(withUnsafeBytes(of: info.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }))"
    }

    /// Whether a page flip or cursor commit of this output is on its way.
    var hasCommitInFlight: Bool { inFlight != nil }

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
        let newBuffers: [any ScanoutBuffer]
        let newPath: String
        var values = modesetValues
        do throws(KMSError) {
            (newBuffers, newPath) = try allocator.makeBuffers(width: newMode.width, height: newMode.height, plane: plane, tiledRefused: tiledRefused, mappedOnly: mappedOnly)
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
        swapchainPath = newPath
        front = 0
        mode = newMode
        shownFrame = nil
        shownImage = nil
        cursorPlane?.follow(CursorPlaneGeometry(mode: newMode, scaleFactor: scaleFactor, transform: transform))
        cursorPlane?.turnedOff()
        // The refreshes of the old mode are gone: the next frame's schedule starts from now.
        frameScheduler.restart(period: newMode.refreshNanoseconds)
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
        frameScheduler.hold()
    }

    /// DPMS: off makes the CRTC inactive (keeping its mode, blocking until a flip in flight is
    /// done); on sets the mode again showing the last frame, then draws what changed meanwhile.
    /// While the session is switched away only the wish is kept, for its return.
    private func setPowered(_ on: Bool) throws(KMSError) {
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
        frameScheduler.hold()
    }

    /// Sets the mode again showing the front buffer (the last frame), blocking, then asks for a
    /// frame; an output powered off stays off.
    func resume() throws(KMSError) {
        isSuspended = false
        guard isPoweredOn else { return }
        // A flip in flight when the session went away may never report back.
        if inFlight != nil {
            inFlight = nil
            frameScheduler.abandonCommit()
        }
        if retryPending != nil {
            retryPending = nil
            retryTimer.disarm()
            frameScheduler.frameSkipped()
        }
        flipRecovery = FlipRecovery()
        let request = try modesetRequest(framebuffer: buffers[front].framebuffer)
        if let code = request.commit(on: device, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), userData: nil) {
            throw KMSError.configurationRejected(connector: name, mode: mode.description, errno: code)
        }
        cursorPlane?.turnedOff()
        frameScheduler.resume(drawing: true)
    }

    /// The display was unplugged: the CRTC is turned off and freed (blocking, after a flip in
    /// flight), and nothing is committed any more. What the CRTC showed before is not put back:
    /// nothing shows it.
    func turnOff() {
        guard !isTurnedOff else { return }
        isTurnedOff = true
        isSuspended = true
        frameScheduler.hold()
        inFlight = nil
        retryPending = nil
        retryTimer.disarm()
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

    /// The buffer that is not shown and not on its way there.
    public func nextBuffer() -> (any SwapchainBuffer)? {
        buffers[(front + 1) % buffers.count]
    }

    /// The renderer cannot draw into the output's buffers: tiled GBM buffers give way to linear
    /// ones, linear ones to dumb buffers, now and after mode changes. The buffer on screen stays
    /// until the next flip replaces it. False where the buffers are dumb ones already.
    public func useSimplerBuffers(because reason: String) throws -> Bool {
        guard mappedOnly == nil else { return false }
        if tiledRefused == nil, buffers.contains(where: { ($0 as? GBMBuffer)?.isTiled == true }) {
            tiledRefused = reason
        } else {
            mappedOnly = reason
        }
        try replaceBuffers()
        return true
    }

    /// The renderer renders into other modifiers now (`SwapchainAllocator.renderModifiers`, which
    /// were `old`): a new ring where that changes the layouts the output's GBM buffers are tried
    /// with. The buffer on screen stays until the next flip replaces it; where no new ring can be
    /// made, the output keeps its buffers and the log says why.
    func renderModifiersChanged(from old: [UInt64]) {
        guard mappedOnly == nil, tiledRefused == nil,
            allocator.layouts(for: plane).layouts != allocator.layouts(for: plane, renderModifiers: old).layouts
        else { return }
        do throws(KMSError) {
            try replaceBuffers()
        } catch {
            onRecovery?("frames on \(name) stay in \(swapchainPath): \(error)")
        }
    }

    private func replaceBuffers() throws(KMSError) {
        let (newBuffers, path) = try allocator.makeBuffers(
            width: mode.width, height: mode.height, plane: plane, tiledRefused: tiledRefused, mappedOnly: mappedOnly)
        retiredBuffers += buffers
        buffers = newBuffers
        swapchainPath = path
        // The front buffer is a retired one now: nothing to read back until the next flip.
        shownFrame = nil
        shownImage = nil
        onRecovery?("frames on \(name) go into \(path) from now on")
    }

    public func test(_ state: OutputState) -> Bool {
        if let wanted = state.mode, wanted != mode, modeInfo(for: wanted) == nil { return false }
        if state.acquireFence != nil, planeInFenceProperty == nil { return false }
        switch state.buffer {
        case .swapchain(let buffer):
            guard buffer === buffers[(front + 1) % buffers.count] else { return false }
        case .client(let buffer):
            // A plane scans out dma-bufs only; their formats, pitch and memory are the driver's to judge.
            guard let framebuffer = clientFramebuffer(buffer), let commit = try? AtomicRequest(),
                (try? commit.set(plane, planeFramebufferProperty, UInt64(framebuffer.id))) != nil,
                commit.commit(on: device, flags: UInt32(DRM_MODE_ATOMIC_TEST_ONLY), userData: nil) == nil
            else { return false }
        case nil:
            break
        }
        if case .image(let image?, _, _) = state.cursor {
            guard let cursorPlane, cursorPlane.fits(width: image.width, height: image.height) else { return false }
        }
        return true
    }

    /// Applies `state`: a mode the display offers (blocking, tested first), the CRTC lit or not,
    /// the cursor plane, and the frame, committed as a nonblocking page flip (with the cursor
    /// plane's changes, and the acquire fence as the plane's IN_FENCE_FD). A refused client
    /// buffer returns false for the frame to be composed; a refused cursor image returns false
    /// and leaves the plane empty; so does an acquire fence on a plane without IN_FENCE_FD.
    public func commit(_ state: OutputState) throws -> Bool {
        if state.acquireFence != nil, planeInFenceProperty == nil { return false }
        if let wanted = state.mode, wanted != mode {
            guard let info = modeInfo(for: wanted) else { return false }
            try changeMode(to: info)
        }
        if let active = state.isActive { try setPowered(active) }
        switch state.cursor {
        case .image(let image, let hotspotX, let hotspotY):
            guard setCursor(image, hotspotX: hotspotX, hotspotY: hotspotY) else { return false }
        case .position(let point):
            guard let cursorPlane else { return false }
            cursorPlane.move(to: point)
            commitCursorIfIdle()
        case nil:
            break
        }
        switch state.buffer {
        case .swapchain(let buffer):
            guard buffer === buffers[(front + 1) % buffers.count] else { throw KMSError.notTheBackBuffer(output: name) }
            guard !isSuspended, isPoweredOn else {
                // The frame waits for the session to come back or the display to be on (both draw a new one).
                frameScheduler.frameSkipped()
                frameScheduler.scheduleFrame()
                return true
            }
            try commitFrame(showing: .inPlace, buffer: (front + 1) % buffers.count, fence: state.acquireFence)
            return true
        case .client(let buffer):
            // Tested by the caller (`test(_:)`); a refusal of the flip itself returns false below.
            guard !isSuspended, isPoweredOn, let framebuffer = clientFramebuffer(buffer) else { return false }
            // The swapchain stays as it is: the next composed frame goes into the back buffer.
            guard try commitFrame(showing: .direct(framebuffer), buffer: front, fence: state.acquireFence) else { return false }
            // The state's hold on the buffer is the framebuffer's from here on.
            framebuffer.heldBuffer = buffer
            return true
        case nil:
            return true
        }
    }

    /// The offered mode that is `mode`, the preferred one where several are.
    private func modeInfo(for mode: OutputMode) -> drmModeModeInfo? {
        let matching = offeredModes.filter { OutputMode($0) == mode }
        return matching.first { $0.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 } ?? matching.first
    }

    /// A client's dma-buf of the mode's size as a framebuffer of the device, opaque (its alpha
    /// read as padding, as `OutputBuffer.client` says).
    private func clientFramebuffer(_ buffer: any LentBuffer) -> ClientFramebuffer? {
        guard var layout = buffer.dmabuf, layout.width == mode.width, layout.height == mode.height else { return nil }
        layout.format = layout.format.withoutAlpha
        return ClientFramebuffer(device: device, buffer: layout)
    }

    /// Commits `frame` (in `buffer`, or the client's framebuffer) as a nonblocking page flip that
    /// shows it once `fence` (if any) has signalled; `buffer` becomes the front buffer when it
    /// completes. A refusal is handled as
    /// `FlipRecovery` says: false when a client's buffer scanned out directly was refused and the
    /// frame is to be composed instead; a throw when the frame is given up (the display keeps what
    /// it showed). `retrying`: a commit made again after EBUSY, when composing is too late.
    @discardableResult
    private func commitFrame(
        showing frame: ShownFrame, buffer back: Int, fence: OwnedFileDescriptor?, retrying: Bool = false
    ) throws -> Bool {
        var withoutCursorPlane = false
        var modeset = false
        while true {
            let framebuffer: UInt32 = if case .direct(let client) = frame { client.id } else { buffers[back].framebuffer }
            let request: AtomicRequest
            var cursorChange: CursorPlane.Change?
            if modeset {
                request = try modesetRequest(framebuffer: framebuffer)
                if let fence, let planeInFenceProperty { try request.set(plane, planeInFenceProperty, UInt64(fence.rawValue)) }
            } else {
                request = try AtomicRequest()
                try request.set(plane, planeFramebufferProperty, UInt64(framebuffer))
                // The kernel takes its own reference to the fence in the commit.
                if let fence, let planeInFenceProperty { try request.set(plane, planeInFenceProperty, UInt64(fence.rawValue)) }
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
                retryPending = (frame, back, fence)
                retryTimer.arm(after: period)
                // The frame is on its way from the scheduler's view; its wait says nothing of drawing.
                if !retrying { frameScheduler.frameCommitted(measured: false) }
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
        inFlight = .frame(frame, buffer: back)
        // A frame committed again after a refusal was committed for the scheduler already.
        if !retried { frameScheduler.frameCommitted() }
    }

    /// Commits again a frame the driver refused with EBUSY a refresh ago; given up, it leaves the
    /// display as it is and the next frame starts afresh.
    func retryTimerExpired() {
        guard retryTimer.acknowledgeExpiration(), let (frame, buffer, fence) = retryPending else { return }
        retryPending = nil
        guard !isSuspended, isPoweredOn else {
            flipRecovery = FlipRecovery()
            frameScheduler.frameSkipped()
            frameScheduler.scheduleFrame()
            return
        }
        do {
            try commitFrame(showing: frame, buffer: buffer, fence: fence, retrying: true)
        } catch {
            frameScheduler.frameSkipped()
        }
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
        guard let commit = inFlight else { return }
        inFlight = nil
        switch commit {
        case .cursor:
            frameScheduler.presentationCompleted(at: time, sequence: UInt64(sequence))
        case .modeset:
            modesetCompletedNanoseconds = time
            var count: UInt64 = 0
            var countTime: UInt64 = 0
            hasVblankCounter = drmCrtcGetSequence(device.fd, crtc, &count, &countTime) == 0
            frameScheduler.presentationCompleted(at: time, sequence: UInt64(sequence))
        case .frame(let frame, let buffer):
            front = buffer
            retiredBuffers = []
            if cursorPlaneDropped {
                cursorPlaneDropped = false
                onCursorPlaneLost?()
            }
            shownFrame = frame
            shownImage = nil
            presentedFrameCount += 1
            lastCommitToFlipNanoseconds = monotonicNanoseconds() - commitNanoseconds
            // wp_presentation's zero_copy: the client's own buffer was scanned out.
            let zeroCopy: UInt32 = if case .direct = frame { 0x8 } else { 0 }
            frameScheduler.framePresented(
                PresentationTiming(nanoseconds: time, refreshNanoseconds: period, sequence: UInt64(sequence), flags: presentationFlags | zeroCopy),
                vblankCounted: hasVblankCounter)
        }
    }
}

/// What a presented frame showed: pixels drawn into the swapchain's buffer, or a client's buffer
/// scanned out directly.
enum ShownFrame {
    case inPlace
    case direct(ClientFramebuffer)

    var isDirect: Bool {
        if case .direct = self { true } else { false }
    }
}

/// The cursor plane, when the configuration asks for it and the CRTC has one: an image turned for
/// the panel, moved without a frame.
extension KMSOutput {
    /// Shows `image` on the cursor plane when it fits and the driver takes it (nil hides the
    /// cursor); false leaves the plane empty.
    private func setCursor(_ image: Image?, hotspotX: Int, hotspotY: Int) -> Bool {
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

    /// Commits a cursor change on its own when no commit is in flight or coming: one commit at a
    /// time per CRTC (a second nonblocking one is refused with EBUSY), so a change made meanwhile
    /// rides along with the next frame's flip, or follows once the flip is done.
    private func commitCursorIfIdle() {
        guard let cursorPlane, cursorPlane.needsCommit, !isSuspended, isPoweredOn, frameScheduler.isIdle, inFlight == nil,
              retryPending == nil,
              let request = try? AtomicRequest(), let change = try? cursorPlane.addChanges(to: request, crtc: crtc) else { return }
        let flags = UInt32(DRM_MODE_ATOMIC_NONBLOCK) | UInt32(DRM_MODE_PAGE_FLIP_EVENT)
        // A refused commit leaves the change for the next frame's flip.
        guard request.commit(on: device, flags: flags, userData: eventTarget) == nil else { return }
        cursorPlane.committed(change)
        cursorImageInFlight = change.changesImage
        inFlight = .cursor
        frameScheduler.displayCommitted()
    }

    /// Whether the cursor is on the cursor plane now (it shows an image there).
    public var showsHardwareCursor: Bool { cursorPlane?.showsImage ?? false }
}
