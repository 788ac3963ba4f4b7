import DisplayBackend
import Foundation
import Glibc
import Graphics
import HeadlessBackend
import LayerKit
import Testing
import Views
import WaylandTestClient
@testable import Compositor
@testable import Renderer

let argb8888: UInt32 = 0x3432_5241  // "AR24"
private let xrgb8888: UInt32 = 0x3432_5258  // "XR24"
private let abgr8888: UInt32 = 0x3432_4241  // "AB24"
private let xbgr8888: UInt32 = 0x3432_4258  // "XB24"

/// A client's linear dma-buf: `height` rows of `stride` bytes after `offset`, each `width` copies
/// of `pixel` (its bytes in memory). lavapipe maps what it imports, so a memfd sealed against
/// shrinking stands in for a dma-buf on machines without /dev/udmabuf; `canShrink` leaves the
/// seal off, as a hostile client would.
struct LinearDmabuf {
    let fd: Int32
    let width: Int, height: Int, stride: Int, offset: Int

    init(width: Int, height: Int, stride: Int? = nil, offset: Int = 0, pixel: [UInt8], canShrink: Bool = false) {
        self.width = width
        self.height = height
        self.stride = stride ?? width * 4
        self.offset = offset
        fd = anonymousFile(size: offset + self.stride * height, sealedAgainstShrinking: !canShrink)
        paint(rows: 0..<height, pixel)
    }

    func paint(rows: Range<Int>, _ pixel: [UInt8]) {
        let row = [[UInt8]](repeating: pixel, count: width).flatMap { $0 }
        for y in rows {
            row.withUnsafeBytes { precondition(pwrite(fd, $0.baseAddress, $0.count, off_t(offset + y * stride)) == $0.count) }
        }
    }

    /// zwp_linux_buffer_params_v1 with this buffer as plane 0, linear (libwayland sends a duplicate).
    func params(_ dmabuf: ZwpLinuxDmabufV1Proxy) throws -> ZwpLinuxBufferParamsV1Proxy {
        let params = try dmabuf.createParams()
        try params.add(
            fd: FileDescriptor(rawValue: fd), planeIdx: 0, offset: UInt32(offset), stride: UInt32(stride), modifierHi: 0, modifierLo: 0)
        return params
    }

    /// A wl_buffer of it through create_immed.
    func buffer(_ dmabuf: ZwpLinuxDmabufV1Proxy, format: UInt32, flags: ZwpLinuxBufferParamsV1Flags = []) throws -> WlBufferProxy {
        try params(dmabuf).createImmed(width: Int32(width), height: Int32(height), format: format, flags: flags)
    }
}

/// The screen's pixel for the buffers' orange, whatever their channel order.
private let orange = PremultipliedPixel(red: 0xFF, green: 0x80, blue: 0x10, alpha: 0xFF)

/// A 640×480 session, and a client with zwp_linux_dmabuf_v1 (version 3) and a configured toplevel.
private func dmabufWindow() throws -> (session: HeadlessSession, client: SessionClient, dmabuf: ZwpLinuxDmabufV1Proxy, surface: WlSurfaceProxy) {
    let session = try HeadlessSession(width: 640, height: 480)
    let client = try SessionClient(session)
    let dmabuf = try client.client.bind(ZwpLinuxDmabufV1Proxy.self, version: 3)
    let (surface, _) = try client.makeToplevel()
    return (session, client, dmabuf, surface)
}

/// `dmabufWindow()` showing a 64×64 orange ABGR8888 dma-buf laid out at `stride` and `offset`,
/// once the screen shows it; the caller closes `pixels.fd`.
private func orangeDmabufWindow(stride: Int, offset: Int) throws -> (
    session: HeadlessSession, client: SessionClient, dmabuf: ZwpLinuxDmabufV1Proxy, surface: WlSurfaceProxy,
    pixels: LinearDmabuf, buffer: WlBufferProxy
) {
    let (session, client, dmabuf, surface) = try dmabufWindow()
    let pixels = LinearDmabuf(width: 64, height: 64, stride: stride, offset: offset, pixel: [0xFF, 0x80, 0x10, 0xFF])
    let buffer = try pixels.buffer(dmabuf, format: abgr8888)
    try client.show(buffer, on: surface)
    try client.client.roundtrip()
    #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == orange })
    return (session, client, dmabuf, surface, pixels, buffer)
}

