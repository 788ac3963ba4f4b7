import Testing
import WaylandServer
import WaylandTestClient

@Suite struct XdgPopupTests {
    @Test func theInitialCommitIsAnsweredWithTheGeometryTheCompositorChose() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let positioner = try harness.makePositioner(
            anchorRect: IntRect(x: 10, y: 20, width: 30, height: 10), anchor: .bottomLeft, gravity: .bottomRight)
        let popup = try harness.makePopup(parent: parent.xdgSurface, positioner: positioner)
        harness.clearEvents()
        #expect(popup.server.parentXdgSurface === parent.server.xdgSurface)
        try harness.commit(popup.surface)
        #expect(harness.events == ["xdg_popup.configure", "xdg_surface.configure"])
        #expect(popup.popup.events == [.configure(x: 10, y: 30, width: 60, height: 40)])
        #expect(harness.policy.calls.suffix(2) == ["popupCreated", "popupNeedsConfigure"])
        try harness.acknowledgeLastConfigure(popup.xdgSurface)
        try harness.attachBuffer(to: popup.surface, width: 60, height: 40)
        try harness.commit(popup.surface)
        #expect(popup.server.isMapped)
        #expect(popup.server.geometry == IntRect(x: 10, y: 30, width: 60, height: 40))
        #expect(harness.policy.calls.suffix(1) == ["popupMapped"])
    }

    @Test func thePlacementIsConstrainedToTheOutput() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        // Below a button at the bottom of the 320×240 output, allowed to flip up.
        let positioner = try harness.makePositioner(
            anchorRect: IntRect(x: 10, y: 220, width: 30, height: 20), anchor: .bottomLeft, gravity: .bottomRight, constraintAdjustment: 8)
        let popup = try harness.makeMappedPopup(parent: parent.xdgSurface, positioner: positioner)
        #expect(popup.server.geometry == IntRect(x: 10, y: 180, width: 60, height: 40))
    }

    @Test func aNestedPopupIsPlacedAgainstItsParentPopup() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let menu = try harness.makeMappedPopup(parent: parent.xdgSurface,
                                               positioner: harness.makePositioner(anchorRect: IntRect(x: 0, y: 0, width: 10, height: 10), anchor: .topLeft, gravity: .bottomRight))
        // The submenu would leave the output on the right: flipped to the menu's left... which
        // does not fit either, so it slides back in.
        let submenu = try harness.makeMappedPopup(parent: menu.xdgSurface,
                                                  positioner: harness.makePositioner(width: 300, height: 40, anchorRect: IntRect(x: 60, y: 0, width: 0, height: 10),
                                                                                     anchor: .topLeft, gravity: .bottomRight, constraintAdjustment: 5))
        #expect(submenu.server.parentXdgSurface === menu.server.xdgSurface)
        #expect(submenu.server.geometry == IntRect(x: 20, y: 0, width: 300, height: 40))
    }

    /// A null parent is for a layer surface to fill in; until one does, the popup is not
    /// configured and cannot map.
    @Test func aPopupWithoutAParentIsNotConfiguredAndCannotMap() throws {
        let harness = try XdgHarness()
        let positioner = try harness.makePositioner()
        let surface = try harness.makeSurface()
        let xdgSurface = try harness.wmBase.getXdgSurface(surface: surface)
        let popup = try xdgSurface.getPopup(parent: nil, positioner: positioner)
        try surface.commit()
        try harness.client.roundtrip()
        #expect(popup.events.isEmpty && xdgSurface.events.isEmpty)
        #expect(!harness.policy.calls.contains("popupNeedsConfigure"))
        try harness.attachBuffer(to: surface, width: 60, height: 40)
        try surface.commit()
        harness.expectError(XdgSurfaceError.unconfiguredBuffer, on: xdgSurface)
    }

    @Test func aParentWithoutARoleIsInvalidPopupParent() throws {
        let harness = try XdgHarness()
        let parentSurface = try harness.makeSurface()
        let parent = try harness.wmBase.getXdgSurface(surface: parentSurface)
        let positioner = try harness.makePositioner()
        let surface = try harness.makeSurface()
        let xdgSurface = try harness.wmBase.getXdgSurface(surface: surface)
        _ = try xdgSurface.getPopup(parent: parent, positioner: positioner)
        harness.expectError(XdgWmBaseError.invalidPopupParent, on: harness.wmBase)
    }

    @Test func mappingBeforeTheParentIsInvalidPopupParent() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeToplevel()
        try harness.commit(parent.surface)
        let popup = try harness.makePopup(parent: parent.xdgSurface)
        try harness.commit(popup.surface)
        try harness.acknowledgeLastConfigure(popup.xdgSurface)
        try harness.attachBuffer(to: popup.surface, width: 60, height: 40)
        try popup.surface.commit()
        harness.expectError(XdgWmBaseError.invalidPopupParent, on: harness.wmBase)
    }

    @Test func aGrabOnAToplevelIsReportedWithItsSeatAndSerial() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let popup = try harness.makeMappedPopup(parent: parent.xdgSurface, grab: true)
        #expect(popup.server.hasGrab)
        #expect(harness.policy.grabs.count == 1)
        #expect(harness.policy.grabs.first?.popup === popup.server)
        #expect(harness.policy.grabs.first?.serial == 7)
        #expect(harness.policy.grabs.first?.seat != nil)
    }

    @Test func aGrabAfterTheInitialCommitIsInvalidGrab() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let popup = try harness.makePopup(parent: parent.xdgSurface)
        try harness.commit(popup.surface)
        try harness.grab(popup)
        harness.expectError(XdgPopupError.invalidGrab, on: popup.popup)
    }

    @Test func aGrabOnTheTopmostGrabbingPopupNestsTheChain() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let menu = try harness.makeMappedPopup(parent: parent.xdgSurface, grab: true)
        let submenu = try harness.makeMappedPopup(parent: menu.xdgSurface, grab: true)
        #expect(submenu.server.hasGrab)
        #expect(harness.policy.grabs.map { $0.popup.id } == [menu.popup.id, submenu.popup.id])
    }

    @Test func aGrabOnANonGrabbingPopupIsNotTheTopmostPopup() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let tooltip = try harness.makeMappedPopup(parent: parent.xdgSurface)
        let popup = try harness.makePopup(parent: tooltip.xdgSurface)
        try harness.grab(popup)
        harness.expectError(XdgWmBaseError.notTheTopmostPopup, on: harness.wmBase)
    }

    @Test func aSecondGrabChainWhileOneIsShownIsNotTheTopmostPopup() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        _ = try harness.makeMappedPopup(parent: parent.xdgSurface, grab: true)
        let popup = try harness.makePopup(parent: parent.xdgSurface)
        try harness.grab(popup)
        harness.expectError(XdgWmBaseError.notTheTopmostPopup, on: harness.wmBase)
    }

    @Test func popupsOnADismissedPopupAreDismissedAndTheirGrabsIgnored() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let menu = try harness.makeMappedPopup(parent: parent.xdgSurface, grab: true)
        let submenu = try harness.makePopup(parent: menu.xdgSurface)
        menu.server.sendPopupDone()
        try harness.client.roundtrip()
        #expect(harness.events.suffix(2) == ["xdg_popup.popup_done", "xdg_popup.popup_done"])
        harness.clearEvents()
        try harness.grab(submenu)
        try harness.client.roundtrip()
        #expect(harness.events == [])
        #expect(submenu.server.isDismissed)
        #expect(harness.policy.grabs.count == 1)
        let late = try harness.makePopup(parent: menu.xdgSurface)
        #expect(late.server.isDismissed)
        #expect(harness.events == ["xdg_popup.popup_done"])
    }

    @Test func destroyingAPopupBelowAnotherIsNotTheTopmostPopup() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let menu = try harness.makeMappedPopup(parent: parent.xdgSurface)
        _ = try harness.makeMappedPopup(parent: menu.xdgSurface)
        try menu.popup.destroy()
        harness.expectError(XdgWmBaseError.notTheTopmostPopup, on: harness.wmBase)
    }

    @Test func popupsDestroyedTopmostFirstAreUnmappedAndDestroyed() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let menu = try harness.makeMappedPopup(parent: parent.xdgSurface, grab: true)
        let submenu = try harness.makeMappedPopup(parent: menu.xdgSurface, grab: true)
        try submenu.popup.destroy()
        try menu.popup.destroy()
        try harness.client.roundtrip()
        #expect(harness.policy.calls.suffix(4) == ["popupUnmapped", "popupDestroyed", "popupUnmapped", "popupDestroyed"])
        // The chain is empty again: a new grab on the toplevel is fine.
        _ = try harness.makeMappedPopup(parent: parent.xdgSurface, grab: true)
    }

    @Test func popupDoneDismissesThePopupsAboveFirst() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let menu = try harness.makeMappedPopup(parent: parent.xdgSurface, grab: true)
        let submenu = try harness.makeMappedPopup(parent: menu.xdgSurface, grab: true)
        var order: [UInt32] = []
        menu.popup.onEvent = { if $0.name == "popup_done" { order.append(menu.popup.id) } }
        submenu.popup.onEvent = { if $0.name == "popup_done" { order.append(submenu.popup.id) } }
        menu.server.sendPopupDone()
        try harness.client.roundtrip()
        #expect(order == [submenu.popup.id, menu.popup.id])
        #expect(!menu.server.isMapped && !submenu.server.isMapped)
        #expect(harness.policy.calls.suffix(2) == ["popupUnmapped", "popupUnmapped"])
        // Dismissed popups stay unmapped whatever they commit.
        try harness.attachBuffer(to: menu.surface, width: 60, height: 40)
        try harness.commit(menu.surface)
        #expect(!menu.server.isMapped)
    }

    @Test func unmappingTheParentDismissesItsPopups() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let menu = try harness.makeMappedPopup(parent: parent.xdgSurface)
        harness.clearEvents()
        try harness.attachNull(to: parent.surface)
        try harness.commit(parent.surface)
        #expect(harness.events == ["xdg_popup.popup_done"])
        #expect(menu.server.isDismissed)
        #expect(harness.policy.calls.suffix(2) == ["popupUnmapped", "toplevelUnmapped"])
    }

    @Test func anUnmappedGrabbingPopupLeavesTheChainAndMayGrabAgain() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let menu = try harness.makeMappedPopup(parent: parent.xdgSurface, grab: true)
        try harness.attachNull(to: menu.surface)
        try harness.commit(menu.surface)
        #expect(!menu.server.hasGrab)
        _ = try harness.makeMappedPopup(parent: parent.xdgSurface, grab: true)
        #expect(harness.policy.grabs.count == 2)
    }

    @Test func repositionSendsRepositionedThenConfigure() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let popup = try harness.makeMappedPopup(parent: parent.xdgSurface)
        harness.clearEvents()
        let positioner = try harness.makePositioner(width: 20, height: 20, anchorRect: IntRect(x: 100, y: 100, width: 10, height: 10),
                                                    anchor: .bottomRight, gravity: .bottomRight)
        try popup.popup.reposition(positioner: positioner, token: 42)
        try harness.client.roundtrip()
        #expect(harness.events == ["xdg_popup.repositioned", "xdg_popup.configure", "xdg_surface.configure"])
        #expect(popup.popup.events.suffix(2) == [.repositioned(token: 42), .configure(x: 110, y: 110, width: 20, height: 20)])
        #expect(popup.server.positioner.anchorRect == IntRect(x: 100, y: 100, width: 10, height: 10))
        // The new geometry takes effect once acknowledged and committed.
        #expect(popup.server.geometry == IntRect(x: 130, y: 100, width: 60, height: 40))
        try harness.acknowledgeLastConfigure(popup.xdgSurface)
        try harness.commit(popup.surface)
        #expect(popup.server.geometry == IntRect(x: 110, y: 110, width: 20, height: 20))
    }

    @Test func repositionWithAnIncompletePositionerIsInvalidPositioner() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let popup = try harness.makeMappedPopup(parent: parent.xdgSurface)
        let positioner = try harness.wmBase.createPositioner()
        try popup.popup.reposition(positioner: positioner, token: 1)
        harness.expectError(XdgWmBaseError.invalidPositioner, on: harness.wmBase)
    }

    @Test func destroyingTheParentToplevelDismissesItsPopups() throws {
        let harness = try XdgHarness()
        let parent = try harness.makeMappedToplevel()
        let menu = try harness.makeMappedPopup(parent: parent.xdgSurface, grab: true)
        try parent.toplevel.destroy()
        try harness.client.roundtrip()
        #expect(menu.server.isDismissed)
        #expect(menu.popup.events.filter { $0 == .popupDone }.count == 1)
        #expect(harness.policy.calls.suffix(3) == ["popupUnmapped", "toplevelUnmapped", "toplevelDestroyed"])
    }
}

private extension XdgPopup {
    /// The xdg_surface the popup was made on, when its parent is one.
    var parentXdgSurface: XdgSurface? {
        if case .xdgSurface(let parent)? = parent { parent } else { nil }
    }
}
