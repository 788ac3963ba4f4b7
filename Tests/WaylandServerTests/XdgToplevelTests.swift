import Testing
import WaylandServer
import WaylandTestClient

@Suite struct XdgToplevelTests {
    @Test func titleAndAppIDApplyAtOnceAndAreReported() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.send(2, [.string("Tickets")])
        try window.toplevel.send(3, [.string("org.example.Tickets")])
        try harness.client.roundtrip()
        #expect(window.server.title == "Tickets")
        #expect(window.server.appID == "org.example.Tickets")
        guard harness.policy.requests.count == 2,
              case .setTitle("Tickets") = harness.policy.requests[0],
              case .setAppID("org.example.Tickets") = harness.policy.requests[1] else {
            Issue.record("unexpected requests \(harness.policy.requests)")
            return
        }
    }

    @Test func fullscreenAndMaximizeRequestsAreReportedAndAnsweredWithAConfigure() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        let output = try harness.client.bind("wl_output", version: 4)
        harness.clearEvents()
        try window.toplevel.send(11, [.object(output)])
        try window.toplevel.send(9)
        try window.toplevel.send(12)
        try window.toplevel.send(10)
        try harness.client.roundtrip()
        #expect(harness.events == Array(repeating: ["xdg_toplevel.configure", "xdg_surface.configure"], count: 4).flatMap { $0 })
        guard harness.policy.requests.count == 4,
              case .setFullscreen(let chosen) = harness.policy.requests[0],
              case .setMaximized = harness.policy.requests[1],
              case .unsetFullscreen = harness.policy.requests[2],
              case .unsetMaximized = harness.policy.requests[3] else {
            Issue.record("unexpected requests \(harness.policy.requests)")
            return
        }
        #expect(chosen === harness.core.output)
    }

    @Test func fullscreenWithoutAnOutputLeavesTheChoiceToTheCompositor() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.send(11, [.object(nil)])
        try harness.client.roundtrip()
        guard case .setFullscreen(nil)? = harness.policy.requests.first else {
            Issue.record("unexpected requests \(harness.policy.requests)")
            return
        }
    }

    @Test func interactiveRequestsAreReportedWithTheirSeatAndSerial() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        let seat = try harness.client.bind("wl_seat", version: 1)
        try window.toplevel.send(4, [.object(seat), .uint(11), .int(3), .int(4)])
        try window.toplevel.send(5, [.object(seat), .uint(12)])
        try window.toplevel.send(6, [.object(seat), .uint(13), .uint(10)])
        try window.toplevel.send(13)
        try harness.client.roundtrip()
        guard harness.policy.requests.count == 4,
              case .showWindowMenu(let menuSeat, 11, 3, 4) = harness.policy.requests[0],
              case .move(let moveSeat, 12) = harness.policy.requests[1],
              case .resize(let resizeSeat, 13, .bottomRight) = harness.policy.requests[2],
              case .setMinimized = harness.policy.requests[3] else {
            Issue.record("unexpected requests \(harness.policy.requests)")
            return
        }
        #expect(menuSeat?.id == seat.id && moveSeat?.id == seat.id && resizeSeat?.id == seat.id)
    }

    @Test func anUnknownResizeEdgeIsInvalidResizeEdge() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        let seat = try harness.client.bind("wl_seat", version: 1)
        try window.toplevel.send(6, [.object(seat), .uint(1), .uint(3)])
        harness.expectError("xdg_toplevel", window.toplevel.id, code: 0)
    }

    @Test func aParentMustBeMappedAndNotADescendant() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let child = try harness.makeMappedToplevel()
        let unmapped = try harness.makeToplevel()
        try child.toplevel.send(1, [.object(unmapped.toplevel)])
        try harness.client.roundtrip()
        #expect(child.server.parent == nil)
        try child.toplevel.send(1, [.object(parent.toplevel)])
        try harness.client.roundtrip()
        #expect(child.server.parent === parent.server)
        guard case .setParent(let reported)? = harness.policy.requests.last else {
            Issue.record("unexpected requests \(harness.policy.requests)")
            return
        }
        #expect(reported === parent.server)
        try parent.toplevel.send(1, [.object(child.toplevel)])
        harness.expectError("xdg_toplevel", parent.toplevel.id, code: 1)
    }

    @Test func aToplevelCannotBeItsOwnParent() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.send(1, [.object(window.toplevel)])
        harness.expectError("xdg_toplevel", window.toplevel.id, code: 1)
    }

    @Test func childrenOfAnUnmappedToplevelTakeItsParent() throws {
        let harness = try XdgHarness()
        let grandparent = try harness.makeMappedToplevel()
        let parent = try harness.makeMappedToplevel()
        let child = try harness.makeMappedToplevel()
        try parent.toplevel.send(1, [.object(grandparent.toplevel)])
        try child.toplevel.send(1, [.object(parent.toplevel)])
        try harness.client.roundtrip()
        try harness.attachNull(to: parent.surface)
        try harness.commit(parent.surface)
        #expect(child.server.parent === grandparent.server)
        #expect(parent.server.parent == nil)
    }

    @Test func minAndMaxSizesApplyWithTheNextCommit() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.send(8, [.int(100), .int(50)])
        try window.toplevel.send(7, [.int(800), .int(600)])
        try harness.client.roundtrip()
        #expect(window.server.minSize == SurfaceSize(width: 0, height: 0))
        #expect(window.server.maxSize == SurfaceSize(width: 0, height: 0))
        try harness.commit(window.surface)
        #expect(window.server.minSize == SurfaceSize(width: 100, height: 50))
        #expect(window.server.maxSize == SurfaceSize(width: 800, height: 600))
    }

    @Test func aMinimumLargerThanTheMaximumIsInvalidSizeAtCommit() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.send(7, [.int(100), .int(100)])
        try window.toplevel.send(8, [.int(200), .int(50)])
        try harness.client.roundtrip()
        try window.surface.send(6)
        harness.expectError("xdg_toplevel", window.toplevel.id, code: 2)
    }

    @Test func aZeroMaximumMeansNoLimit() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.send(7, [.int(0), .int(100)])
        try window.toplevel.send(8, [.int(500), .int(50)])
        try harness.commit(window.surface)
        #expect(window.server.maxSize == SurfaceSize(width: 0, height: 100))
    }

    @Test func aNegativeSizeLimitIsInvalidSize() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.send(8, [.int(-1), .int(10)])
        harness.expectError("xdg_toplevel", window.toplevel.id, code: 2)
    }

    @Test func configureSendsTheStatesInProtocolOrderAndBoundsBeforeIt() throws {
        let harness = try XdgHarness()
        harness.policy.configuresToplevels = false
        harness.shell.toplevelCapabilities = [.fullscreen, .minimize]
        let window = try harness.makeToplevel()
        try harness.commit(window.surface)
        #expect(harness.events.isEmpty)
        window.server.configure(width: 0, height: 0, states: [.tiledBottom, .activated, .maximized, .resizing],
                                bounds: SurfaceSize(width: 320, height: 200))
        try harness.client.roundtrip()
        #expect(harness.events == ["xdg_toplevel.wm_capabilities", "xdg_toplevel.configure_bounds",
                                   "xdg_toplevel.configure", "xdg_surface.configure"])
        #expect(window.toplevel.events(named: "wm_capabilities").first?.arguments == [uint32Array([3, 4])])
        #expect(window.toplevel.events(named: "configure_bounds").first?.arguments == [.int(320), .int(200)])
        #expect(window.toplevel.events(named: "configure").first?.arguments == [.int(0), .int(0), uint32Array([1, 3, 4, 8])])
        window.server.configure(width: 10, height: 10, states: [])
        try harness.client.roundtrip()
        #expect(window.toplevel.events(named: "wm_capabilities").count == 1)
    }

    @Test func changedCapabilitiesGoOutWithANewConfigureSequence() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        let unconfigured = try harness.makeToplevel()
        harness.clearEvents()
        harness.shell.toplevelCapabilities = [.windowMenu]
        try harness.client.roundtrip()
        #expect(harness.events == ["xdg_toplevel.wm_capabilities", "xdg_toplevel.configure", "xdg_surface.configure"])
        #expect(window.toplevel.events(named: "wm_capabilities").last?.arguments == [uint32Array([1])])
        #expect(window.toplevel.events(named: "configure").last?.arguments == [.int(320), .int(240), uint32Array([2, 4])])
        #expect(unconfigured.toplevel.events.isEmpty)
    }

    @Test func olderClientsGetNeitherCapabilitiesNorBoundsNorTiledStates() throws {
        let harness = try XdgHarness(wmBaseVersion: 1)
        let window = try harness.makeToplevel()
        window.server.configure(width: 5, height: 6, states: [.tiledLeft, .fullscreen], bounds: SurfaceSize(width: 1, height: 1))
        try harness.client.roundtrip()
        #expect(harness.events == ["xdg_toplevel.configure", "xdg_surface.configure"])
        #expect(window.toplevel.events(named: "configure").first?.arguments == [.int(5), .int(6), uint32Array([2])])
    }

    @Test func sendCloseSendsClose() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        harness.clearEvents()
        window.server.sendClose()
        try harness.client.roundtrip()
        #expect(harness.events == ["xdg_toplevel.close"])
    }

    @Test func unmappingReturnsTheToplevelToItsStateAfterGetToplevel() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let window = try harness.makeMappedToplevel()
        try window.toplevel.send(2, [.string("Map")])
        try window.toplevel.send(3, [.string("org.example.Map")])
        try window.toplevel.send(1, [.object(parent.toplevel)])
        try window.toplevel.send(8, [.int(10), .int(10)])
        try harness.commit(window.surface)
        try harness.attachNull(to: window.surface)
        try harness.commit(window.surface)
        #expect(window.server.title == nil)
        #expect(window.server.appID == nil)
        #expect(window.server.parent == nil)
        #expect(window.server.minSize == SurfaceSize(width: 0, height: 0))
        #expect(window.server.currentConfiguration == nil)
    }

    @Test func destroyingAMappedToplevelUnmapsItThenReportsItsDestruction() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        #expect(harness.shell.toplevels.map(\.id) == [window.toplevel.id])
        try window.toplevel.sendDestructor(0)
        try harness.client.roundtrip()
        #expect(harness.policy.calls.suffix(2) == ["toplevelUnmapped", "toplevelDestroyed"])
        #expect(harness.shell.toplevels.isEmpty)
        #expect(!window.server.isMapped)
    }

    @Test func aClientLeavingDestroysItsToplevels() throws {
        let harness = try XdgHarness()
        _ = try harness.makeMappedToplevel()
        harness.serverClient.disconnect()
        #expect(harness.policy.calls.suffix(2) == ["toplevelUnmapped", "toplevelDestroyed"])
        #expect(harness.shell.toplevels.isEmpty)
    }
}
