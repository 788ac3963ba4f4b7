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

/// Client input methods (zwp_input_method_v2): their popups are shown as popups of the surface
/// being typed into, just below its text cursor, or above it where below would leave the output,
/// and slid sideways to stay on the output.
extension Compositor: InputMethodHandler {
    public func inputMethodChanged(_ seat: SeatGlobal) {
        inputMethodChanged.emit()
    }

    public func inputPopupNeedsPlacing(_ popup: InputPopupSurface) {
        guard let textInput = popup.textInput, let target = textInput.surface, let targetNode = node(for: target),
              let output = outputs.first else { return }
        let popupNode = makeNode(for: popup.surface)
        if let parent = popupParent(of: popupNode), parent !== targetNode { parent.removePopup(popupNode) }
        targetNode.addPopup(popupNode)
        // Without a rectangle from the client, the text starts at the surface's top-left corner.
        let cursor = textInput.state.cursorRectangle ?? IntRect(x: 0, y: 0, width: 0, height: 0)
        let size = popup.surface.current.size
        let screen = output.root.convert(Rect(origin: .zero, size: output.logicalSize), to: targetNode.container)
        let width = Double(size.width), height = Double(size.height)
        var origin = Point(x: Double(cursor.x), y: Double(cursor.y) + Double(cursor.height))
        if origin.y + height > screen.maxY, Double(cursor.y) - height >= screen.minY { origin.y = Double(cursor.y) - height }
        origin.x = max(screen.minX, min(origin.x, screen.maxX - width))
        origin = Point(x: origin.x.rounded(), y: origin.y.rounded())
        withoutAnimation { popupNode.container.position = origin }
        popup.setTextInputRectangle(IntRect(x: cursor.x - Int32(origin.x), y: cursor.y - Int32(origin.y),
                                            width: cursor.width, height: cursor.height))
        output.scheduleFrame()
    }

    public func inputPopupHidden(_ popup: InputPopupSurface) {
        guard let popupNode = node(for: popup.surface) else { return }
        popupParent(of: popupNode)?.removePopup(popupNode)
        popupNode.container.removeFromSuperlayer()
        surfaceLeftTheScreen(popup.surface)
        outputs.first?.scheduleFrame()
    }

    /// The node showing `popup` among its popups.
    private func popupParent(of popup: SurfaceNode) -> SurfaceNode? {
        nodes.values.first { node in node.popups.contains { $0 === popup } }
    }
}
