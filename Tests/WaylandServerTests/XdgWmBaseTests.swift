import Testing
import WaylandServer
import WaylandTestClient

@Suite struct XdgWmBaseTests {
    @Test func registryAdvertisesTheXdgGlobalsAtTheirVersions() throws {
        let harness = try XdgHarness()
        let globals = Dictionary(harness.client.globals.values.map { ($0.interface, $0.version) }, uniquingKeysWith: max)
        #expect(globals["xdg_wm_base"] == 6)
        #expect(globals["zxdg_decoration_manager_v1"] == 1)
        #expect(globals["xdg_activation_v1"] == 1)
    }

    @Test func pongWithThePingSerialStopsTheTimer() throws {
        let harness = try XdgHarness()
        // Long enough that the pong comes first however loaded the machine, short enough to wait out.
        harness.shell.pingTimeoutMilliseconds = 300
        let client = harness.serverClient
        #expect(try harness.shell.ping(client))
        try harness.client.roundtrip()
        #expect(harness.wmBase.events.count == 1)
        guard case .ping(let serial)? = harness.wmBase.events.first else {
            Issue.record("no ping")
            return
        }
        #expect(harness.shell.isAwaitingPong(from: client))
        try harness.wmBase.pong(serial: serial)
        try harness.client.roundtrip()
        #expect(!harness.shell.isAwaitingPong(from: client))
        try harness.pump(forMilliseconds: 600)
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
        guard case .ping(let serial)? = harness.wmBase.events.first else {
            Issue.record("no ping")
            return
        }
        try harness.wmBase.pong(serial: serial &+ 1)
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
        #expect(harness.wmBase.events.count == 1)
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
        harness.expectError(XdgWmBaseError.unresponsive, on: harness.wmBase)
    }

    @Test func destroyingXdgWmBaseWhileItsSurfacesExistIsDefunctSurfaces() throws {
        let harness = try XdgHarness()
        _ = try harness.makeToplevel()
        try harness.wmBase.destroy()
        harness.expectError(XdgWmBaseError.defunctSurfaces, on: harness.wmBase)
    }

    @Test func destroyingXdgWmBaseAfterItsSurfacesIsAllowed() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.destroy()
        try window.xdgSurface.destroy()
        try harness.wmBase.destroy()
        try harness.client.roundtrip()
        #expect(harness.policy.calls.suffix(1) == ["toplevelDestroyed"])
    }

    @Test func anXdgSurfaceForASubsurfaceIsARoleError() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeSurface()
        let child = try harness.makeSurface()
        let subcompositor = try harness.client.bind(WlSubcompositorProxy.self, version: 1)
        try subcompositor.getSubsurface(surface: child, parent: parent)
        try harness.wmBase.getXdgSurface(surface: child)
        harness.expectError(XdgWmBaseError.role, on: harness.wmBase)
    }

    @Test func aSecondXdgSurfaceForOneSurfaceIsARoleError() throws {
        let harness = try XdgHarness()
        let surface = try harness.makeSurface()
        try harness.wmBase.getXdgSurface(surface: surface)
        try harness.wmBase.getXdgSurface(surface: surface)
        harness.expectError(XdgWmBaseError.role, on: harness.wmBase)
    }

    @Test func anXdgSurfaceForASurfaceWithACommittedBufferIsInvalidSurfaceState() throws {
        let harness = try XdgHarness()
        let surface = try harness.makeSurface()
        try harness.attachBuffer(to: surface, width: 10, height: 10)
        try harness.commit(surface)
        try harness.wmBase.getXdgSurface(surface: surface)
        harness.expectError(XdgWmBaseError.invalidSurfaceState, on: harness.wmBase)
    }

    @Test func anXdgSurfaceForASurfaceWithAnAttachedBufferIsInvalidSurfaceState() throws {
        let harness = try XdgHarness()
        let surface = try harness.makeSurface()
        try harness.attachBuffer(to: surface, width: 10, height: 10)
        try harness.wmBase.getXdgSurface(surface: surface)
        harness.expectError(XdgWmBaseError.invalidSurfaceState, on: harness.wmBase)
    }

    @Test func aSurfaceGetsANewXdgSurfaceAndToplevelAfterTheOldOnesAreDestroyed() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.destroy()
        try window.xdgSurface.destroy()
        let xdgSurface = try harness.wmBase.getXdgSurface(surface: window.surface)
        try xdgSurface.getToplevel()
        try harness.client.roundtrip()
        #expect(harness.policy.toplevels.count == 2)
        #expect(harness.shell.toplevels.count == 1)
    }
}
