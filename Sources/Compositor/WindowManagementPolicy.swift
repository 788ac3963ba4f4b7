import WaylandServer

/// How windows are sized, placed, stacked and focused: the decisions the compositor leaves to
/// whoever runs it (Vitrine's is the WindowPolicy module's `KioskWindowPolicy`). While it is the
/// compositor's `windowPolicy`, the policy is xdg-shell's and layer-shell's handler and shows
/// windows and layer surfaces through what the compositor offers it (Compositor+Windows.swift,
/// Compositor+LayerSurfaces.swift); the compositor tells it what changes under the windows. A
/// compositor without one shows no window.
public protocol WindowManagementPolicy: XdgShellHandler, LayerShellHandler {
    /// `surface` committed: a mapped window's or popup's size or window geometry may have changed.
    /// Called inside the commit's transaction, with implicit animations off.
    func surfaceCommitted(_ surface: Surface)
    /// The windows' output changed: another output took them (or none is left, and
    /// `windowAreaSize` is nil), or its mode changed. Called before `primaryOutputChanged` is
    /// emitted, so that those who hear it find the windows sized and placed for the new output.
    func primaryOutputChanged()
    /// A button or a finger is going down on `surface` (nil: on no client surface). Returns whether
    /// the press goes on to the client; one that does not (it dismissed popups) takes its release
    /// with it.
    func pressWillBeDelivered(on surface: Surface?) -> Bool
    /// Keyboard focus moved from `previous` to `next` (nil: the focused surface left the screen,
    /// and no surface has the focus).
    func keyboardFocusChanged(from previous: Surface?, to next: Surface?)
}
