import Compositor
import DisplayBackend
import Graphics
import HeadlessBackend
import Input
import LayerKit
import Renderer
import Testing
import WaylandTestClient

/// Where outputs sit in the global space (a board's `position`), as wl_output's geometry and
/// xdg_output's logical position tell clients, at start and on hotplug.
@Suite(.serialized) struct OutputLayoutTests {
    private func config(_ width: Int, _ height: Int, layout: OutputLayout = .automatic, scale: Double = 1, transform: OutputTransform = .normal)
        -> HeadlessOutputConfiguration
    {
        HeadlessOutputConfiguration(
            mode: OutputMode(width: width, height: height, refreshMillihertz: 60_000), scaleFactor: scale, transform: transform, layout: layout)
    }

    /// Every wl_output global bound, with its zxdg_output_v1: name → (geometry x, y; logical x, y; logical width, height).
    private func layouts(_ client: TestClient) throws -> [String: [Int32]] {
        let manager = try client.bind(ZxdgOutputManagerV1Proxy.self, version: 3)
        var result: [String: [Int32]] = [:]
        for name in client.globals.filter({ $0.value.interface == "wl_output" }).keys.sorted() {
            let output = try client.bind(WlOutputProxy.self, name: name, version: 4)
            let xdgOutput = try manager.getXdgOutput(output: output)
            try client.roundtrip()
            var outputName: String?
            var geometry: [Int32] = [], position: [Int32] = [], size: [Int32] = []
            for event in output.events {
                if case .name(let name) = event { outputName = name }
                if case .geometry(let x, let y, _, _, _, _, _, _) = event { geometry = [x, y] }
            }
            for event in xdgOutput.events {
                if case .logicalPosition(let x, let y) = event { position = [x, y] }
                if case .logicalSize(let width, let height) = event { size = [width, height] }
            }
            guard let outputName else { continue }
            result[outputName] = geometry + position + size
        }
        return result
    }

    @Test func explicitOriginsAreAnnouncedAndTheOthersGoRightOfTheRightmostOutputTopAligned() throws {
        let session = try HeadlessSession(outputs: [
            config(640, 480),
            config(800, 600, layout: .origin(x: -800, y: 120)),
            config(320, 240),
        ])
        let client = try SessionClient(session)
        #expect(try layouts(client.client) == [
            // The first, without a position, at 0,0.
            "HEADLESS-1": [0, 0, 0, 0, 640, 480],
            "HEADLESS-2": [-800, 120, -800, 120, 800, 600],
            // Right of HEADLESS-1 (right edge 640; HEADLESS-2's is 0), at its top.
            "HEADLESS-3": [640, 0, 640, 0, 320, 240],
        ])
        #expect(client.client.protocolError == nil)
    }

    @Test func anOutputPluggedInLaterTakesItsOriginAndAnAutomaticOneGoesRightOfTheFurthestTopAligned() throws {
        let session = try HeadlessSession(width: 640, height: 480)
        let client = try SessionClient(session)
        // 1024×768 at scale 2, turned a quarter: 384×512 logical pixels.
        _ = try session.backend.addOutput(config(1024, 768, layout: .origin(x: 640, y: 200), scale: 2, transform: .rotated90))
        _ = try session.backend.addOutput(config(800, 600))
        try client.client.roundtrip()
        #expect(try layouts(client.client) == [
            "HEADLESS-1": [0, 0, 0, 0, 640, 480],
            "HEADLESS-2": [640, 200, 640, 200, 384, 512],
            // Right of HEADLESS-2 (right edge 1024), top-aligned with it.
            "HEADLESS-3": [1024, 200, 1024, 200, 800, 600],
        ])
        // Unplugged and plugged in again, a display takes its configured origin again.
        session.backend.removeOutput(session.backend.headlessOutput(1))
        _ = try session.backend.addOutput(config(1024, 768, layout: .origin(x: 640, y: 200), scale: 2, transform: .rotated90))
        try client.client.roundtrip()
        #expect(try layouts(client.client)["HEADLESS-4"] == [640, 200, 640, 200, 384, 512])
        #expect(client.client.protocolError == nil)
    }

    @Test func outputsPlacedRightOfAResizedOutputMoveWithItsEdgeAndThoseTheBoardPlacedStay() throws {
        let session = try HeadlessSession(outputs: [
            config(640, 480),
            config(320, 240),
            config(800, 600),
            config(100, 100, layout: .origin(x: -100, y: 0)),
        ])
        let client = try SessionClient(session)
        #expect(try layouts(client.client) == [
            "HEADLESS-1": [0, 0, 0, 0, 640, 480],
            "HEADLESS-2": [640, 0, 640, 0, 320, 240],
            "HEADLESS-3": [960, 0, 960, 0, 800, 600],
            "HEADLESS-4": [-100, 0, -100, 0, 100, 100],
        ])
        let mode = { (width: Int, height: Int) in OutputMode(width: width, height: height, refreshMillihertz: 60_000) }
        // The first output grows by 384: the two placed in a row right of it move by as much.
        try session.backend.changeMode(of: session.backend.headlessOutput(0), to: mode(1024, 768))
        try client.client.roundtrip()
        #expect(try layouts(client.client) == [
            "HEADLESS-1": [0, 0, 0, 0, 1024, 768],
            "HEADLESS-2": [1024, 0, 1024, 0, 320, 240],
            "HEADLESS-3": [1344, 0, 1344, 0, 800, 600],
            "HEADLESS-4": [-100, 0, -100, 0, 100, 100],
        ])
        // `vitrine status` gives the same places.
        #expect(session.compositor.outputStatuses.map { [$0.x, $0.y] } == [[0, 0], [1024, 0], [1344, 0], [-100, 0]])
        // The middle one grows by 320: only the one right of it moves.
        try session.backend.changeMode(of: session.backend.headlessOutput(1), to: mode(640, 480))
        try client.client.roundtrip()
        #expect(try layouts(client.client) == [
            "HEADLESS-1": [0, 0, 0, 0, 1024, 768],
            "HEADLESS-2": [1024, 0, 1024, 0, 640, 480],
            "HEADLESS-3": [1664, 0, 1664, 0, 800, 600],
            "HEADLESS-4": [-100, 0, -100, 0, 100, 100],
        ])
        // The first shrinks back: the row closes up behind it.
        try session.backend.changeMode(of: session.backend.headlessOutput(0), to: mode(640, 480))
        try client.client.roundtrip()
        #expect(try layouts(client.client)["HEADLESS-2"] == [640, 0, 640, 0, 640, 480])
        #expect(try layouts(client.client)["HEADLESS-3"] == [1280, 0, 1280, 0, 800, 600])
        #expect(client.client.protocolError == nil)
    }
}

