import AppProcesses
import BoardConfig
import Compositor
import Foundation
import Glibc
import Graphics
import Input
import LayerKit
import Testing
import WaylandServer
import XWindowManager
import Xwayland

extension XwaylandSession {
    /// Moves the pointer to (`x`, `y`) output points and clicks the left button there, through the
    /// compositor's input path (an absolute pointer covering the output).
    func click(x: Double, y: Double, outputSize: (width: Double, height: Double)) throws {
        let device = InputDeviceID(rawValue: 2)
        compositor.handle(.pointerMotionAbsolute(time: 0, device: device, x: x / outputSize.width, y: y / outputSize.height))
        try run(seconds: 0.1)
        // BTN_LEFT
        compositor.handle(.pointerButton(time: 0, device: device, code: 272, isPressed: true))
        try run(seconds: 0.1)
        compositor.handle(.pointerButton(time: 0, device: device, code: 272, isPressed: false))
        try run(seconds: 0.1)
    }
}

/// Lines "NAME at X Y WIDTH HEIGHT" that the Tk app prints.
func geometry(named name: String, in output: String) -> IntRect? {
    for line in output.split(separator: "\n") where line.hasPrefix("\(name) at ") {
        let numbers = line.dropFirst(name.count + 4).split(separator: " ").compactMap { Int32($0) }
        if numbers.count == 4 { return IntRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]) }
    }
    return nil
}

@Suite(.serialized) struct TkMenuTests {
    @Test func aTkDropDownIsShownWhereXPutItAndClicksReachTheApp() throws {
        let session = try XwaylandSession(width: 640, height: 480)
        let (wish, printed) = try session.launchPrinting(["wish", XwaylandSession.client("tk_menu.tcl")])
        defer { wish.terminate(graceSeconds: 1) }
        #expect(try session.run(seconds: 60) { geometry(named: "press", in: printed()) != nil })
        let window = try #require(session.shownWindows.first)
        #expect(window.frame == IntRect(x: 0, y: 0, width: 640, height: 480))
        #expect(window.title == "vitrine-tk")
        // Tk names the class after the script.
        #expect(window.className == "Tk_menu.tcl")

        // A button: its click arrives.
        let button = try #require(geometry(named: "press", in: printed()))
        try session.click(x: Double(button.x + button.width / 2), y: Double(button.y + button.height / 2), outputSize: (640, 480))
        #expect(try session.run(seconds: 10) { printed().contains("pressed\n") })

        // The menu button: Tk posts its drop-down, an override-redirect window, under it.
        let menuButton = try #require(geometry(named: "file", in: printed()))
        try session.click(x: Double(menuButton.x + menuButton.width / 2), y: Double(menuButton.y + menuButton.height / 2), outputSize: (640, 480))
        #expect(try session.run(seconds: 10) { geometry(named: "menu", in: printed()) != nil && session.shownWindows.count == 2 })
        let placed = try #require(geometry(named: "menu", in: printed()))
        let menu = try #require(session.shownWindows.first { $0.isOverrideRedirect })
        #expect(menu.className == "Menu")
        #expect(menu.frame == placed)
        let surface = try #require(menu.surface)
        #expect(session.compositor.windowAreaPosition(of: surface) == Point(x: Double(placed.x), y: Double(placed.y)))
        // What the output shows there is the drop-down: its "Open" entry is lit, Tk's #ececec.
        try session.run(seconds: 0.5)
        let screen = try #require(session.compositor.capture())
        #expect(screen.pixel(x: Int(placed.x) + Int(placed.width) - 8, y: Int(placed.y) + 4) == PremultipliedPixel(red: 0xEC, green: 0xEC, blue: 0xEC, alpha: 255))

        // Its first item, clicked, is chosen; the drop-down goes.
        try session.click(x: Double(placed.x + placed.width / 2), y: Double(placed.y + placed.height / 4), outputSize: (640, 480))
        #expect(try session.run(seconds: 10) { printed().contains("chose Open\n") && session.shownWindows.count == 1 })
    }
}

