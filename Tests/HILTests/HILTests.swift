import DisplayBackend
import Foundation
import Glibc
import Graphics
import KMSBackend
import SystemCalls
import Testing

/// Hardware in the loop: Vitrine on a real KMS device (virtio-gpu) inside a QEMU guest, with the
/// scanout captured by QEMU's screendump (see hil/guest.py and the shared hil.md notes). One guest
/// boot serves every check here; the guest and the host's reference render are made once, on first
/// use, and a failure leaves the guest's console log and captures in the output folder it names.
@Suite(.guestTimeLimit) struct KMSFrameTests {
    /// The mode the guest's virtio-gpu prefers and Vitrine asks for: small, since lavapipe renders
    /// under software emulation.
    static let width = 1024
    static let height = 768
    /// foot's background in the scene: the colour the whole output shows.
    static let background = PremultipliedPixel(red: 0x20, green: 0x40, blue: 0x60, alpha: 255)
    /// The tolerance per channel between the scanout and the headless render: the same renderer
    /// draws both, but lavapipe's JIT picks other code paths for the guest's CPU than the host's.
    /// Beyond it, no pixel may differ (measured: the two were identical).
    static let channelTolerance = 2

    @Test func scanoutShowsTheKMSFramebufferNotTheConsole() throws {
        let run = try GuestRun.shared.get()
        let scanout = try #require(run.scanout, "no screendump; see \(run.directory)")
        #expect(scanout.width == Self.width && scanout.height == Self.height, "VGA text console is 720×400")
        #expect(scanout.pixel(x: Self.width / 2, y: Self.height / 2) == Self.background)
        #expect(scanout.pixel(x: Self.width - 1, y: Self.height - 1) == Self.background)
        #expect(run.kmsLog.contains("Virtual-1 on /dev/dri/card0 (1024x768@"), "\(run.kmsLog)")
    }

