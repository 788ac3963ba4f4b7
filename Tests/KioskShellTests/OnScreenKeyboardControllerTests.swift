import BoardConfig
import Compositor
import KioskShell
import LayerKit
import OnScreenKeyboard
import Testing
import WaylandTestClient

/// The board's on-screen keyboard in a running kiosk: a client's text field (zwp_text_input_v3)
/// brings it up and takes it down, taps on it (touch events through the compositor's input path)
/// type into the field, and the window moves up when the field's cursor would be under it.
@Suite(.serialized) struct OnScreenKeyboardControllerTests {
    /// The surface-local y of the first touch down `touch` received.
    private static func firstDownY(_ touch: WlTouchProxy) -> Double? {
        touch.events.lazy.compactMap { if case .down(_, _, _, _, _, let y) = $0 { y } else { nil } }.first
    }

    @Test func enablingATextInputShowsTheKeyboardForItsPurposeAndDisablingHidesIt() throws {
        let kiosk = try OnScreenKeyboardKiosk()
        let app = try TextFieldApp(kiosk)
        #expect(!kiosk.keyboard.view.isShown)
        // content type: hints hidden_text (0x40), purpose pin (9).
        try app.enable { try $0.setContentType(hint: .hiddenText, purpose: .pin) }
        #expect(kiosk.keyboard.view.isShown)
        #expect(kiosk.keyboard.view.purpose == .pin)
        #expect(kiosk.keyboard.view.hidesText)
        #expect(kiosk.keyboard.view.state.pageKind == .numeric(.digits))
        // 40 % of the 480-point output, at its bottom once the slide ends.
        #expect(kiosk.keyboard.view.frame == Rect(x: 0, y: 288, width: 640, height: 192))
        #expect(try kiosk.run(seconds: 10) { kiosk.keyboardIsUp })
        try app.disable()
        #expect(!kiosk.keyboard.view.isShown)
        #expect(try kiosk.run(seconds: 10) { kiosk.keyboard.view.isHidden && kiosk.compositor.outputsAreSettled })
        // Where the keyboard was, the app is touched again.
        kiosk.tap(Point(x: 320, y: 400))
        try app.client.roundtrip()
        #expect(Self.firstDownY(app.touch) == 400)
    }

