import Compositor
import DisplayBackend
import Input
import LayerKit
import Testing
import WaylandServer
import WaylandTestClient

/// Device events (as libinput reports them) reach the client under the finger or pointer, at the
/// surface coordinates where they happened on the panel, with the device's timestamps.
@Suite(.serialized) struct InputDeliveryTests {
    private let device = InputDeviceID(rawValue: 1)

    @Test func aTouchOnAQuarterTurnedPanelLandsWhereTheFingerIs() throws {
        // The 640×480 panel shows a 480×640 logical output turned counter-clockwise: panel (px, py)
        // is logical (480 − py, px). The window is centred at logical (208, 288).
        let session = try HeadlessSession(width: 640, height: 480, transform: .rotated90)
        let window = try InputWindow(session)
        // Panel (300, 262) → logical (218, 300) → the window's (10, 12).
        session.compositor.handle(.touchDown(time: 5_000_123, device: device, slot: 0, x: 300.0 / 640, y: 262.0 / 480))
        session.compositor.handle(.touchFrame(time: 5_000_123, device: device))
        // Panel (340, 242) → logical (238, 340) → the window's (30, 52).
        session.compositor.handle(.touchMotion(time: 5_016_000, device: device, slot: 0, x: 340.0 / 640, y: 242.0 / 480))
        session.compositor.handle(.touchUp(time: 5_032_000, device: device, slot: 0))
        try window.client.client.roundtrip()
        // Times are the device's, in milliseconds.
        let events = window.touch.events
        guard case .down(_, let downTime, _, let id, let x, let y)? = events.first(where: { $0.name == "down" }),
              case .motion(let motionTime, _, let motionX, let motionY)? = events.first(where: { $0.name == "motion" }),
              case .up(_, let upTime, _)? = events.first(where: { $0.name == "up" }) else {
            Issue.record("no down, motion and up: \(events)")
            return
        }
        #expect(downTime == 5_000 && id == 0)
        #expect(abs(x - 10) <= 1.0 / 256 && abs(y - 12) <= 1.0 / 256)
        #expect(motionTime == 5_016)
        #expect(abs(motionX - 30) <= 1.0 / 256 && abs(motionY - 52) <= 1.0 / 256)
        #expect(upTime == 5_032)
    }

    @Test func aWindowThatIsAnimatingIsTouchedWhereItIsSeen() throws {
        let session = try HeadlessSession()
        let window = try InputWindow(session)
        let surface = try #require(window.client.server.resource(withID: window.surface.id) as? Surface)
        let layer = try #require(session.compositor.layer(for: surface))
        // The window slides from 200 points right of its place over 1,000 s: it is seen at
        // (488, 208) for the whole test (it moves 0.2 points a second).
        let slide = BasicAnimation(keyPath: "position")
        slide.fromValue = Point(x: 488, y: 208)
        slide.toValue = Point(x: 288, y: 208)
        slide.duration = 1_000
        slide.timingFunction = MediaTimingFunction(name: .linear)
        layer.add(slide, forKey: "slide")
        try session.compositor.dispatch(timeoutMilliseconds: 0)
        // Where the model says the window is, nothing is seen: no client gets the touch.
        session.compositor.touchDown(id: 0, x: 298, y: 230)
        session.compositor.touchUp(id: 0)
        session.compositor.touchDown(id: 1, x: 498, y: 230)
        try window.client.client.roundtrip()
        #expect(window.touch.events.filter { $0.name == "down" }.count == 1)
        guard case .down(_, _, _, let id, let x, let y)? = window.touch.events.first(where: { $0.name == "down" }) else {
            Issue.record("no down: \(window.touch.events)")
            return
        }
        #expect(id == 1)
        #expect(abs(x - 10) <= 0.5 && abs(y - 22) <= 0.5)
    }

