import Testing
import WaylandServer
import WaylandTestClient

@Suite struct XdgSurfaceTests {
    private let fullscreenActivated = uint32Array([2, 4])

    /// A window's objects, which the compositor reaches at every commit, are held without weak
    /// references: each would give them a side table, which sends every retain and release of
    /// them through the runtime's slow path. (A count of 1 is the object's own: none.)
    @Test func aMappedToplevelAndItsXdgSurfaceAreNotWeaklyReferenced() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        #expect(_getWeakRetainCount(window.server) == 1)
        #expect(_getWeakRetainCount(window.server.xdgSurface) == 1)
    }

    /// The surface holds its role object, and the xdg_surface's commit checks hold it: a mapped
    /// window leaves nothing behind, destroyed in order (toplevel, xdg_surface, surface) by a
    /// client that stays, or left by a client that goes.
    @Test(arguments: [false, true]) func aMappedWindowIsReleasedWhenItsClientDestroysItOrLeaves(leaves: Bool) throws {
        let harness = try XdgHarness()
        weak var toplevel: XdgToplevel?
        weak var xdgSurface: XdgSurface?
        weak var surface: Surface?
        do {
            let window = try harness.makeMappedToplevel()
            toplevel = window.server
            xdgSurface = window.server.xdgSurface
            surface = window.server.surface
            try harness.end(window, leaving: leaves)
        }
        #expect(toplevel == nil)
        #expect(xdgSurface == nil)
        #expect(surface == nil)
    }

    @Test func theInitialCommitIsAnsweredWithCapabilitiesConfigureAndSurfaceConfigure() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        #expect(harness.policy.calls == ["toplevelCreated"])
        #expect(harness.events.isEmpty)
        try harness.commit(window.surface)
        #expect(harness.policy.calls == ["toplevelCreated", "toplevelNeedsInitialConfigure"])
        #expect(harness.events == ["xdg_toplevel.wm_capabilities", "xdg_toplevel.configure", "xdg_surface.configure"])
        #expect(window.toplevel.events == [
            .wmCapabilities(capabilities: uint32Array([])), .configure(width: 320, height: 240, states: fullscreenActivated),
        ])
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
        let xdgSurface = try harness.wmBase.getXdgSurface(surface: surface)
        try harness.attachBuffer(to: surface, width: 320, height: 240)
        harness.expectError(XdgSurfaceError.unconfiguredBuffer, on: xdgSurface)
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
        try window.surface.commit()
        harness.expectError(XdgSurfaceError.unconfiguredBuffer, on: window.xdgSurface)
    }

    @Test func ackingAnUnknownSerialIsInvalidSerial() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try harness.commit(window.surface)
        let serial = harness.lastConfigureSerial(window.xdgSurface)
        try window.xdgSurface.ackConfigure(serial: serial &+ 100)
        harness.expectError(XdgSurfaceError.invalidSerial, on: window.xdgSurface)
    }

    @Test func ackingTheSameSerialTwiceIsInvalidSerial() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try harness.commit(window.surface)
        try harness.acknowledgeLastConfigure(window.xdgSurface)
        try harness.client.roundtrip()
        try harness.acknowledgeLastConfigure(window.xdgSurface)
        harness.expectError(XdgSurfaceError.invalidSerial, on: window.xdgSurface)
    }

    @Test func ackingALaterConfigureConsumesTheEarlierOnes() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try harness.commit(window.surface)
        let first = harness.lastConfigureSerial(window.xdgSurface)
        let second = window.server.configure(width: 100, height: 50, states: [.maximized])
        try harness.client.roundtrip()
        #expect(harness.lastConfigureSerial(window.xdgSurface) == second)
        try window.xdgSurface.ackConfigure(serial: second)
        try harness.attachBuffer(to: window.surface, width: 100, height: 50)
        try harness.commit(window.surface)
        #expect(window.server.lastAckedSerial == second)
        #expect(window.server.currentConfiguration == XdgToplevel.Configuration(width: 100, height: 50, states: [.maximized]))
        try window.xdgSurface.ackConfigure(serial: first)
        harness.expectError(XdgSurfaceError.invalidSerial, on: window.xdgSurface)
    }

    @Test func theAcknowledgedConfigurationBecomesCurrentOnlyWithTheNextCommit() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel()
        let serial = window.server.configure(width: 200, height: 100, states: [])
        try harness.client.roundtrip()
        try window.xdgSurface.ackConfigure(serial: serial)
        try harness.client.roundtrip()
        #expect(window.server.lastAckedSerial == serial)
        #expect(window.server.currentConfiguration?.width == 320)
        try harness.commit(window.surface)
        #expect(window.server.currentConfiguration == XdgToplevel.Configuration(width: 200, height: 100, states: []))
    }

    @Test func setWindowGeometryBeforeARoleIsNotConstructed() throws {
        let harness = try XdgHarness()
        let surface = try harness.makeSurface()
        let xdgSurface = try harness.wmBase.getXdgSurface(surface: surface)
        try xdgSurface.setWindowGeometry(x: 0, y: 0, width: 10, height: 10)
        harness.expectError(XdgSurfaceError.notConstructed, on: xdgSurface)
    }

    @Test func ackBeforeARoleIsNotConstructed() throws {
        let harness = try XdgHarness()
        let surface = try harness.makeSurface()
        let xdgSurface = try harness.wmBase.getXdgSurface(surface: surface)
        try xdgSurface.ackConfigure(serial: 1)
        harness.expectError(XdgSurfaceError.notConstructed, on: xdgSurface)
    }

    @Test func aCommitBeforeARoleIsNotConstructed() throws {
        let harness = try XdgHarness()
        let surface = try harness.makeSurface()
        let xdgSurface = try harness.wmBase.getXdgSurface(surface: surface)
        try surface.commit()
        harness.expectError(XdgSurfaceError.notConstructed, on: xdgSurface)
    }

    @Test func aSecondRoleObjectIsAlreadyConstructed() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        _ = try window.xdgSurface.getToplevel()
        harness.expectError(XdgSurfaceError.alreadyConstructed, on: window.xdgSurface)
    }

    @Test func aPopupRoleOnAFormerToplevelIsARoleError() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let window = try harness.makeToplevel()
        try window.toplevel.destroy()
        let positioner = try harness.makePositioner()
        _ = try window.xdgSurface.getPopup(parent: parent.xdgSurface, positioner: positioner)
        harness.expectError(XdgWmBaseError.role, on: harness.wmBase)
    }

    @Test func destroyingTheXdgSurfaceBeforeItsToplevelIsDefunctRoleObject() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.xdgSurface.destroy()
        harness.expectError(XdgSurfaceError.defunctRoleObject, on: window.xdgSurface)
    }

    @Test func nonPositiveWindowGeometryIsInvalidSize() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.xdgSurface.setWindowGeometry(x: 0, y: 0, width: 0, height: 10)
        harness.expectError(XdgSurfaceError.invalidSize, on: window.xdgSurface)
    }

    @Test func windowGeometryIsDoubleBufferedAndClampedToTheSurface() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel(width: 64, height: 32)
        #expect(window.server.windowGeometry == IntRect(x: 0, y: 0, width: 64, height: 32))
        try window.xdgSurface.setWindowGeometry(x: 5, y: 6, width: 100, height: 100)
        try harness.client.roundtrip()
        #expect(window.server.windowGeometry == IntRect(x: 0, y: 0, width: 64, height: 32))
        try harness.commit(window.surface)
        #expect(window.server.windowGeometry == IntRect(x: 5, y: 6, width: 59, height: 26))
        try window.xdgSurface.setWindowGeometry(x: 2, y: 2, width: 10, height: 10)
        try harness.commit(window.surface)
        #expect(window.server.windowGeometry == IntRect(x: 2, y: 2, width: 10, height: 10))
    }

    @Test func windowGeometryIsTheSetOneBeforeAnythingIsDrawn() throws {
        let harness = try XdgHarness()
        let window = try harness.makeToplevel()
        try window.xdgSurface.setWindowGeometry(x: 5, y: 6, width: 100, height: 100)
        try harness.commit(window.surface)
        #expect(window.server.windowGeometry == IntRect(x: 5, y: 6, width: 100, height: 100))
    }

    @Test func unsetWindowGeometryIsTheBoundingBoxOfTheSurfaceAndItsSubsurfaces() throws {
        let harness = try XdgHarness()
        let window = try harness.makeMappedToplevel(width: 64, height: 32)
        let child = try harness.makeSurface()
        let subcompositor = try harness.client.bind(WlSubcompositorProxy.self, version: 1)
        let subsurface = try subcompositor.getSubsurface(surface: child, parent: window.surface)
        try subsurface.setPosition(x: -10, y: -4)
        try harness.attachBuffer(to: child, width: 20, height: 10)
        try harness.commit(child)
        try harness.commit(window.surface)
        #expect(window.server.windowGeometry == IntRect(x: -10, y: -4, width: 74, height: 36))
    }
}
