import Testing
import WaylandServer
import WaylandTestClient

/// Records what the compositor hears, by surface id.
private final class InhibitorLog: IdleInhibitHandler {
    var entries: [String] = []

    func inhibitorCreated(for surface: Surface) {
        entries.append("created \(surface.id)")
    }

    func inhibitorDestroyed(for surface: Surface) {
        entries.append("destroyed \(surface.id)")
    }
}

@Suite struct IdleInhibitTests {
    private func inhibitor(_ harness: ExtensionHarness, on surface: TestProxy) throws -> TestProxy {
        let manager = try harness.client.bind("zwp_idle_inhibit_manager_v1", version: 1)
        return try manager.send(1, [.newID, .object(surface)], interface: "zwp_idle_inhibitor_v1")
    }

    @Test func creatingAndDestroyingAnInhibitorIsReported() throws {
        let harness = try ExtensionHarness()
        let log = InhibitorLog()
        harness.idleInhibit.handler = log
        let (proxy, surface) = try harness.makeSurface()
        let request = try inhibitor(harness, on: proxy)
        try harness.client.roundtrip()
        #expect(log.entries == ["created \(surface.id)"])
        try request.sendDestructor(0)
        try harness.client.roundtrip()
        #expect(log.entries == ["created \(surface.id)", "destroyed \(surface.id)"])
    }

    @Test func destroyingTheSurfaceEndsEachOfItsInhibitorsOnce() throws {
        let harness = try ExtensionHarness()
        let log = InhibitorLog()
        harness.idleInhibit.handler = log
        let (proxy, surface) = try harness.makeSurface()
        let id = surface.id
        let first = try inhibitor(harness, on: proxy)
        let second = try inhibitor(harness, on: proxy)
        try proxy.sendDestructor(0)
        try harness.client.roundtrip()
        #expect(log.entries == ["created \(id)", "created \(id)", "destroyed \(id)", "destroyed \(id)"])
        try first.sendDestructor(0)
        try second.sendDestructor(0)
        try harness.client.roundtrip()
        #expect(log.entries.count == 4)
    }

    @Test func aDisconnectingClientEndsItsInhibitorsOnce() throws {
        let harness = try ExtensionHarness()
        let log = InhibitorLog()
        harness.idleInhibit.handler = log
        let (proxy, surface) = try harness.makeSurface()
        let id = surface.id
        _ = try inhibitor(harness, on: proxy)
        try harness.client.roundtrip()
        surface.client.disconnect()
        #expect(log.entries == ["created \(id)", "destroyed \(id)"])
    }

    @Test func inhibitorsOfOtherSurfacesAreIndependent() throws {
        let harness = try ExtensionHarness()
        let log = InhibitorLog()
        harness.idleInhibit.handler = log
        let (firstProxy, first) = try harness.makeSurface()
        let (secondProxy, second) = try harness.makeSurface()
        _ = try inhibitor(harness, on: firstProxy)
        _ = try inhibitor(harness, on: secondProxy)
        try firstProxy.sendDestructor(0)
        try harness.client.roundtrip()
        #expect(log.entries == ["created \(first.id)", "created \(second.id)", "destroyed \(first.id)"])
    }
}
