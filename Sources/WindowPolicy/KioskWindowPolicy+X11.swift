import Compositor
import LayerKit
import WaylandServer
public import XWindowManager

/// X windows under the same kiosk policy as xdg-shell's: a toplevel is configured to the whole
/// output and fullscreen (`_NET_WM_STATE_FULLSCREEN`), a dialog (`WM_TRANSIENT_FOR`) keeps the
/// size it asks for and is centred above its parent, and menus, tooltips and drop-downs
/// (override-redirect) are shown where X put them. Each window's layer is at its X frame: the X
/// root's coordinates are the primary output's points. A mapped toplevel or dialog is on top and
/// takes the keyboard focus, which the window manager passes on to X.
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
            // Without an output the window keeps its own size until one appears.
            let size = compositor.windowAreaSize.map { (Int32($0.width), Int32($0.height)) } ?? (requested.width, requested.height)
            window.configure(IntRect(x: 0, y: 0, width: size.0, height: size.1))
            window.setFullscreen(true)
        }
    }

    public func xWindowMapped(_ window: XWindow) {
        guard let surface = window.surface else { return }
        xWindows[ObjectIdentifier(surface)] = window
        if !window.isOverrideRedirect { dismissGrabbingPopups() }
        compositor.showWindow(surface)
        placeXWindow(window)
        if !window.isOverrideRedirect { compositor.focus(surface) }
        compositor.refocusPointer()
    }

    public func xWindowMoved(_ window: XWindow) {
        placeXWindow(window)
        compositor.refocusPointer()
    }

    public func xWindowUnmapped(_ window: XWindow) {
        guard let surface = window.surface else { return }
        xWindows[ObjectIdentifier(surface)] = nil
        compositor.hideWindow(surface)
    }

    private func placeXWindow(_ window: XWindow) {
        guard let surface = window.surface, let layer = compositor.layer(for: surface) else { return }
        Transaction.begin()
        Transaction.disableActions = true
        layer.position = Point(x: Double(window.frame.x), y: Double(window.frame.y))
        Transaction.commit()
    }

    /// The X toplevels are configured again for the new output's size.
    func placeXWindowsForNewOutput() {
        for window in xWindows.values where !window.isOverrideRedirect && window.transientFor == nil {
            xWindowNeedsPlacement(window)
        }
    }

    /// X's input focus follows the compositor's keyboard focus onto an X window.
    func focusXWindow(of surface: Surface?) {
        guard let surface, let window = xWindows[ObjectIdentifier(surface)] else { return }
        window.focus()
    }
}