    /// The Vulkan renderer's frames on screen were drawn into GBM buffer objects on virtio-gpu
    /// (imported as dma-bufs), not into dumb buffers: virtio-gpu takes no modifiers, so GBM's
    /// linear buffers carry an implied layout, and the log and `list-outputs` say why they are
    /// linear. The renderer's layouts (none tiled on lavapipe) change nothing: no new ring.
    /// `scanoutMatchesTheHeadlessRenderOfTheSameScene` compares the frames.
    @Test func vulkanFramesAreDrawnIntoGBMBufferObjects() throws {
        let run = try GuestRun.shared.get()
        #expect(run.kmsLog.contains("drawing with the Vulkan renderer: --renderer vulkan"), "\(run.kmsLog)")
        #expect(run.kmsLog.contains("Virtual-1 on /dev/dri/card0 (1024x768@"), "\(run.kmsLog)")
        #expect(
            run.kmsLog.contains("(1024x768@")
                && run.kmsLog.contains("), frames in GBM buffer objects, linear (the device takes no format modifiers)"),
            "\(run.kmsLog)")
        #expect(!run.kmsLog.contains("explicit modifier"), "\(run.kmsLog)")
        #expect(!run.kmsLog.contains("dumb buffers"), "\(run.kmsLog)")
        #expect(!run.kmsLog.contains("from now on"), "\(run.kmsLog)")
        let lines = run.outputList.split(separator: "\n")
        #expect(
            lines.dropLast().last == "  frames with the Vulkan renderer: GBM buffer objects, linear (the device takes no format modifiers)",
            "\(run.outputList)")
    }

    /// The CPU renderer's frames go into dumb buffers, which pixman writes through their mapping;
    /// GBM is not loaded for it.
    @Test func cpuRendererFramesAreDrawnIntoDumbBuffers() throws {
        let run = try GuestRun.shared.get()
        #expect(run.cpuKMSLog.contains("drawing with the CPU renderer (pixman): --renderer cpu"), "\(run.cpuKMSLog)")
        #expect(run.cpuKMSLog.contains("(1024x768@") && run.cpuKMSLog.contains("), frames in dumb buffers (the CPU renderer writes through a mapping)"),
                "\(run.cpuKMSLog)")
        #expect(!run.cpuKMSLog.contains("GBM buffer objects"), "\(run.cpuKMSLog)")
        #expect(run.output.contains("vitrine-cpu-status 0"), "\(run.output)")
        #expect(run.outputList.split(separator: "\n").last == "  frames with the CPU renderer: dumb buffers (the CPU renderer writes through a mapping)",
                "\(run.outputList)")
    }

    /// Each renderer's scanout (Vulkan's GBM buffer objects, the CPU renderer's dumb buffers) is
    /// the host's headless render of the same scene by the same renderer.
    @Test(arguments: ["vulkan", "cpu"]) func scanoutMatchesTheHeadlessRenderOfTheSameScene(renderer: String) throws {
        let run = try GuestRun.shared.get()
        let scanout = try #require(renderer == "cpu" ? run.cpuScanout : run.scanout, "no screendump; see \(run.directory)")
        let headless = try Image(contentsOfPNGFile: run.directory + "/headless-\(renderer).png")
        let differing = try #require(scanout.countOfPixelsDiffering(from: headless, byMoreThan: Self.channelTolerance))
        #expect(differing == 0, "\(differing) pixels differ; see \(run.directory)")
        // The scene itself, not a frame both renderers would get wrong alike.
        #expect(scanout.pixel(x: Self.width / 2, y: Self.height / 2) == Self.background)
    }

    @Test func pageFlipEventsArriveInOrderOnTheMonotonicClock() throws {
        let run = try GuestRun.shared.get()
        // At least the black frame before foot mapped and foot's first frame.
        #expect(run.flips.count >= 2, "flips: \(run.flips)")
        for (earlier, later) in zip(run.flips, run.flips.dropFirst()) {
            #expect(later.nanoseconds > earlier.nanoseconds)
        }
        // virtio-gpu has no vblank counter: the kernel reports sequence 0, and the frames carry
        // hw_clock | hw_completion (0x6) but not vsync.
        #expect(run.kmsLog.contains("vblank counter: false"))
        #expect(run.flips.allSatisfy { $0.sequence == 0 && $0.flags == 0x6 })
    }

    @Test func listOutputsNamesTheConnectorAndItsPreferredMode() throws {
        let run = try GuestRun.shared.get()
        let lines = run.outputList.split(separator: "\n")
        #expect(lines.first == "/dev/dri/card0", "\(run.outputList)")
        // The display QEMU was told to prefer comes first, marked, among the driver's other modes.
        #expect(lines.dropFirst().first?.hasPrefix("  Virtual-1: connected, modes \(Self.width)x\(Self.height)@") == true, "\(run.outputList)")
        #expect(lines.dropFirst().first?.contains("(preferred)") == true)
    }

    @Test func exitingGivesTheDisplayBackToTheConsole() throws {
        let run = try GuestRun.shared.get()
        let afterExit = try Image(contentsOfPNGFile: run.directory + "/after-exit.png")
        #expect(run.output.contains("vitrine-status 0"), "\(run.output)")
        // fbcon's black background where foot's colour was.
        #expect(afterExit.pixel(x: Self.width / 2, y: Self.height / 2) == PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255))
    }

    @Test func anAnimatingClientIsShownAndKeepsFlipping() throws {
        let run = try GuestRun.shared.get()
        #expect(run.output.contains("vitrine-shm-status 0"), "\(run.output)")
        // At least 40 flips in increasing time, each completing after its commit; one flip at a
        // time: each frame is asked for only once the flip before it has completed.
        #expect(run.animatedFlips.count >= 40, "\(run.animatedFlips.count) flips; see \(run.directory)")
        for (earlier, later) in zip(run.animatedFlips, run.animatedFlips.dropFirst()) {
            #expect(later.nanoseconds > earlier.nanoseconds)
            #expect(later.pacing.map { $0.requested >= earlier.nanoseconds } == true, "\(earlier) then \(later)")
        }
        #expect(run.animatedFlips.allSatisfy { $0.commitToFlipNanoseconds > 0 })
        // simple-shm's 250×250 window centred on 1024×768 starts at (387, 259), with a white
        // 20-pixel border inside its buffer (probes as in CompositorTests' RealClientTests).
        let screen = try Image(contentsOfPNGFile: run.directory + "/simple-shm.png")
        let black = PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)
        let white = PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255)
        #expect(screen.pixel(x: 386, y: 380) == black)
        #expect(screen.pixel(x: 387, y: 380) == white)
        #expect(screen.pixel(x: 636, y: 490) == white)
        #expect(screen.pixel(x: 637, y: 490) == black)
        let centre = screen.pixel(x: 512, y: 384)
        #expect(centre != white && centre != black)
    }

    /// A client's window made of a real dma-buf (a virtio-gpu dumb buffer exported with PRIME),
    /// imported by lavapipe and copied at commit: the compositor advertised the protocol, and the
    /// 256×256 window, centred at (384, 256), shows its orange and teal halves on the scanout.
    @Test func aDmabufOfTheKMSDeviceIsShownAsAWindow() throws {
        let run = try GuestRun.shared.get()
        #expect(run.output.contains("vitrine-dmabuf-status 0"), "\(run.output)")
        #expect(run.dmabufLog.contains("zwp_linux_dmabuf_v1 advertised"), "\(run.dmabufLog)")
        #expect(run.dmabufLog.contains("dmabuf-client: made 256x256 pitch 1024"), "\(run.dmabufLog)")
        #expect(run.dmabufLog.contains("dmabuf-client: shown small"), "\(run.dmabufLog)")
        // A window smaller than the panel is composed.
        #expect(!run.dmabufLog.contains("direct scanout"), "\(run.dmabufLog)")
        expectSmallDmabufWindow(in: try Image(contentsOfPNGFile: run.directory + "/dmabuf.png"))
    }

    /// hil/dmabuf_client.c's colours: the left half of its buffers, the right half, and the panel.
    static let orange = PremultipliedPixel(red: 0xFF, green: 0x80, blue: 0x10, alpha: 255)
    static let teal = PremultipliedPixel(red: 0x10, green: 0xA0, blue: 0xA0, alpha: 255)
    static let black = PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)

    /// The client's 256×256 window centred on the panel, at (384, 256): its orange and teal halves
    /// and the black panel around it.
    func expectSmallDmabufWindow(in screen: Image, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(screen.pixel(x: 383, y: 384) == Self.black, sourceLocation: sourceLocation)
        #expect(screen.pixel(x: 384, y: 384) == Self.orange, sourceLocation: sourceLocation)
        #expect(screen.pixel(x: 511, y: 256) == Self.orange, sourceLocation: sourceLocation)
        #expect(screen.pixel(x: 512, y: 511) == Self.teal, sourceLocation: sourceLocation)
        #expect(screen.pixel(x: 639, y: 384) == Self.teal, sourceLocation: sourceLocation)
        #expect(screen.pixel(x: 640, y: 384) == Self.black, sourceLocation: sourceLocation)
        #expect(screen.pixel(x: 512, y: 512) == Self.black, sourceLocation: sourceLocation)
    }

    /// Direct scanout: a fullscreen, opaque client dma-buf is put on the primary plane instead of a
    /// composed frame (presented with wp_presentation's zero-copy flag), and when the client shows
    /// a smaller buffer, frames are composed again and the fullscreen buffer is released.
    @Test func aFullscreenDmabufIsScannedOutDirectlyUntilItStopsFillingThePanel() throws {
        let run = try GuestRun.shared.get()
        #expect(run.output.contains("vitrine-direct-status 0"), "\(run.output)")
        #expect(run.directLog.contains("dmabuf-client: made \(Self.width)x\(Self.height)"), "\(run.directLog)")
        #expect(run.directLog.contains("direct scanout on Virtual-1"), "\(run.directLog)")
        let zeroCopy: UInt32 = 0x8
        #expect(run.directFlips.last.map { $0.flags & zeroCopy } == zeroCopy, "\(run.directFlips)")
        let fullscreen = try Image(contentsOfPNGFile: run.directory + "/direct.png")
        #expect(fullscreen.pixel(x: 0, y: 0) == Self.orange)
        #expect(fullscreen.pixel(x: Self.width / 2 - 1, y: Self.height - 1) == Self.orange)
        #expect(fullscreen.pixel(x: Self.width / 2, y: 0) == Self.teal)
        #expect(fullscreen.pixel(x: Self.width - 1, y: Self.height - 1) == Self.teal)

        // The small buffer: composed again, the fullscreen one given back.
        #expect(run.directLog.contains("composing Virtual-1 again"), "\(run.directLog)")
        #expect(run.directLog.contains("dmabuf-client: fullscreen buffer released"), "\(run.directLog)")
        #expect(run.directAndComposedFlips.last.map { $0.flags & zeroCopy } == 0, "\(run.directAndComposedFlips)")
        expectSmallDmabufWindow(in: try Image(contentsOfPNGFile: run.directory + "/direct-composed.png"))
    }

    /// Implicit sync: a window whose dma-buf (of vgem) was committed with a write fence pending
    /// does not show until the fence is signalled (the commit waits on the event loop, the panel
    /// stays black meanwhile), and shows its orange and teal halves once it is.
    @Test func aDmabufCommittedBeforeItsWritesAreDoneShowsOnceTheyAre() throws {
        let run = try GuestRun.shared.get()
        #expect(run.output.contains("vitrine-fenced-status 0"), "\(run.output)")
        #expect(run.fencedLog.contains("dmabuf-client: committed fenced"), "\(run.fencedLog)")
        // The frame callback of the fenced commit comes after the client's signal, and before vgem
        // would have signalled the fence itself.
        let lines = run.fencedLog.split(separator: "\n")
        let signalled = try #require(lines.firstIndex(of: "dmabuf-client: fence signalled"), "\(run.fencedLog)")
        let done = try #require(lines.firstIndex { $0.hasPrefix("dmabuf-client: fenced frame done ") }, "\(run.fencedLog)")
        #expect(signalled < done)
        let milliseconds = try #require(Int(lines[done].split(separator: " ")[4]))
        #expect(milliseconds < 10_000, "\(run.fencedLog)")
        let pending = try Image(contentsOfPNGFile: run.directory + "/fenced-pending.png")
        #expect(pending.pixel(x: 384, y: 384) == Self.black)
        #expect(pending.pixel(x: 639, y: 384) == Self.black)
        expectSmallDmabufWindow(in: try Image(contentsOfPNGFile: run.directory + "/fenced-shown.png"))
    }

    /// A frame committed with an acquire fence (the plane's IN_FENCE_FD, a vgem fence the test
    /// holds) is not flipped while the fence is pending: the scanout keeps the frame before it.
    /// Once the fence signals, the flip follows (AcquireFenceInGuest, run in the guest).
    @Test func aFlipIsHeldUntilItsAcquireFenceSignals() throws {
        let run = try GuestRun.shared.get()
        let log = (try? String(contentsOfFile: run.directory + "/fence-test.txt", encoding: .utf8)) ?? ""
        #expect(run.output.contains("fence-test-status 0"), "\(run.output)\n\(log)")
        #expect(log.contains("Test aFlipIsHeldUntilItsAcquireFenceSignals() passed"), "\(log)")
        let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
        let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
        let pending = try Image(contentsOfPNGFile: run.directory + "/fence-pending.png")
        let shown = try Image(contentsOfPNGFile: run.directory + "/fence-shown.png")
        for (x, y) in [(0, 0), (Self.width / 2, Self.height / 2), (Self.width - 1, Self.height - 1)] {
            #expect(pending.pixel(x: x, y: y) == blue)
            #expect(shown.pixel(x: x, y: y) == red)
        }
    }

    /// Just-in-time frames (see `RefreshClock`): each of simple-shm's frames aims at the first
    /// refresh its predicted draw-and-commit time (the lead) can still make after it was asked
    /// for, or the one after the previous frame's target; drawing starts no earlier than the lead
    /// before that refresh; and the lead is `RenderTimePredictor`'s: the slowest start-to-commit
    /// time of the 8 frames before, plus a quarter and a millisecond. How many frames commit by
    /// their target depends on the emulator's load: `benchmarks/hil_figures.py` prints it.
    @Test func animatedFramesStartJustInTimeForTheFirstRefreshTheyCanMake() throws {
        let run = try GuestRun.shared.get()
        let refresh = try #require(run.kmsLog.split(separator: "(\(Self.width)x\(Self.height)@").dropFirst().first?.prefix { $0 != ")" })
        let hertz = try #require(Double(refresh), "\(run.kmsLog)")
        let period = OutputMode(width: Self.width, height: Self.height, refreshMillihertz: Int((hertz * 1000).rounded())).refreshNanoseconds
        let paced = run.animatedFlips.compactMap(\.pacing)
        #expect(paced.count == run.animatedFlips.count && paced.count >= 40, "see \(run.directory)")
        for (index, (flip, frame)) in zip(run.animatedFlips, paced).enumerated() {
            let justInTime = frame.target - frame.lead
            #expect(frame.requested <= justInTime, "frame \(index) aimed at a refresh its lead cannot make: \(frame)")
            let afterPrevious = index > 0 && frame.targetSequence == paced[index - 1].targetSequence + 1
            #expect(justInTime < frame.requested + period || afterPrevious, "frame \(index) aimed a period too late: \(frame)")
            #expect(frame.started >= justInTime, "frame \(index) started early: \(frame)")
            #expect(frame.started < frame.committed && frame.started < flip.nanoseconds, "frame \(index): \(frame), flip \(flip.nanoseconds)")
        }
        #expect(zip(paced, paced.dropFirst()).allSatisfy { $1.targetSequence > $0.targetSequence && $1.target > $0.target })
        // Every frame of this run was committed at its first try, so each one's start-to-commit
        // time is a sample of the prediction (the first frame has none: its lead is the millisecond).
        for index in paced.indices {
            var predictor = RenderTimePredictor()
            for frame in paced[max(0, index - RenderTimePredictor.window)..<index] { predictor.record(frame.committed &- frame.started) }
            #expect(paced[index].lead == predictor.leadNanoseconds, "frame \(index): \(paced[index])")
        }
    }

    /// Page flips the driver refuses (injected: EBUSY twice, then EINVAL for good) do not leave
    /// the panel black: the busy frame is committed again a refresh later, the invalid ones each
    /// through a modeset, and the scanout is foot's scene, as without refusals (both drawn by the
    /// CPU renderer, which `auto` picks on virtio-gpu).
    @Test func refusedPageFlipsAreCommittedAgainOrThroughAModesetAndTheSceneShows() throws {
        let run = try GuestRun.shared.get()
        let log = run.refusedFlipsLog
        #expect(run.output.contains("vitrine-refused-status 0"), "\(run.output)")
        #expect(log.contains("injecting faults (VITRINE_FAULTS): drmModeAtomicCommit:flip@1..2=EBUSY, drmModeAtomicCommit:flip@3..=EINVAL"), "\(log)")
        #expect(log.components(separatedBy: "the page flip on Virtual-1 was refused: Device or resource busy (errno 16); committing the frame again a refresh later").count == 3, "\(log)")
        #expect(log.contains("the page flip on Virtual-1 was refused: Invalid argument (errno 22); setting the mode again with the frame"), "\(log)")
        #expect(!log.contains("the frame is dropped"), "\(log)")
        #expect(run.refusedFlips.count >= 2, "\(run.refusedFlips)")
        let screen = try Image(contentsOfPNGFile: run.directory + "/refused-flips.png")
        let scanout = try #require(run.cpuScanout, "no screendump; see \(run.directory)")
        let differing = try #require(screen.countOfPixelsDiffering(from: scanout, byMoreThan: 0))
        #expect(differing == 0, "\(differing) pixels differ from the scene without refusals; see \(run.directory)")
    }

    @Test func aModeTheConnectorLacksIsRefusedNamingConnectorAndMode() throws {
        let run = try GuestRun.shared.get()
        #expect(run.refusedModeOutput.contains("Virtual-1 offers no mode 333x333; it offers 1024x768@"), "\(run.refusedModeOutput)")
        #expect(run.refusedModeOutput.contains("refused-status 1"))
    }

    // MARK: Input on the turned panel (wev reports what the client received)

    /// wev's lines for one interface and event, e.g. ("wl_touch", "down").
    static func clientEvents(_ log: String, _ interface: String, _ event: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.contains("\(interface)] \(event):") }
    }

    /// The "x, y: X, Y" pair at the end of a wev line.
    static func position(in line: Substring) -> (x: Double, y: Double)? {
        guard let range = line.range(of: "x, y: ", options: .backwards) else { return nil }
        let numbers = line[range.upperBound...].split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }

    @Test func listInputsNamesTheRigsKeyboardTabletAndTouchscreen() throws {
        let run = try GuestRun.shared.get()
        #expect(run.inputList.contains("QEMU Virtio Keyboard"), "\(run.inputList)")
        #expect(run.inputList.contains("QEMU Virtio Tablet"), "\(run.inputList)")
        #expect(run.inputList.contains("Vitrine HIL touchscreen"), "\(run.inputList)")
    }

    @Test func aTouchOnTheTurnedCalibratedPanelReachesTheClientWhereTheFingerIs() throws {
        let run = try GuestRun.shared.get()
        // The finger at (0.25, 0.5) of the panel; the board's matrix mirrors it to (0.75, 0.5), the
        // 1024×768 panel's (768, 384); turned a quarter, that is the 768×1024 output's (384, 768).
        let down = try #require(Self.clientEvents(run.inputLog, "wl_touch", "down").first, "\(run.inputLog)")
        let point = try #require(Self.position(in: down))
        #expect(abs(point.x - 384) <= 0.5 && abs(point.y - 768) <= 0.5, "\(down)")
        #expect(Self.clientEvents(run.inputLog, "wl_touch", "up").count == 1)
    }

    @Test func aClickThroughQEMUsTabletLandsWhereThePointerIsOnTheTurnedPanel() throws {
        let run = try GuestRun.shared.get()
        // QMP put the pointer at the panel's (700, 300): the output's (768 − 300, 700), give or take
        // the tablet's rounding.
        let moves = run.inputLog.split(separator: "\n").filter { $0.contains("wl_pointer] motion:") || $0.contains("wl_pointer] enter:") }
        let point = try #require(moves.compactMap(Self.position(in:)).last, "\(run.inputLog)")
        #expect(abs(point.x - 468) <= 1.5 && abs(point.y - 700) <= 1.5, "\(point)")
        let buttons = Self.clientEvents(run.inputLog, "wl_pointer", "button")
        #expect(buttons.first?.contains("button: 272 (left), state: 1 (pressed)") == true, "\(buttons)")
        #expect(buttons.count == 2)
    }

    @Test func aKeyTypedThroughQEMUArrivesWithTheBoardsLayout() throws {
        let run = try GuestRun.shared.get()
        let lines = run.inputLog.split(separator: "\n")
        // The key labelled Y (evdev 21, which wev prints as xkb's 29) is z on the board's German layout.
        let press = try #require(lines.firstIndex { $0.contains("wl_keyboard] key:") && $0.contains("key: 29; state: 1 (pressed)") }, "\(run.inputLog)")
        #expect(lines[press + 1].contains("sym: z "), "\(lines[press + 1])")
    }

    @Test func theCursorIsOnTheCursorPlaneAtThePointerOnTheTurnedPanel() throws {
        let run = try GuestRun.shared.get()
        // The kernel's atomic state: the plane scanning out an ARGB8888 buffer is the cursor
        // plane, on the CRTC, its 64×64 buffer placed so that the turned arrow's tip is on the
        // pointer. QEMU's absolute axes put the pointer on the panel's (700.66, 300.38) (22421 and
        // 12816 of 32768), the output's (467.62, 700.66); the tip goes on the nearest pixel,
        // (468, 701), so the turned 21×13 image's corner on the panel's (700, 288) (the maths:
        // CursorPlaneGeometryTests).
        let cursor = try #require(Self.planes(in: run.cursorState).first { $0.contains { $0.hasPrefix("format=AR24") } },
                                  "no plane shows an ARGB8888 buffer: \(run.cursorState)")
        #expect(cursor.contains("crtc=crtc-0"), "\(cursor)")
        #expect(cursor.contains("crtc-pos=64x64+700+288"), "\(cursor)")
        #expect(cursor.contains("src-pos=64.000000x64.000000+0.000000+0.000000"), "\(cursor)")
        // The frames have no arrow: where the turned arrow (21×13) lies on the panel, the scanout
        // (the primary plane; QEMU's screendump leaves the cursor out) has none of its black
        // body, only wev's grey pattern.
        let screen = try Image(contentsOfPNGFile: run.directory + "/input-cursor.png")
        let black = (700..<721).flatMap { x in (288..<301).map { y in (x, y) } }.filter { x, y in
            screen.pixel(x: x, y: y) == PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)
        }
        #expect(black.isEmpty, "arrow pixels in the frame at \(black)")
        // Moving the pointer (and the click and key after it) drew no frame: the plane moved alone.
        #expect(run.output.contains("frames-after-move 0"), "\(run.output)")
        #expect(run.output.contains("vitrine-input-status 0"), "\(run.output)")
    }

    @Test func aClientsThemeCursorIsOnTheCursorPlaneAndNotInTheFrames() throws {
        let run = try GuestRun.shared.get()
        #expect(run.output.contains("vitrine-flower-status 0"), "\(run.output)")
        // weston-flower's cursor is the theme's hand1 at size 32 (libwayland-cursor takes the image
        // of that nominal size from the Xcursor file).
        let hand = try #require(Self.xcursorImage(path: "/usr/share/icons/Adwaita/cursors/hand1", nominalSize: 32))
        // QMP put the pointer on the panel's (500.47, 380.48) (16015 and 16234 of 32768), the
        // turned output's (387.52, 500.47): the hotspot goes on the pixel (388, 500), so the image's
        // logical corner is (388 − xhot, 500 − yhot), and turned a quarter (x' = y, y' = 768 − x)
        // its panel corner is (500 − yhot, 768 − (388 − xhot + width)).
        let x = 500 - hand.yhot, y = 768 - (388 - hand.xhot + hand.width)
        let cursor = try #require(Self.planes(in: run.clientCursorState).first { $0.contains { $0.hasPrefix("format=AR24") } },
                                  "no plane shows an ARGB8888 buffer: \(run.clientCursorState)")
        #expect(cursor.contains("crtc=crtc-0"), "\(cursor)")
        #expect(cursor.contains("crtc-pos=64x64+\(x)+\(y)"), "\(cursor) (hand1: \(hand))")
        // The client's commits of its cursor drew no frame, and the frames have no cursor: the
        // scanout is the same as before the pointer came.
        #expect(run.output.contains("frames-after-client-cursor 0"), "\(run.output)")
        let before = try Image(contentsOfPNGFile: run.directory + "/flower-before.png")
        let after = try Image(contentsOfPNGFile: run.directory + "/flower-cursor.png")
        let differing = try #require(after.countOfPixelsDiffering(from: before, byMoreThan: 0))
        #expect(differing == 0, "\(differing) pixels differ; see \(run.directory)")
    }

    /// The size and hotspot of the image of `nominalSize` in an Xcursor file (a table of chunks;
    /// an image chunk's header is nine 32-bit little-endian words: header size, type 0xfffd0002,
    /// nominal size, version, width, height, xhot, yhot, delay).
    static func xcursorImage(path: String, nominalSize: Int) -> (width: Int, height: Int, xhot: Int, yhot: Int)? {
        guard let data = FileManager.default.contents(atPath: path), data.count >= 16, data.prefix(4) == Data("Xcur".utf8) else { return nil }
        let bytes = [UInt8](data)
        func word(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 4 <= bytes.count else { return nil }
            return (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        guard let count = word(12) else { return nil }
        for entry in 0..<count {
            let table = 16 + 12 * entry
            guard word(table) == 0xfffd_0002, word(table + 4) == nominalSize, let chunk = word(table + 8),
                  let width = word(chunk + 16), let height = word(chunk + 20), let xhot = word(chunk + 24), let yhot = word(chunk + 28) else { continue }
            return (width, height, xhot, yhot)
        }
        return nil
    }

    /// The planes of a debugfs atomic state, each as its trimmed lines.
    static func planes(in state: String) -> [[String]] {
        var planes: [[String]] = []
        var inPlane = false
        for line in state.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("plane[") {
                planes.append([text])
                inPlane = true
            } else if line.hasPrefix("\t") || line.hasPrefix(" ") {
                if inPlane { planes[planes.count - 1].append(text) }
            } else {
                // Another object (a CRTC, a connector) ends the plane.
                inPlane = false
            }
        }
        return planes
    }

    /// The times themselves are figures of the emulator's load (`benchmarks/hil_figures.py`).
    @Test func inputDeliveryTimesAreRecordedForEveryBatch() throws {
        let run = try GuestRun.shared.get()
        // Seven events for clients (touch down and up, the move, two button changes, a key down and
        // up), read in at most seven batches: events that arrive while the loop renders a frame
        // (seconds under emulation) are read together.
        #expect((1...7).contains(run.inputLatencies.count), "\(run.inputLatencies)")
        #expect(run.inputLatencies.allSatisfy { $0 > 0 })
    }

    @Test func throughSeatdAVTSwitchAwayAndBackBringsTheSceneBack() throws {
        let run = try GuestRun.shared.get()
        #expect(run.seatLog.contains("devices of seat0 come through libseat"), "\(run.seatLog)")
        #expect(run.seatLog.contains("session switched away"), "\(run.seatLog)")
        #expect(run.seatLog.contains("session active again"), "\(run.seatLog)")
        let before = try Image(contentsOfPNGFile: run.directory + "/seat-before.png")
        let away = try Image(contentsOfPNGFile: run.directory + "/seat-away.png")
        let back = try Image(contentsOfPNGFile: run.directory + "/seat-back.png")
        #expect(before.pixel(x: Self.width / 2, y: Self.height / 2) == Self.background)
        // Away, the console of VT 2 is on the screen, not the kiosk.
        #expect(away.pixel(x: Self.width / 2, y: Self.height / 2) != Self.background)
        let differing = try #require(back.countOfPixelsDiffering(from: before, byMoreThan: Self.channelTolerance))
        #expect(differing == 0, "\(differing) pixels differ after the switch back; see \(run.directory)")
        #expect(run.output.contains("vitrine-seat-status 0"), "\(run.output)")
    }

    @Test func aBlankedKioskTurnsItsDisplayOffAndAKeyTurnsItOn() throws {
        let run = try GuestRun.shared.get()
        #expect(run.dpmsLog.contains("blanked after "), "\(run.dpmsLog)")
        #expect(run.dpmsLog.contains("display off (DPMS)"), "\(run.dpmsLog)")
        #expect(run.dpmsLog.contains("woken by input"), "\(run.dpmsLog)")
        // The kernel's own view (debugfs): the CRTC keeps its mode but is inactive, then active.
        #expect(Self.crtc("crtc-0", in: run.stateWhileBlanked) == ["enable=1", "active=0"], "\(run.stateWhileBlanked)")
        #expect(Self.crtc("crtc-0", in: run.stateAfterKey) == ["enable=1", "active=1"], "\(run.stateAfterKey)")
        #expect(run.output.contains("vitrine-dpms-status 0"), "\(run.output)")
    }

    @Test func aHeadPluggedInIsLitUnpluggedGoesAndPluggedAgainIsLitWithoutARestart() throws {
        let run = try GuestRun.shared.get()
        let log = run.hotplugLog
        #expect(log.contains("hotplug through"), "\(log)")
        #expect(log.components(separatedBy: "Virtual-2 was connected: lit as Virtual-2 on /dev/dri/card0 (800x600@").count == 3, "\(log)")
        #expect(log.contains("Virtual-2 was disconnected: its output is gone"), "\(log)")
        // One process throughout: one socket announced, still alive before it was stopped.
        #expect(log.components(separatedBy: "WAYLAND_DISPLAY=").count == 2, "\(log)")
        #expect(run.output.contains("hotplug-same-pid"), "\(run.output)")
        #expect(run.output.contains("vitrine-hotplug-status 0"), "\(run.output)")
        // New clients list the wl_outputs there are at each step.
        func outputs(_ file: String) -> [String] {
            let text = (try? String(contentsOfFile: run.directory + "/" + file, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("name: Virtual-") }
        }
        #expect(outputs("hotplug-two.txt") == ["name: Virtual-1", "name: Virtual-2"])
        #expect(outputs("hotplug-one.txt") == ["name: Virtual-1"])
        #expect(outputs("hotplug-again.txt") == ["name: Virtual-1", "name: Virtual-2"])
        // The kernel's view: the second head's CRTC scans out while its display is there.
        #expect(Self.crtc("crtc-0", in: run.hotplugStates[0]) == ["enable=1", "active=1"], "\(run.hotplugStates[0])")
        #expect(Self.crtc("crtc-1", in: run.hotplugStates[0]) == ["enable=1", "active=1"], "\(run.hotplugStates[0])")
        #expect(Self.crtc("crtc-1", in: run.hotplugStates[1]) == ["enable=0", "active=0"], "\(run.hotplugStates[1])")
        // The board ranks Virtual-2 first: plugged, it is the primary and shows foot, fullscreen at
        // 800×600, while the first head shows Vitrine's black; unplugged, foot is back on the first.
        let black = PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)
        let first = try Image(contentsOfPNGFile: run.directory + "/hotplug-two-0.png")
        let second = try Image(contentsOfPNGFile: run.directory + "/hotplug-two-1.png")
        let back = try Image(contentsOfPNGFile: run.directory + "/hotplug-one-0.png")
        let again = try Image(contentsOfPNGFile: run.directory + "/hotplug-again-1.png")
        #expect(first.width == Self.width && first.pixel(x: Self.width / 2, y: Self.height / 2) == black)
        #expect(second.width == 800 && second.height == 600)
        #expect(second.pixel(x: 400, y: 300) == Self.background && second.pixel(x: 799, y: 599) == Self.background)
        #expect(back.width == Self.width && back.pixel(x: Self.width / 2, y: Self.height / 2) == Self.background)
        #expect(back.pixel(x: Self.width - 1, y: Self.height - 1) == Self.background)
        #expect(again.width == 800 && again.pixel(x: 400, y: 300) == Self.background)
    }

    /// The `enable` and `active` lines of CRTC `name` in a debugfs atomic state.
    static func crtc(_ name: String, in state: String) -> [String] {
        guard let start = state.range(of: ": \(name)\n") else { return [] }
        return state[start.upperBound...].split(separator: "\n").prefix(2).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func openingAMissingDeviceNamesItWithTheSystemError() {
        #expect(throws: KMSError.system(SystemCallError("open", path: "/dev/dri/card15-absent", errno: .noSuchFileOrDirectory))) {
            try KMSBackend(devicePath: "/dev/dri/card15-absent")
        }
    }

    @Test func modeRequestsParseSizeAndOptionalRefresh() {
        #expect(KMSModeRequest(parsing: "1024x768") == KMSModeRequest(width: 1024, height: 768))
        #expect(KMSModeRequest(parsing: "1920x1080@59.94") == KMSModeRequest(width: 1920, height: 1080, refreshMillihertz: 59_940))
        #expect(KMSModeRequest(parsing: "1024") == nil)
        #expect(KMSModeRequest(parsing: "0x768") == nil)
        #expect(KMSModeRequest(parsing: "1024x768@fast") == nil)
    }
}