    @Test func theKeyboardIsAboveTheWindowsAndUnderTheKioskOverlay() throws {
        let kiosk = try OnScreenKeyboardKiosk(splash: SplashConfiguration())
        let root = kiosk.compositor.rootView()
        #expect(root.subviews.map(\.layer.name) == [
            "background layer", "bottom layer", "windows", "on-screen keyboard", "top layer", "layer popups", "overlay layer", "kiosk overlay",
        ])
    }

    @Test func tappedKeysArriveAsCommitStringsAndTouchesOnTheKeyboardNeverReachTheApp() throws {
        let kiosk = try OnScreenKeyboardKiosk()
        let app = try TextFieldApp(kiosk)
        try app.enable()
        #expect(try kiosk.run(seconds: 10) { kiosk.keyboardIsUp })
        app.textInput.clearEvents()
        try kiosk.tap(key: "h")
        try kiosk.tap(key: "i")
        try app.client.roundtrip()
        // done carries the client's commit count: one commit (the enable) so far.
        #expect(app.textInput.events == [.commitString(text: "h"), .done(serial: 1), .commitString(text: "i"), .done(serial: 1)])
        #expect(!app.touch.events.contains { $0.name == "down" })
        // Above the keyboard, the window gets the touch.
        kiosk.tap(Point(x: 320, y: 100), slot: 1)
        try app.client.roundtrip()
        #expect(app.touch.events.filter { $0.name == "down" }.count == 1)
    }

    @Test func backspaceDeletesThePreviousCharacterOfTheSurroundingTextOrPressesTheKey() throws {
        let kiosk = try OnScreenKeyboardKiosk()
        let app = try TextFieldApp(kiosk)
        // "hé": the cursor after é, which is two bytes of UTF-8.
        try app.enable { try $0.setSurroundingText(text: "hé", cursor: 3, anchor: 3) }
        #expect(try kiosk.run(seconds: 10) { kiosk.keyboardIsUp })
        app.textInput.clearEvents()
        try kiosk.tap(key: "⌫")
        try app.client.roundtrip()
        #expect(app.textInput.events == [.deleteSurroundingText(beforeLength: 2, afterLength: 0), .done(serial: 1)])
        #expect(app.keys.isEmpty)
        // A field that does not report its text gets KEY_BACKSPACE (14), pressed and released.
        try app.commit { try $0.setSurroundingText(text: "", cursor: 0, anchor: 0) }
        try app.disable()
        try app.enable()
        #expect(try kiosk.run(seconds: 10) { kiosk.keyboardIsUp })
        app.textInput.clearEvents()
        try kiosk.tap(key: "⌫")
        try app.client.roundtrip()
        #expect(app.keys == [[14, 1], [14, 0]])
        #expect(app.textInput.events.isEmpty)
    }

    @Test func returnIsAnEnterKeyEvent() throws {
        let kiosk = try OnScreenKeyboardKiosk()
        let app = try TextFieldApp(kiosk)
        try app.enable()
        #expect(try kiosk.run(seconds: 10) { kiosk.keyboardIsUp })
        app.textInput.clearEvents()
        try kiosk.tap(key: "⏎")
        try app.client.roundtrip()
        #expect(app.keys == [[28, 1], [28, 0]])
        #expect(app.textInput.events.isEmpty)
    }

    @Test func aCursorUnderTheKeyboardMovesTheWindowUpJustEnoughAndBackWhenHidden() throws {
        let kiosk = try OnScreenKeyboardKiosk()
        let app = try TextFieldApp(kiosk)
        // A cursor at 400…420 in the full-output window; the keyboard's top is at 288.
        try app.enable { try $0.setCursorRectangle(x: 100, y: 400, width: 2, height: 20) }
        #expect(kiosk.compositor.windowShift() == 132)
        #expect(try kiosk.run(seconds: 10) { kiosk.keyboardIsUp })
        // The window is seen moved: a touch at 100 output points lands at 232 in the window.
        kiosk.tap(Point(x: 320, y: 100))
        try app.client.roundtrip()
        #expect(Self.firstDownY(app.touch) == 232)
        // The cursor moves up out of the keyboard's way: the window goes back.
        try app.commit { try $0.setCursorRectangle(x: 100, y: 40, width: 2, height: 20) }
        #expect(kiosk.compositor.windowShift() == 0)
        try app.commit { try $0.setCursorRectangle(x: 100, y: 300, width: 2, height: 20) }
        #expect(kiosk.compositor.windowShift() == 32)
        try app.disable()
        #expect(kiosk.compositor.windowShift() == 0)
    }

    @Test func aNewOutputSizeOrScaleReplacesTheKeyboardOnTheNextTick() throws {
        let kiosk = try OnScreenKeyboardKiosk()
        let app = try TextFieldApp(kiosk)
        try app.enable()
        let root = kiosk.compositor.rootView()
        #expect(kiosk.keyboard.view.scale == 1)
        root.frame = Rect(x: 0, y: 0, width: 480, height: 640)
        root.scaleFactor = 2
        try kiosk.iterate()
        // Portrait: 30 % of the height, on a device pixel, at the new bottom.
        #expect(kiosk.keyboard.view.scale == 2)
        #expect(kiosk.keyboard.view.frame == Rect(x: 0, y: 448, width: 480, height: 192))
    }

    @Test func anAttachedKeyboardHidesItWhenTheBoardSaysSo() throws {
        let kiosk = try OnScreenKeyboardKiosk()
        let app = try TextFieldApp(kiosk)
        try app.enable()
        #expect(kiosk.keyboard.view.isShown)
        kiosk.keyboardDevice(added: true)
        #expect(kiosk.compositor.isTypingKeyboardAttached)
        #expect(!kiosk.keyboard.view.isShown)
        kiosk.keyboardDevice(added: false)
        #expect(kiosk.keyboard.view.isShown)

        let keeps = try OnScreenKeyboardKiosk(settings: OnScreenKeyboardSettings(isEnabled: true, hidesWhenKeyboardAttached: false))
        let other = try TextFieldApp(keeps)
        keeps.keyboardDevice(added: true)
        try other.enable()
        #expect(keeps.keyboard.view.isShown)
    }

    @Test func theBoardsLayoutsHeightAndColoursMakeTheKeyboard() {
        let configuration = OnScreenKeyboardController.configuration(
            for: OnScreenKeyboardSettings(
                isEnabled: true, layouts: ["de", "ru"], heightShare: 0.5, keyColor: RGBColor(red: 255, green: 0, blue: 51)))
        #expect(configuration.layouts == [.de, .ru])
        #expect(configuration.landscapeHeightShare == 0.5)
        #expect(configuration.portraitHeightShare == 0.5)
        #expect(configuration.theme.key == Color(red: 1, green: 0, blue: 0.2, alpha: 1))
        #expect(configuration.theme.background == KeyboardTheme().background)
        // The board accepts exactly the layouts the keyboard draws.
        #expect(OnScreenKeyboardSettings.layouts == KeyboardLayout.all.map(\.name))
    }
}
