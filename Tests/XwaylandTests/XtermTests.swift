import AppProcesses
import Compositor
import Foundation
import Glibc
import Graphics
import Input
import Testing
import WaylandServer
import XWindowManager
import Xwayland

/// evdev key codes (linux/input-event-codes.h) of the keys the tests type.
let evdevKeys: [Character: UInt32] = [
    "a": 30, "b": 48, "c": 46, "d": 32, "e": 18, "f": 33, "g": 34, "h": 35, "i": 23, "j": 36, "k": 37, "l": 38, "m": 50,
    "n": 49, "o": 24, "p": 25, "q": 16, "r": 19, "s": 31, "t": 20, "u": 22, "v": 47, "w": 17, "x": 45, "y": 21, "z": 44,
    "-": 12, " ": 57, "\n": 28,
]

extension XwaylandSession {
    /// Types `text` through the compositor's input path (what libinput's key events become).
    func type(_ text: String) throws {
        let device = InputDeviceID(rawValue: 1)
        for character in text {
            let code = try #require(evdevKeys[character])
            compositor.handle(.key(time: nextInputTime(), device: device, code: code, isPressed: true))
            try run(seconds: 0.02)
            compositor.handle(.key(time: nextInputTime(), device: device, code: code, isPressed: false))
            try run(seconds: 0.02)
        }
    }

    private func nextInputTime() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000 + UInt64(time.tv_nsec) / 1000
    }

    /// The X windows shown (mapped, with their surface), in the order X made them.
    var shownWindows: [XWindow] { xwayland.windowManager?.windows.filter { $0.isMapped && $0.surface != nil } ?? [] }
}

let white = PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255)
let black = PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)

@Suite(.serialized) struct XtermTests {
    @Test func xtermIsShownFullscreenAndGetsWhatIsTypedThroughVitrinesInput() throws {
        let session = try XwaylandSession(width: 640, height: 480)
        let typedPath = NSTemporaryDirectory() + "xterm-typed-\(getpid()).txt"
        unlink(typedPath)
        defer { unlink(typedPath) }
        let xterm = try session.launch([
            "xterm", "-geometry", "40x10", "-fa", "DejaVu Sans Mono", "-fs", "14", "-T", "vitrine-xterm",
            "-e", "sh", "-c", "read line; printf '%s\\n' \"$line\" > \(typedPath); sleep 60",
        ])
        defer { xterm.terminate(graceSeconds: 1) }
        #expect(try session.run(seconds: 60) { !session.shownWindows.isEmpty })
        let window = try #require(session.shownWindows.first)
        // xterm asked for 40×10 cells; the kiosk makes it the whole output.
        #expect(window.frame == IntRect(x: 0, y: 0, width: 640, height: 480))
        #expect(window.title == "vitrine-xterm")
        #expect(window.instanceName == "xterm")
        #expect(window.className == "XTerm")
        #expect(window.processID == xterm.pid)
        #expect(session.compositor.seat.keyboardFocus === window.surface)
        let state = try session.output(of: ["xprop", "-id", "\(window.id)", "_NET_WM_STATE"])
        #expect(state == "_NET_WM_STATE(ATOM) = _NET_WM_STATE_FULLSCREEN\n")

        // Let xterm draw its resized terminal, then type.
        try session.run(seconds: 2)
        try session.type("vitrine x-eleven")
        try session.run(seconds: 1)
        let screen = try #require(session.compositor.capture())
        // xterm's default colours, white behind black text, over all of the output.
        for (x, y) in [(0, 0), (639, 0), (0, 479), (639, 479), (320, 400)] {
            #expect(screen.pixel(x: x, y: y) == white)
        }
        #expect((0..<200).contains { x in (0..<40).contains { y in screen.pixel(x: x, y: y) == black } })
        try session.type("\n")
        #expect(try session.run(seconds: 20) { (try? String(contentsOfFile: typedPath, encoding: .utf8)) == "vitrine x-eleven\n" })
    }
}
