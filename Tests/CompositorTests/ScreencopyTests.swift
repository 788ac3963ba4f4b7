import Compositor
import Glibc
import Graphics
import Testing
import WaylandServer
import WaylandTestClient

/// A session with a mapped 64×64 window of 0x3366cc (centred on 640×480 at 288…352 × 208…272),
/// whose own client is returned; with `allowingCapture`, the test process may capture. The window
/// lasts as long as that client: a test that reads the window's pixels keeps it to its end
/// (`withExtendedLifetime`), or the client's disconnect takes the window away and the frame
/// without it can be shown while the test dispatches.
func sessionWithWindow(allowingCapture: Bool = true) throws -> (HeadlessSession, SessionClient, WlSurfaceProxy) {
    let session = try HeadlessSession()
    if allowingCapture {
        session.compositor.privilegeRules = [PrivilegeRule(.executable(testExecutable()), privileges: [.screenCapture])]
    }
    let app = try SessionClient(session)
    let (surface, _) = try app.makeToplevel()
    try app.show(app.makeBuffer(width: 64, height: 64, fill: fillPixels(0xff33_66cc, count: 64 * 64)), on: surface)
    try app.client.roundtrip()
    let colour = PremultipliedPixel(red: 0x33, green: 0x66, blue: 0xcc, alpha: 255)
    #expect(try session.run(seconds: 20) { session.screen?.pixel(x: 300, y: 220) == colour })
    return (session, app, surface)
}

/// A wl_shm buffer whose memory stays mapped for the test to read: `width`×`height` pixels,
/// rows `stride` bytes apart (0x55 bytes until written).
final class MappedBuffer {
    let proxy: WlBufferProxy
    let memory: UnsafeMutableRawPointer
    let size: Int
    let file: Int32

    init(_ client: SessionClient, width: Int, height: Int, stride: Int? = nil, format: WlShmFormat = .xrgb8888) throws {
        let stride = stride ?? width * 4
        size = stride * height
        file = anonymousFile(size: size)
        memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0)!
        memory.initializeMemory(as: UInt8.self, repeating: 0x55, count: size)
        let pool = try client.shm.createPool(fd: FileDescriptor(rawValue: dup(file)), size: Int32(size))
        proxy = try pool.createBuffer(offset: 0, width: Int32(width), height: Int32(height), stride: Int32(stride), format: format)
        try pool.destroy()
    }

    deinit {
        munmap(memory, size)
        close(file)
    }

    func pixel(x: Int, y: Int, stride: Int) -> UInt32 {
        memory.load(fromByteOffset: y * stride + x * 4, as: UInt32.self)
    }

    /// How many of the buffer's XRGB pixels differ in colour from `screen`'s, over `screen`'s size.
    func pixelsDiffering(from screen: Image, stride: Int) -> Int {
        xrgbPixelsDiffering(UnsafeRawPointer(memory), stride: stride, from: screen)
    }
}

/// How many of the XRGB pixels at `memory` (rows `stride` bytes apart) differ in colour from
/// `screen`'s, over `screen`'s size.
func xrgbPixelsDiffering(_ memory: UnsafeRawPointer, stride: Int, from screen: Image) -> Int {
    var differing = 0
    for y in 0..<screen.height {
        for x in 0..<screen.width {
            let shown = screen.pixel(x: x, y: y)
            let expected = UInt32(shown.red) << 16 | UInt32(shown.green) << 8 | UInt32(shown.blue)
            if memory.load(fromByteOffset: y * stride + x * 4, as: UInt32.self) & 0xff_ffff != expected { differing += 1 }
        }
    }
    return differing
}

/// wlroots' screencopy on the headless compositor: the window of `sessionWithWindow` copied by a
/// client that the privilege rules allow to capture.
@Suite struct ScreencopyTests {
    private func capturer(_ session: HeadlessSession) throws -> (SessionClient, ZwlrScreencopyManagerV1Proxy, WlOutputProxy) {
        let client = try SessionClient(session)
        let manager = try client.client.bind(ZwlrScreencopyManagerV1Proxy.self, version: 3)
        let output = try client.client.bind(WlOutputProxy.self, version: 4)
        return (client, manager, output)
    }

