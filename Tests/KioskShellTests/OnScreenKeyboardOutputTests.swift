import BoardConfig
import Compositor
import DisplayBackend
import Graphics
import HeadlessBackend
import KioskShell
import LayerKit
import OnScreenKeyboard
import Testing

/// The keyboard follows the output it is on: on a panel turned a quarter it lines the bottom of
/// the portrait output the app sees, and a finger on the panel types the key drawn under it; at
/// scale 2 its key edges are on device pixels of the scanout.
@Suite(.serialized) struct OnScreenKeyboardOutputTests {
    /// Whether `pixel` is `color` to within 2 of 255 in each channel.
    func isColor(_ pixel: PremultipliedPixel, _ color: Color) -> Bool {
        let expected = [color.red, color.green, color.blue].map { Int(($0 * 255).rounded()) }
        return zip([pixel.red, pixel.green, pixel.blue].map(Int.init), expected).allSatisfy { abs($0 - $1) <= 2 }
    }

    @Test func onAQuarterTurnedPanelTheKeyboardLinesThePortraitBottomAndAFingerOnAKeyTypesIt() throws {
        // The 640×480 panel shows a 480×640 output turned counter-clockwise: output (x, y) is
        // panel (y, 480 − x), so the output's bottom is the panel's right side.
        let kiosk = try OnScreenKeyboardKiosk(
            output: HeadlessOutputConfiguration(mode: OutputMode(width: 640, height: 480, refreshMillihertz: 60_000), transform: .rotated90))
        #expect(kiosk.compositor.rootView().bounds == Rect(x: 0, y: 0, width: 480, height: 640))
        let app = try TextFieldApp(kiosk)
        try app.enable()
        #expect(try kiosk.run(seconds: 10) { kiosk.keyboardIsUp })
        // The portrait share, 30 % of 640 points, across the output's 480-point width.
        let view = kiosk.keyboard.view
        #expect(view.frame == Rect(x: 0, y: 448, width: 480, height: 192))
        #expect(view.geometry.size == Size(width: 480, height: 192))

        // Scanned out turned: output pixel (i, j) is panel pixel (j, 479 − i). The first column
        // of q's cap, at its mid-height, is key-coloured, the column before it is the gap; the
        // same at its last column.
        let q = try #require(view.keyCaps.first { $0.name == "key q" }).frame
        let panelX = Int(view.frame.minY + q.midY)
        let screen = try #require(kiosk.compositor.capture())
        #expect(screen.width == 640 && screen.height == 480)
        #expect(isColor(screen.pixel(x: panelX, y: 479 - Int(q.minX)), KeyboardTheme().key))
        #expect(isColor(screen.pixel(x: panelX, y: 480 - Int(q.minX)), KeyboardTheme().background))
        #expect(isColor(screen.pixel(x: panelX, y: 480 - Int(q.maxX)), KeyboardTheme().key))
        #expect(isColor(screen.pixel(x: panelX, y: 479 - Int(q.maxX)), KeyboardTheme().background))

        // Fingers on the panel where h and o are drawn.
        app.textInput.clearEvents()
        for (slot, label) in [(Int32(0), "h"), (1, "o")] {
            let centre = try #require(kiosk.centre(ofKey: label))
            kiosk.tap(panelX: centre.y, y: 480 - centre.x, slot: slot)
        }
        try app.client.roundtrip()
        #expect(app.textInput.events == [.commitString(text: "h"), .done(serial: 1), .commitString(text: "o"), .done(serial: 1)])
        #expect(!app.touch.events.contains { $0.name == "down" })
    }

    @Test func atScaleTwoEveryKeyEdgeIsOnADevicePixelAndATapTypes() throws {
        let kiosk = try OnScreenKeyboardKiosk(
            output: HeadlessOutputConfiguration(mode: OutputMode(width: 1280, height: 960, refreshMillihertz: 60_000), scaleFactor: 2))
        let app = try TextFieldApp(kiosk)
        try app.enable()
        #expect(try kiosk.run(seconds: 10) { kiosk.keyboardIsUp })
        let view = kiosk.keyboard.view
        #expect(view.scale == 2)
        #expect(view.frame == Rect(x: 0, y: 288, width: 640, height: 192))
        let isOnPixel = { (points: Double) in (points * 2).rounded() == points * 2 }
        for cap in view.keyCaps {
            let edges = [cap.frame.minX, cap.frame.maxX, view.frame.minY + cap.frame.minY, view.frame.minY + cap.frame.maxY]
            #expect(edges.allSatisfy(isOnPixel), "\(cap.name ?? "") at \(cap.frame)")
        }

        // In the 1280×960 scanout, q's cap starts and ends on whole pixels: key colour inside,
        // background just outside, at its mid-height.
        let q = try #require(view.keyCaps.first { $0.name == "key q" }).frame
        let y = Int((view.frame.minY + q.midY) * 2)
        let left = Int(q.minX * 2), right = Int(q.maxX * 2)
        let screen = try #require(kiosk.compositor.capture())
        #expect(screen.width == 1280 && screen.height == 960)
        #expect(isColor(screen.pixel(x: left, y: y), KeyboardTheme().key))
        #expect(isColor(screen.pixel(x: left - 1, y: y), KeyboardTheme().background))
        #expect(isColor(screen.pixel(x: right - 1, y: y), KeyboardTheme().key))
        #expect(isColor(screen.pixel(x: right, y: y), KeyboardTheme().background))

        app.textInput.clearEvents()
        try kiosk.tap(key: "h")
        try app.client.roundtrip()
        #expect(app.textInput.events == [.commitString(text: "h"), .done(serial: 1)])
    }
}
