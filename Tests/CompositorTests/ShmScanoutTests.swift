@testable import Compositor
import DisplayBackend
import Glibc
import Graphics
import LayerKit
import Testing
import WaylandServer
import WaylandTestClient

/// A fullscreen opaque shm window on the headless output is the frame itself, as on cage: the
/// output shows the client's buffer where it lies (nothing is copied, by either renderer), a
/// capture reads that buffer, and the buffer goes back to its client only once a later frame
/// replaced it. KMS cannot scan out shm, so there such a window is composed (KMSBackend tests).
@Suite(.serialized) struct ShmScanoutTests {
    /// A 640×480 session allowed to capture, with a fullscreen window showing a 640×480 XRGB8888
    /// shm buffer whose pixel (x, y) is 0xFF_xx_yy_zz (x, y and x + y in their low bytes).
    private func fullscreenWindow(renderer: RendererKind) throws -> (session: HeadlessSession, client: SessionClient, surface: WlSurfaceProxy, buffer: MappedBuffer) {
        let session = try HeadlessSession(width: 640, height: 480, renderer: renderer)
        session.compositor.privilegeRules = [PrivilegeRule(.executable(testExecutable()), privileges: [.screenCapture])]
        let client = try SessionClient(session)
        let (surface, _) = try client.makeToplevel()
        let buffer = try MappedBuffer(client, width: 640, height: 480)
        paintPattern(buffer)
        try client.show(buffer.proxy, on: surface)
        try client.client.roundtrip()
        return (session, client, surface, buffer)
    }

    /// Runs until the output shows a frame that is the window's buffer.
    private func runUntilScannedOut(_ session: HeadlessSession) throws -> Bool {
        let headless = session.backend.headlessOutput(0)
        return try session.run(seconds: 30) {
            session.compositor.outputs[0].isScanningOutDirectly && headless.presentedFrameCount > 0 && !headless.hasFrameWaitingToShow
        }
    }

    private func paintPattern(_ buffer: MappedBuffer) {
        let pixels = buffer.memory.assumingMemoryBound(to: UInt32.self)
        for y in 0..<480 {
            for x in 0..<640 { pixels[y * 640 + x] = 0xFF00_0000 | UInt32(x & 0xFF) << 16 | UInt32(y & 0xFF) << 8 | UInt32((x + y) & 0xFF) }
        }
    }

    @Test(arguments: [RendererKind.vulkan, .cpu])
    func aFullscreenOpaqueShmBufferIsTheFrameWithNothingCopied(renderer: RendererKind) throws {
        let (session, client, _, buffer) = try fullscreenWindow(renderer: renderer)
        defer { withExtendedLifetime(client) {} }
        let output = session.compositor.outputs[0]
        #expect(try runUntilScannedOut(session))
        // The screen is the client's memory itself: a pixel written there after the frame was
        // shown (against the rules, without a commit) is what the first capture reads.
        buffer.memory.storeBytes(of: 0xFF12_3456, toByteOffset: (100 * 640 + 200) * 4, as: UInt32.self)
        #expect(session.screen?.pixel(x: 200, y: 100) == PremultipliedPixel(red: 0x12, green: 0x34, blue: 0x56, alpha: 0xFF))
        #expect(buffer.pixelsDiffering(from: try #require(session.screen), stride: 2560) == 0)
        // The renderer read nothing of it (the Vulkan renderer's texture had no upload).
        #expect(try #require(session.compositor.nodes.values.first).surfaceTexture.uploadedBytes == 0)
        #expect(session.compositor.outputStatuses.map(\.isScanningOutDirectly) == [true])
    }

    /// wlroots' screencopy of a frame that is the client's buffer copies exactly that buffer's pixels.
    @Test func aCaptureOfAScannedOutFrameHoldsTheClientsPixels() throws {
        let (session, client, _, buffer) = try fullscreenWindow(renderer: .cpu)
        defer { withExtendedLifetime(client) {} }
        #expect(try runUntilScannedOut(session))
        let capturer = try SessionClient(session)
        let manager = try capturer.client.bind(ZwlrScreencopyManagerV1Proxy.self, version: 3)
        let frame = try manager.captureOutput(overlayCursor: 0, output: try capturer.client.bind(WlOutputProxy.self, version: 4))
        let copy = try MappedBuffer(capturer, width: 640, height: 480)
        try frame.copy(buffer: copy.proxy)
        try capturer.client.roundtrip()
        guard case .ready? = frame.events.last else {
            Issue.record("no ready event: \(frame.events)")
            return
        }
        var differing = 0
        for offset in stride(from: 0, to: 640 * 480 * 4, by: 4) {
            let shown = buffer.memory.load(fromByteOffset: offset, as: UInt32.self), copied = copy.memory.load(fromByteOffset: offset, as: UInt32.self)
            if shown & 0xFF_FFFF != copied & 0xFF_FFFF { differing += 1 }
        }
        #expect(differing == 0)
    }