@Suite(.serialized) struct TkDialogTests {
    @Test func aTransientDialogKeepsItsSizeCentredAboveItsParentAndTakesTheFocus() throws {
        let session = try XwaylandSession(width: 640, height: 480)
        let wish = try session.launch(["wish", XwaylandSession.client("tk_dialog.tcl")], output: "/dev/null")
        defer { wish.terminate(graceSeconds: 1) }
        #expect(try session.run(seconds: 60) { session.shownWindows.count == 2 })
        let main = try #require(session.shownWindows.first { $0.title == "vitrine-tk-main" })
        let dialog = try #require(session.shownWindows.first { $0.title == "vitrine-tk-dialog" })
        #expect(dialog.transientFor === main)
        #expect(main.frame == IntRect(x: 0, y: 0, width: 640, height: 480))
        #expect(dialog.frame == IntRect(x: 220, y: 190, width: 200, height: 100))
        #expect(session.compositor.seat.keyboardFocus === dialog.surface)
        let state = try session.output(of: ["xprop", "-id", "\(dialog.id)", "_NET_WM_STATE"])
        #expect(state == "_NET_WM_STATE(ATOM) = \n")
        try session.run(seconds: 0.5)
        let screen = try #require(session.compositor.capture())
        let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
        let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
        #expect(screen.pixel(x: 220, y: 190) == red)
        #expect(screen.pixel(x: 419, y: 289) == red)
        #expect(screen.pixel(x: 219, y: 190) == blue)
        #expect(screen.pixel(x: 420, y: 289) == blue)

        // A client that makes the parent a dialog of its own dialog gets no cycle: the parent
        // stays a toplevel.
        let set = try session.output(of: [
            "xprop", "-id", "\(main.id)", "-f", "WM_TRANSIENT_FOR", "32x", "-set", "WM_TRANSIENT_FOR", "\(dialog.id)",
        ])
        #expect(set == "")
        let readBack = try session.output(of: ["xprop", "-id", "\(main.id)", "WM_TRANSIENT_FOR"])
        #expect(readBack == "WM_TRANSIENT_FOR(CARDINAL) = \(dialog.id)\n")
        try session.run(seconds: 0.5)
        #expect(main.transientFor == nil)
        #expect(dialog.transientFor === main)
    }
}

extension XwaylandSession {
    /// Runs a form app (a focused entry and a button; it prints "entry at X Y W H" and
    /// "button at …" once shown, "text:TEXT" on every change and "clicked") titled `title`, and
    /// checks that it is fullscreen, laid out across the output between 40-point margins, and
    /// gets `kiosk` typed into its entry and a click on its button. Returns it, still running.
    func runFormApp(_ arguments: [String], environment: [String: String] = [:], title: String) throws -> ClientProcess {
        let (app, printed) = try launchPrinting(arguments, environment: environment)
        var checked = false
        defer { if !checked { app.terminate(graceSeconds: 1) } }
        #expect(try run(seconds: 120) { geometry(named: "button", in: printed()) != nil })
        let window = try #require(shownWindows.first)
        #expect(window.frame == IntRect(x: 0, y: 0, width: 640, height: 480))
        #expect(window.title == title)
        #expect(window.processID == app.pid)
        let entry = try #require(geometry(named: "entry", in: printed()))
        let button = try #require(geometry(named: "button", in: printed()))
        #expect(entry.x == 40 && entry.width == 560)
        #expect(button.x == 40 && button.width == 560)
        try type("kiosk")
        #expect(try run(seconds: 10) { printed().contains("text:kiosk\n") })
        try click(x: Double(button.x + button.width / 2), y: Double(button.y + button.height / 2), outputSize: (640, 480))
        #expect(try run(seconds: 10) { printed().contains("clicked\n") })
        checked = true
        return app
    }
}

@Suite(.serialized) struct GTK3X11Tests {
    @Test func aGTK3AppOnX11IsFullscreenAndGetsTypingAndClicks() throws {
        let session = try XwaylandSession(width: 640, height: 480)
        let app = try session.runFormApp(
            ["/usr/bin/python3", XwaylandSession.client("gtk3_x11_form.py")], environment: ["GDK_BACKEND": "x11", "NO_AT_BRIDGE": "1"],
            title: "vitrine-gtk3")
        app.terminate(graceSeconds: 1)
    }
}

