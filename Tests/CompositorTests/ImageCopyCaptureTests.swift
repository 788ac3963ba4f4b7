import Compositor
import DisplayBackend
import Glibc
import Graphics
import HeadlessBackend
import Testing
import WaylandProtocols
import WaylandTestClient

/// ext-image-copy-capture of an output (ext_output_image_capture_source_manager_v1) on the headless
/// compositor: the window of `sessionWithWindow` copied by a client allowed to capture.
@Suite struct ImageCopyCaptureTests {
    private struct Capturer {
        let client: SessionClient
        let manager: ExtImageCopyCaptureManagerV1Proxy
        let source: ExtImageCaptureSourceV1Proxy

        init(_ session: HeadlessSession) throws {
            client = try SessionClient(session)
            manager = try client.client.bind(ExtImageCopyCaptureManagerV1Proxy.self, version: 1)
            let sources = try client.client.bind(ExtOutputImageCaptureSourceManagerV1Proxy.self, version: 1)
            source = try sources.createSource(output: client.client.bind(WlOutputProxy.self, version: 4))
        }

        func session() throws -> ExtImageCopyCaptureSessionV1Proxy {
            try manager.createSession(source: source, options: [])
        }

        /// A frame of `session` into `buffer`, captured.
        func capture(_ session: ExtImageCopyCaptureSessionV1Proxy, into buffer: MappedBuffer) throws -> ExtImageCopyCaptureFrameV1Proxy {
            let frame = try session.createFrame()
            try frame.attachBuffer(buffer: buffer.proxy)
            try frame.damageBuffer(x: 0, y: 0, width: 640, height: 480)
            try frame.capture()
            try client.client.roundtrip()
            return frame
        }
    }

    /// The frame's events without the presentation time, whose value is the clock's.
    private func eventsBesidesTime(_ frame: ExtImageCopyCaptureFrameV1Proxy) -> [ExtImageCopyCaptureFrameV1Proxy.Event] {
        frame.events.filter { $0.name != "presentation_time" }
    }

    @Test func aSessionAsksForAnXrgbShmBufferTheSizeOfTheOutput() throws {
        let (session, _, _) = try sessionWithWindow()
        let capturer = try Capturer(session)
        let captureSession = try capturer.session()
        try capturer.client.client.roundtrip()
        #expect(captureSession.events == [.shmFormat(format: .xrgb8888), .bufferSize(width: 640, height: 480), .done])
    }

    @Test func theFirstFrameHoldsExactlyWhatTheOutputShowsAndDamagesAllOfIt() throws {
        let (session, app, _) = try sessionWithWindow()
        let capturer = try Capturer(session)
        let buffer = try MappedBuffer(capturer.client, width: 640, height: 480)
        let frame = try capturer.capture(capturer.session(), into: buffer)
        #expect(eventsBesidesTime(frame) == [.transform(transform: .normal), .damage(x: 0, y: 0, width: 640, height: 480), .ready])
        #expect(frame.events.map(\.name) == ["transform", "damage", "presentation_time", "ready"])
        #expect(buffer.pixelsDiffering(from: try #require(session.screen), stride: 2560) == 0)
        #expect(buffer.pixel(x: 300, y: 220, stride: 2560) & 0xff_ffff == 0x33_66cc)
        #expect(buffer.pixel(x: 287, y: 220, stride: 2560) & 0xff_ffff == 0)
        withExtendedLifetime(app) {}
    }

    @Test func aBufferWithLongerRowsIsFilledRowByRow() throws {
        let (session, app, _) = try sessionWithWindow()
        let capturer = try Capturer(session)
        let buffer = try MappedBuffer(capturer.client, width: 640, height: 480, stride: 2624)
        let frame = try capturer.capture(capturer.session(), into: buffer)
        #expect(frame.events.last == .ready)
        #expect(buffer.pixel(x: 288, y: 208, stride: 2624) & 0xff_ffff == 0x33_66cc)
        #expect(buffer.pixel(x: 351, y: 271, stride: 2624) & 0xff_ffff == 0x33_66cc)
        #expect(buffer.pixel(x: 352, y: 271, stride: 2624) & 0xff_ffff == 0)
        // The 16 bytes past each row are not the picture's: left as they were.
        #expect(buffer.pixel(x: 640, y: 10, stride: 2624) == 0x5555_5555)
        withExtendedLifetime(app) {}
    }

