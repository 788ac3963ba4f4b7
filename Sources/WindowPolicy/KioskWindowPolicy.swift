public import BoardConfig
import Compositor
import LayerKit
import WaylandServer
import XWindowManager

/// Vitrine's kiosk window policy for xdg-shell: every toplevel is configured fullscreen on the
/// primary output and shown by the fit policy when its size differs (centred, with black around
/// it when the client draws smaller; or scaled to fit or to fill, KioskWindowPolicy+Fit.swift); a
/// toplevel with a parent (a dialog) is sized by its client and centred above the parent; popups
/// follow their positioner, constrained to the output. The newest window is on top and has
/// keyboard focus; a press focuses the window under it; when the focused window goes, the one on
/// top takes the focus. X windows follow the same rules (KioskWindowPolicy+X11.swift). The
/// compositor's `windowPolicy`.
public final class KioskWindowPolicy: WindowManagementPolicy {
    unowned let compositor: Compositor
    /// The compositor's shell, read by every commit: reaching it through the unowned `compositor`
    /// costs a retain and a release.
    private let shell: XdgShellGlobal
    /// Where windows placed explicitly (by a test harness or the shell) have their surface's
    /// origin, in output points. A placed window stays put, as on a desktop: a later change of its
    /// window geometry (a subsurface moving past the surface's edge) does not move the surface
    /// under the pointer; only windows that the policy centres are centred again.
    var explicitOrigins: [ObjectIdentifier: Point] = [:]
    private var popups: [ObjectIdentifier: XdgPopup] = [:]
    /// Popups that asked for an explicit grab and were not dismissed, oldest first: the topmost
    /// mapped one has keyboard focus; a new window dismisses them all.
    private var grabbingPopups: [XdgPopup] = []
    /// The X windows shown, by their surface.
    var xWindows: [ObjectIdentifier: XWindow] = [:]
    /// How a toplevel whose size does not match the output is shown; changing it places the
    /// windows again.
    public var fit: WindowFit = .center {
        didSet {
            guard fit != oldValue else { return }
            compositor.windowVisibilityMayHaveChanged()
            Transaction.begin()
            Transaction.disableActions = true
            for toplevel in shell.toplevels where toplevel.isAlive && toplevel.isMapped { place(toplevel) }
            placeXWindows()
            Transaction.commit()
        }
    }
    /// The window geometry each toplevel was last placed with: a commit that leaves it as it was
    /// (a client drawing its next frame) does not place the window again. All else a placement
    /// follows (the fit, the window area, an explicit origin, mapping) places the window itself.
    /// A list, not a dictionary: a kiosk has a window or a few, and every commit looks its own up.
    private var placedGeometries: [(toplevel: ObjectIdentifier, geometry: IntRect)] = []
    /// Layer surfaces that committed and are not unmapped since (KioskWindowPolicy+LayerShell.swift).
    var layerSurfaces: [LayerSurface] = []
    /// The keyboard interactivity each mapped layer surface had at its last commit.
    var layerInteractivity: [ObjectIdentifier: LayerSurface.KeyboardInteractivity] = [:]

    public init(compositor: Compositor) {
        self.compositor = compositor
        shell = compositor.shell
    }

    /// The windows' output changed (its display was unplugged, the first one appeared, or its mode
    /// changed): layer surfaces are placed again, and every window is configured again for the
    /// area left to windows and placed in it.
    public func primaryOutputChanged() {
        arrangeLayerSurfaces()
        windowAreaChanged()
    }

    /// The area windows get changed (the output, or layer surfaces' exclusive zones).
    func windowAreaChanged() {
        Transaction.begin()
        Transaction.disableActions = true
        for toplevel in shell.toplevels where toplevel.isAlive && toplevel.xdgSurface.hasBeenSentConfigure {
            configure(toplevel)
            if toplevel.isMapped { place(toplevel) }
        }
        placeXWindowsForNewOutput()
        Transaction.commit()
    }

    /// A mapped window or popup is placed again after a commit changed its size or geometry.
    public func surfaceCommitted(_ surface: Surface) {
        if let toplevel = shell.toplevels.first(where: { $0.surface === surface }), toplevel.isMapped {
            // A dialog follows its parent's placement too, which its own commit does not show.
            if toplevel.parent != nil || placedGeometry(of: toplevel) != toplevel.windowGeometry { place(toplevel) }
        } else if let popup = popups[ObjectIdentifier(surface)], popup.isMapped {
            placePopup(popup)
        }
    }

    /// The kiosk knows a toplevel's size from the start, so it configures at once rather than
    /// waiting for the initial commit (which is answered with a configure too): the client may
    /// draw its first buffer at the right size straight away.
    public func toplevelCreated(_ toplevel: XdgToplevel) {
        configure(toplevel)
    }

    public func toplevelNeedsInitialConfigure(_ toplevel: XdgToplevel) {
        configure(toplevel)
    }

