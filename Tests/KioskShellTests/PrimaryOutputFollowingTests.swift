import BoardConfig
import Compositor
import DisplayBackend
import Graphics
import HeadlessBackend
import KioskShell
import LayerKit
import Renderer
import Testing

/// The kiosk's splash overlay and on-screen keyboard are on the primary output (the windows'):
/// when it is unplugged they move to the output that takes the windows, laid out again for its
/// size and scale; with no output they wait, and come back on the next one; a more important
/// output plugged in takes them over.
@Suite(.serialized) struct PrimaryOutputFollowingTests {
    static let splash = SplashConfiguration(backgroundColor: RGBColor(red: 0x1D, green: 0x35, blue: 0x57))
    static let black = PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)

    private func mode(_ width: Int, _ height: Int) -> OutputMode {
        OutputMode(width: width, height: height, refreshMillihertz: 60_000)
    }

    /// The layer called `name` on the primary output (output 0).
    private func layer(_ name: String, _ kiosk: OnScreenKeyboardKiosk) -> Layer? {
        guard case .success(let layer) = kiosk.compositor.exportedLayer(named: name, onOutputAt: 0) else { return nil }
        return layer
    }

    /// The names of output `index`'s top views, bottom to top.
    private func views(onOutputAt index: Int, _ kiosk: OnScreenKeyboardKiosk) -> [String?] {
        kiosk.compositor.rootView(ofOutputAt: index).subviews.map(\.layer.name)
    }

    @Test func theOverlayAndKeyboardMoveToTheNextOutputWaitWithoutOneAndComeBackOnTheNext() throws {
        let kiosk = try OnScreenKeyboardKiosk(splash: Self.splash)
        // 800×600 pixels at scale 2: 400×300 points.
        let second = try kiosk.backend.addOutput(HeadlessOutputConfiguration(mode: mode(800, 600), scaleFactor: 2))
        #expect(layer("kiosk overlay", kiosk)?.frame == Rect(x: 0, y: 0, width: 640, height: 480))
        // The indicator a sixth of the height (80) above the bottom, the label 48 below it.
        #expect(layer("restarting indicator", kiosk)?.position == Point(x: 320, y: 400))
        #expect(layer("restarting label", kiosk)?.position == Point(x: 320, y: 448))
        #expect(views(onOutputAt: 1, kiosk) == ["background layer", "bottom layer", "windows", "top layer", "layer popups", "overlay layer"])

        kiosk.backend.removeOutput(kiosk.backend.headlessOutput(0))
        #expect(views(onOutputAt: 0, kiosk) == [
            "background layer", "bottom layer", "windows", "on-screen keyboard", "top layer", "layer popups", "overlay layer", "kiosk overlay",
        ])
        #expect(layer("kiosk overlay", kiosk)?.frame == Rect(x: 0, y: 0, width: 400, height: 300))
        // A sixth of 300 is less than 64: the indicator is 64 above the bottom.
        #expect(layer("restarting indicator", kiosk)?.position == Point(x: 200, y: 236))
        let label = try #require(layer("restarting label", kiosk))
        #expect(label.position == Point(x: 200, y: 284))
        #expect(label.bounds == Rect(x: 0, y: 0, width: 400, height: 30))
        #expect(label.contentsScale == 2)
        // The hidden keyboard waits below the bottom: 40 % of 300 points high.
        #expect(kiosk.keyboard.view.frame == Rect(x: 0, y: 300, width: 400, height: 120))
        #expect(try kiosk.run(seconds: 30) {
            second.lastShownImage?.pixel(x: 0, y: 0) == KioskOverlayTests.splash
                && second.lastShownImage?.pixel(x: 799, y: 599) == KioskOverlayTests.splash
        })

        kiosk.backend.removeOutput(second)
        #expect(kiosk.compositor.primaryRootView == nil)
        #expect(kiosk.keyboard.view.superview == nil)
        try kiosk.run(seconds: 0.2) { false }
        #expect(kiosk.session.isShowingOverlay)

        let third = try kiosk.backend.addOutput(HeadlessOutputConfiguration(mode: mode(1024, 768)))
        #expect(views(onOutputAt: 0, kiosk) == [
            "background layer", "bottom layer", "windows", "on-screen keyboard", "top layer", "layer popups", "overlay layer", "kiosk overlay",
        ])
        #expect(layer("kiosk overlay", kiosk)?.frame == Rect(x: 0, y: 0, width: 1024, height: 768))
        #expect(layer("restarting indicator", kiosk)?.position == Point(x: 512, y: 640))
        #expect(layer("restarting label", kiosk)?.position == Point(x: 512, y: 688))
        // 40 % of 768 is 307.2, rounded to the pixel.
        #expect(kiosk.keyboard.view.frame == Rect(x: 0, y: 768, width: 1024, height: 307))
        #expect(try kiosk.run(seconds: 30) {
            third.lastShownImage?.pixel(x: 0, y: 0) == KioskOverlayTests.splash
                && third.lastShownImage?.pixel(x: 1023, y: 767) == KioskOverlayTests.splash
        })
    }

    @Test func aMoreImportantOutputPluggedInTakesTheOverlayOverAndTheFormerPrimaryShowsBlack() throws {
        let kiosk = try OnScreenKeyboardKiosk(splash: Self.splash)
        #expect(try kiosk.run(seconds: 30) { kiosk.compositor.capture(outputAt: 0)?.pixel(x: 320, y: 240) == KioskOverlayTests.splash })
        let primary = try kiosk.backend.addOutput(HeadlessOutputConfiguration(mode: mode(320, 240)), at: 0)
        #expect(views(onOutputAt: 0, kiosk) == [
            "background layer", "bottom layer", "windows", "on-screen keyboard", "top layer", "layer popups", "overlay layer", "kiosk overlay",
        ])
        #expect(views(onOutputAt: 1, kiosk) == ["background layer", "bottom layer", "windows", "top layer", "layer popups", "overlay layer"])
        #expect(layer("kiosk overlay", kiosk)?.frame == Rect(x: 0, y: 0, width: 320, height: 240))
        #expect(layer("restarting indicator", kiosk)?.position == Point(x: 160, y: 176))
        #expect(kiosk.keyboard.view.frame == Rect(x: 0, y: 240, width: 320, height: 96))
        #expect(try kiosk.run(seconds: 30) {
            primary.lastShownImage?.pixel(x: 319, y: 239) == KioskOverlayTests.splash
                && kiosk.compositor.capture(outputAt: 1)?.pixel(x: 320, y: 240) == Self.black
        })
    }

    @Test func theAnimatedPatternIsMadeAgainForTheNewPrimaryAndMovesThere() throws {
        var splash = Self.splash
        splash.animation = .pattern
        let kiosk = try OnScreenKeyboardKiosk(splash: splash)
        let first = kiosk.backend.headlessOutput(0)
        #expect(try patternMoves(on: first, kiosk))
        // 400×300 pixels at scale 2 (200×150 points).
        let second = try kiosk.backend.addOutput(HeadlessOutputConfiguration(mode: mode(400, 300), scaleFactor: 2))
        kiosk.backend.removeOutput(first)
        let pattern = try #require(layer("splash pattern", kiosk) as? VulkanLayer)
        #expect(pattern.bounds == Rect(x: 0, y: 0, width: 200, height: 150))
        #expect(pattern.contentsScale == 2)
        // Two different pattern colours in the new output's top left corner: it moves there.
        #expect(try patternMoves(on: second, kiosk))
    }

    /// Runs `kiosk` until `output`'s top left corner showed two different pattern colours
    /// (neither the splash nor black); returns whether it did.
    private func patternMoves(on output: HeadlessOutput, _ kiosk: OnScreenKeyboardKiosk) throws -> Bool {
        var colours: [PremultipliedPixel] = []
        return try kiosk.run(seconds: 10) {
            if let pixel = output.lastShownImage?.pixel(x: 2, y: 2), pixel != KioskOverlayTests.splash, pixel != Self.black,
               colours.last != pixel {
                colours.append(pixel)
            }
            return colours.count == 2
        }
    }

    @Test func aShownKeyboardMovesUpOnTheNewPrimaryAndATapThereTypes() throws {
        let kiosk = try OnScreenKeyboardKiosk()
        let app = try TextFieldApp(kiosk)
        try app.enable()
        #expect(try kiosk.run(seconds: 10) { kiosk.keyboardIsUp })
        #expect(kiosk.keyboard.view.frame == Rect(x: 0, y: 288, width: 640, height: 192))

        _ = try kiosk.backend.addOutput(HeadlessOutputConfiguration(mode: mode(800, 600), scaleFactor: 2))
        kiosk.backend.removeOutput(kiosk.backend.headlessOutput(0))
        // At the bottom of the 400×300-point output at once: 120 points high.
        #expect(kiosk.keyboard.view.frame == Rect(x: 0, y: 180, width: 400, height: 120))
        #expect(kiosk.keyboard.view.superview === kiosk.compositor.primaryRootView)
        #expect(try kiosk.run(seconds: 10) { kiosk.keyboardIsUp })

        app.textInput.clearEvents()
        try kiosk.tap(key: "h")
        try app.client.roundtrip()
        #expect(app.textInput.events == [.commitString(text: "h"), .done(serial: 1)])
        #expect(!app.touch.events.contains { $0.name == "down" })
    }
}
