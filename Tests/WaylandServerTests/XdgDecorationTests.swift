import Testing
import WaylandServer
import WaylandTestClient

@Suite struct XdgDecorationTests {
    @Test func aDecorationBeforeTheInitialCommitIsServerSideAndRidesTheInitialConfigure() throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind(ZxdgDecorationManagerV1Proxy.self, version: 1)
        let window = try harness.makeToplevel()
        let decoration = try manager.getToplevelDecoration(toplevel: window.toplevel)
        harness.track(decoration)
        try harness.client.roundtrip()
        #expect(harness.events == ["zxdg_toplevel_decoration_v1.configure"])
        #expect(decoration.events == [.configure(mode: .serverSide)])
        try harness.commit(window.surface)
        #expect(harness.events == ["zxdg_toplevel_decoration_v1.configure", "xdg_toplevel.wm_capabilities",
                                   "xdg_toplevel.configure", "xdg_surface.configure"])
    }

    /// set_mode(client_side), set_mode(server_side), unset_mode (nil).
    @Test(arguments: [ZxdgToplevelDecorationV1Mode.clientSide, .serverSide, nil])
    func modeRequestsAreAnsweredWithServerSideAndANewConfigure(mode: ZxdgToplevelDecorationV1Mode?) throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind(ZxdgDecorationManagerV1Proxy.self, version: 1)
        let window = try harness.makeToplevel()
        let decoration = try manager.getToplevelDecoration(toplevel: window.toplevel)
        harness.track(decoration)
        try harness.commit(window.surface)
        let initial = harness.lastConfigureSerial(window.xdgSurface)
        harness.clearEvents()
        if let mode { try decoration.setMode(mode: mode) } else { try decoration.unsetMode() }
        try harness.client.roundtrip()
        #expect(harness.events == ["zxdg_toplevel_decoration_v1.configure", "xdg_toplevel.configure", "xdg_surface.configure"])
        #expect(decoration.events.last == .configure(mode: .serverSide))
        let configures = window.toplevel.events.filter { $0.name == "configure" }
        #expect(configures.count == 2 && configures.last == configures.first)
        #expect(harness.lastConfigureSerial(window.xdgSurface) != initial)
    }

    /// A decorated toplevel is reached at every commit of its surface: its decoration holds it
    /// strongly, not weakly (a weak reference would give it a side table, which slows every retain
    /// and release of it), and lets go of it when the client destroys the window or leaves.
    @Test(arguments: [false, true]) func aDecoratedToplevelIsNotWeaklyReferencedAndIsReleasedWithItsWindow(leaves: Bool) throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind(ZxdgDecorationManagerV1Proxy.self, version: 1)
        weak var released: XdgToplevel?
        do {
            let window = try harness.makeToplevel()
            let decoration = try manager.getToplevelDecoration(toplevel: window.toplevel)
            try harness.commit(window.surface)
            try harness.acknowledgeLastConfigure(window.xdgSurface)
            try harness.attachBuffer(to: window.surface, width: 320, height: 240)
            try harness.commit(window.surface)
            #expect(window.server.isMapped)
            // A count of 1 is the object's own: no weak reference.
            #expect(_getWeakRetainCount(window.server) == 1)
            released = window.server
            if !leaves { try decoration.destroy() }
            try harness.end(window, leaving: leaves)
        }
        #expect(released == nil)
    }

    @Test func aSecondDecorationIsAlreadyConstructed() throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind(ZxdgDecorationManagerV1Proxy.self, version: 1)
        let window = try harness.makeToplevel()
        _ = try manager.getToplevelDecoration(toplevel: window.toplevel)
        let second = try manager.getToplevelDecoration(toplevel: window.toplevel)
        harness.expectError(ZxdgToplevelDecorationV1Error.alreadyConstructed, on: second)
    }

    @Test func aDecorationAfterTheDestroyedOneIsFine() throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind(ZxdgDecorationManagerV1Proxy.self, version: 1)
        let window = try harness.makeToplevel()
        let first = try manager.getToplevelDecoration(toplevel: window.toplevel)
        try first.destroy()
        let second = try manager.getToplevelDecoration(toplevel: window.toplevel)
        try harness.client.roundtrip()
        #expect(second.events.map(\.name) == ["configure"])
    }

    @Test func aDecorationForAToplevelWithABufferIsUnconfiguredBuffer() throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind(ZxdgDecorationManagerV1Proxy.self, version: 1)
        let window = try harness.makeMappedToplevel()
        let decoration = try manager.getToplevelDecoration(toplevel: window.toplevel)
        harness.expectError(ZxdgToplevelDecorationV1Error.unconfiguredBuffer, on: decoration)
    }

    @Test func destroyingTheToplevelBeforeItsDecorationIsOrphaned() throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind(ZxdgDecorationManagerV1Proxy.self, version: 1)
        let window = try harness.makeToplevel()
        let decoration = try manager.getToplevelDecoration(toplevel: window.toplevel)
        try window.toplevel.destroy()
        harness.expectError(ZxdgToplevelDecorationV1Error.orphaned, on: decoration)
    }

    @Test func destroyingTheDecorationThenTheToplevelIsFine() throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind(ZxdgDecorationManagerV1Proxy.self, version: 1)
        let window = try harness.makeToplevel()
        let decoration = try manager.getToplevelDecoration(toplevel: window.toplevel)
        try decoration.destroy()
        try window.toplevel.destroy()
        try harness.client.roundtrip()
        #expect(harness.policy.calls.suffix(1) == ["toplevelDestroyed"])
    }
}
