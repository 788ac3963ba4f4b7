import LayerKit
import WaylandServer

/// What the compositor offers its window policy (WindowManagementPolicy.swift). Windows live on
/// the primary output, stacked bottom to top; each is shown by its surface's layer (`layer(for:)`),
/// which the policy positions in the output's points. Popups are shown above their parent's layer.
/// With no output, windows wait for the next output to appear.
extension Compositor {
    /// The size of `windowArea`, where windows are shown; nil while there is no output.
    public var windowAreaSize: Size? { windowArea?.size }

    /// The windows shown (their toplevel surfaces), bottom to top.
    public var windowStack: [Surface] { (outputs.first?.windows ?? windowsWithoutOutput).map(\.surface) }

    /// Shows `surface`'s window above every other.
    public func showWindow(_ surface: Surface) {
        windowVisibilityNeedsUpdate = true
        let node = makeNode(for: surface)
        guard let output = outputs.first else {
            if !windowsWithoutOutput.contains(where: { $0 === node }) { windowsWithoutOutput.append(node) }
            return
        }
        output.addWindow(node)
        output.raiseWindow(node)
        output.scheduleFrame()
    }

    /// Stops showing `surface`'s window; input focus on it moves on.
    public func hideWindow(_ surface: Surface) {
        guard let node = node(for: surface) else { return }
        windowVisibilityNeedsUpdate = true
        outputs.first?.removeWindow(node)
        windowsWithoutOutput.removeAll { $0 === node }
        surfaceLeftTheScreen(surface)
        refocusPointer()
        outputs.first?.scheduleFrame()
    }

    /// Shows the popup `surface` above its parent's layer, which must have been committed. The
    /// popups of a layer surface below the overlay layer are shown above the top layer instead
    /// (`CompositorOutput.layerPopupsView`), so that windows do not hide them; they move when
    /// their surface changes layer (`showLayerSurface`).
    public func showPopup(_ surface: Surface, over parent: Surface) {
        guard let parentNode = node(for: parent) else { return }
        let popupNode = makeNode(for: surface)
        if let layerSurface = layerShell.layerSurfaces.first(where: { $0.surface === parent }), layerSurface.state.layer < .overlay,
           let output = outputs.first(where: { $0.layerSurfaces.contains { $0 === parentNode } }) {
            output.addLayerPopup(popupNode, of: parentNode)
            output.scheduleFrame()
            return
        }
        parentNode.addPopup(popupNode)
        outputs.first?.scheduleFrame()
    }

    /// Stops showing the popup `surface` of `parent`; input focus on it moves on.
    public func hidePopup(_ surface: Surface, of parent: Surface) {
        guard let node = node(for: surface) else { return }
        self.node(for: parent)?.removePopup(node)
        for output in outputs { output.removeLayerPopup(node) }
        node.container.removeFromSuperlayer()
        surfaceLeftTheScreen(surface)
        outputs.first?.scheduleFrame()
    }

    /// Where the origin of `surface`'s layer is in the primary output's points (its position in
    /// its superlayer while there is no output); nil before the surface's first commit.
    public func windowAreaPosition(of surface: Surface) -> Point? {
        guard let node = node(for: surface) else { return nil }
        return outputs.first.map { node.container.convert(Point.zero, to: $0.root) } ?? node.container.position
    }

    /// The window area in `surface`'s coordinates, through every transform of its window (a
    /// fitted window's scale); nil before the surface's first commit or without an output.
    public func windowArea(in surface: Surface) -> Rect? {
        guard let node = node(for: surface), let output = outputs.first, let area = windowArea else { return nil }
        return output.root.convert(area, to: node.container)
    }
}
