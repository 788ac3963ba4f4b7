import Testing
import WaylandServer
import WaylandTestClient

@Suite struct XdgDecorationTests {
    private static var serverSide: TestValue { .uint(2) }

    @Test func aDecorationBeforeTheInitialCommitIsServerSideAndRidesTheInitialConfigure() throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind("zxdg_decoration_manager_v1", version: 1)
        let window = try harness.makeToplevel()
        let decoration = try manager.send(1, [.newID, .object(window.toplevel)], interface: "zxdg_toplevel_decoration_v1")
        harness.track(decoration)
        try harness.client.roundtrip()
        #expect(harness.events == ["zxdg_toplevel_decoration_v1.configure"])
        #expect(decoration.events.first?.arguments == [Self.serverSide])
        try harness.commit(window.surface)
        #expect(harness.events == ["zxdg_toplevel_decoration_v1.configure", "xdg_toplevel.wm_capabilities",
                                   "xdg_toplevel.configure", "xdg_surface.configure"])
    }

    /// set_mode(client_side), set_mode(server_side), unset_mode.
    @Test(arguments: [(UInt32(1), UInt32?(1)), (1, 2), (2, nil)])
    func modeRequestsAreAnsweredWithServerSideAndANewConfigure(opcode: UInt32, mode: UInt32?) throws {
        let arguments: [TestArgument] = mode.map { [.uint($0)] } ?? []
        let harness = try XdgHarness()
        let manager = try harness.client.bind("zxdg_decoration_manager_v1", version: 1)
        let window = try harness.makeToplevel()
        let decoration = try manager.send(1, [.newID, .object(window.toplevel)], interface: "zxdg_toplevel_decoration_v1")
        harness.track(decoration)
        try harness.commit(window.surface)
        let initial = harness.lastConfigureSerial(window.xdgSurface)
        harness.clearEvents()
        try decoration.send(opcode, arguments)
        try harness.client.roundtrip()
        #expect(harness.events == ["zxdg_toplevel_decoration_v1.configure", "xdg_toplevel.configure", "xdg_surface.configure"])
        #expect(decoration.events.last?.arguments == [Self.serverSide])
        #expect(window.toplevel.events(named: "configure").last?.arguments == window.toplevel.events(named: "configure").first?.arguments)
        #expect(harness.lastConfigureSerial(window.xdgSurface) != initial)
    }

    @Test func aSecondDecorationIsAlreadyConstructed() throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind("zxdg_decoration_manager_v1", version: 1)
        let window = try harness.makeToplevel()
        _ = try manager.send(1, [.newID, .object(window.toplevel)], interface: "zxdg_toplevel_decoration_v1")
        let second = try manager.send(1, [.newID, .object(window.toplevel)], interface: "zxdg_toplevel_decoration_v1")
        harness.expectError("zxdg_toplevel_decoration_v1", second.id, code: 1)
    }

    @Test func aDecorationAfterTheDestroyedOneIsFine() throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind("zxdg_decoration_manager_v1", version: 1)
        let window = try harness.makeToplevel()
        let first = try manager.send(1, [.newID, .object(window.toplevel)], interface: "zxdg_toplevel_decoration_v1")
        try first.sendDestructor(0)
        let second = try manager.send(1, [.newID, .object(window.toplevel)], interface: "zxdg_toplevel_decoration_v1")
        try harness.client.roundtrip()
        #expect(second.events.map(\.name) == ["configure"])
    }

    @Test func aDecorationForAToplevelWithABufferIsUnconfiguredBuffer() throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind("zxdg_decoration_manager_v1", version: 1)
        let window = try harness.makeMappedToplevel()
        let decoration = try manager.send(1, [.newID, .object(window.toplevel)], interface: "zxdg_toplevel_decoration_v1")
        harness.expectError("zxdg_toplevel_decoration_v1", decoration.id, code: 0)
    }

    @Test func destroyingTheToplevelBeforeItsDecorationIsOrphaned() throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind("zxdg_decoration_manager_v1", version: 1)
        let window = try harness.makeToplevel()
        let decoration = try manager.send(1, [.newID, .object(window.toplevel)], interface: "zxdg_toplevel_decoration_v1")
        try window.toplevel.send(0)
        harness.expectError("zxdg_toplevel_decoration_v1", decoration.id, code: 2)
    }

    @Test func destroyingTheDecorationThenTheToplevelIsFine() throws {
        let harness = try XdgHarness()
        let manager = try harness.client.bind("zxdg_decoration_manager_v1", version: 1)
        let window = try harness.makeToplevel()
        let decoration = try manager.send(1, [.newID, .object(window.toplevel)], interface: "zxdg_toplevel_decoration_v1")
        try decoration.sendDestructor(0)
        try window.toplevel.sendDestructor(0)
        try harness.client.roundtrip()
        #expect(harness.policy.calls.suffix(1) == ["toplevelDestroyed"])
    }
}
