import Compositor
import Graphics
import LayerKit
import Testing
import WaylandServer

/// Debian's layer-shell clients on the headless compositor: wvkbd (an on-screen keyboard on the
/// layer shell and the virtual keyboard) types into the app, and mako shows a notification.
@Suite struct LayerShellClientTests {
    /// wvkbd, 240 points high along the bottom of a 640×480 output, takes its height from the app
    /// (its exclusive zone) but never the keyboard focus; a click on its q key (the first key of
    /// its third row of six: 40 points a row from y 240, x 0…64 less its indent) reaches wev, the
    /// app, as a q.
    @Test func wvkbdTypesIntoTheAppAndTakesItsRoomAlongTheBottom() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [
            PrivilegeRule(.executable("/usr/bin/wvkbd-mobintl"), privileges: [.layerShell, .virtualInput])
        ]
        try session.launch(["sh", "-c", "wvkbd-mobintl -L 240 & exec stdbuf -oL wev -f wl_keyboard:key"])
        let ready = try session.run(seconds: 30) {
            session.compositor.layerShell.layerSurfaces.contains { $0.isMapped } && session.compositor.seat.keyboardFocus != nil
        }
        #expect(ready, "wvkbd and wev printed: \(session.clientOutput)")
        let board = try #require(session.compositor.layerShell.layerSurfaces.first)
        #expect(board.state.anchor == [.bottom, .left, .right])
        #expect(board.configuredSize.map { [$0.width, $0.height] } == [640, 240])
        #expect(session.compositor.windowArea == Rect(x: 0, y: 0, width: 640, height: 240))
        #expect(session.compositor.seat.keyboardFocus !== board.surface)

        // wvkbd finds the key under the pointer from motion events (not from enter's position).
        session.compositor.pointerMoved(toX: 59, y: 339)
        try session.run(seconds: 0.1)
        session.compositor.pointerMoved(toX: 60, y: 340)
        try session.run(seconds: 0.1)
        session.compositor.pointerButton(0x110, pressed: true)
        try session.run(seconds: 0.2)
        session.compositor.pointerButton(0x110, pressed: false)
        let typed = try session.run(seconds: 10) { session.clientOutput.contains("sym: q") }
        #expect(typed, "wev printed: \(session.clientOutput)")
        #expect(session.compositor.seat.keyboardFocus !== board.surface)
    }

    /// mako's notification: its default 300×100 box (#285577 inside a #4C7899 border) at the top
    /// right, 10 points in, over the app.
    @Test func makoShowsANotificationAtTheTopRight() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [PrivilegeRule(.executable("/usr/bin/mako"), privileges: [.layerShell])]
        try session.launch([
            "dbus-run-session", "--", "sh", "-c",
            "mako & until notify-send Vitrine 'A notification from mako'; do sleep 0.2; done; sleep 30",
        ])
        let shown = try session.run(seconds: 30) {
            session.compositor.layerShell.layerSurfaces.contains { $0.isMapped && $0.namespace == "notifications" }
        }
        #expect(shown, "mako printed: \(session.clientOutput)")
        let notification = try #require(session.compositor.layerShell.layerSurfaces.first { $0.isMapped })
        #expect(notification.state.layer == .top)
        #expect(notification.state.anchor == [.top, .right])
        let inside = PremultipliedPixel(red: 0x28, green: 0x55, blue: 0x77, alpha: 255)
        let drawn = try session.run(seconds: 10) { session.screen?.pixel(x: 600, y: 50) == inside }
        #expect(drawn)
        let screen = try #require(session.screen)
        // The border's outer corner: 640 - 10 margin - 1.
        #expect(screen.pixel(x: 629, y: 10) == PremultipliedPixel(red: 0x4c, green: 0x78, blue: 0x99, alpha: 255))
        #expect(screen.pixel(x: 630, y: 10) == black)
    }
}
