import LayerKit
import WaylandServer

/// xdg_toplevel's suspended state: a window that nobody can see is told so, and may stop drawing.
/// A mapped toplevel is suspended while no powered display shows the windows' output (the screen
/// was blanked; each mirror of it counts), or while windows and layer surfaces above it cover
/// all of it that lies on the output with opaque pixels (a second kiosk window over the first).
/// It is worked out once per loop turn in which something that decides it may have changed.
extension Compositor {
    /// Asks for the suspended states to be worked out again once this loop turn's requests are
    /// handled (a window moved, the displays were powered up or down).
    public func windowVisibilityMayHaveChanged() {
        windowVisibilityNeedsUpdate = true
    }

    func updateSuspendedToplevels() {
        windowVisibilityNeedsUpdate = false
        let output = outputs.first
        let isLit = output.map { shown in
            shown.backend.isPoweredOn || mirrors.contains { $0.source === shown && $0.backend.isPoweredOn }
        } ?? false
        for toplevel in shell.toplevels where toplevel.isAlive && toplevel.isMapped {
            guard isLit, let output, let node = node(for: toplevel.surface) else {
                toplevel.isSuspended = true
                continue
            }
            toplevel.isSuspended = !output.showsUncovered(node)
        }
    }
}

extension CompositorOutput {
    /// Whether some part of the window `node` (with its subsurfaces and popups) is drawn on the
    /// output and not covered by an opaque window or layer surface above it.
    func showsUncovered(_ node: SurfaceNode) -> Bool {
        guard shows(node.surface), let index = windows.firstIndex(where: { $0 === node }) else { return false }
        let area = root.bounds
        let parts = visibleRects(of: node).map { $0.intersection(area) }.filter { !$0.isNull && !$0.isEmpty }
        // The top and overlay layers lie above every window.
        let upperHosts = [LayerSurface.Layer.top, .overlay].compactMap { layerViews[$0]?.layer }
        let upperLayerSurfaces = layerSurfaces.filter { surface in
            sequence(first: surface.container, next: \.superlayer).contains { layer in upperHosts.contains { $0 === layer } }
        }
        let covers = (windows[(index + 1)...] + upperLayerSurfaces).compactMap { opaqueRect(of: $0) }
        return parts.contains { part in !covers.contains { $0.contains(part) } }
    }

    /// The output rectangles of `node`'s surface and of its shown subsurfaces and popups.
    private func visibleRects(of node: SurfaceNode) -> [Rect] {
        var rects: [Rect] = []
        func visit(_ node: SurfaceNode) {
            guard !node.container.isHidden else { return }
            rects.append(node.container.convert(node.container.bounds, to: root))
            for member in node.surface.stack where member !== node.surface {
                if let child = nodeLookup(member) { visit(child) }
            }
            for popup in node.popups { visit(popup) }
        }
        visit(node)
        return rects
    }

    /// Where `node`'s surface covers the output with opaque pixels, if it shows its buffer whole
    /// (fully opaque, not turned) on the output.
    private func opaqueRect(of node: SurfaceNode) -> Rect? {
        guard shows(node.surface), !node.content.isHidden, node.showsOpaquePixels else { return nil }
        var layer: Layer? = node.content
        while let current = layer, current !== root {
            let t = current.transform
            guard current.opacity >= 1, t.m12 == 0, t.m21 == 0, t.m14 == 0, t.m24 == 0, t.m34 == 0,
                  current.sublayerTransform.isIdentity else { return nil }
            layer = current.superlayer
        }
        return node.content.convert(node.content.bounds, to: root)
    }
}