/// zwp_linux_dmabuf_v1 with the compositor's renderer: client dma-bufs imported on the device when
/// made, and sampled in place or copied into their surfaces' textures by the frames that draw
/// them, shown as windows.
@Suite(.serialized) struct DmabufClientTests {
    /// lavapipe names no render node, so the global is version 3 and lists its formats as events.
    @Test func lavapipeAdvertisesVersion3WithTheFourLinearFormats() throws {
        let session = try HeadlessSession()
        let client = try SessionClient(session)
        let dmabuf = try client.client.bind(ZwpLinuxDmabufV1Proxy.self, version: 3)
        try client.client.roundtrip()
        let formats = [argb8888, xrgb8888, abgr8888, xbgr8888]
        #expect(dmabuf.events == formats.map { .format(format: $0) } + formats.map { .modifier(format: $0, modifierHi: 0, modifierLo: 0) })
        #expect(client.client.globals.values.filter { $0.interface == "zwp_linux_dmabuf_v1" }.map(\.version) == [3])
    }

    /// A window of a padded, offset ABGR8888 buffer: its pixels on screen. The buffer is kept from
    /// the client while it is the surface's (a display may scan it out directly), and released
    /// when the next commit replaces it.
    @Test func aDmabufWindowShowsItsPixelsAndItsBufferIsReleasedWhenReplaced() throws {
        let (session, client, dmabuf, surface, pixels, buffer) = try orangeDmabufWindow(stride: 320, offset: 128)
        defer { close(pixels.fd) }
        try client.client.roundtrip()
        #expect(!buffer.events.contains(.release))

        let blue = LinearDmabuf(width: 64, height: 64, pixel: [0xFF, 0x00, 0x00, 0x00])
        defer { close(blue.fd) }
        let next = try blue.buffer(dmabuf, format: xrgb8888)
        try client.show(next, on: surface)
        try client.client.roundtrip()
        #expect(buffer.events == [.release])
        #expect(!next.events.contains(.release))
        #expect(try session.run(seconds: 30) {
            session.screen?.pixel(x: 320, y: 240) == PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
        })
        // Unmapping gives the last one back.
        try surface.attach(buffer: nil, x: 0, y: 0)
        try surface.commit()
        try client.client.roundtrip()
        #expect(next.events == [.release])
    }

    /// A memfd that is not sealed against shrinking could be truncated while lavapipe copies from
    /// its mapping or a capture reads it (SIGBUS in the compositor): it is refused as a dma-buf
    /// (`failed`), and the compositor goes on serving. A sealed one cannot be truncated at all,
    /// so a window or a scanned-out buffer of it stays readable.
    @Test func aMemfdThatCanShrinkIsRefusedAndASealedOneCannotBeTruncatedUnderTheCompositor() throws {
        let (session, client, dmabuf, surface) = try dmabufWindow()
        // The sizes of the crash found from outside: stride 364 over a 306,488-byte memfd, 91×842.
        let hostile = LinearDmabuf(width: 91, height: 842, stride: 364, pixel: [0, 0, 0xFF, 0], canShrink: true)
        defer { close(hostile.fd) }
        let params = try hostile.params(dmabuf)
        try params.create(width: 91, height: 842, format: xrgb8888, flags: [])
        try client.client.roundtrip()
        #expect(params.events.map(\.name) == ["failed"])
        #expect(ftruncate(hostile.fd, 1) == 0)

        let pixels = LinearDmabuf(width: 640, height: 480, pixel: [0x10, 0x80, 0xFF, 0x00])
        defer { close(pixels.fd) }
        try client.show(try pixels.buffer(dmabuf, format: xrgb8888), on: surface)
        try client.client.roundtrip()
        let output = session.compositor.outputs[0]
        #expect(try session.run(seconds: 30) { output.isScanningOutDirectly && session.screen?.pixel(x: 639, y: 479) == orange })
        #expect(ftruncate(pixels.fd, 1) == -1 && errno == EPERM)
        #expect(session.compositor.capture(outputAt: 0)?.pixel(x: 0, y: 0) == orange)
        #expect(client.client.protocolError == nil)
    }

    /// Destroying the surface gives its dma-buf back too (the client may attach it elsewhere).
    @Test func aDestroyedSurfaceReleasesItsDmabuf() throws {
        let session = try HeadlessSession()
        let client = try SessionClient(session)
        let dmabuf = try client.client.bind(ZwpLinuxDmabufV1Proxy.self, version: 3)
        let (surface, xdgSurface, toplevel) = try toplevel(client)
        let pixels = LinearDmabuf(width: 64, height: 64, pixel: [0x10, 0x80, 0xFF, 0xFF])
        defer { close(pixels.fd) }
        let buffer = try pixels.buffer(dmabuf, format: argb8888)
        try client.show(buffer, on: surface)
        try client.client.roundtrip()
        #expect(!buffer.events.contains(.release))
        try toplevel.destroy()
        try xdgSurface.destroy()
        try surface.destroy()
        try client.client.roundtrip()
        #expect(buffer.events == [.release])
        #expect(client.client.protocolError == nil)
    }

    /// Committing the same buffer again with damage copies the damaged rows only: rows repainted
    /// outside it keep showing what was copied before. (Its stride is padded past lavapipe's row
    /// pitch, so it is copied rather than sampled in place.)
    @Test func aDamagedCommitCopiesTheDamagedRows() throws {
        let (session, client, dmabuf, surface) = try dmabufWindow()
        let pixels = LinearDmabuf(width: 64, height: 64, stride: 320, pixel: [0x00, 0x00, 0xFF, 0x00])
        defer { close(pixels.fd) }
        let buffer = try pixels.buffer(dmabuf, format: xrgb8888)
        try client.show(buffer, on: surface)
        try client.client.roundtrip()
        let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
        let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == red })

        // The window is centred: rows 208…271. Repaint all of it blue, damage the top half.
        pixels.paint(rows: 0..<64, [0xFF, 0x00, 0x00, 0x00])
        try surface.attach(buffer: buffer, x: 0, y: 0)
        try surface.damageBuffer(x: 0, y: 0, width: 64, height: 32)
        try surface.commit()
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 215) == blue })
        #expect(session.screen?.pixel(x: 320, y: 265) == red)
    }

    /// The copy belongs to the device every output's renderer shares: when the window's output is
    /// unplugged, the next output draws the same contents without a new commit.
    @Test func aDmabufWindowShowsOnTheOutputItMovesTo() throws {
        let (session, client, dmabuf, surface) = try dmabufWindow()
        let pixels = LinearDmabuf(width: 64, height: 64, pixel: [0x10, 0x80, 0xFF, 0xFF])
        defer { close(pixels.fd) }
        try client.show(try pixels.buffer(dmabuf, format: argb8888), on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.compositor.capture(outputAt: 0)?.pixel(x: 320, y: 240) == orange })

        let second = try session.backend.addOutput(
            HeadlessOutputConfiguration(mode: OutputMode(width: 800, height: 600, refreshMillihertz: 60_000)))
        session.backend.removeOutput(session.backend.headlessOutput(0))
        try client.client.roundtrip()
        // Still the 64×64 buffer, now centred on 800×600.
        #expect(try session.run(seconds: 30) { second.lastShownImage?.pixel(x: 400, y: 300) == orange })
        #expect(second.lastShownImage?.pixel(x: 367, y: 300) != orange)
    }

    /// A fullscreen window whose opaque buffer fills the output is the frame itself (direct
    /// scanout: the headless output reads the client's buffer); a view over it brings composition
    /// back at once, and its removal direct scanout again.
    @Test func aFullscreenOpaqueDmabufIsScannedOutUntilAViewCoversIt() throws {
        let (session, client, dmabuf, surface) = try dmabufWindow()
        let pixels = LinearDmabuf(width: 640, height: 480, stride: 2816, offset: 64, pixel: [0x10, 0x80, 0xFF, 0x00])
        defer { close(pixels.fd) }
        try client.show(try pixels.buffer(dmabuf, format: xrgb8888), on: surface)
        try client.client.roundtrip()
        let output = session.compositor.outputs[0]
        #expect(try session.run(seconds: 30) { output.isScanningOutDirectly && session.screen?.pixel(x: 639, y: 479) == orange })
        #expect(session.compositor.outputStatuses.map(\.isScanningOutDirectly) == [true])

        let overlay = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        overlay.layer.backgroundColor = Color(red: 0, green: 0, blue: 1, alpha: 1)
        Transaction.begin()
        session.compositor.rootView(ofOutputAt: 0).addSubview(overlay)
        Transaction.commit()
        let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
        #expect(try session.run(seconds: 30) { !output.isScanningOutDirectly && session.screen?.pixel(x: 50, y: 50) == blue })
        #expect(session.compositor.outputStatuses.map(\.isScanningOutDirectly) == [false])
        #expect(session.screen?.pixel(x: 320, y: 240) == orange)

        Transaction.begin()
        overlay.removeFromSuperview()
        Transaction.commit()
        #expect(try session.run(seconds: 30) { output.isScanningOutDirectly && session.screen?.pixel(x: 50, y: 50) == orange })
    }

    /// A window of a linear dma-buf whose stride is lavapipe's row pitch for its width is sampled
    /// where it lies: it shows its pixels and nothing of it is ever copied.
    @Test func aDmabufAtTheDevicesRowPitchIsSampledInPlaceWithNothingCopied() throws {
        let (session, _, _, _, pixels, _) = try orangeDmabufWindow(stride: 256, offset: 0)
        defer { close(pixels.fd) }
        let texture = try #require(session.compositor.nodes.values.first?.surfaceTexture)
        #expect(texture.uploadedBytes == 0)
        #expect(texture.inPlaceSamples > 0)
        let node = try #require(session.compositor.nodes.values.first)
        let contents = try #require(node.content.externalContents as? ClientBufferContents)
        #expect(contents.dmabuf?.isSampledInPlace == true)
    }

    /// Commits of a window scanned out directly are not copied into its texture: the copy waits
    /// until a frame is composed again, and then shows the latest commit. The stride is padded
    /// past lavapipe's row pitch, so the buffer is copied rather than sampled in place.
    @Test func aScannedOutWindowIsCopiedOnlyWhenCompositionResumes() throws {
        let (session, client, dmabuf, surface) = try dmabufWindow()
        let output = session.compositor.outputs[0]
        let pixels = LinearDmabuf(width: 640, height: 480, stride: 2624, pixel: [0x10, 0x80, 0xFF, 0x00])
        defer { close(pixels.fd) }
        let buffer = try pixels.buffer(dmabuf, format: xrgb8888)
        try client.show(buffer, on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { output.isScanningOutDirectly })
        // Scanned out from its first frame: nothing was copied.
        let texture = try #require(session.compositor.nodes.values.first?.surfaceTexture)
        #expect(texture.uploadedBytes == 0)

        // Three more commits of the same buffer, the last one repainted blue, all scanned out.
        for paint in [[0x10, 0x80, 0xFF, 0x00], [0x10, 0x80, 0xFF, 0x00], [0xFF, 0x00, 0x00, 0x00]] as [[UInt8]] {
            pixels.paint(rows: 0..<480, paint)
            try client.show(buffer, on: surface)
            try client.client.roundtrip()
            #expect(try session.runFrames(1))
        }
        let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
        #expect(output.isScanningOutDirectly && session.screen?.pixel(x: 320, y: 240) == blue)
        #expect(texture.uploadedBytes == 0)

        // A view over it: the frame is composed, from one whole copy of the latest commit.
        session.addWhiteSquareView()
        #expect(try session.run(seconds: 30) { !output.isScanningOutDirectly && session.screen?.pixel(x: 5, y: 5) == white })
        #expect(session.screen?.pixel(x: 320, y: 240) == blue)
        #expect(texture.uploadedBytes == 640 * 480 * 4)
    }

    /// A buffer with alpha is scanned out only where the client says it is opaque (it is then read
    /// as its X twin); a buffer smaller than the output is composed.
    @Test func alphaAndSmallBuffersAreComposedUnlessOpaqueAndWhole() throws {
        let (session, client, dmabuf, surface) = try dmabufWindow()
        let output = session.compositor.outputs[0]
        let pixels = LinearDmabuf(width: 640, height: 480, pixel: [0x10, 0x80, 0xFF, 0xFF])
        defer { close(pixels.fd) }
        try client.show(try pixels.buffer(dmabuf, format: argb8888), on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == orange })
        #expect(!output.isScanningOutDirectly)

        let region = try client.compositor.createRegion()
        try region.add(x: 0, y: 0, width: 640, height: 480)
        try surface.setOpaqueRegion(region: region)
        try surface.commit()
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { output.isScanningOutDirectly })

        let small = LinearDmabuf(width: 64, height: 64, pixel: [0x10, 0x80, 0xFF, 0x00])
        defer { close(small.fd) }
        try client.show(try small.buffer(dmabuf, format: xrgb8888), on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { !output.isScanningOutDirectly && session.screen?.pixel(x: 0, y: 0) == black })
    }

    /// A scanned-out buffer stays the client's to keep its hands off until the frame that
    /// replaces it is on screen: replaced by a commit, it is released only at that presentation.
    @Test func aScannedOutBufferIsReleasedOnceTheNextFrameIsShown() throws {
        let (session, client, dmabuf, surface) = try dmabufWindow()
        let output = session.compositor.outputs[0]
        let first = LinearDmabuf(width: 640, height: 480, pixel: [0x10, 0x80, 0xFF, 0x00])
        let second = LinearDmabuf(width: 640, height: 480, pixel: [0xFF, 0x00, 0x00, 0x00])
        defer { close(first.fd); close(second.fd) }
        let firstBuffer = try first.buffer(dmabuf, format: xrgb8888)
        try client.show(firstBuffer, on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { output.isScanningOutDirectly })

        let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
        try client.show(try second.buffer(dmabuf, format: xrgb8888), on: surface)
        try client.client.roundtrip()
        // Released only once the second buffer is on screen (the frame may have come meanwhile).
        #expect(!firstBuffer.events.contains { $0.name == "release" } || session.screen?.pixel(x: 320, y: 240) == blue)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == blue })
        try client.client.roundtrip()
        #expect(firstBuffer.events.filter { $0.name == "release" }.count == 1)
        #expect(output.isScanningOutDirectly)
    }

    /// Buffers the copy cannot read fail: a stride of odd pixels after create (the client hears
    /// `failed`), a y-inverted one after create_immed (a protocol error).
    @Test func layoutsTheCopyCannotReadFail() throws {
        let session = try HeadlessSession()
        let client = try SessionClient(session)
        let dmabuf = try client.client.bind(ZwpLinuxDmabufV1Proxy.self, version: 3)
        let odd = LinearDmabuf(width: 16, height: 16, stride: 66, pixel: [0, 0, 0, 0xFF])
        defer { close(odd.fd) }
        let params = try odd.params(dmabuf)
        try params.create(width: 16, height: 16, format: argb8888, flags: [])
        try client.client.roundtrip()
        #expect(params.events.filter { $0.name == "failed" }.count == 1)
        #expect(!params.events.contains { $0.name == "created" })

        let inverted = LinearDmabuf(width: 16, height: 16, pixel: [0, 0, 0, 0xFF])
        defer { close(inverted.fd) }
        let immediate = try inverted.params(dmabuf)
        try immediate.createImmed(width: 16, height: 16, format: argb8888, flags: .yInvert)
        #expect(throws: TestClientError.protocolError(
            ProtocolErrorReport(ZwpLinuxBufferParamsV1Error.invalidWlBuffer, on: immediate))) {
            try client.client.roundtrip()
        }
        // The compositor goes on serving others.
        let other = try SessionClient(session)
        try other.client.roundtrip()
    }
}
