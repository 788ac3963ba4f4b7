import LayerKit
import WaylandServer

/// Space along an output's edges, in points.
public struct EdgeInsets: Hashable, Sendable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }
}

/// What the compositor offers the window policy for layer-shell surfaces (zwlr_layer_shell_v1):
/// each is shown on its layer of an output (the background and bottom layers below the windows,
/// top and overlay above them) by its surface's layer, which the policy positions in the output's
/// points; the policy also says what space their exclusive zones take from the windows.
extension Compositor {
    /// The part of the primary output windows get, in its points: its bounds less
    /// `windowAreaInsets`; nil while there is no output.
    public var windowArea: Rect? {
        guard let size = outputs.first?.logicalSize else { return nil }
        let insets = windowAreaInsets
        return Rect(x: insets.left, y: insets.top,
                    width: max(0, size.width - insets.left - insets.right), height: max(0, size.height - insets.top - insets.bottom))
    }

    /// The bounds, in its own points, of the output a layer surface asking for `output` is shown
    /// on: that output when it is one of the compositor's, else the primary one; nil without outputs.
    public func layerSurfaceOutputBounds(for output: Output?) -> Rect? {
        layerSurfaceOutput(for: output).map { Rect(origin: .zero, size: $0.logicalSize) }
    }

    /// The bounds of the output that shows `surface` (a layer surface, or a popup of one), in the
    /// surface's coordinates: what its popups are kept within. Nil when no output shows it.
    public func outputBounds(in surface: Surface) -> Rect? {
        guard let node = node(for: surface), let output = outputs.first(where: { $0.shows(surface) }) else { return nil }
        return output.root.convert(Rect(origin: .zero, size: output.logicalSize), to: node.container)
    }

    /// Whether a layer surface asking for `output` is shown on the primary output, whose
    /// exclusive zones shrink the window area.
    public func layerSurfaceIsOnPrimaryOutput(_ output: Output?) -> Bool {
        layerSurfaceOutput(for: output) === outputs.first
    }

    /// Shows `surface` on `layer` of the output it asked for (see `layerSurfaceOutputBounds`),
    /// above the others of that layer; moves it when it is shown on another layer already.
    public func showLayerSurface(_ surface: Surface, on layer: LayerSurface.Layer, output: Output?) {
        guard let target = layerSurfaceOutput(for: output) else { return }
        let node = makeNode(for: surface)
        for other in outputs where other !== target { other.removeLayerSurface(node) }
        target.addLayerSurface(node, on: layer)
        placePopups(of: node, on: target, layer: layer)
        target.scheduleFrame()
    }

    /// The open popups of the layer surface `node` go where its layer wants them (it may have
    /// changed layer or output): over it in the overlay layer, above the top layer otherwise.
    private func placePopups(of node: SurfaceNode, on output: CompositorOutput, layer: LayerSurface.Layer) {
        var popups: [SurfaceNode] = []
        for shown in outputs {
            for popup in shown.layerPopups(of: node) {
                shown.removeLayerPopup(popup)
                popups.append(popup)
            }
        }
        if layer < .overlay {
            for popup in node.popups {
                node.removePopup(popup)
                popup.container.removeFromSuperlayer()
                popups.append(popup)
            }
        }
        for popup in popups {
            if layer < .overlay { output.addLayerPopup(popup, of: node) } else { node.addPopup(popup) }
        }
    }

    /// Moves the layer surface `surface` (shown by `showLayerSurface`) to `origin` in its output's
    /// points, with the popups it shows above the top layer.
    public func moveLayerSurface(_ surface: Surface, to origin: Point) {
        guard let node = node(for: surface) else { return }
        node.container.position = origin
        for output in outputs { output.moveLayerPopups(of: node) }
    }

    /// Stops showing the layer surface `surface`; input focus on it moves on.
    public func hideLayerSurface(_ surface: Surface) {
        guard let node = node(for: surface) else { return }
        for output in outputs where output.layerSurfaces.contains(where: { $0 === node }) {
            output.removeLayerSurface(node)
            output.scheduleFrame()
        }
        surfaceLeftTheScreen(surface)
        refocusPointer()
    }

    /// A removed output's layer surfaces are closed: the client hears it will not be shown again.
    func closeLayerSurfaces(of removed: CompositorOutput) {
        for node in removed.layerSurfaces {
            removed.removeLayerSurface(node)
            layerShell.layerSurfaces.first { $0.surface === node.surface }?.close()
        }
    }

    private func layerSurfaceOutput(for output: Output?) -> CompositorOutput? {
        outputs.first { $0.global === output } ?? outputs.first
    }
}
