import AppProcesses
import BoardConfig
import Compositor
import DisplayBackend
import Foundation
import Glibc
import HeadlessBackend
import KioskShell
import Testing
import WaylandServer

/// The end-to-end case for external keyboards: Debian's squeekboard, the board's external
/// keyboard (`keyboard = "external"`), started by the kiosk session, typing through
/// zwp_input_method_v2 into a real GTK 4 entry (Tests/KioskShellTests/Clients/gtk_text_field.py).
///
/// squeekboard needs a session bus (it owns sm.puri.OSK0) and shows only while GNOME's
/// screen-keyboard-enabled setting is on; the test gives it a private bus (dbus-run-session) and
/// that setting in a keyfile of its own.
@Suite(.serialized) struct SqueekboardTests {
    static func lines(_ path: String) -> [Substring] { GTKOnScreenKeyboardTests.lines(path) }

    @Test func squeekboardTypesIntoAGTKEntryThroughTheInputMethod() throws {
        let settings = NSTemporaryDirectory() + "vitrine-squeekboard-\(getpid())"
        try FileManager.default.createDirectory(atPath: settings + "/glib-2.0/settings", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: settings) }
        try "[org/gnome/desktop/a11y/applications]\nscreen-keyboard-enabled=true\n"
            .write(toFile: settings + "/glib-2.0/settings/keyfile", atomically: true, encoding: .utf8)
        let keyboard = OnScreenKeyboardSettings(
            isEnabled: true, keyboard: .external,
            externalCommand: ["/usr/bin/env", "GSETTINGS_BACKEND=keyfile", "XDG_CONFIG_HOME=\(settings)",
                              "/usr/bin/dbus-run-session", "--", "/usr/bin/squeekboard"])
        // A portrait 720×1280 panel: squeekboard's phone layout, its keys 72 points wide.
        let kiosk = try OnScreenKeyboardKiosk(
            settings: keyboard,
            output: HeadlessOutputConfiguration(mode: OutputMode(width: 720, height: 1280, refreshMillihertz: 60_000)),
            privilegeRules: [PrivilegeRule(.executable("/usr/bin/squeekboard"), privileges: [.layerShell, .virtualInput, .inputMethod])])
        #expect(kiosk.session.onScreenKeyboard == nil, "the built-in keyboard is not made")
        let output = NSTemporaryDirectory() + "vitrine-squeekboard-gtk-\(getpid()).out"
        unlink(output)
        defer { unlink(output) }
        let app = try ClientProcess(
            arguments: ["/usr/bin/python3", GTKOnScreenKeyboardTests.script],
            environment: [
                "WAYLAND_DISPLAY": kiosk.socketName, "XDG_RUNTIME_DIR": kiosk.runtimeDirectory, "GDK_BACKEND": "wayland",
                "GSK_RENDERER": "cairo", "GTK_IM_MODULE": "wayland", "GTK_A11Y": "none", "NO_AT_BRIDGE": "1",
            ],
            removing: ["DISPLAY"], standardOutput: output, endingWithThisProcess: true)
        defer { app.terminate() }

        // The entry is focused from the start: its text input activates squeekboard, which shows.
        let compositor = kiosk.compositor
        let shown = try kiosk.run(seconds: 60) {
            app.poll() || compositor.seat.inputMethod?.isActive == true
                && compositor.layerShell.layerSurfaces.contains { $0.isMapped }
                && Self.lines(output).contains { $0.hasPrefix("bounds button") }
        }
        #expect(shown && !app.poll(), "the app printed: \(Self.lines(output))")
        let board = try #require(compositor.layerShell.layerSurfaces.first { $0.isMapped })
        #expect(board.state.anchor.isSuperset(of: [LayerSurface.Edges.bottom, .left, .right]))
        #expect(kiosk.session.externalKeyboardProcessID != nil)
        let size = try #require(board.configuredSize)
        #expect(size.width == 720)
        let height = Double(size.height == 0 ? board.state.height : size.height)
        let top = 1280 - height

        // Its first two rows: q…p, ten keys across; a…l, nine keys indented by half a key.
        func click(column: Double, row: Double) throws {
            let x = column / 10 * 720, y = top + (row + 0.5) / 4 * height
            compositor.pointerMoved(toX: x - 1, y: y)
            try kiosk.run(seconds: 0.1) { false }
            compositor.pointerMoved(toX: x, y: y)
            try kiosk.run(seconds: 0.1) { false }
            compositor.pointerButton(0x110, pressed: true)
            try kiosk.run(seconds: 0.1) { false }
            compositor.pointerButton(0x110, pressed: false)
        }
        try click(column: 6, row: 1)  // h: the sixth of a…l, centred at 5.5 + 0.5 keys
        #expect(try kiosk.run(seconds: 10) { Self.lines(output).last == "text:h" }, "the app printed: \(Self.lines(output))")
        try click(column: 7.5, row: 0)  // i: the eighth of q…p
        #expect(try kiosk.run(seconds: 10) { Self.lines(output).last == "text:hi" }, "the app printed: \(Self.lines(output))")
        #expect(Self.lines(output).filter { $0.hasPrefix("text:") } == ["text:h", "text:hi"])
    }
}