/// One presented frame as `vitrine run --presentation-log` writes it.
struct Flip: Sendable, Equatable {
    let sequence: UInt64
    let nanoseconds: UInt64
    let flags: UInt32
    let commitToFlipNanoseconds: UInt64
    let pacing: Pacing?

    /// How the frame was paced: when it was asked for, the predicted lead, the refresh it aimed
    /// at, and when drawing started and the flip was committed.
    struct Pacing: Sendable, Equatable {
        let requested: UInt64
        let lead: UInt64
        let target: UInt64
        let targetSequence: UInt64
        let started: UInt64
        let committed: UInt64
    }
}

/// What one guest boot produced.
struct GuestRun: Sendable {
    let directory: String
    /// foot's scene drawn by the Vulkan renderer (into GBM buffer objects): the final capture,
    /// presentations and log.
    let scanout: Image?
    let flips: [Flip]
    /// The presentations of weston-simple-shm, which draws a new frame for each frame callback.
    let animatedFlips: [Flip]
    let kmsLog: String
    /// The same scene drawn by the CPU renderer (into dumb buffers).
    let cpuScanout: Image?
    let cpuKMSLog: String
    let refusedModeOutput: String
    /// What `vitrine list-outputs` printed in the guest.
    let outputList: String
    /// What the guest script printed (the harness's output.txt).
    let output: String
    /// What `vitrine list-inputs` printed in the guest (udev running).
    let inputList: String
    /// Vitrine's log with wev's report of what it received, on the turned panel.
    let inputLog: String
    /// Read-to-flush times of the input batches (ns).
    let inputLatencies: [UInt64]
    /// Vitrine's log with seatd giving the devices out and a VT switch away and back.
    let seatLog: String
    /// Vitrine's log of the idle kiosk, and the kernel's atomic state while blanked and after a key.
    let dpmsLog: String
    let stateWhileBlanked: String
    let stateAfterKey: String
    /// The kernel's atomic state with the pointer moved on the turned panel (hardware cursor).
    let cursorState: String
    /// The kernel's atomic state with the pointer on weston-flower's window, which set its cursor.
    let clientCursorState: String
    /// Vitrine's log with a client whose window is a virtio-gpu dumb buffer shared as a dma-buf.
    let dmabufLog: String
    /// Vitrine's log with that client fullscreen, scanned out directly, then showing a small buffer.
    let directLog: String
    /// The presentations while the fullscreen buffer showed, and all of them.
    let directFlips: [Flip]
    let directAndComposedFlips: [Flip]
    /// Vitrine's log with that client's window committed while its buffer's write fence was pending.
    let fencedLog: String
    /// Vitrine's log while virtio-gpu's heads were plugged and unplugged.
    let hotplugLog: String
    /// Vitrine's log, and its presentations, with page flips refused (VITRINE_FAULTS).
    let refusedFlipsLog: String
    let refusedFlips: [Flip]
    /// The kernel's atomic state with both heads, and with the first alone.
    let hotplugStates: [String]

