import Compositor
import DisplayBackend
import Input
import LayerKit
import Testing
import Views
import WaylandTestClient

/// The compositor's own views sit above the windows and take the input that lands on them;
/// what misses them reaches the client under it.
@Suite(.serialized) struct CompositorViewTests {
    /// A view that records what it handles, in its own coordinates.
    final class Panel: View {
        var log: [String] = []

        init(frame: Rect) {
            super.init()
            self.frame = frame
        }

        override var acceptsFirstResponder: Bool { true }
        override func touchBegan(_ touch: TouchEvent) { log.append("touch began \(point(touch.location(in: self)))") }
        override func touchEnded(_ touch: TouchEvent) { log.append("touch ended \(point(touch.location(in: self)))") }
        override func pointerDown(_ event: PointerEvent) { log.append("down \(point(event.location(in: self)))") }
        override func pointerDragged(_ event: PointerEvent) { log.append("dragged \(point(event.location(in: self)))") }
        override func pointerUp(_ event: PointerEvent) { log.append("up \(point(event.location(in: self)))") }
        override func keyDown(_ event: KeyEvent) { log.append("key \(event.keyCode) \(event.text ?? "-")") }

        private func point(_ p: Point) -> String { "\(Int(p.x.rounded())),\(Int(p.y.rounded()))" }
    }

    /// A 64×64 window centred on the 640×480 output (288…352 × 208…272) and a 20×20 panel
    /// over its top-left part (300…320 × 220…240), committed so that it can be hit.
    private func scene(_ session: HeadlessSession) throws -> (SessionClient, touch: WlTouchProxy, pointer: WlPointerProxy, keyboard: WlKeyboardProxy, Panel) {
        let window = try InputWindow(session)
        let panel = Panel(frame: Rect(x: 300, y: 220, width: 20, height: 20))
        session.compositor.rootView().addSubview(panel)
        try session.compositor.dispatch(timeoutMilliseconds: 0)
        return (window.client, window.touch, window.pointer, window.keyboard, panel)
    }

    @Test func aTouchOnACompositorViewIsTheViewsAndATouchBesideItTheClients() throws {
        let session = try HeadlessSession()
        let (client, touch, _, _, panel) = try scene(session)
        session.compositor.touchDown(id: 0, x: 305, y: 226)
        session.compositor.touchUp(id: 0)
        try client.client.roundtrip()
        #expect(panel.log == ["touch began 5,6", "touch ended 5,6"])
        #expect(!touch.events.contains { $0.name == "down" })

        session.compositor.touchDown(id: 1, x: 340, y: 260)
        session.compositor.touchUp(id: 1)
        try client.client.roundtrip()
        #expect(panel.log.count == 2)
        let down = try #require(touch.downs.first)
        #expect(down.x == 52 && down.y == 52)
    }

    @Test func aPressOnAViewKeepsThePointerUntilReleaseAndTheClientGetsItBackAfter() throws {
        let session = try HeadlessSession()
        let (client, _, pointer, _, panel) = try scene(session)
        session.compositor.pointerMoved(toX: 310, y: 230)
        session.compositor.pointerButton(0x110, pressed: true)
        // Dragged out over the client's window: still the panel's.
        session.compositor.pointerMoved(toX: 340, y: 260)
        session.compositor.pointerButton(0x110, pressed: false)
        try client.client.roundtrip()
        #expect(panel.log == ["down 10,10", "dragged 40,40", "up 40,40"])
        #expect(!pointer.events.contains { $0.name == "button" })
        // Released over the window: the pointer is the client's again, at the window's (52, 52).
        let enter = try #require(pointer.lastEnter)
        #expect(enter.x == 52 && enter.y == 52)
        session.compositor.pointerButton(0x110, pressed: true)
        try client.client.roundtrip()
        #expect(pointer.events.filter { $0.name == "button" }.count == 1)
    }

    @Test func aTapRecognizerOnAViewRecognizesTouchesFromADevice() throws {
        let session = try HeadlessSession()
        let (_, _, _, _, panel) = try scene(session)
        let tap = TapGestureRecognizer()
        var taps = 0
        tap.addAction { recognizer in if recognizer.state == .recognized { taps += 1 } }
        panel.addGestureRecognizer(tap)
        let device = InputDeviceID(rawValue: 1)
        // Fractions of the 640×480 panel: (310, 230), then lifted 0.1 s later.
        session.compositor.handle(.touchDown(time: 1_000_000, device: device, slot: 0, x: 310.0 / 640, y: 230.0 / 480))
        session.compositor.handle(.touchUp(time: 1_100_000, device: device, slot: 0))
        #expect(taps == 1)
    }

    @Test func keysGoToAViewThatIsFirstResponderAndBackToTheClientAfter() throws {
        let session = try HeadlessSession()
        let (client, _, _, keyboard, panel) = try scene(session)
        #expect(session.compositor.makeFirstResponder(panel))
        session.compositor.keyboardKey(30, pressed: true)
        session.compositor.keyboardKey(30, pressed: false)
        try client.client.roundtrip()
        #expect(panel.log == ["key 30 a"])
        #expect(!keyboard.events.contains { $0.name == "key" })

        #expect(session.compositor.makeFirstResponder(nil))
        session.compositor.keyboardKey(30, pressed: true)
        try client.client.roundtrip()
        #expect(keyboard.events.filter { $0.name == "key" }.count == 1)
    }
}
