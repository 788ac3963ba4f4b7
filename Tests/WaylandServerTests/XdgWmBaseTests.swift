import Testing
import WaylandServer
import WaylandTestClient

@Suite struct XdgWmBaseTests {
    @Test func registryAdvertisesTheXdgGlobalsAtTheirVersions() throws {
        let harness = try XdgHarness()
        let globals = Dictionary(harness.client.globals.values.map { ($0.interface, $0.version) }, uniquingKeysWith: max)
        #expect(globals["xdg_wm_base"] == 5)
        #expect(globals["zxdg_decoration_manager_v1"] == 1)
        #expect(globals["xdg_activation_v1"] == 1)
    }

    @Test func pongWithThePingSerialStopsTheTimer() throws {
        let harness = try XdgHarness()
        harness.shell.pingTimeoutMilliseconds = 20
        let client = harness.serverClient
        #expect(try harness.shell.ping(client))
        try harness.client.roundtrip()
        let pings = harness.wmBase.events(named: "ping")
        #expect(pings.count == 1)
        guard case .uint(let serial)? = pings.first?.arguments.first else {
            Issue.record("no ping")
            return
        }
        #expect(harness.shell.isAwaitingPong(from: client))
        try harness.wmBase.send(3, [.uint(serial)])
        try harness.client.roundtrip()
        #expect(!harness.shell.isAwaitingPong(from: client))
        try harness.pump(forMilliseconds: 60)
        #expect(harness.policy.unansweredPings.isEmpty)
    }

    @Test func aMissingPongIsReportedOnceAfterTheTimeout() throws {
        let harness = try XdgHarness()
        harness.shell.pingTimeoutMilliseconds = 20
        let client = harness.serverClient
        try harness.shell.ping(client)
        try harness.client.roundtrip()
        #expect(harness.policy.unansweredPings.isEmpty)
        try harness.pump(forMilliseconds: 1000) { !harness.policy.unansweredPings.isEmpty }
        #expect(harness.policy.unansweredPings.count == 1)
        #expect(harness.policy.unansweredPings.first === client)
        #expect(!harness.shell.isAwaitingPong(from: client))
        try harness.pump(forMilliseconds: 60)
        #expect(harness.policy.unansweredPings.count == 1)
    }

    @Test func aPongWithAnotherSerialDoesNotAnswerThePing() throws {
        let harness = try XdgHarness()
        harness.shell.pingTimeoutMilliseconds = 20
        let client = harness.serverClient
        try harness.shell.ping(client)
        try harness.client.roundtrip()
        guard case .uint(let serial)? = harness.wmBase.events(named: "ping").first?.arguments.first else {
            Issue.record("no ping")
            return
        }
        try harness.wmBase.send(3, [.uint(serial &+ 1)])
        try harness.client.roundtrip()
        #expect(harness.shell.isAwaitingPong(from: client))
        try harness.pump(forMilliseconds: 1000) { !harness.policy.unansweredPings.isEmpty }
        #expect(harness.policy.unansweredPings.count == 1)
    }

    @Test func aSecondPingWhileOneIsUnansweredSendsNothing() throws {
        let harness = try XdgHarness()
        let client = harness.serverClient
        try harness.shell.ping(client)
        try harness.shell.ping(client)
        try harness.client.roundtrip()
        #expect(harness.wmBase.events(named: "ping").count == 1)
    }

    @Test func pingingAClientWithoutXdgWmBaseReturnsFalse() throws {
        let harness = try XdgHarness()
        _ = try harness.core.connect()
        let other = try #require(harness.display.connectedClients.first { $0 !== harness.serverClient })
        #expect(try !harness.shell.ping(other))
    }

    @Test func anUnresponsiveClientCanBeDisconnectedWithTheUnresponsiveError() throws {
        let harness = try XdgHarness()
        harness.shell.postUnresponsiveError(harness.serverClient)
        harness.expectError("xdg_wm_base", harness.wmBase.id, code: 6)
    }

    @Test func destroyingXdgWmBaseWhileItsSurfacesExistIsDefunctSurfaces() throws {
        let harness = try XdgHarness()
        _ = try harness.makeToplevel()
        try harness.wmBase.send(0)
        harness.expectError("xdg_wm_base", harness.wmBase.id, code: 1)
    }

    @Test func destroyingXdgWmBaseAfterItsSurfacesIsAllowed() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.sendDestructor(0)
        try window.xdgSurface.sendDestructor(0)
        try harness.wmBase.sendDestructor(0)
        try harness.client.roundtrip()
        #expect(harness.policy.calls.suffix(1) == ["toplevelDestroyed"])
    }

    @Test func anXdgSurfaceForASubsurfaceIsARoleError() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeSurface()
        let child = try harness.makeSurface()
        let subcompositor = try harness.client.bind("wl_subcompositor", version: 1)
        _ = try subcompositor.send(1, [.newID, .object(child), .object(parent)], interface: "wl_subsurface")
        _ = try harness.wmBase.send(2, [.newID, .object(child)], interface: "xdg_surface")
        harness.expectError("xdg_wm_base", harness.wmBase.id, code: 0)
    }

    @Test func aSecondXdgSurfaceForOneSurfaceIsARoleError() throws {
        let harness = try XdgHarness()
        let surface = try harness.makeSurface()
        _ = try harness.wmBase.send(2, [.newID, .object(surface)], interface: "xdg_surface")
        _ = try harness.wmBase.send(2, [.newID, .object(surface)], interface: "xdg_surface")
        harness.expectError("xdg_wm_base", harness.wmBase.id, code: 0)
    }

    @Test func anXdgSurfaceForASurfaceWithACommittedBufferIsInvalidSurfaceState() throws {
        let harness = try XdgHarness()
        let surface = try harness.makeSurface()
        try harness.attachBuffer(to: surface, width: 10, height: 10)
        try harness.commit(surface)
        _ = try harness.wmBase.send(2, [.newID, .object(surface)], interface: "xdg_surface")
        harness.expectError("xdg_wm_base", harness.wmBase.id, code: 4)
    }

    @Test func anXdgSurfaceForASurfaceWithAnAttachedBufferIsInvalidSurfaceState() throws {
        let harness = try XdgHarness()
        let surface = try harness.makeSurface()
        try harness.attachBuffer(to: surface, width: 10, height: 10)
        _ = try harness.wmBase.send(2, [.newID, .object(surface)], interface: "xdg_surface")
        harness.expectError("xdg_wm_base", harness.wmBase.id, code: 4)
    }

    @Test func aSurfaceGetsANewXdgSurfaceAndToplevelAfterTheOldOnesAreDestroyed() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.sendDestructor(0)
        try window.xdgSurface.sendDestructor(0)
        let xdgSurface = try harness.wmBase.send(2, [.newID, .object(window.surface)], interface: "xdg_surface")
        _ = try xdgSurface.send(1, [.newID], interface: "xdg_toplevel")
        try harness.client.roundtrip()
        #expect(harness.policy.toplevels.count == 2)
        #expect(harness.shell.toplevels.count == 1)
    }
}