    static let shared = Result { try QEMUGuest.exclusively { try GuestRun.boot() } }

    enum Failure: Error, CustomStringConvertible {
        case missingBinary(String)
        case harness(status: Int32, directory: String, log: String)
        case headlessRender(String)
        case client(name: String, log: String)

        var description: String {
            switch self {
            case .missingBinary(let path): "\(path) is missing: run `swift build --product vitrine` before `swift test`"
            case .harness(let status, let directory, let log): "the guest run failed (status \(status)); see \(directory):\n\(log)"
            case .headlessRender(let log): "the headless reference render failed:\n\(log)"
            case .client(let name, let log): "building hil/\(name).c failed:\n\(log)"
            }
        }
    }

    /// The folder of the build products this test binary belongs to (where `vitrine` is built).
    static var productsDirectory: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // The test binary sits inside VitrinePackageTests.xctest on some toolchains.
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        return directory.path
    }

    static let harness = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("hil/guest.py").path

    static func boot() throws -> GuestRun {
        let vitrine = productsDirectory + "/vitrine"
        guard FileManager.default.isExecutableFile(atPath: vitrine) else { throw Failure.missingBinary(vitrine) }
        let directory = productsDirectory + "/hil"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try renderHeadlessReferences(vitrine: vitrine, into: directory)
        try buildClient(
            "dmabuf_client", protocols: ["stable/xdg-shell/xdg-shell.xml", "unstable/linux-dmabuf/linux-dmabuf-unstable-v1.xml"],
            packages: ["libdrm"], into: directory)

        let width = KMSFrameTests.width, height = KMSFrameTests.height
        let script = """
            set -u
            OUT=/tmp/hil-out
            # Waits (two minutes at most) until the presentation log FILE has at least MIN lines
            # and no frame has come for ten seconds: frames take seconds under emulation.
            settle() {
                last=-1; n=0
                while [ $n -lt 12 ]; do
                    count=$(cat $1 2>/dev/null | wc -l)
                    if [ "$count" = "$last" ] && [ "$count" -ge $2 ]; then return 0; fi
                    last=$count; sleep 10; n=$((n + 1))
                done
            }
            \(vitrine) list-outputs > $OUT/outputs.txt 2>&1
            \(vitrine) run --kms --mode 333x333 > $OUT/refused.log 2>&1; echo "refused-status $?" >> $OUT/refused.log
            # foot's scene with RENDERER, its log, flips and final capture named after NAME. The scene
            # is complete once the scanout stops changing and no frame arrives for a while: four
            # identical captures five seconds apart, after at least two flips.
            scene() {
                \(vitrine) run --kms --renderer $2 --mode \(width)x\(height) --presentation-log $OUT/flips$1.log -- \(footCommand) > $OUT/vitrine-kms$1.log 2>&1 &
                pid=$!
                previous=""; same=0; flips=-1; n=0
                while [ $n -lt 60 ] && [ $same -lt 3 ]; do
                    sleep 5; n=$((n + 1))
                    kill -0 $pid || { echo "vitrine exited early"; break; }
                    count=$(cat $OUT/flips$1.log 2>/dev/null | wc -l)
                    hil_screendump scan$1-$n || break
                    if [ -n "$previous" ] && [ "$count" -ge 2 ] && [ "$count" = "$flips" ] && cmp -s $OUT/scan$1-$n.png $OUT/$previous; then
                        same=$((same + 1))
                    else
                        same=0
                    fi
                    previous=scan$1-$n.png; flips=$count
                done
                cp $OUT/$previous $OUT/scanout$1.png
                kill -TERM $pid; wait $pid; echo "vitrine$1-status $?"
            }
            # The CPU renderer (what `auto` picks on virtio-gpu) draws into dumb buffers; Vulkan
            # into GBM buffer objects.
            scene -cpu cpu
            scene "" vulkan
            # Vitrine leaves the CRTC as it found it: the kernel's console shows again.
            sleep 2
            hil_screendump after-exit
            # Refused page flips, injected where the KMS backend translates a commit's errno: the
            # first two busy, every later one invalid. The frames still reach the screen: committed
            # again a refresh later, then each through a modeset.
            VITRINE_FAULTS='drmModeAtomicCommit:flip@1..2=EBUSY,drmModeAtomicCommit:flip@3..=EINVAL' \
                \(vitrine) run --kms --mode \(width)x\(height) --presentation-log $OUT/flips-refused.log -- \(footCommand) > $OUT/vitrine-refused.log 2>&1 &
            pid=$!
            n=0; while [ $n -lt 120 ] && ! grep -q 'first frame shown' $OUT/vitrine-refused.log; do sleep 1; n=$((n + 1)); done
            settle $OUT/flips-refused.log 2
            hil_screendump refused-flips
            kill -TERM $pid; wait $pid; echo "vitrine-refused-status $?"
            # An animating client: flips follow one another for as long as it draws.
            \(vitrine) run --kms --presentation-log $OUT/flips-shm.log -- weston-simple-shm > $OUT/vitrine-shm.log 2>&1 &
            pid=$!
            n=0
            while [ $n -lt 120 ] && [ "$(cat $OUT/flips-shm.log 2>/dev/null | wc -l)" -lt 40 ]; do sleep 1; n=$((n + 1)); done
            hil_screendump simple-shm
            kill -TERM $pid; wait $pid; echo "vitrine-shm-status $?"
            # A window of a real dma-buf: a dumb buffer of virtio-gpu exported with PRIME. dma-bufs
            # need the Vulkan renderer: on virtio-gpu `auto` takes the CPU one, which offers none.
            \(vitrine) run --kms --renderer vulkan --presentation-log $OUT/flips-dmabuf.log -- $OUT/dmabuf_client > $OUT/vitrine-dmabuf.log 2>&1 &
            pid=$!
            n=0; while [ $n -lt 120 ] && ! grep -q 'dmabuf-client: ' $OUT/vitrine-dmabuf.log; do sleep 1; n=$((n + 1)); done
            settle $OUT/flips-dmabuf.log 1
            hil_screendump dmabuf
            kill -TERM $pid; wait $pid; echo "vitrine-dmabuf-status $?"
            # The same client fullscreen: its XRGB8888 buffer fills the panel and is scanned out as it
            # is; on SIGUSR1 it shows a small buffer, which is composed again.
            \(vitrine) run --kms --renderer vulkan --presentation-log $OUT/flips-direct.log -- $OUT/dmabuf_client fullscreen > $OUT/vitrine-direct.log 2>&1 &
            pid=$!
            n=0; while [ $n -lt 120 ] && ! grep -q 'dmabuf-client: \\(shown\\|failed\\)' $OUT/vitrine-direct.log; do sleep 1; n=$((n + 1)); done
            settle $OUT/flips-direct.log 1
            hil_screendump direct
            cp $OUT/flips-direct.log $OUT/flips-direct-before.log
            pkill -USR1 -x dmabuf_client
            n=0; while [ $n -lt 120 ] && ! grep -q 'fullscreen buffer released' $OUT/vitrine-direct.log; do sleep 1; n=$((n + 1)); done
            settle $OUT/flips-direct.log 1
            hil_screendump direct-composed
            kill -TERM $pid; wait $pid; echo "vitrine-direct-status $?"
            # Implicit sync: the window's buffer (of vgem) is committed with a write fence pending.
            # It must not show until the client signals the fence (vgem signals it itself after
            # 10 s, so the first capture comes well before).
            \(vitrine) run --kms --renderer vulkan --presentation-log $OUT/flips-fenced.log -- $OUT/dmabuf_client fenced > $OUT/vitrine-fenced.log 2>&1 &
            pid=$!
            n=0; while [ $n -lt 120 ] && ! grep -q 'dmabuf-client: \\(committed fenced\\|failed\\)' $OUT/vitrine-fenced.log; do sleep 1; n=$((n + 1)); done
            sleep 2
            hil_screendump fenced-pending
            pkill -USR1 -x dmabuf_client
            n=0; while [ $n -lt 120 ] && ! grep -q 'fenced frame done' $OUT/vitrine-fenced.log; do sleep 1; n=$((n + 1)); done
            settle $OUT/flips-fenced.log 1
            hil_screendump fenced-shown
            kill -TERM $pid; wait $pid; echo "vitrine-fenced-status $?"
            # A flip held by its acquire fence: this package's AcquireFenceInGuest test, run here,
            # commits a frame with a vgem fence as IN_FENCE_FD; the scanout is captured while the
            # fence is pending and once the test has signalled it.
            VITRINE_HIL_GUEST_OUT=$OUT \(productsDirectory)/VitrinePackageTests.xctest --testing-library swift-testing \
                --filter AcquireFenceInGuest > $OUT/fence-test.txt 2>&1 &
            pid=$!
            for step in pending shown; do
                n=0; while [ $n -lt 900 ] && [ ! -e $OUT/fence-$step ] && kill -0 $pid 2>/dev/null; do sleep 0.1; n=$((n + 1)); done
                [ -e $OUT/fence-$step ] && hil_screendump fence-$step
                touch $OUT/fence-$step-captured
            done
            wait $pid; echo "fence-test-status $?"
            # Input from real evdev devices: udev tags them for libinput's seat; QEMU's virtio
            # keyboard and tablet, and a uinput touchscreen, on a panel turned a quarter.
            # (udevadm trigger refuses to run in a chroot: the uevents are asked for by hand.)
            /lib/systemd/systemd-udevd --daemon > $OUT/udevd.log 2>&1
            sleep 1
            for uevent in /sys/class/input/*/uevent; do echo add > $uevent; done
            python3 $OUT/uinput_touch.py /tmp/touch.fifo > $OUT/touch-device.txt 2>&1 &
            n=0; while [ $n -lt 50 ] && ! grep -q /dev/input $OUT/touch-device.txt; do sleep 0.2; n=$((n + 1)); done
            touchscreen=$(head -1 $OUT/touch-device.txt)
            n=0; while [ $n -lt 50 ] && ! udevadm info --query=property --name=$touchscreen | grep -q ID_INPUT_TOUCHSCREEN=1; do sleep 0.2; n=$((n + 1)); done
            n=0; while [ $n -lt 50 ] && ! udevadm info --query=property --name=/dev/input/event2 | grep -q ID_INPUT=1; do sleep 0.2; n=$((n + 1)); done
            \(vitrine) list-inputs > $OUT/inputs.txt 2>&1
            \(vitrine) run --kms --config $OUT/input-board.toml --presentation-log $OUT/flips-input.log \
                --input-latency-log $OUT/input-latency.txt -- stdbuf -oL wev > $OUT/vitrine-input.log 2>&1 &
            pid=$!
            n=0
            while [ $n -lt 120 ] && ! grep -q 'xdg_toplevel.*configure' $OUT/vitrine-input.log; do sleep 1; n=$((n + 1)); done
            n=0; while [ $n -lt 60 ] && [ "$(cat $OUT/flips-input.log 2>/dev/null | wc -l)" -lt 2 ]; do sleep 1; n=$((n + 1)); done
            sleep 3
            echo "down 0 0.25 0.5" > /tmp/touch.fifo; sleep 1
            echo "up 0" > /tmp/touch.fifo; sleep 1
            # The touch's frames (if any) are done before the pointer moves: then the move is the
            # cursor plane's own commit, and no frame follows it.
            settle $OUT/flips-input.log 1
            before=$(cat $OUT/flips-input.log | wc -l)
            hil_move 700 300; sleep 3
            hil_click left; sleep 1
            hil_key y; sleep 5
            mount -t debugfs none /sys/kernel/debug 2>/dev/null
            cat /sys/kernel/debug/dri/0/state > $OUT/cursor-state.txt 2>&1
            hil_screendump input-cursor
            echo "frames-after-move $(( $(cat $OUT/flips-input.log | wc -l) - before ))"
            kill -TERM $pid; wait $pid; echo "vitrine-input-status $?"
            # A client's own cursor: weston-flower sets the theme's hand1 over its window, which
            # goes on the cursor plane too once the pointer moves onto the window; no frame follows.
            \(vitrine) run --kms --config $OUT/input-board.toml --presentation-log $OUT/flips-flower.log \
                -- env XCURSOR_THEME=Adwaita XCURSOR_SIZE=32 weston-flower > $OUT/vitrine-flower.log 2>&1 &
            pid=$!
            n=0; while [ $n -lt 120 ] && [ "$(cat $OUT/flips-flower.log 2>/dev/null | wc -l)" -lt 1 ]; do sleep 1; n=$((n + 1)); done
            settle $OUT/flips-flower.log 1
            hil_screendump flower-before
            before=$(cat $OUT/flips-flower.log | wc -l)
            hil_move 500 380; sleep 5
            cat /sys/kernel/debug/dri/0/state > $OUT/client-cursor-state.txt 2>&1
            hil_screendump flower-cursor
            echo "frames-after-client-cursor $(( $(cat $OUT/flips-flower.log | wc -l) - before ))"
            kill -TERM $pid; wait $pid; echo "vitrine-flower-status $?"
            echo quit > /tmp/touch.fifo
            # A seat manager: seatd gives the devices out through libseat; switching the VT away
            # and back brings the scene back.
            seatd -l info > $OUT/seatd.log 2>&1 &
            seatdpid=$!
            n=0; while [ $n -lt 50 ] && [ ! -S /run/seatd.sock ]; do sleep 0.2; n=$((n + 1)); done
            \(vitrine) run --kms --mode \(width)x\(height) --presentation-log $OUT/flips-seat.log -- \(footCommand) > $OUT/vitrine-seat.log 2>&1 &
            pid=$!
            n=0; while [ $n -lt 120 ] && ! grep -q 'first frame shown' $OUT/vitrine-seat.log; do sleep 1; n=$((n + 1)); done
            # foot draws its cursor filled once it has the keyboard focus, which comes with the
            # keyboard's arrival through libseat: the scene is complete once frames stop coming.
            n=0; while [ $n -lt 120 ] && ! grep -q 'QEMU Virtio Keyboard": keyboard' $OUT/vitrine-seat.log; do sleep 1; n=$((n + 1)); done
            settle $OUT/flips-seat.log 1
            hil_screendump seat-before
            busybox chvt 2; sleep 4
            hil_screendump seat-away
            busybox chvt 1; sleep 8
            hil_screendump seat-back
            kill -TERM $pid; wait $pid; echo "vitrine-seat-status $?"
            kill $seatdpid
            # DPMS: a kiosk blanked for idleness makes its CRTC inactive; a key wakes it.
            mount -t debugfs none /sys/kernel/debug 2>/dev/null
            \(vitrine) run --kms --seat-manager direct --config $OUT/dpms-board.toml > $OUT/vitrine-dpms.log 2>&1 &
            pid=$!
            n=0; while [ $n -lt 120 ] && ! grep -q 'display off (DPMS)' $OUT/vitrine-dpms.log; do sleep 1; n=$((n + 1)); done
            cat /sys/kernel/debug/dri/0/state > $OUT/dpms-off.txt 2>&1
            hil_key a
            n=0; while [ $n -lt 60 ] && ! grep -q 'woken by input' $OUT/vitrine-dpms.log; do sleep 1; n=$((n + 1)); done
            # The CRTC turns active with the first frame after the wake, which takes seconds under a
            # loaded emulator; read the state until it does (bounded), before the board blanks again.
            n=0; while [ $n -lt 40 ]; do
                cat /sys/kernel/debug/dri/0/state > $OUT/dpms-on.txt 2>&1
                grep -q 'active=1' $OUT/dpms-on.txt && break
                sleep 0.25; n=$((n + 1))
            done
            kill -TERM $pid; wait $pid; echo "vitrine-dpms-status $?"
            # Hotplug while one Vitrine runs: virtio-gpu's second head plugged through QEMU's D-Bus
            # display, unplugged and plugged again. The board ranks Virtual-2 first, so once
            # plugged it is the primary output and foot's window moves to it (fullscreen at its
            # size), and back when it goes. New clients list the outputs each time; the kernel's
            # state shows which CRTCs scan out.
            \(vitrine) run --kms --seat-manager direct --socket hil-hotplug --config $OUT/hotplug-board.toml -- \(footCommand) > $OUT/vitrine-hotplug.log 2>&1 &
            pid=$!
            waitlog() { n=0; while [ $n -lt 90 ] && [ "$(grep -c "$1" $OUT/vitrine-hotplug.log)" -lt $2 ]; do sleep 1; n=$((n + 1)); done; }
            waitlog 'first frame shown' 1
            sleep 5
            hil_head 1 800x600
            waitlog 'Virtual-2 was connected' 1
            sleep 12
            WAYLAND_DISPLAY=hil-hotplug wayland-info > $OUT/hotplug-two.txt 2>&1
            cat /sys/kernel/debug/dri/0/state > $OUT/hotplug-two-state.txt 2>&1
            hil_screendump hotplug-two-0 0
            hil_screendump hotplug-two-1 1
            hil_head 1 off
            waitlog 'Virtual-2 was disconnected' 1
            sleep 12
            WAYLAND_DISPLAY=hil-hotplug wayland-info > $OUT/hotplug-one.txt 2>&1
            cat /sys/kernel/debug/dri/0/state > $OUT/hotplug-one-state.txt 2>&1
            hil_screendump hotplug-one-0 0
            hil_head 1 800x600
            waitlog 'Virtual-2 was connected' 2
            sleep 12
            WAYLAND_DISPLAY=hil-hotplug wayland-info > $OUT/hotplug-again.txt 2>&1
            hil_screendump hotplug-again-1 1
            kill -0 $pid && echo "hotplug-same-pid"
            kill -TERM $pid; wait $pid; echo "vitrine-hotplug-status $?"
            """
        try script.write(toFile: directory + "/guest-script.sh", atomically: true, encoding: .utf8)
        try inputBoard.write(toFile: directory + "/input-board.toml", atomically: true, encoding: .utf8)
        try dpmsBoard.write(toFile: directory + "/dpms-board.toml", atomically: true, encoding: .utf8)
        try hotplugBoard.write(toFile: directory + "/hotplug-board.toml", atomically: true, encoding: .utf8)
        try copyUinputScripts(["uinput_touch.py"], into: directory)
        let (status, log) = try runProcess(
            // The build folder is shared on its own: a clone under /tmp would be hidden by the
            // guest's /tmp. The script took over 10 minutes on a 2-core host loaded by other builds.
            ["/usr/bin/env", "python3", harness, "run", "--out", directory, "--timeout", "900",
             "--display", "\(width)x\(height)", "--heads", "2", "--share", productsDirectory, directory + "/guest-script.sh"],
            timeoutSeconds: 960)
        guard status == 0 else { throw Failure.harness(status: status, directory: directory, log: log) }
        return GuestRun(
            directory: directory,
            scanout: try? Image(contentsOfPNGFile: directory + "/scanout.png"),
            flips: readFlips(directory + "/flips.log"),
            animatedFlips: readFlips(directory + "/flips-shm.log"),
            kmsLog: (try? String(contentsOfFile: directory + "/vitrine-kms.log", encoding: .utf8)) ?? "",
            cpuScanout: try? Image(contentsOfPNGFile: directory + "/scanout-cpu.png"),
            cpuKMSLog: (try? String(contentsOfFile: directory + "/vitrine-kms-cpu.log", encoding: .utf8)) ?? "",
            refusedModeOutput: (try? String(contentsOfFile: directory + "/refused.log", encoding: .utf8)) ?? "",
            outputList: (try? String(contentsOfFile: directory + "/outputs.txt", encoding: .utf8)) ?? "",
            output: (try? String(contentsOfFile: directory + "/output.txt", encoding: .utf8)) ?? "",
            inputList: (try? String(contentsOfFile: directory + "/inputs.txt", encoding: .utf8)) ?? "",
            inputLog: (try? String(contentsOfFile: directory + "/vitrine-input.log", encoding: .utf8)) ?? "",
            inputLatencies: ((try? String(contentsOfFile: directory + "/input-latency.txt", encoding: .utf8)) ?? "")
                .split(separator: "\n").compactMap { UInt64($0) },
            seatLog: (try? String(contentsOfFile: directory + "/vitrine-seat.log", encoding: .utf8)) ?? "",
            dpmsLog: (try? String(contentsOfFile: directory + "/vitrine-dpms.log", encoding: .utf8)) ?? "",
            stateWhileBlanked: (try? String(contentsOfFile: directory + "/dpms-off.txt", encoding: .utf8)) ?? "",
            stateAfterKey: (try? String(contentsOfFile: directory + "/dpms-on.txt", encoding: .utf8)) ?? "",
            cursorState: (try? String(contentsOfFile: directory + "/cursor-state.txt", encoding: .utf8)) ?? "",
            clientCursorState: (try? String(contentsOfFile: directory + "/client-cursor-state.txt", encoding: .utf8)) ?? "",
            dmabufLog: (try? String(contentsOfFile: directory + "/vitrine-dmabuf.log", encoding: .utf8)) ?? "",
            directLog: (try? String(contentsOfFile: directory + "/vitrine-direct.log", encoding: .utf8)) ?? "",
            directFlips: readFlips(directory + "/flips-direct-before.log"),
            directAndComposedFlips: readFlips(directory + "/flips-direct.log"),
            fencedLog: (try? String(contentsOfFile: directory + "/vitrine-fenced.log", encoding: .utf8)) ?? "",
            hotplugLog: (try? String(contentsOfFile: directory + "/vitrine-hotplug.log", encoding: .utf8)) ?? "",
            refusedFlipsLog: (try? String(contentsOfFile: directory + "/vitrine-refused.log", encoding: .utf8)) ?? "",
            refusedFlips: readFlips(directory + "/flips-refused.log"),
            hotplugStates: ["two", "one"].map {
                (try? String(contentsOfFile: directory + "/hotplug-\($0)-state.txt", encoding: .utf8)) ?? ""
            })
    }

    /// Copies the uinput device scripts `names` from hil/, with the module they share, into
    /// `directory` (the guest sees the output folder, but not a source tree under /tmp).
    static func copyUinputScripts(_ names: [String], into directory: String) throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("hil")
        for name in names + ["uinput_device.py"] {
            try FileManager.default.copyItem(atPath: folder.appendingPathComponent(name).path, toPath: directory + "/" + name)
        }
    }

    /// A kiosk showing its splash (its app draws nothing) that blanks after 3 s without input.
    static let dpmsBoard = """
        [[output]]
        connector = "Virtual-1"
        mode = "\(KMSFrameTests.width)x\(KMSFrameTests.height)"

        [app]
        command = ["sleep", "600"]

        [idle]
        blank-after = 3
        """

    /// Two outputs, the second head first: it is the primary whenever it is plugged in.
    static let hotplugBoard = """
        [[output]]
        connector = "Virtual-2"

        [[output]]
        connector = "Virtual-1"

        [app]
        command = ["sleep", "600"]

        [cursor]
        visible = false
        """

    /// The guest's panel turned a quarter, a German keyboard, and the uinput touchscreen mapped to
    /// the panel through a calibration that mirrors it left to right (so the matrix shows).
    static let inputBoard = """
        [board]
        name = "hil-input"

        [[output]]
        connector = "Virtual-1"
        mode = "\(KMSFrameTests.width)x\(KMSFrameTests.height)"
        rotation = 90

        [input.keyboard]
        layout = "de"

        [[input.touchscreen]]
        device = "Vitrine HIL touchscreen"
        output = "Virtual-1"
        calibration = [-1, 0, 1, 0, 1, 0]

        [app]
        command = ["/usr/bin/wev"]

        [cursor]
        visible = true
        """

    /// The lines of a presentation log that parse; a malformed line is left out (and then missed by
    /// the count checks).
    static func readFlips(_ path: String) -> [Flip] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line -> Flip? in
            let fields = line.split(separator: " ")
            guard fields.count == 9 || fields.count == 21, let sequence = UInt64(fields[2]), let nanoseconds = UInt64(fields[4]),
                  let flags = UInt32(fields[6]), let latency = UInt64(fields[8]) else { return nil }
            let values = stride(from: 10, to: fields.count, by: 2).compactMap { UInt64(fields[$0]) }
            let pacing = values.count == 6
                ? Flip.Pacing(requested: values[0], lead: values[1], target: values[2], targetSequence: values[3], started: values[4], committed: values[5])
                : nil
            return Flip(sequence: sequence, nanoseconds: nanoseconds, flags: flags, commitToFlipNanoseconds: latency, pacing: pacing)
        }
    }

    /// foot filling the output with its background, then idle: a scene that stops changing.
    static let footCommand = "foot --override=colors.background=204060 sh -c 'sleep 900'"

    /// The same scene on a headless output of the same size, on the host, drawn by each renderer
    /// (headless-vulkan.png, headless-cpu.png).
    static func renderHeadlessReferences(vitrine: String, into directory: String) throws {
        for renderer in ["vulkan", "cpu"] {
            let image = "\(directory)/headless-\(renderer).png"
            let (status, log) = try runProcess(
                ["/bin/sh", "-c", "\(vitrine) run --renderer \(renderer) --headless \(KMSFrameTests.width)x\(KMSFrameTests.height)@75 "
                    + "--screenshot \(image) --after 10 -- \(footCommand)"],
                timeoutSeconds: 120)
            guard status == 0, FileManager.default.fileExists(atPath: image) else { throw Failure.headlessRender(log) }
        }
    }

    /// Builds the C client hil/NAME.c into `directory`/NAME (the guest runs the host's
    /// libraries), with the protocol glue wayland-scanner makes from Debian's XML for each of
    /// `protocols` (paths under wayland-protocols, e.g. "stable/xdg-shell/xdg-shell.xml"), linked
    /// with wayland-client and the pkg-config `packages`.
    static func buildClient(_ name: String, protocols: [String], packages: [String] = [], into directory: String) throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("hil/\(name).c").path
        let glue = directory + "/\(name)-glue"
        let packageList = (packages + ["wayland-client"]).joined(separator: " ")
        var script = "set -e\nmkdir -p \(glue)\n"
        var glueSources: [String] = []
        for path in protocols {
            let xml = "/usr/share/wayland-protocols/" + path
            let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            script += "wayland-scanner client-header \(xml) \(glue)/\(stem)-client-protocol.h\n"
            script += "wayland-scanner private-code \(xml) \(glue)/\(stem)-protocol.c\n"
            glueSources.append("\(glue)/\(stem)-protocol.c")
        }
        script += """
            gcc-12 -std=c11 -D_GNU_SOURCE -Wall -Werror -Wno-unused-parameter -O1 -I\(glue) $(pkg-config --cflags \(packageList)) \\
                -o \(directory)/\(name) \(source) \(glueSources.joined(separator: " ")) $(pkg-config --libs \(packageList))
            """
        let (status, log) = try runProcess(["/bin/sh", "-c", script], timeoutSeconds: 120)
        guard status == 0 else { throw Failure.client(name: name, log: log) }
    }

    /// Runs `arguments`, killing it after `timeoutSeconds`; returns its status and its output.
    static func runProcess(_ arguments: [String], timeoutSeconds: Double) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-hil-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning && Date() < deadline { usleep(100_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try handle.close()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: output)
        return (process.terminationStatus, text)
    }
}
