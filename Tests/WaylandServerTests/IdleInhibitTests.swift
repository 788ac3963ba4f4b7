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
    @discardableResult
    private func inhibitor(_ harness: ExtensionHarness, on surface: WlSurfaceProxy) throws -> ZwpIdleInhibitorV1Proxy {
        let manager = try harness.client.bind(ZwpIdleInhibitManagerV1Proxy.self, version: 1)
        return try manager.createInhibitor(surface: surface)
    }

    @Test func creatingAndDestroyingAnInhibitorIsReported() throws {
        let harness = try ExtensionHarness()
        let log = InhibitorLog()
        harness.idleInhibit.handler = log
        let (proxy, surface) = try harness.makeSurface()
        let request = try inhibitor(harness, on: proxy)
        try harness.client.roundtrip()
        #expect(log.entries == ["created \(surface.id)"])
        try request.destroy()
        try harness.client.roundtrip()
        #expect(log.entries == ["created \(surface.id)", "destroyed \(surface.id)"])
    }

    /// An inhibiting surface is retained every frame: its inhibitor holds it strongly, not weakly
    /// (a weak reference gives it a side table, which slows every retain and release of it), and
    /// lets go of it when it is destroyed, while the inhibitor lives on.
    @Test func anInhibitedSurfaceIsNotWeaklyReferencedAndIsReleasedWhenDestroyed() throws {
        let harness = try ExtensionHarness()
        let log = InhibitorLog()
        harness.idleInhibit.handler = log
        weak var released: Surface?
        let request: ZwpIdleInhibitorV1Proxy
        do {
            let (proxy, surface) = try harness.makeSurface()
            request = try inhibitor(harness, on: proxy)
            try harness.client.roundtrip()
            #expect(log.entries == ["created \(surface.id)"])
            // A count of 1 is the object's own: no weak reference.
            #expect(_getWeakRetainCount(surface) == 1)
            released = surface
            try proxy.destroy()
            try harness.client.roundtrip()
        }
        #expect(released == nil)
        #expect(log.entries.count == 2)
        withExtendedLifetime(request) {}
    }

    @Test func destroyingTheSurfaceEndsEachOfItsInhibitorsOnce() throws {
        let harness = try ExtensionHarness()
        let log = InhibitorLog()
        harness.idleInhibit.handler = log
        let (proxy, surface) = try harness.makeSurface()
        let id = surface.id
        let first = try inhibitor(harness, on: proxy)
        let second = try inhibitor(harness, on: proxy)
        try proxy.destroy()
        try harness.client.roundtrip()
        #expect(log.entries == ["created \(id)", "created \(id)", "destroyed \(id)", "destroyed \(id)"])
        try first.destroy()
        try second.destroy()
        try harness.client.roundtrip()
        #expect(log.entries.count == 4)
    }

    @Test func aDisconnectingClientEndsItsInhibitorsOnce() throws {
        let harness = try ExtensionHarness()
        let log = InhibitorLog()
        harness.idleInhibit.handler = log
        let (proxy, surface) = try harness.makeSurface()
        let id = surface.id
        try inhibitor(harness, on: proxy)
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
        try inhibitor(harness, on: firstProxy)
        try inhibitor(harness, on: secondProxy)
        try firstProxy.destroy()
        try harness.client.roundtrip()
        #expect(log.entries == ["created \(first.id)", "created \(second.id)", "destroyed \(first.id)"])
    }
}
