import Buffers
import DisplayBackend
import Graphics
import LayerKit
import WaylandServer

extension CompositorOutput {
    /// The top window's dma-buf, as the primary plane can show it instead of a composed frame,
    /// when the frame would show nothing else: the window's opaque buffer fills the panel pixel
    /// for pixel (mode size, no rotation, scale, transform, crop or fading), it has no subsurfaces
    /// or popups, no overlay or cursor is drawn over it, nothing animates, and no mirror redraws
    /// this output's frames. Nil otherwise: the frame is composed.
    func directScanoutWindow(of tree: RenderTree) -> SurfaceNode? {
        guard tree.animatedLayerIDs.isEmpty, tree.tiledLayerIDs.isEmpty else { return nil }
        return directScanoutCandidate()
    }

    /// The window `directScanoutWindow` would find, judged by the layers alone (animations aside).
    func directScanoutCandidate() -> SurfaceNode? {
        guard backend.transform == .normal, !cursor.isMirrored,
            !cursor.drawsInFrames, let window = windows.last, let (_, attributes) = window.shownDmabuf,
            Int(attributes.width) == backend.mode.width, Int(attributes.height) == backend.mode.height,
            window.popups.isEmpty, window.surface.stack.count == 1
        else { return nil }
        // Overlays above the windows (the shell's views) hide it unless they are hidden.
        guard rootView.subviews.allSatisfy({ $0 === windowsView || $0.isHidden || $0.layer.opacity == 0 }) else { return nil }
        let (container, content) = (window.container, window.content)
        let unit = Rect(x: 0, y: 0, width: 1, height: 1)
        let layersAreWhole = [root, rootView.layer, windowsView.layer, container, content].allSatisfy {
            !$0.isHidden && $0.opacity == 1 && $0.mask == nil && $0.filters.isEmpty
        }
        guard layersAreWhole, container.frame == root.bounds, content.frame == container.bounds,
            content.transform.isIdentity, container.transform.isIdentity, content.contentsRect == unit,
            content.isOpaque || !attributes.format.format.hasAlpha
        else { return nil }
        return window
    }

    /// The frame `tree` is when the top window's dma-buf can be shown as it is: the state that
    /// puts it on the primary plane, which the display has tested; nil when the frame is to be
    /// composed. The buffer stays the display's (unreleased) from the commit of that state until
    /// another frame replaces it, or is given back at once when the state is not committed.
    func directScanoutState(for tree: RenderTree) -> OutputState? {
        guard let window = directScanoutWindow(of: tree), window.shownDmabuf?.buffer !== refusedScanoutBuffer,
            let (attributes, ended) = window.beginScanout()
        else { return nil }
        let buffer = DmabufLayout(firstPlaneOf: attributes, format: attributes.format.format.opaqueEquivalent)
        let state = OutputState(buffer: .client(buffer, released: ended))
        guard backend.test(state) else {
            ended()
            return nil
        }
        return state
    }
}