    @Test func aLaterFrameWaitsForAChangeAndReportsOnlyWhatChanged() throws {
        let (session, app, surface) = try sessionWithWindow()
        let capturer = try Capturer(session)
        let captureSession = try capturer.session()
        let buffer = try MappedBuffer(capturer.client, width: 640, height: 480)
        try capturer.capture(captureSession, into: buffer).destroy()
        let second = try capturer.capture(captureSession, into: buffer)
        try session.run(seconds: 0.2)
        try capturer.client.client.roundtrip()
        #expect(second.events.isEmpty)
        try surface.attach(buffer: app.makeBuffer(width: 64, height: 64, fill: fillPixels(0xff00_ff00, count: 64 * 64)), x: 0, y: 0)
        try surface.damageBuffer(x: 0, y: 0, width: 64, height: 64)
        try surface.commit()
        try app.client.roundtrip()
        #expect(try session.run(seconds: 10) { (try? capturer.client.client.roundtrip()) != nil && !second.events.isEmpty })
        // The window's 64 rows, in bands of 16.
        #expect(eventsBesidesTime(second) == [
            .transform(transform: .normal),
            .damage(x: 288, y: 208, width: 64, height: 16), .damage(x: 288, y: 224, width: 64, height: 16),
            .damage(x: 288, y: 240, width: 64, height: 16), .damage(x: 288, y: 256, width: 64, height: 16), .ready,
        ])
        #expect(buffer.pixel(x: 300, y: 220, stride: 2560) & 0xff_ffff == 0x00_ff00)
    }

    @Test func aNewModeGivesTheSessionNewConstraintsAndABufferOfTheOldSizeFailsTheFrame() throws {
        let (session, _, _) = try sessionWithWindow()
        let capturer = try Capturer(session)
        let captureSession = try capturer.session()
        try capturer.client.client.roundtrip()
        try session.backend.changeMode(of: session.backend.headlessOutput(0), to: OutputMode(width: 800, height: 600, refreshMillihertz: 60_000))
        try capturer.client.client.roundtrip()
        #expect(captureSession.events == [
            .shmFormat(format: .xrgb8888), .bufferSize(width: 640, height: 480), .done,
            .shmFormat(format: .xrgb8888), .bufferSize(width: 800, height: 600), .done,
        ])
        let frame = try capturer.capture(captureSession, into: MappedBuffer(capturer.client, width: 640, height: 480))
        #expect(frame.events == [.failed(reason: .bufferConstraints)])
    }

    @Test func aQuarterTurnedOutputIsCopiedAsItsPanelScansOutWithTheTransformSaid() throws {
        let session = try HeadlessSession(width: 640, height: 480, transform: .rotated90)
        session.compositor.privilegeRules = [PrivilegeRule(.executable(testExecutable()), privileges: [.screenCapture])]
        #expect(try session.runFrames(1))
        let capturer = try Capturer(session)
        let captureSession = try capturer.session()
        try capturer.client.client.roundtrip()
        #expect(captureSession.events == [.shmFormat(format: .xrgb8888), .bufferSize(width: 640, height: 480), .done])
        let frame = try capturer.capture(captureSession, into: MappedBuffer(capturer.client, width: 640, height: 480))
        #expect(frame.events.first == .transform(transform: .transform90))
    }

    /// A frame into `buffer` fails with buffer_constraints, and the client stays connected.
    private func expectBufferConstraintsFailure(_ makeBuffer: (SessionClient) throws -> WlBufferProxy) throws {
        let (session, _, _) = try sessionWithWindow()
        let capturer = try Capturer(session)
        let frame = try capturer.session().createFrame()
        try frame.attachBuffer(buffer: makeBuffer(capturer.client))
        try frame.capture()
        try capturer.client.client.roundtrip()
        #expect(frame.events == [.failed(reason: .bufferConstraints)])
        #expect(capturer.client.client.protocolError == nil)
    }

    @Test func aBufferOfTheWrongSizeFailsTheFrame() throws {
        try expectBufferConstraintsFailure { client in try MappedBuffer(client, width: 640, height: 479).proxy }
    }

    @Test func aBufferOfAnotherFormatFailsTheFrame() throws {
        try expectBufferConstraintsFailure { client in try MappedBuffer(client, width: 640, height: 480, format: .argb8888).proxy }
    }

    @Test func aBufferThatIsNotSharedMemoryFailsTheFrame() throws {
        try expectBufferConstraintsFailure { client in
            try client.client.bind(WpSinglePixelBufferManagerV1Proxy.self, version: 1).createU32RgbaBuffer(r: 0, g: 0, b: 0, a: .max)
        }
    }

    /// `misuse` of a fresh session and its frame is the protocol error `code` on `object`.
    private func expectError(
        _ code: some WaylandEnumeration,
        on object: (Capturer, ExtImageCopyCaptureSessionV1Proxy, ExtImageCopyCaptureFrameV1Proxy) -> TestProxy,
        _ misuse: (Capturer, ExtImageCopyCaptureSessionV1Proxy, ExtImageCopyCaptureFrameV1Proxy, MappedBuffer) throws -> Void
    ) throws {
        let (session, app, _) = try sessionWithWindow()
        let capturer = try Capturer(session)
        let captureSession = try capturer.session()
        let frame = try captureSession.createFrame()
        let buffer = try MappedBuffer(capturer.client, width: 640, height: 480)
        try misuse(capturer, captureSession, frame, buffer)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(code, on: object(capturer, captureSession, frame)))) {
            try capturer.client.client.roundtrip()
        }
        // The compositor serves its other clients on.
        try app.client.roundtrip()
    }

    @Test func capturingWithoutABufferIsNoBuffer() throws {
        try expectError(ExtImageCopyCaptureFrameV1Error.noBuffer, on: { $2 }) { _, _, frame, _ in try frame.capture() }
    }

    @Test func capturingTwiceIsAlreadyCaptured() throws {
        try expectError(ExtImageCopyCaptureFrameV1Error.alreadyCaptured, on: { $2 }) { _, _, frame, buffer in
            try frame.attachBuffer(buffer: buffer.proxy)
            try frame.capture()
            try frame.capture()
        }
    }

    @Test func attachingOrDamagingAfterCaptureIsAlreadyCaptured() throws {
        try expectError(ExtImageCopyCaptureFrameV1Error.alreadyCaptured, on: { $2 }) { _, _, frame, buffer in
            try frame.attachBuffer(buffer: buffer.proxy)
            try frame.capture()
            try frame.attachBuffer(buffer: buffer.proxy)
        }
        try expectError(ExtImageCopyCaptureFrameV1Error.alreadyCaptured, on: { $2 }) { _, _, frame, buffer in
            try frame.attachBuffer(buffer: buffer.proxy)
            try frame.capture()
            try frame.damageBuffer(x: 0, y: 0, width: 1, height: 1)
        }
    }

    @Test func damageWithANegativeCornerOrAnEmptySizeIsInvalidBufferDamage() throws {
        for (x, y, width, height): (Int32, Int32, Int32, Int32) in [(-1, 0, 10, 10), (0, -1, 10, 10), (0, 0, 0, 10), (0, 0, 10, -5)] {
            try expectError(ExtImageCopyCaptureFrameV1Error.invalidBufferDamage, on: { $2 }) { _, _, frame, _ in
                try frame.damageBuffer(x: x, y: y, width: width, height: height)
            }
        }
    }

    @Test func aSecondFrameWhileTheFirstExistsIsDuplicateFrame() throws {
        try expectError(ExtImageCopyCaptureSessionV1Error.duplicateFrame, on: { _, session, _ in session }) { _, session, _, _ in
            _ = try session.createFrame()
        }
    }

    @Test func unknownOptionsAreInvalidOption() throws {
        try expectError(ExtImageCopyCaptureManagerV1Error.invalidOption, on: { capturer, _, _ in capturer.manager }) { capturer, _, _, _ in
            _ = try capturer.manager.createSession(source: capturer.source, options: ExtImageCopyCaptureManagerV1Options(rawValue: 2))
        }
    }

    @Test func unpluggingTheOutputStopsItsSessionsAndFailsTheFrameWaitingForAChange() throws {
        let session = try HeadlessSession(outputs: [
            HeadlessOutputConfiguration(mode: OutputMode(width: 640, height: 480, refreshMillihertz: 60_000)),
            HeadlessOutputConfiguration(mode: OutputMode(width: 320, height: 240, refreshMillihertz: 60_000)),
        ])
        session.compositor.privilegeRules = [PrivilegeRule(.executable(testExecutable()), privileges: [.screenCapture])]
        #expect(try session.runFrames(1))
        let capturer = try Capturer(session)
        let captureSession = try capturer.session()
        let buffer = try MappedBuffer(capturer.client, width: 640, height: 480)
        try capturer.capture(captureSession, into: buffer).destroy()
        let waiting = try capturer.capture(captureSession, into: buffer)
        #expect(waiting.events.isEmpty)
        session.backend.removeOutput(session.backend.headlessOutput(0))
        try capturer.client.client.roundtrip()
        #expect(captureSession.events.last == .stopped)
        #expect(waiting.events == [.failed(reason: .stopped)])
        // A new frame of the stopped session fails at once.
        try waiting.destroy()
        let late = try capturer.capture(captureSession, into: buffer)
        #expect(late.events == [.failed(reason: .stopped)])
    }

    @Test func aSecondCaptureSessionOfACursorSessionIsDuplicateSession() throws {
        let (session, _, _) = try sessionWithWindow()
        let capturer = try Capturer(session)
        let pointer = try capturer.client.client.bind(WlSeatProxy.self, version: 9).getPointer()
        let cursorSession = try capturer.manager.createPointerCursorSession(source: capturer.source, pointer: pointer)
        _ = try cursorSession.getCaptureSession()
        _ = try cursorSession.getCaptureSession()
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(ExtImageCopyCaptureCursorSessionV1Error.duplicateSession, on: cursorSession))) {
            try capturer.client.client.roundtrip()
        }
    }
}
