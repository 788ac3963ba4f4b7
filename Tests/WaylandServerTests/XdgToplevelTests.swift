import Testing
import WaylandServer
import WaylandTestClient

@Suite struct XdgToplevelTests {
    @Test func titleAndAppIDApplyAtOnceAndAreReported() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.setTitle(title: "Tickets")
        try window.toplevel.setAppID(appID: "org.example.Tickets")
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
        let output = try harness.client.bind(WlOutputProxy.self, version: 4)
        harness.clearEvents()
        try window.toplevel.setFullscreen(output: output)
        try window.toplevel.setMaximized()
        try window.toplevel.unsetFullscreen()
        try window.toplevel.unsetMaximized()
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
        try window.toplevel.setFullscreen(output: nil)
        try harness.client.roundtrip()
        guard case .setFullscreen(nil)? = harness.policy.requests.first else {
            Issue.record("unexpected requests \(harness.policy.requests)")
            return
        }
    }

    @Test func interactiveRequestsAreReportedWithTheirSeatAndSerial() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        let seat = try harness.client.bind(WlSeatProxy.self, version: 1)
        try window.toplevel.showWindowMenu(seat: seat, serial: 11, x: 3, y: 4)
        try window.toplevel.move(seat: seat, serial: 12)
        try window.toplevel.resize(seat: seat, serial: 13, edges: .bottomRight)
        try window.toplevel.setMinimized()
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
        let seat = try harness.client.bind(WlSeatProxy.self, version: 1)
        try window.toplevel.resize(seat: seat, serial: 1, edges: XdgToplevelResizeEdge(rawValue: 3))
        harness.expectError(XdgToplevelError.invalidResizeEdge, on: window.toplevel)
    }

    @Test func aParentMustBeMappedAndNotADescendant() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let child = try harness.makeMappedToplevel()
        let unmapped = try harness.makeToplevel()
        try child.toplevel.setParent(parent: unmapped.toplevel)
        try harness.client.roundtrip()
        #expect(child.server.parent == nil)
        try child.toplevel.setParent(parent: parent.toplevel)
        try harness.client.roundtrip()
        #expect(child.server.parent === parent.server)
        guard case .setParent(let reported)? = harness.policy.requests.last else {
            Issue.record("unexpected requests \(harness.policy.requests)")
            return
        }
        #expect(reported === parent.server)
        try parent.toplevel.setParent(parent: child.toplevel)
        harness.expectError(XdgToplevelError.invalidParent, on: parent.toplevel)
    }

    @Test func aToplevelCannotBeItsOwnParent() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.setParent(parent: window.toplevel)
        harness.expectError(XdgToplevelError.invalidParent, on: window.toplevel)
    }

    @Test func childrenOfAnUnmappedToplevelTakeItsParent() throws {
        let harness = try XdgHarness()
        let grandparent = try harness.makeMappedToplevel()
        let parent = try harness.makeMappedToplevel()
        let child = try harness.makeMappedToplevel()
        try parent.toplevel.setParent(parent: grandparent.toplevel)
        try child.toplevel.setParent(parent: parent.toplevel)
        try harness.client.roundtrip()
        try harness.attachNull(to: parent.surface)
        try harness.commit(parent.surface)
        #expect(child.server.parent === grandparent.server)
        #expect(parent.server.parent == nil)
    }

    @Test func minAndMaxSizesApplyWithTheNextCommit() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.setMinSize(width: 100, height: 50)
        try window.toplevel.setMaxSize(width: 800, height: 600)
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
        try window.toplevel.setMaxSize(width: 100, height: 100)
        try window.toplevel.setMinSize(width: 200, height: 50)
        try harness.client.roundtrip()
        try window.surface.commit()
        harness.expectError(XdgToplevelError.invalidSize, on: window.toplevel)
    }

    @Test func aZeroMaximumMeansNoLimit() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.setMaxSize(width: 0, height: 100)
        try window.toplevel.setMinSize(width: 500, height: 50)
        try harness.commit(window.surface)
        #expect(window.server.maxSize == SurfaceSize(width: 0, height: 100))
    }

    @Test func aNegativeSizeLimitIsInvalidSize() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.toplevel.setMinSize(width: -1, height: 10)
        harness.expectError(XdgToplevelError.invalidSize, on: window.toplevel)
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
        #expect(window.toplevel.events == [
            .wmCapabilities(capabilities: uint32Array([3, 4])), .configureBounds(width: 320, height: 200),
            .configure(width: 0, height: 0, states: uint32Array([1, 3, 4, 8])),
        ])
        window.server.configure(width: 10, height: 10, states: [])
        try harness.client.roundtrip()
        #expect(window.toplevel.events.filter { $0.name == "wm_capabilities" }.count == 1)
    }

    @Test func changedCapabilitiesGoOutWithANewConfigureSequence() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        let unconfigured = try harness.makeToplevel()
        harness.clearEvents()
        harness.shell.toplevelCapabilities = [.windowMenu]
        try harness.client.roundtrip()
        #expect(harness.events == ["xdg_toplevel.wm_capabilities", "xdg_toplevel.configure", "xdg_surface.configure"])
        #expect(window.toplevel.events.suffix(2) == [
            .wmCapabilities(capabilities: uint32Array([1])), .configure(width: 320, height: 240, states: uint32Array([2, 4])),
        ])
        #expect(unconfigured.toplevel.events.isEmpty)
    }

    @Test func olderClientsGetNeitherCapabilitiesNorBoundsNorTiledStates() throws {
        let harness = try XdgHarness(wmBaseVersion: 1)
        let window = try harness.makeToplevel()
        window.server.configure(width: 5, height: 6, states: [.tiledLeft, .fullscreen], bounds: SurfaceSize(width: 1, height: 1))
        try harness.client.roundtrip()
        #expect(harness.events == ["xdg_toplevel.configure", "xdg_surface.configure"])
        #expect(window.toplevel.events == [.configure(width: 5, height: 6, states: uint32Array([2]))])
    }

    @Test func suspendingSendsTheLastConfigurationAgainWithTheSuspendedStateAndResumingWithout() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        harness.clearEvents()
        window.server.isSuspended = true
        try harness.client.roundtrip()
        #expect(harness.events == ["xdg_toplevel.configure", "xdg_surface.configure"])
        #expect(window.toplevel.events.last == .configure(width: 320, height: 240, states: uint32Array([2, 4, 9])))
        // The compositor's own configures carry it while it lasts.
        window.server.configure(width: 100, height: 50, states: [.activated])
        window.server.isSuspended = false
        try harness.client.roundtrip()
        #expect(window.toplevel.events.suffix(2) == [
            .configure(width: 100, height: 50, states: uint32Array([4, 9])), .configure(width: 100, height: 50, states: uint32Array([4])),
        ])
    }

    @Test func aToplevelSuspendedBeforeItsFirstConfigureIsSuspendedInIt() throws {
        let harness = try XdgHarness()
        harness.policy.configuresToplevels = false
        let window = try harness.makeToplevel()
        window.server.isSuspended = true
        try harness.client.roundtrip()
        #expect(window.toplevel.events.isEmpty)
        window.server.configure(width: 0, height: 0, states: [])
        try harness.client.roundtrip()
        #expect(window.toplevel.events.last == .configure(width: 0, height: 0, states: uint32Array([9])))
    }

    @Test func unmappingEndsTheSuspension() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        window.server.isSuspended = true
        try harness.attachNull(to: window.surface)
        try harness.commit(window.surface)
        #expect(!window.server.isSuspended)
    }

    @Test func aVersion5ClientIsNeverToldItIsSuspended() throws {
        let harness = try XdgHarness(wmBaseVersion: 5)
        let window = try harness.makeMappedToplevel()
        harness.clearEvents()
        window.server.isSuspended = true
        window.server.configure(width: 5, height: 6, states: [.fullscreen])
        try harness.client.roundtrip()
        #expect(harness.events == ["xdg_toplevel.configure", "xdg_surface.configure"])
        #expect(window.toplevel.events.last == .configure(width: 5, height: 6, states: uint32Array([2])))
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
        try window.toplevel.setTitle(title: "Map")
        try window.toplevel.setAppID(appID: "org.example.Map")
        try window.toplevel.setParent(parent: parent.toplevel)
        try window.toplevel.setMinSize(width: 10, height: 10)
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
        try window.toplevel.destroy()
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
