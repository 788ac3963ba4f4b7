import LayerKit
import WaylandServer

/// Vitrine's kiosk window policy for xdg-shell: every toplevel is configured fullscreen on its
/// output and shown centred (with black around it when the client draws smaller); a toplevel with a
/// parent (a dialog) is sized by its client and centred above the parent; popups follow their
/// positioner, constrained to the output. The newest window is on top and has keyboard focus.
final class WindowManager: XdgShellHandler {
    private unowned let compositor: Compositor
    /// Where windows placed explicitly (by a test harness or the shell) have their surface's
    /// origin, in output points. A placed window stays put, as on a desktop: a later change of its
    /// window geometry (a subsurface moving past the surface's edge) does not move the surface
    /// under the pointer; only windows that the policy centres are centred again.
    private var explicitOrigins: [ObjectIdentifier: Point] = [:]
    private var popups: [ObjectIdentifier: XdgPopup] = [:]
    /// Popups that asked for an explicit grab and were not dismissed, oldest first: the topmost
    /// mapped one has keyboard focus; a new window dismisses them all.
    private var grabbingPopups: [XdgPopup] = []

    init(compositor: Compositor) {
        self.compositor = compositor
    }

    /// Where windows are shown: the primary output (none while every display is unplugged).
    private var output: CompositorOutput? { compositor.outputs.first }

    /// The primary output changed (its display was unplugged, or the first one appeared): every
    /// window is configured again for its size and placed on it.
    func outputsChanged() {
        Transaction.begin()
        Transaction.disableActions = true
        for toplevel in compositor.shell.toplevels where toplevel.isAlive && toplevel.xdgSurface.hasBeenSentConfigure {
            configure(toplevel)
            if toplevel.isMapped { place(toplevel) }
        }
        Transaction.commit()
    }

    /// The kiosk knows a toplevel's size from the start, so it configures at once rather than
    /// waiting for the initial commit (which is answered with a configure too): the client may
    /// draw its first buffer at the right size straight away.
    func toplevelCreated(_ toplevel: XdgToplevel) {
        configure(toplevel)
    }

    func toplevelNeedsInitialConfigure(_ toplevel: XdgToplevel) {
        configure(toplevel)
    }

    private func configure(_ toplevel: XdgToplevel) {
        // Activated follows keyboard focus: the window (or one of its popups) that has it.
        let activated: XdgToplevel.States = isActive(toplevel) ? [.activated] : []
        if toplevel.parent != nil {
            _ = toplevel.configure(width: 0, height: 0, states: activated)
        } else {
            // Without an output the client picks its size (0×0) until one appears.
            let size = output?.logicalSize ?? Size(width: 0, height: 0)
            _ = toplevel.configure(width: Int32(size.width), height: Int32(size.height), states: activated.union(.fullscreen))
        }
    }

    private func isActive(_ toplevel: XdgToplevel) -> Bool {
        guard let focus = compositor.seat.keyboardFocus else { return false }
        return self.toplevel(owning: focus) === toplevel
    }

    /// The toplevel a surface belongs to: itself, or the toplevel at the root of its popup chain.
    private func toplevel(owning surface: Surface) -> XdgToplevel? {
        var current = surface
        for _ in 0..<64 {
            if let toplevel = compositor.shell.toplevels.first(where: { $0.surface === current }) { return toplevel }
            guard let popup = popup(of: current) else { return nil }
            current = popup.parent.surface
        }
        return nil
    }

    /// Keyboard focus moved: the toplevels that gained or lost the activated state hear of it.
    func keyboardFocusChanged(from previous: Surface?, to next: Surface?) {
        let old = previous.flatMap { toplevel(owning: $0) }
        let new = next.flatMap { toplevel(owning: $0) }
        guard old !== new else { return }
        for toplevel in [old, new] {
            guard let toplevel, toplevel.isAlive, toplevel.xdgSurface.hasBeenSentConfigure else { continue }
            configure(toplevel)
        }
    }

