import BoardConfig
import Compositor
import GoldenImages
import Graphics
import LayerKit
import Testing
import WaylandServer
import WaylandTestClient
import WindowPolicy

/// The fit policy (`fit` in the board's `[app]`): a toplevel whose size does not match the
/// 640×480 output is centred, scaled to fit, or scaled to fill and cropped, through its layer's
/// transform; pointer and touch positions reach the client through the same transform.
@Suite(.serialized) struct WindowFitTests {
    private static let golden = GoldenImages(besideFile: #filePath)

    /// A window of a client that bound the seat's pointer and touch and shows a `width`×`height`
    /// buffer: blue with an 8-pixel red border and a green bar in its top-left quarter, so that
    /// scale, crop and orientation show in a screenshot.
    private struct FittedWindow {
        let client: SessionClient
        let pointer: WlPointerProxy
        let touch: WlTouchProxy
        let surface: WlSurfaceProxy
        let server: Surface

        init(_ session: HeadlessSession, width: Int, height: Int) throws {
            client = try SessionClient(session)
            let seat = try client.client.bind(WlSeatProxy.self, version: 8)
            pointer = try seat.getPointer()
            touch = try seat.getTouch()
            (surface, _) = try client.makeToplevel()
            let buffer = try client.makeBuffer(width: width, height: height) { memory in
                let pixels = memory.bindMemory(to: UInt32.self, capacity: width * height)
                for y in 0..<height {
                    for x in 0..<width {
                        let border = x < 8 || y < 8 || x >= width - 8 || y >= height - 8
                        let marker = x >= width * 3 / 16 && x < width * 3 / 8 && y >= height / 8 && y < height / 4
                        pixels[y * width + x] = border ? 0xffff_0000 : marker ? 0xff00_ff00 : 0xff00_00ff
                    }
                }
            }
            try client.show(buffer, on: surface)
            try client.client.roundtrip()
            server = try #require(client.server.resource(withID: surface.id) as? Surface)
        }

        /// Moves the pointer to `point` and touches there: where the pointer's last enter and the
        /// last touch down landed in the surface.
        func pointerAndTouch(at point: Point, in session: HeadlessSession) throws -> (pointer: Point?, touch: Point?) {
            session.compositor.pointerMoved(toX: point.x, y: point.y)
            session.compositor.touchDown(id: 3, x: point.x, y: point.y)
            session.compositor.touchUp(id: 3)
            try client.client.roundtrip()
            let enter = pointer.lastEnter.map { Point(x: $0.x, y: $0.y) }
            let down = touch.events.reversed().lazy.compactMap { event -> Point? in
                guard case .down(_, _, _, _, let x, let y) = event else { return nil }
                return Point(x: x, y: y)
            }.first
            return (enter, down)
        }
    }

    /// The screen once it shows the window (its blue at the output's centre).
    private static func shown(_ session: HeadlessSession) throws -> Image {
        let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == blue })
        return try #require(session.screen)
    }

    private func fitted(_ fit: WindowFit, width: Int, height: Int) throws -> (HeadlessSession, FittedWindow) {
        let session = try HeadlessSession()
        session.windowPolicy.fit = fit
        let window = try FittedWindow(session, width: width, height: height)
        return (session, window)
    }

    @Test(arguments: [WindowFit.center, .scale, .fill])
    func aWindowThatDrawsSmallerIsShownByTheFitPolicy(_ fit: WindowFit) throws {
        let (session, window) = try fitted(fit, width: 320, height: 120)
        let layer = try #require(session.compositor.layer(for: window.server))
        // Centred at its size; twice its size (640 wide, the whole width) with 120-point bars
        // above and below; four times (480 high), 320 points cut off either side.
        let expected: [WindowFit: (scale: Double, position: Point)] = [
            .center: (1, Point(x: 160, y: 180)), .scale: (2, Point(x: 0, y: 120)), .fill: (4, Point(x: -320, y: 0)),
        ]
        let (scale, position) = try #require(expected[fit])
        #expect(layer.position == position)
        #expect(layer.transform == (scale == 1 ? .identity : Transform3D(scaleX: scale, y: scale)))
        try Self.golden.check(try Self.shown(session), named: "fit-\(fit)-320x120", tolerance: 8)
    }

    @Test(arguments: [WindowFit.center, .scale, .fill])
    func aWindowLargerThanTheOutputIsShownByTheFitPolicy(_ fit: WindowFit) throws {
        // An app whose minimum size (1280×720) is larger than the output.
        let (session, window) = try fitted(fit, width: 1280, height: 720)
        let layer = try #require(session.compositor.layer(for: window.server))
        // Cut off 320 and 120 points on each side; halved, with 60-point bars above and below;
        // scaled by ⅔ to 853⅓×480, 107 points (rounded down) cut off on the left.
        let expected: [WindowFit: (scale: Double, position: Point)] = [
            .center: (1, Point(x: -320, y: -120)), .scale: (0.5, Point(x: 0, y: 60)), .fill: (480.0 / 720, Point(x: -107, y: 0)),
        ]
        let (scale, position) = try #require(expected[fit])
        #expect(layer.position == position)
        #expect(layer.transform == (scale == 1 ? .identity : Transform3D(scaleX: scale, y: scale)))
        try Self.golden.check(try Self.shown(session), named: "fit-\(fit)-1280x720", tolerance: 8)
    }

    @Test func pointerAndTouchReachAScaledWindowThroughItsScale() throws {
        // 320×120 scaled by 2 at (0, 120): output (320, 240) is the window's (160, 60), and
        // (101, 123) is (50.5, 1.5).
        let (session, window) = try fitted(.scale, width: 320, height: 120)
        let (pointer, touch) = try window.pointerAndTouch(at: Point(x: 320, y: 240), in: session)
        #expect(pointer == Point(x: 160, y: 60))
        #expect(touch == Point(x: 160, y: 60))
        session.compositor.pointerMoved(toX: 101, y: 123)
        try window.client.client.roundtrip()
        guard case .motion(_, let x, let y)? = window.pointer.events.last(where: { $0.name == "motion" }) else {
            Issue.record("no motion: \(window.pointer.events)")
            return
        }
        #expect(x == 50.5 && y == 1.5)
        // Above the window, in the bar, nothing is under the pointer.
        session.compositor.pointerMoved(toX: 320, y: 100)
        try window.client.client.roundtrip()
        #expect(window.pointer.events.last(where: { $0.name != "frame" })?.name == "leave")
    }

    @Test func pointerAndTouchReachAWindowScaledDownToFitThroughItsScale() throws {
        // 1280×720 scaled by ½ at (0, 60): output (320, 240) is the window's (640, 360).
        let (session, window) = try fitted(.scale, width: 1280, height: 720)
        let (pointer, touch) = try window.pointerAndTouch(at: Point(x: 320, y: 240), in: session)
        #expect(pointer == Point(x: 640, y: 360))
        #expect(touch == Point(x: 640, y: 360))
    }

    @Test func pointerAndTouchReachAFilledWindowThroughItsScaleAndCrop() throws {
        // 320×120 scaled by 4 at (−320, 0): the output's top-left corner is the window's (80, 0),
        // and (322, 242) is (160.5, 60.5).
        let (session, window) = try fitted(.fill, width: 320, height: 120)
        let (pointer, touch) = try window.pointerAndTouch(at: Point(x: 0, y: 0), in: session)
        #expect(pointer == Point(x: 80, y: 0))
        #expect(touch == Point(x: 80, y: 0))
        #expect(try window.pointerAndTouch(at: Point(x: 322, y: 242), in: session).touch == Point(x: 160.5, y: 60.5))
        guard case .motion(_, let x, let y)? = window.pointer.events.last(where: { $0.name == "motion" }) else {
            Issue.record("no motion: \(window.pointer.events)")
            return
        }
        #expect(x == 160.5 && y == 60.5)
    }

    @Test func changingTheFitPlacesAShownWindowAgain() throws {
        let (session, window) = try fitted(.center, width: 320, height: 120)
        let layer = try #require(session.compositor.layer(for: window.server))
        #expect(layer.position == Point(x: 160, y: 180))
        session.windowPolicy.fit = .scale
        #expect(layer.position == Point(x: 0, y: 120))
        #expect(layer.transform == Transform3D(scaleX: 2, y: 2))
        session.windowPolicy.fit = .center
        #expect(layer.position == Point(x: 160, y: 180))
        #expect(layer.transform == .identity)
    }
}