/// The fit policy applies to X toplevels: a Tk window whose minimum size (1280×720) is larger
/// than the 640×480 output is configured to its minimum size and, by `fit = scale`, shown at half
/// its size with 60-point bars above and below; its drop-down menu is shown where X put it
/// relative to the window, through the same scale, and clicks land where they are seen.
@Suite(.serialized) struct TkFitTests {
    @Test func aTkWindowLargerThanTheOutputIsScaledToFitWithItsMenuAndClicksReachIt() throws {
        let session = try XwaylandSession(width: 640, height: 480)
        session.windowPolicy.fit = .scale
        let (wish, printed) = try session.launchPrinting(["wish", XwaylandSession.client("tk_large.tcl")])
        defer { wish.terminate(graceSeconds: 1) }
        #expect(try session.run(seconds: 60) { geometry(named: "window", in: printed()) != nil })
        let window = try #require(session.shownWindows.first)
        #expect(window.minimumSize == (1280, 720))
        #expect(window.frame == IntRect(x: 0, y: 0, width: 1280, height: 720))
        #expect(geometry(named: "window", in: printed()) == IntRect(x: 0, y: 0, width: 1280, height: 720))
        let layer = try #require(window.surface.flatMap { session.compositor.layer(for: $0) })
        #expect(layer.position == Point(x: 0, y: 60))
        #expect(layer.transform == Transform3D(scaleX: 0.5, y: 0.5))
        /// Where X's root point (`x`, `y`) is shown on the output.
        func shown(_ x: Int32, _ y: Int32) -> (x: Double, y: Double) { (Double(x) / 2, 60 + Double(y) / 2) }

        let button = try #require(geometry(named: "press", in: printed()))
        let press = shown(button.x + button.width / 2, button.y + button.height / 2)
        try session.click(x: press.x, y: press.y, outputSize: (640, 480))
        #expect(try session.run(seconds: 10) { printed().contains("pressed\n") })

        let menuButton = try #require(geometry(named: "file", in: printed()))
        let file = shown(menuButton.x + menuButton.width / 2, menuButton.y + menuButton.height / 2)
        try session.click(x: file.x, y: file.y, outputSize: (640, 480))
        #expect(try session.run(seconds: 10) { geometry(named: "menu", in: printed()) != nil && session.shownWindows.count == 2 })
        let placed = try #require(geometry(named: "menu", in: printed()))
        let menu = try #require(session.shownWindows.first { $0.isOverrideRedirect })
        #expect(menu.frame == placed)
        let menuLayer = try #require(menu.surface.flatMap { session.compositor.layer(for: $0) })
        let corner = shown(placed.x, placed.y)
        #expect(menuLayer.position == Point(x: corner.x, y: corner.y))
        #expect(menuLayer.transform == Transform3D(scaleX: 0.5, y: 0.5))
        // The blue frame in the window's bottom-right corner, (1080, 620) to its edge, is shown
        // at half its size above the bottom bar.
        try session.run(seconds: 0.5)
        let screen = try #require(session.compositor.capture())
        #expect(screen.pixel(x: 590, y: 395) == PremultipliedPixel(red: 0x20, green: 0x60, blue: 0xC0, alpha: 255))
        #expect(screen.pixel(x: 590, y: 425) == PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255))
        let open = shown(placed.x + placed.width / 2, placed.y + placed.height / 4)
        try session.click(x: open.x, y: open.y, outputSize: (640, 480))
        #expect(try session.run(seconds: 10) { printed().contains("chose Open\n") && session.shownWindows.count == 1 })
    }
}

/// A touch reaches an X client the way it reaches a Wayland one: Xwayland turns the wl_touch
/// points on its surface into X touch events, which X emulates as the pointer for Tk.
@Suite(.serialized) struct XTouchTests {
    @Test func aTouchOnATkButtonReachesItsCommand() throws {
        let session = try XwaylandSession(width: 640, height: 480)
        let (wish, printed) = try session.launchPrinting(["wish", XwaylandSession.client("tk_menu.tcl")])
        defer { wish.terminate(graceSeconds: 1) }
        #expect(try session.run(seconds: 60) { geometry(named: "press", in: printed()) != nil })
        let button = try #require(geometry(named: "press", in: printed()))
        let device = InputDeviceID(rawValue: 3)
        let x = Double(button.x + button.width / 2) / 640, y = Double(button.y + button.height / 2) / 480
        session.compositor.handle(.touchDown(time: 0, device: device, slot: 0, x: x, y: y))
        session.compositor.handle(.touchFrame(time: 0, device: device))
        try session.run(seconds: 0.1)
        session.compositor.handle(.touchUp(time: 0, device: device, slot: 0))
        session.compositor.handle(.touchFrame(time: 0, device: device))
        #expect(try session.run(seconds: 10) { printed().contains("pressed\n") })
    }
}