    func toplevelMapped(_ toplevel: XdgToplevel) {
        // A new window takes the focus away from grabbing popups, which ends their grabs.
        dismissGrabbingPopups()
        let node = compositor.makeNode(for: toplevel.surface)
        if let output {
            output.addWindow(node)
            output.raiseWindow(node)
        } else if !compositor.windowsWithoutOutput.contains(where: { $0 === node }) {
            compositor.windowsWithoutOutput.append(node)
        }
        place(toplevel)
        compositor.focus(toplevel.surface)
        compositor.refocusPointer()
        output?.scheduleFrame()
    }

    func toplevelUnmapped(_ toplevel: XdgToplevel) {
        guard let node = compositor.node(for: toplevel.surface) else { return }
        output?.removeWindow(node)
        compositor.windowsWithoutOutput.removeAll { $0 === node }
        compositor.surfaceLeftTheScreen(toplevel.surface)
        compositor.refocusPointer()
        output?.scheduleFrame()
    }

    func toplevelDestroyed(_ toplevel: XdgToplevel) {
        explicitOrigins[ObjectIdentifier(toplevel.surface)] = nil
    }

    func toplevelRequested(_ toplevel: XdgToplevel, _ request: XdgToplevelRequest) {
        switch request {
        case .setFullscreen, .unsetFullscreen, .setMaximized, .unsetMaximized:
            // A kiosk window stays as the policy made it; the protocol still wants a configure in answer.
            configure(toplevel)
        default:
            break
        }
    }

    /// Places a mapped window again (after a commit changed its size or geometry).
    func place(_ toplevel: XdgToplevel) {
        guard let node = compositor.node(for: toplevel.surface) else { return }
        if let explicit = explicitOrigins[ObjectIdentifier(toplevel.surface)] {
            node.container.position = explicit
            return
        }
        let geometry = toplevel.windowGeometry
        let origin: Point
        if let parent = toplevel.parent, let parentNode = compositor.node(for: parent.surface) {
            let parentGeometry = parent.windowGeometry
            let parentOrigin = Point(x: parentNode.container.position.x + Double(parentGeometry.x),
                                     y: parentNode.container.position.y + Double(parentGeometry.y))
            origin = Point(x: parentOrigin.x + (Double(parentGeometry.width) - Double(geometry.width)) / 2,
                           y: parentOrigin.y + (Double(parentGeometry.height) - Double(geometry.height)) / 2)
        } else {
            let size = output?.logicalSize ?? Size(width: Double(geometry.width), height: Double(geometry.height))
            origin = Point(x: ((size.width - Double(geometry.width)) / 2).rounded(.down),
                           y: ((size.height - Double(geometry.height)) / 2).rounded(.down))
        }
        node.container.position = Point(x: origin.x - Double(geometry.x), y: origin.y - Double(geometry.y))
    }

    /// Puts the window's top-left corner (its window geometry's, as it is now) at `point` in
    /// output points; the window stays there until placed again.
    func setPosition(of surface: Surface, to point: Point) {
        guard let toplevel = compositor.shell.toplevels.first(where: { $0.surface === surface }) else { return }
        let geometry = toplevel.windowGeometry
        explicitOrigins[ObjectIdentifier(surface)] = Point(x: point.x - Double(geometry.x), y: point.y - Double(geometry.y))
        place(toplevel)
    }

    func popupCreated(_ popup: XdgPopup) {
        popups[ObjectIdentifier(popup.surface)] = popup
    }

    func popup(of surface: Surface) -> XdgPopup? {
        popups[ObjectIdentifier(surface)]
    }