    private func configure(_ toplevel: XdgToplevel) {
        // Activated follows keyboard focus: the window (or one of its popups) that has it.
        let activated: XdgToplevel.States = isActive(toplevel) ? [.activated] : []
        if toplevel.parent != nil {
            _ = toplevel.configure(width: 0, height: 0, states: activated)
        } else {
            // Without an output the client picks its size (0×0) until one appears.
            let size = compositor.windowAreaSize ?? Size(width: 0, height: 0)
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
            if let toplevel = shell.toplevels.first(where: { $0.surface === current }) { return toplevel }
            guard let popup = popups[ObjectIdentifier(current)], let parent = popup.parent else { return nil }
            current = parent.surface
        }
        return nil
    }

    /// The toplevels that gained or lost the activated state hear of it; when the focused surface
    /// left the screen, the window on top takes the focus.
    public func keyboardFocusChanged(from previous: Surface?, to next: Surface?) {
        let old = previous.flatMap { toplevel(owning: $0) }
        let new = next.flatMap { toplevel(owning: $0) }
        if old !== new {
            for toplevel in [old, new] {
                guard let toplevel, toplevel.isAlive, toplevel.xdgSurface.hasBeenSentConfigure else { continue }
                configure(toplevel)
            }
        }
        focusXWindow(of: next)
        if next == nil { focusTopmost(excluding: previous) }
    }

    public func toplevelMapped(_ toplevel: XdgToplevel) {
        // A new window takes the focus away from grabbing popups, which ends their grabs.
        dismissGrabbingPopups()
        compositor.showWindow(toplevel.surface)
        place(toplevel)
        if exclusiveLayerSurface == nil { compositor.focus(toplevel.surface) }
        compositor.refocusPointer()
    }

    public func toplevelUnmapped(_ toplevel: XdgToplevel) {
        compositor.hideWindow(toplevel.surface)
    }

    public func toplevelDestroyed(_ toplevel: XdgToplevel) {
        explicitOrigins[ObjectIdentifier(toplevel.surface)] = nil
        placedGeometries.removeAll { $0.toplevel == ObjectIdentifier(toplevel) }
    }

    private func placedGeometry(of toplevel: XdgToplevel) -> IntRect? {
        let key = ObjectIdentifier(toplevel)
        for placed in placedGeometries where placed.toplevel == key { return placed.geometry }
        return nil
    }

    public func toplevelRequested(_ toplevel: XdgToplevel, _ request: XdgToplevelRequest) {
        switch request {
        case .setFullscreen, .unsetFullscreen, .setMaximized, .unsetMaximized:
            // A kiosk window stays as the policy made it; the protocol still wants a configure in answer.
            configure(toplevel)
        default:
            break
        }
    }

    /// Places a mapped window: where it was put explicitly; a dialog centred above its parent at
    /// its own size; a toplevel by the fit policy.
    private func place(_ toplevel: XdgToplevel) {
        guard let layer = compositor.layer(for: toplevel.surface) else { return }
        let key = ObjectIdentifier(toplevel), geometry = toplevel.windowGeometry
        if let index = placedGeometries.firstIndex(where: { $0.toplevel == key }) {
            placedGeometries[index].geometry = geometry
        } else {
            placedGeometries.append((key, geometry))
        }
        if let explicit = explicitOrigins[ObjectIdentifier(toplevel.surface)] {
            layer.transform = .identity
            layer.position = explicit
            return
        }
        let size = Size(width: Double(geometry.width), height: Double(geometry.height))
        let corner = Point(x: Double(geometry.x), y: Double(geometry.y))
        let fitting: WindowFitting
        if let parent = toplevel.parent, let parentLayer = compositor.layer(for: parent.surface) {
            // Above the parent as it is shown, scaled or not.
            let parentGeometry = parent.windowGeometry
            let shown = parentLayer.convert(
                Rect(x: Double(parentGeometry.x), y: Double(parentGeometry.y),
                     width: Double(parentGeometry.width), height: Double(parentGeometry.height)),
                to: parentLayer.superlayer)
            fitting = WindowFitting(scale: 1, origin: Point(
                x: shown.origin.x + (shown.size.width - size.width) / 2, y: shown.origin.y + (shown.size.height - size.height) / 2))
        } else {
            fitting = WindowFitting(size: size, area: compositor.windowArea ?? Rect(origin: .zero, size: size), fit: fit)
        }
        fitting.apply(to: layer, placing: corner)
    }

