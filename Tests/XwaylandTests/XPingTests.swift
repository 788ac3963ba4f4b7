import Foundation
import Glibc
import Testing
import XWindowManager

/// `_NET_WM_PING`: the window manager pings the X windows that list it in `WM_PROTOCOLS`, as
/// xdg_wm_base pings Wayland clients, and a window that leaves a ping unanswered past the
/// compositor's ping timeout has its process reported to `clientUnresponsive` (the kiosk shell
/// restarts the app then; `KioskSessionTests` shows that for an X app). GTK 3 lists and answers
/// it; Debian 12's Tk 8.6.13 does not list it (its windows are not pinged).
@Suite(.serialized) struct XPingTests {
    @Test func aGTK3AppAnswersPingsAndIsReportedOnceItStopsAnswering() throws {
        let session = try XwaylandSession(width: 640, height: 480)
        session.compositor.pingTimeoutMilliseconds = 3000
        var unresponsive: [Int32] = []
        session.compositor.clientUnresponsive = { unresponsive.append($0) }
        let (app, printed) = try session.launchPrinting(
            ["/usr/bin/python3", XwaylandSession.client("gtk3_x11_form.py")], environment: ["GDK_BACKEND": "x11", "NO_AT_BRIDGE": "1"])
        defer {
            kill(app.pid, SIGCONT)
            app.terminate(graceSeconds: 1)
        }
        #expect(try session.run(seconds: 60) { geometry(named: "button", in: printed()) != nil && !session.shownWindows.isEmpty })
        let window = try #require(session.shownWindows.first)
        let manager = try #require(session.xwayland.windowManager)

        // Windows of other processes are not pinged.
        manager.ping { $0 != app.pid }
        #expect(!window.isAwaitingPong)
        // GTK lists _NET_WM_PING and answers each ping.
        for _ in 0..<3 {
            manager.ping { $0 == app.pid }
            #expect(window.isAwaitingPong)
            #expect(try session.run(seconds: 10) { !window.isAwaitingPong })
        }
        #expect(unresponsive.isEmpty)

        // Stopped, it leaves the ping unanswered: its process is reported once the timeout has
        // passed, once, though it was pinged again meanwhile.
        kill(app.pid, SIGSTOP)
        manager.ping { $0 == app.pid }
        try session.run(seconds: 1)
        manager.ping { $0 == app.pid }
        #expect(window.isAwaitingPong)
        #expect(try session.run(seconds: 10) { !unresponsive.isEmpty })
        try session.run(seconds: 0.5)
        #expect(unresponsive == [app.pid])

        // Going on, it answers again.
        kill(app.pid, SIGCONT)
        manager.ping { $0 == app.pid }
        #expect(try session.run(seconds: 10) { !window.isAwaitingPong })
        #expect(unresponsive == [app.pid])
    }
}
