import Compositor
import LayerKit
import WaylandServer
public import XWindowManager

/// X windows under the same kiosk policy as xdg-shell's: a toplevel is configured to the whole
/// output (or to its minimum size where that is larger) and fullscreen (`_NET_WM_STATE_FULLSCREEN`),
/// a dialog (`WM_TRANSIENT_FOR`) keeps the size it asks for and is centred above its parent, and
/// menus, tooltips and drop-downs (override-redirect) are shown where X put them. The X root's
/// coordinates are the primary output's points, seen through the fit policy of the toplevel a
/// window belongs to: each window's layer is at its X frame mapped as that toplevel is
/// (scaled and moved when it does not match the output), so that a menu stays where X put it
/// relative to its window and the positions Xwayland receives on a surface are X's. A mapped
/// toplevel or dialog is on top and takes the keyboard focus, which the window manager passes on
/// to X.
extension KioskWindowPolicy: XWindowManagerHandler {
    public func xWindowNeedsPlacement(_ window: XWindow) {
        let requested = window.requestedSize
        if let parent = window.transientFor {
            let frame = parent.frame
            window.configure(IntRect(
                x: frame.x + (frame.width - requested.width) / 2, y: frame.y + (frame.height - requested.height) / 2,
                width: requested.width, height: requested.height))
            window.setFullscreen(false)
        } else {
            // The window area's size (the output less the layer shell's exclusive zones, whose
            // origin the window's fitting adds); without an output the window keeps its own size.
            let size = compositor.windowAreaSize.map { (Int32($0.width), Int32($0.height)) } ?? (requested.width, requested.height)
            let minimum = window.minimumSize
            window.configure(IntRect(x: 0, y: 0, width: max(size.0, minimum.width), height: max(size.1, minimum.height)))
            window.setFullscreen(true)
        }
    }

    public func xWindowMapped(_ window: XWindow) {
        guard let surface = window.surface else { return }
        xWindows[ObjectIdentifier(surface)] = window
        if !window.isOverrideRedirect { dismissGrabbingPopups() }
        compositor.showWindow(surface)
        placeXWindows()
        if !window.isOverrideRedirect, exclusiveLayerSurface == nil { compositor.focus(surface) }
        compositor.refocusPointer()
    }

    public func xWindowMoved(_ window: XWindow) {
        // A toplevel's new size can change how its dialogs and menus are mapped too.
        placeXWindows()
        compositor.refocusPointer()
    }

    public func xWindowUnmapped(_ window: XWindow) {
        guard let surface = window.surface else { return }
        xWindows[ObjectIdentifier(surface)] = nil
        compositor.hideWindow(surface)
        placeXWindows()
    }

    /// Puts every shown X window's layer at its frame, through its toplevel's fitting.
    func placeXWindows() {
        Transaction.begin()
        Transaction.disableActions = true
        for window in xWindows.values {
            guard let surface = window.surface, let layer = compositor.layer(for: surface) else { continue }
            let root = rootFitting(of: window)
            WindowFitting(
                scale: root.scale,
                origin: Point(x: root.origin.x + Double(window.frame.x) * root.scale, y: root.origin.y + Double(window.frame.y) * root.scale)
            ).apply(to: layer, placing: .zero)
        }
        Transaction.commit()
    }

    /// How the X root is shown for `window`: as its toplevel is fitted to the output (a dialog's
    /// toplevel is at the root of its `WM_TRANSIENT_FOR` chain; a menu's or tooltip's is the
    /// topmost X toplevel shown). The fitting's origin is where the root's origin is shown.
    private func rootFitting(of window: XWindow) -> WindowFitting {
        var owner: XWindow? = window
        for _ in 0..<32 {
            guard let parent = owner?.transientFor else { break }
            owner = parent
        }
        if window.isOverrideRedirect {
            owner = compositor.windowStack.reversed().lazy.compactMap { self.xWindows[ObjectIdentifier($0)] }
                .first { !$0.isOverrideRedirect && $0.transientFor == nil }
        }
        guard let owner, let area = compositor.windowArea else { return .identity }
        let frame = owner.frame
        let fitting = WindowFitting(size: Size(width: Double(frame.width), height: Double(frame.height)), area: area, fit: fit)
        return WindowFitting(
            scale: fitting.scale,
            origin: Point(x: fitting.origin.x - Double(frame.x) * fitting.scale, y: fitting.origin.y - Double(frame.y) * fitting.scale))
    }

    /// The X toplevels are configured again for the new output's size.
    func placeXWindowsForNewOutput() {
        for window in xWindows.values where !window.isOverrideRedirect && window.transientFor == nil {
            xWindowNeedsPlacement(window)
        }
        placeXWindows()
    }

    /// X's input focus follows the compositor's keyboard focus onto an X window.
    func focusXWindow(of surface: Surface?) {
        guard let surface, let window = xWindows[ObjectIdentifier(surface)] else { return }
        window.focus()
    }
}