    @Test func anAbsolutePointerOnAFlippedPanelMovesThePointerToTheMirroredPoint() throws {
        // Flipped: panel (px, py) is logical (640 − px, py); the window is at (288, 208).
        let session = try HeadlessSession(width: 640, height: 480, transform: .flipped)
        let window = try InputWindow(session)
        // Panel (330, 230) → logical (310, 230) → the window's (22, 22).
        session.compositor.handle(.pointerMotionAbsolute(time: 7_000_000, device: device, x: 330.0 / 640, y: 230.0 / 480))
        session.compositor.handle(.pointerButton(time: 7_010_000, device: device, code: 0x110, isPressed: true))
        try window.client.client.roundtrip()
        guard case .enter(_, _, let x, let y)? = window.pointer.events.first(where: { $0.name == "enter" }),
              case .button(_, let time, let button, let state)? = window.pointer.events.first(where: { $0.name == "button" }) else {
            Issue.record("no enter and button: \(window.pointer.events)")
            return
        }
        #expect(abs(x - 22) <= 1.0 / 256 && abs(y - 22) <= 1.0 / 256)
        #expect(time == 7_010 && button == 0x110 && state == .pressed)
    }

    @Test func relativeMotionStaysOnTheOutput() throws {
        let session = try HeadlessSession()
        let window = try InputWindow(session)
        session.compositor.pointerMoved(toX: 320, y: 240)
        session.compositor.handle(.pointerMotion(time: 1_000, device: device, dx: -5_000, dy: 9_000, unacceleratedDX: -5_000, unacceleratedDY: 9_000))
        // Clamped to the last pixel of the 640×480 output: no window there, so the pointer left.
        try window.client.client.roundtrip()
        #expect(window.pointer.events.filter { $0.name == "leave" }.count == 1)
        session.compositor.handle(.pointerMotion(time: 2_000, device: device, dx: 300, dy: -230, unacceleratedDX: 300, unacceleratedDY: -230))
        try window.client.client.roundtrip()
        // From (0, 479) to (300, 249): the window's (12, 41).
        guard case .enter(_, _, let x, let y)? = window.pointer.events.last(where: { $0.name == "enter" }) else {
            Issue.record("no enter: \(window.pointer.events)")
            return
        }
        #expect(x == 12 && y == 41)
    }

    @Test func aWheelDetentScrollsTheWindowUnderThePointerInHighResolutionSteps() throws {
        let session = try HeadlessSession()
        let window = try InputWindow(session)
        session.compositor.pointerMoved(toX: 320, y: 240)
        session.compositor.handle(.scroll(time: 3_000_000, device: device, axis: .vertical, value: 15, v120: 120, source: .wheel, isNatural: false))
        try window.client.client.roundtrip()
        #expect(window.pointer.events.suffix(5) == [
            .axisSource(axisSource: .wheel), .axisValue120(axis: .verticalScroll, value120: 120),
            .axisRelativeDirection(axis: .verticalScroll, direction: .identical), .axis(time: 3_000, axis: .verticalScroll, value: 15), .frame,
        ])
    }

    @Test func aDeviceThatScrollsNaturallyTellsTheWindowTheScrollIsInverted() throws {
        let session = try HeadlessSession()
        let window = try InputWindow(session)
        session.compositor.pointerMoved(toX: 320, y: 240)
        session.compositor.handle(.scroll(time: 4_000_000, device: device, axis: .horizontal, value: -6, v120: nil, source: .finger, isNatural: true))
        try window.client.client.roundtrip()
        #expect(window.pointer.events.suffix(4) == [
            .axisSource(axisSource: .finger), .axisRelativeDirection(axis: .horizontalScroll, direction: .inverted),
            .axis(time: 4_000, axis: .horizontalScroll, value: -6), .frame,
        ])
    }

    @Test func keysGoToTheFocusedWindowAndFollowTheLayout() throws {
        let session = try HeadlessSession()
        try session.compositor.seat.setKeymap(layout: "de")
        let window = try InputWindow(session)
        // KEY_Y (21) on a German keyboard is z; the client turns the code into it with the keymap
        // it was sent, the compositor's own shortcuts with the same state.
        session.compositor.handle(.key(time: 9_000_000, device: device, code: 21, isPressed: true))
        session.compositor.handle(.key(time: 9_050_000, device: device, code: 21, isPressed: false))
        try window.client.client.roundtrip()
        let keys = window.keyboard.events.compactMap { event -> [UInt32]? in
            guard case .key(_, let time, let key, let state) = event else { return nil }
            return [time, key, state.rawValue]
        }
        #expect(keys == [[9_000, 21, 1], [9_050, 21, 0]])
        #expect(session.compositor.seat.keysyms(forKey: 21).map(\.name) == ["z"])
    }
}
