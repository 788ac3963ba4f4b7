import Testing
import WaylandServer
import WaylandTestClient

@Suite struct XdgSurfaceTests {
    private let fullscreenActivated = uint32Array([2, 4])

    @Test func theInitialCommitIsAnsweredWithCapabilitiesConfigureAndSurfaceConfigure() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        #expect(harness.policy.calls == ["toplevelCreated"])
        #expect(harness.events.isEmpty)
        try harness.commit(window.surface)
        #expect(harness.policy.calls == ["toplevelCreated", "toplevelNeedsInitialConfigure"])
        #expect(harness.events == ["xdg_toplevel.wm_capabilities", "xdg_toplevel.configure", "xdg_surface.configure"])
        #expect(window.toplevel.events(named: "wm_capabilities").first?.arguments == [uint32Array([])])
        #expect(window.toplevel.events(named: "configure").first?.arguments == [.int(320), .int(240), fullscreenActivated])
        let serial = harness.lastConfigureSerial(window.xdgSurface)
        #expect(serial == harness.display.currentSerial)
        #expect(!window.server.isConfigured)
        #expect(window.server.lastAckedSerial == nil)
    }

    @Test func aBufferCommittedAfterTheAckMapsTheToplevel() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try harness.commit(window.surface)
        let serial = harness.lastConfigureSerial(window.xdgSurface)
        try harness.acknowledgeLastConfigure(window.xdgSurface)
        try harness.client.roundtrip()
        #expect(window.server.isConfigured)
        #expect(window.server.lastAckedSerial == serial)
        #expect(window.server.currentConfiguration == nil)
        #expect(!window.server.isMapped)
        try harness.attachBuffer(to: window.surface, width: 320, height: 240)
        try harness.commit(window.surface)
        #expect(window.server.isMapped)
        #expect(window.server.currentConfiguration == XdgToplevel.Configuration(width: 320, height: 240, states: [.fullscreen, .activated]))
        #expect(harness.policy.calls == ["toplevelCreated", "toplevelNeedsInitialConfigure", "toplevelMapped"])
    }

    @Test func aNullBufferUnmapsAndTheNextCommitIsAnInitialCommitAgain() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        harness.clearEvents()
        try harness.attachNull(to: window.surface)
        try harness.commit(window.surface)
        #expect(!window.server.isMapped)
        #expect(!window.server.isConfigured)
        #expect(harness.policy.calls.suffix(1) == ["toplevelUnmapped"])
        #expect(harness.events.isEmpty)
        try harness.commit(window.surface)
        #expect(harness.policy.calls.suffix(2) == ["toplevelUnmapped", "toplevelNeedsInitialConfigure"])
        #expect(harness.events == ["xdg_toplevel.wm_capabilities", "xdg_toplevel.configure", "xdg_surface.configure"])
        try harness.acknowledgeLastConfigure(window.xdgSurface)
        try harness.attachBuffer(to: window.surface, width: 320, height: 240)
        try harness.commit(window.surface)
        #expect(window.server.isMapped)
        #expect(harness.policy.calls.suffix(1) == ["toplevelMapped"])
    }

    @Test func aBufferCommittedRightAfterUnmappingIsAnsweredAsAnInitialCommitAndMaps() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        try harness.attachNull(to: window.surface)
        try harness.commit(window.surface)
        harness.clearEvents()
        try harness.attachBuffer(to: window.surface, width: 320, height: 240)
        try harness.commit(window.surface)
        try harness.client.roundtrip()
        #expect(window.server.isMapped)
        #expect(harness.policy.calls.suffix(3) == ["toplevelUnmapped", "toplevelNeedsInitialConfigure", "toplevelMapped"])
        #expect(harness.events.contains("xdg_surface.configure"))
    }

    @Test func aBufferAfterTheFirstConfigureMapsEvenBeforeTheAck() throws {
        // The spec's error is for buffers "prior to the first xdg_surface.configure"; mapping
        // needs the role, the committed state and a buffer, not the ack.
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try harness.commit(window.surface)
        try harness.attachBuffer(to: window.surface, width: 320, height: 240)
        try harness.commit(window.surface)
        try harness.client.roundtrip()
        #expect(window.server.isMapped)
        #expect(!window.server.isConfigured)
        #expect(harness.policy.calls.suffix(1) == ["toplevelMapped"])
    }

    @Test func attachingABufferBeforeTheFirstConfigureIsAnErrorWithoutACommit() throws {
        let harness = try XdgHarness()
        let surface = try harness.makeSurface()
        let xdgSurface = try harness.wmBase.send(2, [.newID, .object(surface)], interface: "xdg_surface")
        try harness.attachBuffer(to: surface, width: 320, height: 240)
        harness.expectError("xdg_surface", xdgSurface.id, code: 3)
    }

    @Test func aToplevelConfiguredBeforeItsInitialCommitMayMapWithIt() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        harness.policy.configureFullscreen(window.server)
        try harness.client.roundtrip()
        try harness.attachBuffer(to: window.surface, width: 320, height: 240)
        try harness.commit(window.surface)
        try harness.client.roundtrip()
        #expect(window.server.isMapped)
        #expect(harness.policy.calls == ["toplevelCreated", "toplevelNeedsInitialConfigure", "toplevelMapped"])
    }

    @Test func aBufferInTheInitialCommitIsUnconfiguredBuffer() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try harness.attachBuffer(to: window.surface, width: 320, height: 240)
        try window.surface.send(6)
        harness.expectError("xdg_surface", window.xdgSurface.id, code: 3)
    }

    @Test func ackingAnUnknownSerialIsInvalidSerial() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try harness.commit(window.surface)
        let serial = harness.lastConfigureSerial(window.xdgSurface)
        try window.xdgSurface.send(4, [.uint(serial &+ 100)])
        harness.expectError("xdg_surface", window.xdgSurface.id, code: 4)
    }

    @Test func ackingTheSameSerialTwiceIsInvalidSerial() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try harness.commit(window.surface)
        try harness.acknowledgeLastConfigure(window.xdgSurface)
        try harness.client.roundtrip()
        try harness.acknowledgeLastConfigure(window.xdgSurface)
        harness.expectError("xdg_surface", window.xdgSurface.id, code: 4)
    }

    @Test func ackingALaterConfigureConsumesTheEarlierOnes() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try harness.commit(window.surface)
        let first = harness.lastConfigureSerial(window.xdgSurface)
        let second = window.server.configure(width: 100, height: 50, states: [.maximized])
        try harness.client.roundtrip()
        #expect(harness.lastConfigureSerial(window.xdgSurface) == second)
        try window.xdgSurface.send(4, [.uint(second)])
        try harness.attachBuffer(to: window.surface, width: 100, height: 50)
        try harness.commit(window.surface)
        #expect(window.server.lastAckedSerial == second)
        #expect(window.server.currentConfiguration == XdgToplevel.Configuration(width: 100, height: 50, states: [.maximized]))
        try window.xdgSurface.send(4, [.uint(first)])
        harness.expectError("xdg_surface", window.xdgSurface.id, code: 4)
    }

    @Test func theAcknowledgedConfigurationBecomesCurrentOnlyWithTheNextCommit() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        let serial = window.server.configure(width: 200, height: 100, states: [])
        try harness.client.roundtrip()
        try window.xdgSurface.send(4, [.uint(serial)])
        try harness.client.roundtrip()
        #expect(window.server.lastAckedSerial == serial)
        #expect(window.server.currentConfiguration?.width == 320)
        try harness.commit(window.surface)
        #expect(window.server.currentConfiguration == XdgToplevel.Configuration(width: 200, height: 100, states: []))
    }

    @Test func setWindowGeometryBeforeARoleIsNotConstructed() throws {
        let harness = try XdgHarness()
        let surface = try harness.makeSurface()
        let xdgSurface = try harness.wmBase.send(2, [.newID, .object(surface)], interface: "xdg_surface")
        try xdgSurface.send(3, [.int(0), .int(0), .int(10), .int(10)])
        harness.expectError("xdg_surface", xdgSurface.id, code: 1)
    }

    @Test func ackBeforeARoleIsNotConstructed() throws {
        let harness = try XdgHarness()
        let surface = try harness.makeSurface()
        let xdgSurface = try harness.wmBase.send(2, [.newID, .object(surface)], interface: "xdg_surface")
        try xdgSurface.send(4, [.uint(1)])
        harness.expectError("xdg_surface", xdgSurface.id, code: 1)
    }

    @Test func aCommitBeforeARoleIsNotConstructed() throws {
        let harness = try XdgHarness()
        let surface = try harness.makeSurface()
        let xdgSurface = try harness.wmBase.send(2, [.newID, .object(surface)], interface: "xdg_surface")
        try surface.send(6)
        harness.expectError("xdg_surface", xdgSurface.id, code: 1)
    }

    @Test func aSecondRoleObjectIsAlreadyConstructed() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        _ = try window.xdgSurface.send(1, [.newID], interface: "xdg_toplevel")
        harness.expectError("xdg_surface", window.xdgSurface.id, code: 2)
    }

    @Test func aPopupRoleOnAFormerToplevelIsARoleError() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let window = try harness.makeToplevel()
        try window.toplevel.sendDestructor(0)
        let positioner = try harness.makePositioner()
        _ = try window.xdgSurface.send(2, [.newID, .object(parent.xdgSurface), .object(positioner)], interface: "xdg_popup")
        harness.expectError("xdg_wm_base", harness.wmBase.id, code: 0)
    }

    @Test func destroyingTheXdgSurfaceBeforeItsToplevelIsDefunctRoleObject() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.xdgSurface.send(0)
        harness.expectError("xdg_surface", window.xdgSurface.id, code: 6)
    }

    @Test func nonPositiveWindowGeometryIsInvalidSize() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.xdgSurface.send(3, [.int(0), .int(0), .int(0), .int(10)])
        harness.expectError("xdg_surface", window.xdgSurface.id, code: 5)
    }

    @Test func windowGeometryIsDoubleBufferedAndClampedToTheSurface() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel(width: 64, height: 32)
        #expect(window.server.windowGeometry == IntRect(x: 0, y: 0, width: 64, height: 32))
        try window.xdgSurface.send(3, [.int(5), .int(6), .int(100), .int(100)])
        try harness.client.roundtrip()
        #expect(window.server.windowGeometry == IntRect(x: 0, y: 0, width: 64, height: 32))
        try harness.commit(window.surface)
        #expect(window.server.windowGeometry == IntRect(x: 5, y: 6, width: 59, height: 26))
        try window.xdgSurface.send(3, [.int(2), .int(2), .int(10), .int(10)])
        try harness.commit(window.surface)
        #expect(window.server.windowGeometry == IntRect(x: 2, y: 2, width: 10, height: 10))
    }

    @Test func windowGeometryIsTheSetOneBeforeAnythingIsDrawn() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.xdgSurface.send(3, [.int(5), .int(6), .int(100), .int(100)])
        try harness.commit(window.surface)
        #expect(window.server.windowGeometry == IntRect(x: 5, y: 6, width: 100, height: 100))
    }

    @Test func unsetWindowGeometryIsTheBoundingBoxOfTheSurfaceAndItsSubsurfaces() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel(width: 64, height: 32)
        let child = try harness.makeSurface()
        let subcompositor = try harness.client.bind("wl_subcompositor", version: 1)
        let subsurface = try subcompositor.send(1, [.newID, .object(child), .object(window.surface)], interface: "wl_subsurface")
        try subsurface.send(1, [.int(-10), .int(-4)])
        try harness.attachBuffer(to: child, width: 20, height: 10)
        try harness.commit(child)
        try harness.commit(window.surface)
        #expect(window.server.windowGeometry == IntRect(x: -10, y: -4, width: 74, height: 36))
    }
}