    /// The shown buffer stays the output's until the frame that replaces it is on screen: a
    /// commit of another buffer releases it only at that frame's presentation, once; the new one
    /// is kept in turn.
    @Test(arguments: [RendererKind.vulkan, .cpu])
    func aShownBufferIsReleasedOnceTheFrameReplacingItIsShown(renderer: RendererKind) throws {
        let (session, client, surface, first) = try fullscreenWindow(renderer: renderer)
        let output = session.compositor.outputs[0]
        let headless = session.backend.headlessOutput(0)
        #expect(try runUntilScannedOut(session))
        // Frames come and go (a commit of the same buffer); the buffer stays held.
        try client.show(first.proxy, on: surface)
        try client.client.roundtrip()
        #expect(try session.runFrames(1))
        try client.client.roundtrip()
        #expect(first.proxy.events.isEmpty)

        let second = try MappedBuffer(client, width: 640, height: 480)
        second.memory.initializeMemory(as: UInt32.self, repeating: 0xFF00_00FF, count: 640 * 480)
        let presented = headless.presentedFrameCount
        try client.show(second.proxy, on: surface)
        try client.client.roundtrip()
        // Not released while the first buffer is still what the output shows.
        #expect(first.proxy.events.isEmpty || headless.presentedFrameCount > presented)
        let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == blue })
        try client.client.roundtrip()
        #expect(first.proxy.events == [.release])
        #expect(second.proxy.events.isEmpty)
        #expect(output.isScanningOutDirectly)
    }

    /// The kiosk's common stream (benchmarks/fullscreen_shm.c): three buffers committed in turn,
    /// every frame the client's buffer itself. Each commit's buffer goes back to its client
    /// exactly once, when the frame showing the next commit is shown: in the order of the commits.
    @Test(arguments: [RendererKind.vulkan, .cpu])
    func buffersCommittedInTurnAreReleasedOncePerCommitInOrder(renderer: RendererKind) throws {
        let (session, client, surface, first) = try fullscreenWindow(renderer: renderer)
        defer { withExtendedLifetime(client) {} }
        let output = session.compositor.outputs[0]
        #expect(try runUntilScannedOut(session))
        let buffers = [first, try MappedBuffer(client, width: 640, height: 480), try MappedBuffer(client, width: 640, height: 480)]
        var releases = [0, 0, 0]
        for commit in 1...9 {
            let shown = buffers[commit % 3]
            shown.memory.initializeMemory(as: UInt32.self, repeating: 0xFF00_0000 | UInt32(commit), count: 640 * 480)
            try client.show(shown.proxy, on: surface)
            try client.client.roundtrip()
            let pixel = PremultipliedPixel(red: 0, green: 0, blue: UInt8(commit), alpha: 255)
            #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == pixel })
            try client.client.roundtrip()
            releases[(commit - 1) % 3] += 1
            #expect(buffers.map(\.proxy.events.count) == releases, "after commit \(commit)")
            #expect(output.isScanningOutDirectly)
        }
        #expect(buffers.allSatisfy { $0.proxy.events.allSatisfy { $0 == .release } })
    }

    /// A client that destroys the shown buffer (its pool is already gone) leaves the frame on
    /// screen: the output keeps the pool mapped, so a capture still holds the client's exact
    /// pixels, also after a frame drawn for another reason shows the buffer again, until the
    /// frame of the client's next buffer unmaps it.
    @Test(arguments: [RendererKind.vulkan, .cpu])
    func aShownBufferItsClientDestroyedIsCapturedUntilTheNextFrameUnmapsIt(renderer: RendererKind) throws {
        let (session, client, surface, buffer) = try fullscreenWindow(renderer: renderer)
        let output = session.compositor.outputs[0]
        #expect(try runUntilScannedOut(session))
        var file = stat()
        #expect(fstat(buffer.file, &file) == 0)
        // The test's own mapping of the buffer's file and the compositor's.
        func mappings() -> Int { mappingCount(ofInode: file.st_ino) }
        #expect(mappings() == 2)
        try buffer.proxy.destroy()
        try client.client.roundtrip()
        #expect(session.screen.map { buffer.pixelsDiffering(from: $0, stride: 2560) } == 0)
        #expect(mappings() == 2)
        output.scheduleFrame()
        #expect(try session.runFrames(1))
        #expect(session.screen.map { buffer.pixelsDiffering(from: $0, stride: 2560) } == 0)
        #expect(mappings() == 2)
        #expect(output.isScanningOutDirectly)

        let second = try MappedBuffer(client, width: 640, height: 480)
        second.memory.initializeMemory(as: UInt32.self, repeating: 0xFF00_00FF, count: 640 * 480)
        try client.show(second.proxy, on: surface)
        try client.client.roundtrip()
        let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == blue })
        #expect(withExtendedLifetime(buffer) { mappings() } == 1)
    }

    /// The window shows a buffer its client destroyed for as long as no commit replaces it: once
    /// the output dropped the frame that showed it (a mode of the same size at another refresh
    /// rate), the next frame is that buffer again with the client's exact pixels, and a frame
    /// composed over it (a view on top) draws them too.
    @Test(arguments: [RendererKind.vulkan, .cpu])
    func aShownBufferItsClientDestroyedStaysOnScreenAfterTheOutputDroppedItsFrame(renderer: RendererKind) throws {
        let (session, client, _, buffer) = try fullscreenWindow(renderer: renderer)
        defer { withExtendedLifetime(client) {} }
        let output = session.compositor.outputs[0]
        let headless = session.backend.headlessOutput(0)
        #expect(try runUntilScannedOut(session))
        try buffer.proxy.destroy()
        try client.client.roundtrip()
        let presented = headless.presentedFrameCount
        try session.backend.changeMode(of: headless, to: OutputMode(width: 640, height: 480, refreshMillihertz: 30_000))
        #expect(try session.run(seconds: 30) { headless.presentedFrameCount > presented && !headless.hasFrameWaitingToShow })
        #expect(output.isScanningOutDirectly)
        #expect(session.screen.map { buffer.pixelsDiffering(from: $0, stride: 2560) } == 0)

        session.addWhiteSquareView()
        #expect(try session.run(seconds: 30) { !output.isScanningOutDirectly && session.screen?.pixel(x: 5, y: 5) == white })
        #expect(session.screen.map { buffer.pixelsDiffering(from: $0, stride: 2560) } == 10 * 10)
    }

    /// Destroying the shown buffer does not change the surface's contents (wl_surface.attach): a
    /// commit without a buffer attached afterwards leaves the window mapped, showing the client's
    /// exact pixels.
    @Test(arguments: [RendererKind.vulkan, .cpu])
    func aCommitAfterTheClientDestroyedTheShownBufferLeavesTheWindowShowingIt(renderer: RendererKind) throws {
        let (session, client, surface, buffer) = try fullscreenWindow(renderer: renderer)
        defer { withExtendedLifetime(client) {} }
        let output = session.compositor.outputs[0]
        #expect(try runUntilScannedOut(session))
        try buffer.proxy.destroy()
        try surface.commit()
        try client.client.roundtrip()
        output.scheduleFrame()
        #expect(try session.runFrames(1))
        #expect(session.compositor.shell.toplevels.map(\.isMapped) == [true])
        #expect(output.isScanningOutDirectly)
        #expect(session.screen.map { buffer.pixelsDiffering(from: $0, stride: 2560) } == 0)
    }

    /// A destroyed shown buffer whose file its client then truncates reads as zeros past the new
    /// end (libwayland's guard needs the buffer, so the kept mapping is read through the kernel),
    /// not a SIGBUS; what is left of the file still reads as the client's pixels.
    @Test func aDestroyedShownBufferTruncatedUnderTheOutputReadsAsZerosPastItsEnd() throws {
        let (session, client, _, buffer) = try fullscreenWindow(renderer: .cpu)
        #expect(try runUntilScannedOut(session))
        try buffer.proxy.destroy()
        try client.client.roundtrip()
        #expect(ftruncate(buffer.file, 4096) == 0)
        let screen = try #require(session.screen)
        #expect(screen.pixel(x: 10, y: 1) == PremultipliedPixel(red: 10, green: 1, blue: 11, alpha: 255))
        #expect(screen.pixel(x: 320, y: 240) == black)
        #expect(session.compositor.outputs[0].isScanningOutDirectly)
    }

    /// A view over the window brings composition back: the composed frame reads the buffer (the
    /// Vulkan renderer uploads it whole, once), and the buffer shown directly until then is
    /// released by that frame's presentation, not before.
    @Test func aComposedFrameAfterScanoutReleasesTheBufferWhenShown() throws {
        let (session, client, _, buffer) = try fullscreenWindow(renderer: .vulkan)
        let output = session.compositor.outputs[0]
        #expect(try runUntilScannedOut(session))
        session.addWhiteSquareView()
        #expect(try session.run(seconds: 30) { !output.isScanningOutDirectly && session.screen?.pixel(x: 5, y: 5) == white })
        try client.client.roundtrip()
        #expect(buffer.proxy.events == [.release])
        #expect(try #require(session.compositor.nodes.values.first).surfaceTexture.uploadedBytes == 640 * 480 * 4)
        #expect(session.screen.map { buffer.pixelsDiffering(from: $0, stride: 2560) } == 10 * 10)
    }

    /// A client that truncates its pool under the buffer the output shows gets a wl_shm error when
    /// the output reads it (a capture), as libwayland's guard reports it; the compositor lives
    /// and composes the screen without the client's window.
    @Test func aPoolTruncatedUnderTheShownBufferGetsItsClientAnErrorAndTheCompositorLives() throws {
        let (session, client, _, buffer) = try fullscreenWindow(renderer: .cpu)
        let output = session.compositor.outputs[0]
        #expect(try runUntilScannedOut(session))
        let other = try SessionClient(session)
        #expect(ftruncate(buffer.file, 4096) == 0)
        // The read past the pool's end reads zeros, not a SIGBUS.
        #expect(session.screen?.pixel(x: 320, y: 240) == black)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(WlShmError.invalidFd, on: buffer.proxy))) {
            _ = try session.run(seconds: 0.2)
            try client.client.roundtrip()
        }
        #expect(try session.run(seconds: 30) { !output.isScanningOutDirectly && session.screen?.pixel(x: 320, y: 240) == black })
        try other.client.roundtrip()
    }
}