/// A display that mirrors another (a board's `mirror`): no wl_output of its own, the source's
/// picture scaled to fit between black bars, turned by its own rotation, black while the source is
/// unplugged.
@Suite(.serialized) struct MirrorOutputTests {
    private let green = PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255)
    private let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)

    private func source(name: String? = nil, transform: OutputTransform = .normal) -> HeadlessOutputConfiguration {
        HeadlessOutputConfiguration(mode: OutputMode(width: 640, height: 480, refreshMillihertz: 60_000), transform: transform, name: name)
    }

    private func mirror(_ width: Int, _ height: Int, of source: String, transform: OutputTransform = .normal) -> HeadlessOutputConfiguration {
        HeadlessOutputConfiguration(
            mode: OutputMode(width: width, height: height, refreshMillihertz: 60_000), transform: transform, layout: .mirror(of: source))
    }

    /// A fullscreen window (640×480 by default): its top-left quadrant green, the rest red.
    private func quadrantWindow(_ session: HeadlessSession, width: Int = 640, height: Int = 480) throws -> SessionClient {
        let client = try SessionClient(session)
        let (surface, _) = try client.makeToplevel()
        let buffer = try client.makeBuffer(width: width, height: height) { memory in
            for row in 0..<height {
                for column in 0..<width {
                    let pixel: UInt32 = row < height / 2 && column < width / 2 ? 0xff00_ff00 : 0xffff_0000
                    memory.storeBytes(of: pixel, toByteOffset: (row * width + column) * 4, as: UInt32.self)
                }
            }
        }
        try client.show(buffer, on: surface)
        try client.client.roundtrip()
        return client
    }

    // Probes stay 20 or more mirror pixels from every edge of the picture and of the quadrant, so
    // filtering at the scale leaves them exact; each must match within 2 per channel.

    @Test func aMirrorShowsTheSourceScaledToFitBetweenBlackBarsAndIsNoOutputOfItsOwn() throws {
        let session = try HeadlessSession(outputs: [source(), mirror(320, 320, of: "HEADLESS-1")])
        let window = try quadrantWindow(session)
        // One wl_output: the mirror is not announced, and the window is fullscreen on the source.
        #expect(window.client.globals.values.filter { $0.interface == "wl_output" }.count == 1)
        #expect(session.compositor.outputStatuses.map(\.name) == ["HEADLESS-1"])
        let shown = session.backend.headlessOutput(1)
        // Scale 1/2: the 320×240 picture at 0…320 × 40…280; source (x, y) is mirror (x/2, 40 + y/2).
        // Each output shows its frame once its renderer has finished it: either may be first.
        #expect(try session.run(seconds: 30) {
            shown.lastShownImage?.pixel(x: 80, y: 100).isNear(green) == true && session.screen?.pixel(x: 100, y: 100).isNear(green) == true
        })
        let image = try #require(shown.lastShownImage)
        #expect(image.width == 320 && image.height == 320)
        #expect(image.pixel(x: 240, y: 100).isNear(red) == true)
        #expect(image.pixel(x: 80, y: 220).isNear(red) == true)
        #expect(image.pixel(x: 240, y: 260).isNear(red) == true)
        #expect(image.pixel(x: 160, y: 20).isNear(black) == true)
        #expect(image.pixel(x: 160, y: 300).isNear(black) == true)
        // The source itself is untouched by its mirror.
        #expect(session.screen?.pixel(x: 100, y: 100).isNear(green) == true)
        #expect(session.screen?.pixel(x: 500, y: 400).isNear(red) == true)
        #expect(window.client.protocolError == nil)
    }

    @Test func aMirrorTurnsThePictureByItsOwnRotation() throws {
        // 240×480 turned a quarter is 480×240: scale 1/2, the picture at 80…400 × 0…240 there;
        // that (x, y) is panel (y, 480 − x), so source (x, y) lands at panel (y/2, 400 − x/2).
        let session = try HeadlessSession(outputs: [source(), mirror(240, 480, of: "HEADLESS-1", transform: .rotated90)])
        let window = try quadrantWindow(session)
        let shown = session.backend.headlessOutput(1)
        #expect(try session.run(seconds: 30) { shown.lastShownImage?.pixel(x: 60, y: 320).isNear(green) == true })
        let image = try #require(shown.lastShownImage)
        #expect(image.pixel(x: 60, y: 160).isNear(red) == true)
        #expect(image.pixel(x: 180, y: 320).isNear(red) == true)
        #expect(image.pixel(x: 180, y: 160).isNear(red) == true)
        #expect(image.pixel(x: 120, y: 40).isNear(black) == true)
        #expect(image.pixel(x: 120, y: 440).isNear(black) == true)
        withExtendedLifetime(window) {}
    }

    @Test func aMirrorShowsItsTurnedSourceUpright() throws {
        // The source's panel is turned a quarter: its logical output, 480×640, is what the mirror
        // shows, at scale 1/2 as 240×320 at 40…280 × 0…320: source (x, y) is mirror (40 + x/2, y/2).
        let session = try HeadlessSession(outputs: [source(transform: .rotated90), mirror(320, 320, of: "HEADLESS-1")])
        let window = try quadrantWindow(session, width: 480, height: 640)
        let shown = session.backend.headlessOutput(1)
        #expect(try session.run(seconds: 30) { shown.lastShownImage?.pixel(x: 100, y: 80).isNear(green) == true })
        let image = try #require(shown.lastShownImage)
        #expect(image.pixel(x: 220, y: 80).isNear(red))
        #expect(image.pixel(x: 100, y: 240).isNear(red))
        #expect(image.pixel(x: 20, y: 160).isNear(black))
        #expect(image.pixel(x: 300, y: 160).isNear(black))
        withExtendedLifetime(window) {}
    }

    @Test func aMirrorShowsTheVulkanLayerItsSourceShowsAndFollowsItsPresents() throws {
        // A 64×64 source under a 128×64 mirror: scale 1, the picture at 32…96 × 0…64.
        let session = try HeadlessSession(outputs: [
            HeadlessOutputConfiguration(mode: OutputMode(width: 64, height: 64, refreshMillihertz: 60_000)),
            mirror(128, 64, of: "HEADLESS-1"),
        ])
        let layer = try session.compositor.makeVulkanLayer(forOutputAt: 0)
        layer.anchorPoint = .zero
        layer.bounds = Rect(x: 0, y: 0, width: 64, height: 64)
        session.compositor.rootView().layer.addSublayer(layer)
        let pattern = try AnimatedPatternRenderer(layer: layer)
        let shown = session.backend.headlessOutput(1)
        #expect(try pattern.renderFrame(clearColor: (1, 0.2, 0), angle: nil))
        let orange = PremultipliedPixel(red: 255, green: 51, blue: 0, alpha: 255)
        #expect(try session.run(seconds: 30) { shown.lastShownImage?.pixel(x: 64, y: 32).isNear(orange) == true })
        #expect(shown.lastShownImage?.pixel(x: 16, y: 32).isNear(black) == true)
        #expect(shown.lastShownImage?.pixel(x: 112, y: 32).isNear(black) == true)
        // A present outside any transaction reaches the mirror through the source's next frame.
        #expect(try pattern.renderFrame(clearColor: (0, 0.2, 1), angle: nil))
        let blue = PremultipliedPixel(red: 0, green: 51, blue: 255, alpha: 255)
        #expect(try session.run(seconds: 30) { shown.lastShownImage?.pixel(x: 64, y: 32).isNear(blue) == true })
    }

    @Test func aMirrorShowsBlackWhileItsSourceIsUnpluggedAndTheSourceAgainWhenItReturns() throws {
        let session = try HeadlessSession(outputs: [source(name: "DSI-1"), mirror(320, 320, of: "DSI-1")])
        let window = try quadrantWindow(session)
        let shown = session.backend.headlessOutput(1)
        #expect(try session.run(seconds: 30) { shown.lastShownImage?.pixel(x: 80, y: 100).isNear(green) == true })
        // `vitrine status` lists the mirror apart from the outputs, with its source and whether it is lit.
        let status = { (lit: Bool) in
            MirrorStatus(
                name: "HEADLESS-2", width: 320, height: 320, refreshMillihertz: 60_000, transform: 0, source: "DSI-1", isShowingSource: lit)
        }
        #expect(session.compositor.mirrorStatuses == [status(true)])
        #expect(session.compositor.outputStatuses.map(\.name) == ["DSI-1"])

        session.backend.removeOutput(session.backend.headlessOutput(0))
        #expect(try session.run(seconds: 30) { shown.lastShownImage?.pixel(x: 80, y: 100).isNear(black) == true })
        #expect(shown.lastShownImage?.pixel(x: 240, y: 260).isNear(black) == true)
        #expect(session.compositor.mirrorStatuses == [status(false)])

        // Back, the source takes the window again (fullscreen at the same size) and the mirror shows it.
        _ = try session.backend.addOutput(source(name: "DSI-1"), at: 0)
        try window.client.roundtrip()
        #expect(try session.run(seconds: 30) { shown.lastShownImage?.pixel(x: 80, y: 100).isNear(green) == true })
        #expect(shown.lastShownImage?.pixel(x: 240, y: 260).isNear(red) == true)
        #expect(session.compositor.mirrorStatuses == [status(true)])
        #expect(window.client.protocolError == nil)
    }

    @Test func aMirroredOutputDrawsThePointerIntoItsFramesForTheMirrorAndUsesItsPlaneAgainOnceTheMirrorGoes() throws {
        let session = try HeadlessSession(outputs: [
            HeadlessOutputConfiguration(
                mode: OutputMode(width: 640, height: 480, refreshMillihertz: 60_000), cursorPlane: CursorPlaneSize(width: 64, height: 64)),
            mirror(640, 480, of: "HEADLESS-1"),
        ])
        let window = try quadrantWindow(session)
        let source = session.backend.headlessOutput(0), shown = session.backend.headlessOutput(1)
        #expect(try session.run(seconds: 30) { shown.lastShownImage?.pixel(x: 102, y: 107).isNear(green) == true })

        // The arrow's hotspot (1, 1) on the pointer at (100, 100): its black inside at (3, 8) of the
        // arrow is in the source's frames, and so in the mirror's, and the plane stays empty.
        session.compositor.pointerMoved(toX: 100, y: 100)
        #expect(try session.run(seconds: 30) { shown.lastShownImage?.pixel(x: 102, y: 107).isNear(black) == true })
        #expect(source.lastShownImage?.pixel(x: 102, y: 107).isNear(black) == true)
        #expect(source.shownCursor == nil)

        // With the mirror unplugged the arrow goes to the plane, and out of the frames.
        session.backend.removeOutput(shown)
        #expect(try session.run(seconds: 30) { source.shownCursor != nil && source.lastShownImage?.pixel(x: 102, y: 107).isNear(green) == true })
        #expect(source.shownCursor.map { [$0.image.width, $0.x, $0.y] } == [13, 99, 99])
        #expect(window.client.protocolError == nil)
    }

    @Test func aMirrorWhoseDisplayChangesModeFitsThePictureToTheNewSize() throws {
        let session = try HeadlessSession(outputs: [source(), mirror(320, 320, of: "HEADLESS-1")])
        let window = try quadrantWindow(session)
        let shown = session.backend.headlessOutput(1)
        #expect(try session.run(seconds: 30) { shown.lastShownImage?.pixel(x: 80, y: 100).isNear(green) == true })

        // 480×240 at scale 1/2: the picture at 80…400 × 0…240, source (x, y) at (80 + x/2, y/2).
        try session.backend.changeMode(of: shown, to: OutputMode(width: 480, height: 240, refreshMillihertz: 60_000))
        #expect(try session.run(seconds: 30) { shown.lastShownImage?.width == 480 })
        let image = try #require(shown.lastShownImage)
        #expect(image.height == 240)
        #expect(image.pixel(x: 160, y: 60).isNear(green))
        #expect(image.pixel(x: 320, y: 60).isNear(red))
        #expect(image.pixel(x: 160, y: 180).isNear(red))
        #expect(image.pixel(x: 40, y: 120).isNear(black))
        #expect(image.pixel(x: 440, y: 120).isNear(black))
        // Clients still see the source alone, unchanged.
        #expect(session.compositor.outputStatuses.map(\.name) == ["HEADLESS-1"])
        withExtendedLifetime(window) {}
    }

    @Test func unpluggingTheMirrorLeavesTheSourceDrawing() throws {
        let session = try HeadlessSession(outputs: [source(), mirror(320, 320, of: "HEADLESS-1")])
        let window = try quadrantWindow(session)
        let mirrored = session.backend.headlessOutput(1)
        #expect(try session.run(seconds: 30) { mirrored.lastShownImage?.pixel(x: 80, y: 100).isNear(green) == true })
        let mirroredFrames = mirrored.presentedFrameCount

        session.backend.removeOutput(mirrored)
        #expect(session.compositor.outputStatuses.map(\.name) == ["HEADLESS-1"])
        // The source goes on drawing what the client commits: now all red.
        let (surface, _) = try window.makeToplevel()
        try window.show(window.makeBuffer(width: 640, height: 480, fill: fillPixels(0xffff_0000, count: 640 * 480)), on: surface)
        try window.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 100, y: 100).isNear(red) == true })
        #expect(mirrored.presentedFrameCount == mirroredFrames)
        #expect(window.client.protocolError == nil)
    }
    /// Touches `points` (mirror panel pixels) on a touchscreen mapped to the mirror of a 640×480
    /// source, and returns the (x, y) of every wl_touch down the 64×64 window at source
    /// (288, 208)…(352, 272) got.
    private func touchesOnAMirror(_ mirror: HeadlessOutputConfiguration, at points: [(Double, Double)]) throws -> [(Double, Double)] {
        let session = try HeadlessSession(outputs: [source(), mirror])
        let window = try InputWindow(session)
        session.compositor.mapTouchscreen(named: "front panel", toOutput: "HEADLESS-2")
        let device = InputDeviceID(rawValue: 1)
        let (width, height) = (Double(mirror.mode.width), Double(mirror.mode.height))
        for (slot, point) in points.enumerated() {
            session.compositor.handle(
                .touchDown(time: 1_000_000, device: device, slot: Int32(slot), x: point.0 / width, y: point.1 / height), deviceName: "front panel")
            session.compositor.handle(.touchFrame(time: 1_000_000, device: device), deviceName: "front panel")
            session.compositor.handle(.touchUp(time: 1_016_000, device: device, slot: Int32(slot)), deviceName: "front panel")
        }
        try window.client.client.roundtrip()
        #expect(window.client.client.protocolError == nil)
        return window.touch.downs.map { ($0.x, $0.y) }
    }

    @Test func aTouchOnAMirrorLandsOnWhatItShowsAndNotOnItsBars() throws {
        // Scale 1/2, the picture at 0…320 × 40…280: mirror (149, 150) is source (298, 220), the
        // window's (10, 12); mirror (160, 20) is on the top bar and touches nothing.
        let downs = try touchesOnAMirror(mirror(320, 320, of: "HEADLESS-1"), at: [(160, 20), (149, 150)])
        #expect(downs.count == 1)
        #expect(abs(downs[0].0 - 10) <= 1.0 / 256 && abs(downs[0].1 - 12) <= 1.0 / 256)
    }

    @Test func aTouchOnATurnedMirrorIsTurnedBackOntoTheSource() throws {
        // Turned a quarter at scale 1/2, source (x, y) is panel (y/2, 400 − x/2): panel (110, 251)
        // is source (298, 220), the window's (10, 12); panel (120, 40) is on a bar.
        let downs = try touchesOnAMirror(mirror(240, 480, of: "HEADLESS-1", transform: .rotated90), at: [(120, 40), (110, 251)])
        #expect(downs.count == 1)
        #expect(abs(downs[0].0 - 10) <= 1.0 / 256 && abs(downs[0].1 - 12) <= 1.0 / 256)
    }
}
