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

    private func fixed(_ value: TestValue?) -> Double? {
        if case .fixed(let number) = value { return number }
        return nil
    }

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
        let down = try #require(window.touch.events(named: "down").first)
        // down: serial, time, surface, id, x, y; times are the device's, in milliseconds.
        #expect(down.arguments[1] == .uint(5_000))
        #expect(down.arguments[3] == .int(0))
        #expect(abs(try #require(fixed(down.arguments[4])) - 10) <= 1.0 / 256)
        #expect(abs(try #require(fixed(down.arguments[5])) - 12) <= 1.0 / 256)
        let motion = try #require(window.touch.events(named: "motion").first)
        #expect(motion.arguments[0] == .uint(5_016))
        #expect(abs(try #require(fixed(motion.arguments[2])) - 30) <= 1.0 / 256)
        #expect(abs(try #require(fixed(motion.arguments[3])) - 52) <= 1.0 / 256)
        #expect(window.touch.events(named: "up").first?.arguments[1] == .uint(5_032))
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
        let downs = window.touch.events(named: "down")
        #expect(downs.count == 1)
        let down = try #require(downs.first)
        #expect(down.arguments[3] == .int(1))
        #expect(abs(try #require(fixed(down.arguments[4])) - 10) <= 0.5)
        #expect(abs(try #require(fixed(down.arguments[5])) - 22) <= 0.5)
    }

    @Test func anAbsolutePointerOnAFlippedPanelMovesThePointerToTheMirroredPoint() throws {
        // Flipped: panel (px, py) is logical (640 − px, py); the window is at (288, 208).
        let session = try HeadlessSession(width: 640, height: 480, transform: .flipped)
        let window = try InputWindow(session)
        // Panel (330, 230) → logical (310, 230) → the window's (22, 22).
        session.compositor.handle(.pointerMotionAbsolute(time: 7_000_000, device: device, x: 330.0 / 640, y: 230.0 / 480))
        session.compositor.handle(.pointerButton(time: 7_010_000, device: device, code: 0x110, isPressed: true))
        try window.client.client.roundtrip()
        let enter = try #require(window.pointer.events(named: "enter").first)
        #expect(abs(try #require(fixed(enter.arguments[2])) - 22) <= 1.0 / 256)
        #expect(abs(try #require(fixed(enter.arguments[3])) - 22) <= 1.0 / 256)
        let button = try #require(window.pointer.events(named: "button").first)
        #expect(button.arguments[1] == .uint(7_010))
        #expect(button.arguments[2] == .uint(0x110))
        #expect(button.arguments[3] == .uint(1))
    }

    @Test func relativeMotionStaysOnTheOutput() throws {
        let session = try HeadlessSession()
        let window = try InputWindow(session)
        session.compositor.pointerMoved(toX: 320, y: 240)
        session.compositor.handle(.pointerMotion(time: 1_000, device: device, dx: -5_000, dy: 9_000, unacceleratedDX: -5_000, unacceleratedDY: 9_000))
        // Clamped to the last pixel of the 640×480 output: no window there, so the pointer left.
        try window.client.client.roundtrip()
        #expect(window.pointer.events(named: "leave").count == 1)
        session.compositor.handle(.pointerMotion(time: 2_000, device: device, dx: 300, dy: -230, unacceleratedDX: 300, unacceleratedDY: -230))
        try window.client.client.roundtrip()
        // From (0, 479) to (300, 249): the window's (12, 41).
        let enter = try #require(window.pointer.events(named: "enter").last)
        #expect(fixed(enter.arguments[2]) == 12)
        #expect(fixed(enter.arguments[3]) == 41)
    }

    @Test func aWheelDetentScrollsTheWindowUnderThePointerInHighResolutionSteps() throws {
        let session = try HeadlessSession()
        let window = try InputWindow(session)
        session.compositor.pointerMoved(toX: 320, y: 240)
        session.compositor.handle(.scroll(time: 3_000_000, device: device, axis: .vertical, value: 15, v120: 120, source: .wheel))
        try window.client.client.roundtrip()
        #expect(window.pointer.events(named: "axis_source").first?.arguments == [.uint(0)])
        #expect(window.pointer.events(named: "axis_value120").first?.arguments == [.uint(0), .int(120)])
        let axis = try #require(window.pointer.events(named: "axis").first)
        #expect(axis.arguments[0] == .uint(3_000))
        #expect(fixed(axis.arguments[2]) == 15)
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
        let keys = window.keyboard.events(named: "key")
        #expect(keys.count == 2)
        #expect(keys.first.map { Array($0.arguments[1...3]) } == [.uint(9_000), .uint(21), .uint(1)])
        #expect(keys.last.map { Array($0.arguments[1...3]) } == [.uint(9_050), .uint(21), .uint(0)])
        #expect(session.compositor.seat.keysyms(forKey: 21).map(\.name) == ["z"])
    }
}
