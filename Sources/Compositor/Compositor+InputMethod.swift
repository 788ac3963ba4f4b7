import LayerKit
import Views
import WaylandServer

/// What a built-in input method (the kiosk shell's on-screen keyboard) needs of the compositor:
/// a place between the windows and the shell's overlays, keys typed into the focused client as a
/// physical keyboard types them, where a text cursor is on the output, and room made for it.
extension Compositor {
    /// Puts `view` on output `index` directly above the windows, under every other view of the
    /// compositor's (the shell's overlays cover it).
    public func addViewAboveWindows(_ view: View, onOutputAt index: Int = 0) {
        guard outputs.indices.contains(index) else { return }
        let output = outputs[index]
        let windowsIndex = output.rootView.subviews.firstIndex { $0 === output.windowsView } ?? 0
        output.rootView.insertSubview(view, at: windowsIndex + 1)
    }

    /// Presses and releases `code` (evdev, e.g. KEY_BACKSPACE 14) for the client with keyboard
    /// focus, through the seat as a physical key goes, past the compositor's own views.
    public func typeKey(_ code: UInt32) {
        let time = eventTime
        _ = seat.keyboardKey(time: time, key: code, pressed: true)
        _ = seat.keyboardKey(time: time, key: code, pressed: false)
    }

    /// `rect` of `surface`'s coordinates in output `index`'s points, where the windows are at rest
    /// (their `windowShift` left out, animations in flight ignored); nil when the surface is not
    /// on that output.
    public func outputRect(_ rect: Rect, ofSurface surface: Surface, onOutputAt index: Int = 0) -> Rect? {
        guard outputs.indices.contains(index) else { return nil }
        let output = outputs[index]
        guard let node = node(for: surface), output.shows(surface) else { return nil }
        var shown = node.container.convert(rect, to: output.root)
        shown.origin.y += windowShift(onOutputAt: index)
        return shown
    }

    /// How far every window of output `index` is moved up, points (0 at rest).
    public func windowShift(onOutputAt index: Int = 0) -> Double {
        outputs.indices.contains(index) ? -outputs[index].windowsView.frame.minY : 0
    }

    /// Moves every window of output `index` up by `distance` points (0 puts them back), sliding
    /// over `duration` seconds; input follows the windows where they are seen.
    public func setWindowShift(_ distance: Double, duration: Double, onOutputAt index: Int = 0) {
        guard outputs.indices.contains(index) else { return }
        let windows = outputs[index].windowsView
        guard windows.frame.minY != -distance else { return }
        View.animate(duration: duration) {
            Transaction.animationTimingFunction = .easeOut
            windows.frame.origin.y = -distance
        }
    }
}
