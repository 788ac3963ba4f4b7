import Buffers
import DisplayBackend
import Graphics
import LayerKit
import WaylandServer

extension CompositorOutput {
    /// The top window's buffer, as the display can show it instead of a composed frame, when the
    /// frame would show nothing else: the window's opaque buffer (a dma-buf, or a shm buffer for
    /// a display in memory) fills the panel pixel for pixel (mode size, no rotation, scale,
    /// transform, crop or fading), it has no subsurfaces or popups (its container holds its
    /// content alone: asked of the layers, where the surface's stack cost a retain of the weakly
    /// referenced surface on the slow path), no overlay or cursor is drawn over it, nothing
    /// animates, and no mirror redraws this output's frames. Nil otherwise: the frame is composed.
    private func directScanoutBuffer(of tree: RenderTree) -> Buffer? {
        guard tree.animatedLayerIDs.isEmpty, tree.tiledLayerIDs.isEmpty, backend.transform == .normal, !cursor.isMirrored,
            !cursor.drawsInFrames, let window = windows.last, let buffer = window.scanoutCandidate,
            buffer.width == backend.mode.width, buffer.height == backend.mode.height,
            window.container.sublayers.count == 1,
            window.showsOpaquePixels, layersShowOnly(window)
        else { return nil }
        return buffer
    }

    /// Whether the layers show `window` whole and alone: nothing above it but hidden overlays, and
    /// it and the layers holding it untransformed, unfaded, unmasked, unfiltered and filling the
    /// output. Asked every frame; worked out again only once a layer changed in anything but its
    /// contents (`Transaction.revisionExceptContents`) or another window is on top.
    private func layersShowOnly(_ window: SurfaceNode) -> Bool {
        let revision = Transaction.revisionExceptContents
        if let last = scanoutLayerVerdict, last.revision == revision, last.window == ObjectIdentifier(window) { return last.showsOnly }
        // Overlays above the windows (the shell's views) hide it unless they are hidden.
        let overlaysHidden = rootView.subviews.allSatisfy { $0 === windowsView || $0.isHidden || $0.layer.opacity == 0 }
        let (container, content) = (window.container, window.content)
        let unit = Rect(x: 0, y: 0, width: 1, height: 1)
        func isWhole(_ layer: Layer) -> Bool { !layer.isHidden && layer.opacity == 1 && layer.mask == nil && layer.filters.isEmpty }
        let layersAreWhole = isWhole(root) && isWhole(rootView.layer) && isWhole(windowsView.layer) && isWhole(container) && isWhole(content)
        let showsOnly = overlaysHidden && layersAreWhole && container.frame == root.bounds && content.frame == container.bounds
            && content.transform.isIdentity && container.transform.isIdentity && content.contentsRect == unit
        scanoutLayerVerdict = ScanoutLayerVerdict(revision: revision, window: ObjectIdentifier(window), showsOnly: showsOnly)
        return showsOnly
    }

    /// Whether the frame `tree` is the top window's buffer shown as it is: then `state` shows it
    /// (the display has tested it so); false, with `state` as it was, when the frame is to be
    /// composed. The state holds the buffer from its client: the display takes that hold over
    /// when it commits the state (and ends it once another frame replaces the buffer), or the
    /// compositor ends it when the state is not committed. The buffer is shown opaque
    /// (`OutputBuffer.client`): its window says it is. The caller's state is filled in place: a
    /// state made here, tested and returned was copied and destroyed every frame.
    func scansOutDirectly(_ tree: RenderTree, in state: inout OutputState) -> Bool {
        guard let buffer = directScanoutBuffer(of: tree), buffer !== refusedScanoutBuffer else { return false }
        buffer.hold()
        state.buffer = .client(buffer)
        guard backend.test(state) else {
            state.buffer = nil
            buffer.endHold()
            return false
        }
        return true
    }
}

/// What `layersShowOnly` found, for the layers as they were at `revision`.
struct ScanoutLayerVerdict {
    let revision: UInt64
    /// The window, by identity alone: a weak reference cost a load and a release on the slow
    /// path every frame. A window that went and one made since at its address cannot be taken
    /// for each other: showing another window changes the layers, and with them the revision.
    let window: ObjectIdentifier
    let showsOnly: Bool
}
