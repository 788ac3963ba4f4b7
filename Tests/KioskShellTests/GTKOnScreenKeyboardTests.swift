import AppProcesses
import BoardConfig
import Compositor
import DisplayBackend
import Foundation
import Glibc
import Graphics
import KioskShell
import LayerKit
import OnScreenKeyboard
import SystemCalls
import Testing

/// The issue's end-to-end case: a real GTK 4 app (Debian's python3-gi and gir1.2-gtk-4.0) with
/// an entry and a button on the headless kiosk. The focused entry brings the keyboard up, taps on
/// h and i type "hi" into the entry, a tap on the button (out of the entry) takes it down. Prints
/// how long the keyboard takes to come up and how long a tap takes to reach the app.
@Suite(.serialized) struct GTKOnScreenKeyboardTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Clients/gtk_text_field.py").path

    /// The app's printed lines so far.
    static func lines(_ path: String) -> [Substring] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
    }

    @Test func aGTKEntryTypesWithTheOnScreenKeyboard() throws {
        let kiosk = try OnScreenKeyboardKiosk()
        let output = NSTemporaryDirectory() + "vitrine-osk-gtk-\(getpid()).out"
        unlink(output)
        defer { unlink(output) }
        // Software rendering (no GL headless) and no accessibility bus to wait for.
        let app = try ClientProcess(
            // Debian's interpreter, which has the gi module (a python3 earlier in PATH may not).
            arguments: ["/usr/bin/python3", Self.script],
            environment: [
                "WAYLAND_DISPLAY": kiosk.socketName, "XDG_RUNTIME_DIR": kiosk.runtimeDirectory, "GDK_BACKEND": "wayland", "GSK_RENDERER": "cairo",
                "GTK_IM_MODULE": "wayland", "GTK_A11Y": "none", "NO_AT_BRIDGE": "1",
            ],
            removing: ["DISPLAY"], standardOutput: output, endingWithThisProcess: true)
        defer { app.terminate() }

        // The entry has focus from the start: its text input's enable brings the keyboard up.
        var enabledAt: UInt64?
        var upAt: UInt64?
        let view = kiosk.keyboard.view
        let came = try kiosk.run(seconds: 60) {
            if enabledAt == nil, view.isShown { enabledAt = monotonicNanoseconds() }
            if enabledAt != nil, upAt == nil, kiosk.keyboardIsUp { upAt = monotonicNanoseconds() }
            return app.poll() || upAt != nil && Self.lines(output).contains { $0.hasPrefix("bounds button") }
        }
        #expect(came && !app.poll(), "the app printed: \(Self.lines(output))")
        let shownAt = try #require(enabledAt), settledAt = try #require(upAt)
        let showMilliseconds = Double(settledAt - shownAt) / 1e6
        print("on-screen keyboard: enable to fully shown \(String(format: "%.1f", showMilliseconds)) ms "
              + "(slide \(Int(view.configuration.slideDuration * 1000)) ms)")

        // The frame shows a character key in the key colour (sampled inside its cap, off the label).
        let cap = try #require(view.keyCaps.first { $0.name == "key q" })
        let screen = try #require(kiosk.compositor.capture())
        let key = KeyboardTheme().key
        let sample = screen.pixel(x: Int(view.frame.minX + cap.frame.minX + 3), y: Int(view.frame.minY + cap.frame.midY))
        let expected = [key.red, key.green, key.blue].map { Int(($0 * 255).rounded()) }
        #expect(zip([sample.red, sample.green, sample.blue].map(Int.init), expected).allSatisfy { abs($0 - $1) <= 2 },
                "sampled \(sample), the key colour is \(expected)")

        // Taps on h and i: the app's entry holds "hi".
        var tapToSend: [Double] = []
        var tapToFlush: [Double] = []
        var tapToApp: [Double] = []
        for (index, letter) in ["h", "i"].enumerated() {
            let point = try #require(kiosk.centre(ofKey: letter))
            var sentAt: UInt64?
            kiosk.keyboard.onDelivered = { _ in sentAt = monotonicNanoseconds() }
            let time = monotonicNanoseconds() / 1000
            kiosk.compositor.handle(.touchDown(time: time, device: kiosk.touchscreen, slot: 0, x: point.x / 640, y: point.y / 480))
            kiosk.compositor.handle(.touchFrame(time: time, device: kiosk.touchscreen))
            // The character is typed on the finger's lift; the loop iteration's end flushes it.
            let liftedAt = monotonicNanoseconds()
            kiosk.compositor.handle(.touchUp(time: time + 40_000, device: kiosk.touchscreen, slot: 0))
            kiosk.compositor.handle(.touchFrame(time: time + 40_000, device: kiosk.touchscreen))
            try kiosk.compositor.dispatch(timeoutMilliseconds: 0)
            let flushedAt = monotonicNanoseconds()
            let typed = index == 0 ? "text:h" : "text:hi"
            #expect(try kiosk.run(seconds: 10) { Self.lines(output).last == Substring(typed) }, "the app printed: \(Self.lines(output))")
            let arrivedAt = monotonicNanoseconds()
            let sent = try #require(sentAt)
            tapToSend.append(Double(sent - liftedAt) / 1e6)
            tapToFlush.append(Double(flushedAt - liftedAt) / 1e6)
            tapToApp.append(Double(arrivedAt - liftedAt) / 1e6)
        }
        kiosk.keyboard.onDelivered = nil
        let format = { (values: [Double]) in values.map { String(format: "%.2f", $0) }.joined(separator: ", ") }
        print("on-screen keyboard: tap (touch up handled) to commit_string sent \(format(tapToSend)) ms, "
              + "to flushed \(format(tapToFlush)) ms, to the app's entry changed \(format(tapToApp)) ms")

        // A tap on the button, out of the entry: the entry's text input is disabled, the keyboard goes.
        let bounds = try #require(Self.lines(output).first { $0.hasPrefix("bounds button") })
            .split(separator: " ").dropFirst(2).compactMap { Double($0) }
        try #require(bounds.count == 4)
        let button = Point(x: bounds[0] + bounds[2] / 2, y: bounds[1] + bounds[3] / 2 - kiosk.compositor.windowShift())
        kiosk.tap(button)
        #expect(try kiosk.run(seconds: 10) { Self.lines(output).contains("clicked") && !view.isShown },
                "the app printed: \(Self.lines(output))")
        #expect(try kiosk.run(seconds: 10) { view.isHidden })
        #expect(Self.lines(output).filter { $0.hasPrefix("text:") } == ["text:h", "text:hi"])
    }
}