    @Test func aFrameOffersAnXrgbBufferTheSizeOfTheOutput() throws {
        let (session, _, _) = try sessionWithWindow()
        let (client, manager, output) = try capturer(session)
        let frame = try manager.captureOutput(overlayCursor: 0, output: output)
        try client.client.roundtrip()
        #expect(frame.events == [
            .buffer(format: .xrgb8888, width: 640, height: 480, stride: 2560), .linuxDmabuf(format: Self.xrgb8888, width: 640, height: 480),
            .bufferDone,
        ])
    }

    /// DRM's XRGB8888 ("XR24").
    private static let xrgb8888: UInt32 = 0x3432_5258

    /// A copy into a linear XRGB8888 dma-buf (a memfd sealed against shrinking stands in for a
    /// udmabuf, as lavapipe imports it), with rows longer than the picture's, holds exactly what
    /// the output shows.
    @Test func aCopyIntoALinearDmabufHoldsExactlyWhatTheOutputShows() throws {
        let (session, app, _) = try sessionWithWindow()
        let (client, manager, output) = try capturer(session)
        let dmabuf = try client.client.bind(ZwpLinuxDmabufV1Proxy.self, version: 3)
        let frame = try manager.captureOutput(overlayCursor: 0, output: output)
        let target = LinearDmabuf(width: 640, height: 480, stride: 2624, offset: 64, pixel: [0x55, 0x55, 0x55, 0x55])
        defer { close(target.fd) }
        try frame.copy(buffer: target.buffer(dmabuf, format: Self.xrgb8888))
        try client.client.roundtrip()
        #expect(frame.events.last?.name == "ready")
        var bytes = [UInt8](repeating: 0, count: 2624 * 480)
        #expect(bytes.withUnsafeMutableBytes { pread(target.fd, $0.baseAddress, $0.count, 64) } == bytes.count)
        let screen = try #require(session.screen)
        #expect(bytes.withUnsafeBytes { xrgbPixelsDiffering($0.baseAddress!, stride: 2624, from: screen) } == 0)
        #expect(bytes.withUnsafeBytes { $0.load(fromByteOffset: 220 * 2624 + 300 * 4, as: UInt32.self) } & 0xff_ffff == 0x33_66cc)
        withExtendedLifetime(app) {}
    }

    /// A dma-buf of another size than the frame offered is invalid_buffer.
    @Test func aDmabufOfAnotherSizeIsInvalidBuffer() throws {
        let (session, _, _) = try sessionWithWindow()
        let (client, manager, output) = try capturer(session)
        let dmabuf = try client.client.bind(ZwpLinuxDmabufV1Proxy.self, version: 3)
        let frame = try manager.captureOutput(overlayCursor: 0, output: output)
        let narrow = LinearDmabuf(width: 320, height: 480, pixel: [0, 0, 0, 0])
        defer { close(narrow.fd) }
        try frame.copy(buffer: narrow.buffer(dmabuf, format: Self.xrgb8888))
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(ZwlrScreencopyFrameV1Error.invalidBuffer, on: frame))) {
            try client.client.roundtrip()
        }
    }

    @Test func aCopyHoldsExactlyWhatTheOutputShows() throws {
        let (session, app, _) = try sessionWithWindow()
        let (client, manager, output) = try capturer(session)
        let frame = try manager.captureOutput(overlayCursor: 0, output: output)
        let buffer = try MappedBuffer(client, width: 640, height: 480)
        try frame.copy(buffer: buffer.proxy)
        try client.client.roundtrip()
        #expect(frame.events.count == 5)
        #expect(frame.events.dropFirst(3).first == .flags(flags: []))
        guard case .ready(_, _, let nanoseconds)? = frame.events.last else {
            Issue.record("no ready event: \(frame.events)")
            return
        }
        #expect(nanoseconds < 1_000_000_000)
        #expect(buffer.pixelsDiffering(from: try #require(session.screen), stride: 2560) == 0)
        #expect(buffer.pixel(x: 300, y: 220, stride: 2560) & 0xff_ffff == 0x33_66cc)
        #expect(buffer.pixel(x: 10, y: 10, stride: 2560) & 0xff_ffff == 0)
        withExtendedLifetime(app) {}
    }

    @Test func aRegionIsCopiedFromItsLogicalRectangle() throws {
        let (session, app, _) = try sessionWithWindow()
        let (client, manager, output) = try capturer(session)
        let frame = try manager.captureOutputRegion(overlayCursor: 0, output: output, x: 280, y: 200, width: 16, height: 16)
        try client.client.roundtrip()
        #expect(frame.events == [
            .buffer(format: .xrgb8888, width: 16, height: 16, stride: 64), .linuxDmabuf(format: Self.xrgb8888, width: 16, height: 16), .bufferDone,
        ])
        let buffer = try MappedBuffer(client, width: 16, height: 16)
        try frame.copy(buffer: buffer.proxy)
        try client.client.roundtrip()
        // The window's corner is at (288, 208): (8, 8) of the region.
        #expect(buffer.pixel(x: 7, y: 7, stride: 64) & 0xff_ffff == 0)
        #expect(buffer.pixel(x: 8, y: 8, stride: 64) & 0xff_ffff == 0x33_66cc)
        #expect(buffer.pixel(x: 15, y: 15, stride: 64) & 0xff_ffff == 0x33_66cc)
        withExtendedLifetime(app) {}
    }

    @Test func copiesWithDamageReportWhatChangedSinceTheSessionsLastCopy() throws {
        let (session, app, surface) = try sessionWithWindow()
        let (client, manager, output) = try capturer(session)
        let buffer = try MappedBuffer(client, width: 640, height: 480)
        let first = try manager.captureOutput(overlayCursor: 0, output: output)
        try first.copyWithDamage(buffer: buffer.proxy)
        try client.client.roundtrip()
        // The session's first copy: all of it changed.
        #expect(first.events.contains(.damage(x: 0, y: 0, width: 640, height: 480)))
        let second = try manager.captureOutput(overlayCursor: 0, output: output)
        try second.copyWithDamage(buffer: buffer.proxy)
        try client.client.roundtrip()
        // Nothing changed: the copy waits.
        #expect(second.events == [
            .buffer(format: .xrgb8888, width: 640, height: 480, stride: 2560), .linuxDmabuf(format: Self.xrgb8888, width: 640, height: 480),
            .bufferDone,
        ])
        try surface.attach(buffer: app.makeBuffer(width: 64, height: 64, fill: fillPixels(0xff00_ff00, count: 64 * 64)), x: 0, y: 0)
        try surface.damageBuffer(x: 0, y: 0, width: 64, height: 64)
        try surface.commit()
        try app.client.roundtrip()
        #expect(try session.run(seconds: 10) {
            (try? client.client.roundtrip()) != nil && second.events.count > 3
        })
        // The window's 64 rows, in bands of 16.
        let damage = second.events.compactMap { event -> [UInt32]? in
            guard case .damage(let x, let y, let width, let height) = event else { return nil }
            return [x, y, width, height]
        }
        #expect(damage == [[288, 208, 64, 16], [288, 224, 64, 16], [288, 240, 64, 16], [288, 256, 64, 16]])
        guard case .ready? = second.events.last else {
            Issue.record("no ready event: \(second.events)")
            return
        }
        #expect(session.screen?.pixel(x: 300, y: 220) == PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255))
        #expect(buffer.pixel(x: 300, y: 220, stride: 2560) & 0xff_ffff == 0x00_ff00)
    }

    @Test func aClientWithoutTheCapturePrivilegeDoesNotSeeTheManager() throws {
        let (session, _, _) = try sessionWithWindow(allowingCapture: false)
        let client = try SessionClient(session)
        #expect(!client.client.globals.values.contains { $0.interface == "zwlr_screencopy_manager_v1" })
        #expect(throws: TestClientError.noGlobal("zwlr_screencopy_manager_v1")) {
            try client.client.bind(ZwlrScreencopyManagerV1Proxy.self, version: 3)
        }
    }

    /// Copies into `buffer` and expects invalid_buffer; the compositor serves its other clients on.
    private func expectInvalidBuffer(_ makeBuffer: (SessionClient) throws -> WlBufferProxy) throws {
        let (session, app, _) = try sessionWithWindow()
        let (client, manager, output) = try capturer(session)
        let frame = try manager.captureOutput(overlayCursor: 0, output: output)
        try frame.copy(buffer: makeBuffer(client))
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(ZwlrScreencopyFrameV1Error.invalidBuffer, on: frame))) {
            try client.client.roundtrip()
        }
        // The compositor serves its other clients on.
        try app.client.roundtrip()
    }

    @Test func aBufferOfTheWrongSizeIsAnInvalidBuffer() throws {
        try expectInvalidBuffer { client in try MappedBuffer(client, width: 320, height: 480).proxy }
    }

    @Test func aBufferWithTheWrongStrideIsAnInvalidBuffer() throws {
        try expectInvalidBuffer { client in try MappedBuffer(client, width: 640, height: 480, stride: 2624).proxy }
    }

    @Test func aBufferOfAnotherFormatIsAnInvalidBuffer() throws {
        try expectInvalidBuffer { client in try MappedBuffer(client, width: 640, height: 480, format: .argb8888).proxy }
    }

    @Test func aBufferThatIsNotSharedMemoryIsAnInvalidBuffer() throws {
        try expectInvalidBuffer { client in
            let pixels = try client.client.bind(WpSinglePixelBufferManagerV1Proxy.self, version: 1)
            return try pixels.createU32RgbaBuffer(r: 0, g: 0, b: 0, a: .max)
        }
    }

    @Test func aSecondCopyOfAFrameIsAlreadyUsed() throws {
        let (session, _, _) = try sessionWithWindow()
        let (client, manager, output) = try capturer(session)
        let frame = try manager.captureOutput(overlayCursor: 0, output: output)
        let buffer = try MappedBuffer(client, width: 640, height: 480)
        try frame.copy(buffer: buffer.proxy)
        try frame.copy(buffer: buffer.proxy)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(ZwlrScreencopyFrameV1Error.alreadyUsed, on: frame))) {
            try client.client.roundtrip()
        }
    }

    @Test func aPoolTruncatedUnderTheBufferGetsItsClientAShmErrorAndTheCompositorLives() throws {
        let (session, app, _) = try sessionWithWindow()
        let (client, manager, output) = try capturer(session)
        let frame = try manager.captureOutput(overlayCursor: 0, output: output)
        let buffer = try MappedBuffer(client, width: 640, height: 480)
        #expect(ftruncate(buffer.file, 4096) == 0)
        try frame.copy(buffer: buffer.proxy)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(WlShmError.invalidFd, on: buffer.proxy))) {
            try client.client.roundtrip()
        }
        // The compositor serves its other clients on.
        try app.client.roundtrip()
    }
}