    func popupNeedsConfigure(_ popup: XdgPopup) {
        // The output's rectangle in the parent's window-geometry coordinates.
        let parentOrigin = windowGeometryOrigin(of: popup.parent.surface)
        // Without an output nothing constrains the popup but the largest mode there is.
        let size = output?.logicalSize ?? Size(width: 16384, height: 16384)
        // Saturating: a chain of popups each placed far off its parent can be anywhere.
        let bounds = IntRect(x: Int32(saturating: -parentOrigin.x), y: Int32(saturating: -parentOrigin.y),
                             width: Int32(saturating: size.width), height: Int32(saturating: size.height))
        let geometry = popup.positioner.geometry(constrainedTo: bounds)
        _ = popup.configure(x: geometry.x, y: geometry.y, width: geometry.width, height: geometry.height)
    }

    func popupMapped(_ popup: XdgPopup) {
        guard let parentNode = compositor.node(for: popup.parent.surface) else { return }
        let node = compositor.makeNode(for: popup.surface)
        parentNode.addPopup(node)
        placePopup(popup)
        if grabbingPopups.contains(where: { $0 === popup }) { compositor.focus(popup.surface) }
        output?.scheduleFrame()
    }

    func placePopup(_ popup: XdgPopup) {
        guard let node = compositor.node(for: popup.surface), let geometry = popup.geometry else { return }
        let parentGeometry = popup.parent.windowGeometry
        let own = popup.xdgSurface.windowGeometry
        node.container.position = Point(x: Double(parentGeometry.x) + Double(geometry.x) - Double(own.x),
                                        y: Double(parentGeometry.y) + Double(geometry.y) - Double(own.y))
    }

    func popupUnmapped(_ popup: XdgPopup) {
        grabbingPopups.removeAll { $0 === popup }
        guard let node = compositor.node(for: popup.surface) else { return }
        compositor.node(for: popup.parent.surface)?.removePopup(node)
        node.container.removeFromSuperlayer()
        compositor.surfaceLeftTheScreen(popup.surface)
        output?.scheduleFrame()
    }

    /// A press (button or touch) on `target` while popups hold a grab: one on a surface of another
    /// client, or on nothing, dismisses them all, topmost first, and is not delivered (xdg_popup's
    /// grab). Returns whether the press was taken.
    func pressEndsPopupGrab(on target: Surface?) -> Bool {
        guard let owner = grabbingPopups.last?.surface.client else { return false }
        guard target?.client !== owner else { return false }
        dismissGrabbingPopups()
        return true
    }

    private func dismissGrabbingPopups() {
        let grabbing = grabbingPopups
        grabbingPopups = []
        for popup in grabbing.reversed() { popup.sendPopupDone() }
    }

    func popupGrabRequested(_ popup: XdgPopup, seat: Resource?, serial: UInt32) {
        grabbingPopups.append(popup)
    }

    func popupDestroyed(_ popup: XdgPopup) {
        grabbingPopups.removeAll { $0 === popup }
        if popups[ObjectIdentifier(popup.surface)] === popup { popups[ObjectIdentifier(popup.surface)] = nil }
    }

    func clientDidNotAnswerPing(_ client: Client) {
        compositor.logger.warning("client \(client.processID) did not answer a ping")
        compositor.clientUnresponsive?(client.processID)
    }

    /// The top-left of a surface's window geometry in output points.
    private func windowGeometryOrigin(of surface: Surface) -> Point {
        guard let node = compositor.node(for: surface) else { return .zero }
        let origin = output.map { node.container.convert(Point.zero, to: $0.root) } ?? node.container.position
        let xdg = compositor.shell.toplevels.first { $0.surface === surface }?.windowGeometry
        return Point(x: origin.x + Double(xdg?.x ?? 0), y: origin.y + Double(xdg?.y ?? 0))
    }
}

extension Int32 {
    /// `value` rounded down and clamped to Int32's range (0 for NaN), where `Int32(_:)` would trap.
    init(saturating value: Double) {
        guard !value.isNaN else {
            self = 0
            return
        }
        self = value <= Double(Int32.min) ? .min : value >= Double(Int32.max) ? .max : Int32(value.rounded(.down))
    }
}