    /// Moves the window of `surface` so that its window geometry's top-left corner is at (`x`,
    /// `y`) output points, as its geometry is now; it stays there (the kiosk shell's placement, and
    /// WLCS's position_window_absolute).
    public func positionWindow(of surface: Surface, x: Double, y: Double) {
        compositor.windowVisibilityMayHaveChanged()
        if layerSurfaces.contains(where: { $0.surface === surface }) {
            explicitOrigins[ObjectIdentifier(surface)] = Point(x: x, y: y)
            arrangeLayerSurfaces()
            compositor.refocusPointer()
            return
        }
        guard let toplevel = shell.toplevels.first(where: { $0.surface === surface }) else { return }
        let geometry = toplevel.windowGeometry
        explicitOrigins[ObjectIdentifier(surface)] = Point(x: x - Double(geometry.x), y: y - Double(geometry.y))
        Transaction.begin()
        Transaction.disableActions = true
        place(toplevel)
        Transaction.commit()
        compositor.refocusPointer()
    }

    public func popupCreated(_ popup: XdgPopup) {
        popups[ObjectIdentifier(popup.surface)] = popup
    }

    public func popupNeedsConfigure(_ popup: XdgPopup) {
        guard let parent = popup.parent else { return }
        // The window area (for a window's popups, through a fitted window's scale) or, for the
        // popups of a layer surface, its whole output, in the parent's window-geometry
        // coordinates; without an output nothing constrains the popup but the largest mode there is.
        let parentGeometry = parent.windowGeometry
        let area = (isOnLayerSurface(popup) ? compositor.outputBounds(in: parent.surface) : compositor.windowArea(in: parent.surface))
            ?? Rect(x: 0, y: 0, width: 16384, height: 16384)
        // Saturating: a chain of popups each placed far off its parent can be anywhere.
        let bounds = IntRect(x: Int32(saturating: area.origin.x - Double(parentGeometry.x)), y: Int32(saturating: area.origin.y - Double(parentGeometry.y)),
                             width: Int32(saturating: area.size.width), height: Int32(saturating: area.size.height))
        let geometry = popup.positioner.geometry(constrainedTo: bounds)
        _ = popup.configure(x: geometry.x, y: geometry.y, width: geometry.width, height: geometry.height)
    }

    /// Whether the popup's chain starts at a layer surface rather than a window.
    private func isOnLayerSurface(_ popup: XdgPopup) -> Bool {
        var current = popup
        for _ in 0..<64 {
            switch current.parent {
            case .layerSurface?: return true
            case .xdgSurface(let parent)?:
                guard let next = parent.popup else { return false }
                current = next
            case nil: return false
            }
        }
        return false
    }

    public func popupMapped(_ popup: XdgPopup) {
        guard let parent = popup.parent, compositor.layer(for: parent.surface) != nil else { return }
        compositor.showPopup(popup.surface, over: parent.surface)
        placePopup(popup)
        if grabbingPopups.contains(where: { $0 === popup }) { compositor.focus(popup.surface) }
    }

    private func placePopup(_ popup: XdgPopup) {
        guard let layer = compositor.layer(for: popup.surface), let geometry = popup.geometry, let parent = popup.parent else { return }
        let parentGeometry = parent.windowGeometry
        let own = popup.xdgSurface.windowGeometry
        layer.position = Point(x: Double(parentGeometry.x) + Double(geometry.x) - Double(own.x),
                               y: Double(parentGeometry.y) + Double(geometry.y) - Double(own.y))
    }

    public func popupUnmapped(_ popup: XdgPopup) {
        grabbingPopups.removeAll { $0 === popup }
        guard let parent = popup.parent else { return }
        compositor.hidePopup(popup.surface, of: parent.surface)
    }

    /// A press on a surface of another client than the grabbing popups', or on nothing, dismisses
    /// them all, topmost first, and is not delivered (xdg_popup's grab); any other press focuses
    /// the window it is on.
    public func pressWillBeDelivered(on surface: Surface?) -> Bool {
        if let owner = grabbingPopups.last?.surface.client, surface?.client !== owner {
            dismissGrabbingPopups()
            return false
        }
        if let surface, mayFocus(surface) { compositor.focus(surface) }
        return true
    }

    func dismissGrabbingPopups() {
        let grabbing = grabbingPopups
        grabbingPopups = []
        for popup in grabbing.reversed() { popup.sendPopupDone() }
    }

    public func popupGrabRequested(_ popup: XdgPopup, seat: Resource?, serial: UInt32) {
        grabbingPopups.append(popup)
    }

    public func popupDestroyed(_ popup: XdgPopup) {
        grabbingPopups.removeAll { $0 === popup }
        if popups[ObjectIdentifier(popup.surface)] === popup { popups[ObjectIdentifier(popup.surface)] = nil }
    }

    public func clientDidNotAnswerPing(_ client: Client) {
        compositor.clientDidNotAnswerPing(client)
    }

}

extension Int32 {
    /// `value` rounded down and clamped to Int32's range (0 for NaN), where `Int32(_:)` would trap.
    fileprivate init(saturating value: Double) {
        guard !value.isNaN else {
            self = 0
            return
        }
        self = value <= Double(Int32.min) ? .min : value >= Double(Int32.max) ? .max : Int32(value.rounded(.down))
    }
}
