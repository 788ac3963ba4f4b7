import Compositor
import Glibc
import Testing
import WaylandProtocols
import WaylandTestClient

/// What the kiosk tells windows it supports (xdg_toplevel.wm_capabilities, xdg_wm_base 5), and the
/// xdg_wm_base 4 offered instead to the clients listed as aborting on that event.
@Suite struct WindowCapabilitiesTests {
    private func shellVersions(seenBy client: SessionClient) -> [UInt32] {
        client.client.globals.values.filter { $0.interface == "xdg_wm_base" }.map(\.version)
    }

    @Test func aKioskWindowIsToldThatNoWindowManagementRequestDoesAnything() throws {
        let session = try HeadlessSession()
        let client = try SessionClient(session, shellVersion: 6)
        let (_, _, toplevel) = try CompositorTests.toplevel(client)
        // Always fullscreen: maximize, minimize, fullscreen toggles and a window menu change
        // nothing. Configured when made and again for its first commit; the capabilities once.
        let fullscreen: [UInt8] = [2, 0, 0, 0]
        #expect(toplevel.events == [
            .wmCapabilities(capabilities: []),
            .configure(width: 640, height: 480, states: fullscreen), .configure(width: 640, height: 480, states: fullscreen),
        ])
    }

    @Test func everyClientSeesOneXdgWmBaseAtVersion6() throws {
        let session = try HeadlessSession()
        session.compositor.clientsWithoutWindowCapabilities = [.user(getuid() &+ 1), .executable("/usr/bin/true")]
        #expect(shellVersions(seenBy: try SessionClient(session)) == [6])
    }

    @Test func aListedClientSeesXdgWmBaseAtVersion4AndHearsNoCapabilities() throws {
        let session = try HeadlessSession()
        session.compositor.clientsWithoutWindowCapabilities = [.user(getuid())]
        let client = try SessionClient(session)
        #expect(shellVersions(seenBy: client) == [4])
        let (_, _, toplevel) = try CompositorTests.toplevel(client)
        #expect(toplevel.events.map(\.name) == ["configure", "configure"])
    }

    /// weston 10's presentation-shm binds the advertised version and has no wm_capabilities handler.
    @Test func westonPresentationShmListedRunsWhereVersion6WouldAbortIt() throws {
        let session = try HeadlessSession()
        session.compositor.clientsWithoutWindowCapabilities = [.executable("/usr/bin/weston-presentation-shm")]
        try session.launch(["weston-presentation-shm"])
        #expect(try session.runFrames(10, seconds: 30))
        #expect(session.compositor.windowStack.count == 1)
    }
}
