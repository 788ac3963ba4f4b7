import Compositor
import LayerKit
import WaylandServer

/// Layer-shell surfaces under the kiosk policy: each is placed on its output by its anchors,
/// margins and size (LayerSurfaceLayout), those with an exclusive zone first, each taking its zone
/// from the space left for the next and, on the primary output, from the windows' area (the kiosk
/// app is configured to what is left). Keyboard focus: a surface with exclusive interactivity on
/// the top or overlay layer takes the focus when mapped and keeps it until it is unmapped or gives
/// it up; one with on-demand interactivity (or exclusive on a lower layer) takes it when mapped
/// and when pressed, and loses it as a window would; one without interactivity never has it.
extension KioskWindowPolicy {
    public func layerSurfaceCommitted(_ layerSurface: LayerSurface) {
        if !layerSurfaces.contains(where: { $0 === layerSurface }) { layerSurfaces.append(layerSurface) }
        arrangeLayerSurfaces()
        guard layerSurface.isMapped else { return }
        let key = ObjectIdentifier(layerSurface)
        let previous = layerInteractivity[key]
        let current = layerSurface.state.keyboardInteractivity
        layerInteractivity[key] = current
        guard previous != current else { return }
        if current == .none, compositor.seat.keyboardFocus === layerSurface.surface {
            focusTopmost(excluding: layerSurface.surface)
        } else if current == .exclusive {
            compositor.focus(layerSurface.surface)
        }
    }

    public func layerSurfaceMapped(_ layerSurface: LayerSurface) {
        compositor.showLayerSurface(layerSurface.surface, on: layerSurface.state.layer, output: layerSurface.output)
        arrangeLayerSurfaces()
        layerInteractivity[ObjectIdentifier(layerSurface)] = layerSurface.state.keyboardInteractivity
        if layerSurface.state.keyboardInteractivity != .none { compositor.focus(layerSurface.surface) }
        compositor.refocusPointer()
    }

    public func layerSurfaceUnmapped(_ layerSurface: LayerSurface) {
        layerSurfaces.removeAll { $0 === layerSurface }
        layerInteractivity[ObjectIdentifier(layerSurface)] = nil
        explicitOrigins[ObjectIdentifier(layerSurface.surface)] = nil
        compositor.hideLayerSurface(layerSurface.surface)
        arrangeLayerSurfaces()
    }

    /// The mapped layer surface that holds the keyboard: exclusive interactivity on the top or
    /// overlay layer, the highest layer's newest.
    var exclusiveLayerSurface: LayerSurface? {
        layerSurfaces.filter { $0.isMapped && $0.isAlive && $0.state.keyboardInteractivity == .exclusive && $0.state.layer >= .top }
            .max { $0.state.layer < $1.state.layer }
    }

    /// Whether a press on `surface` may take the keyboard focus there: not while an exclusive
    /// layer surface holds it, and not onto a layer surface without interactivity.
    func mayFocus(_ surface: Surface) -> Bool {
        if let holder = exclusiveLayerSurface, holder.surface !== surface { return false }
        if let layerSurface = layerSurfaces.first(where: { $0.surface === surface }) {
            return layerSurface.state.keyboardInteractivity != .none
        }
        return true
    }

    /// The focus goes to the exclusive layer surface if there is one, else to the window on top.
    func focusTopmost(excluding surface: Surface?) {
        if let holder = exclusiveLayerSurface, holder.surface !== surface {
            compositor.focus(holder.surface)
        } else if let top = compositor.windowStack.last(where: { $0 !== surface }) {
            compositor.focus(top)
        }
    }

    /// Places every layer surface that committed, configures those whose size changed, and
    /// gives the windows what the primary output's exclusive zones leave.
    func arrangeLayerSurfaces() {
        layerSurfaces.removeAll { !$0.isAlive || $0.isClosed }
        var insets = EdgeInsets()
        Transaction.begin()
        Transaction.disableActions = true
        for group in groupedByOutput() {
            guard let bounds = compositor.layerSurfaceOutputBounds(for: group[0].output) else { continue }
            // Exclusive zones first, top layer first, each shrinking what the next may use.
            let reserving = group.filter { $0.isMapped && $0.state.exclusiveZone > 0 }
                .sorted { $0.state.layer > $1.state.layer }
            var usable = bounds
            var frames: [ObjectIdentifier: Rect] = [:]
            for layerSurface in reserving {
                frames[ObjectIdentifier(layerSurface)] = LayerSurfaceLayout.frame(of: layerSurface.state, in: usable)
                usable = LayerSurfaceLayout.area(usable, reservingZoneOf: layerSurface.state)
            }
            for layerSurface in group where frames[ObjectIdentifier(layerSurface)] == nil {
                let space = layerSurface.state.exclusiveZone < 0 ? bounds : usable
                frames[ObjectIdentifier(layerSurface)] = LayerSurfaceLayout.frame(of: layerSurface.state, in: space)
            }
            for layerSurface in group {
                guard let frame = frames[ObjectIdentifier(layerSurface)] else { continue }
                apply(frame, to: layerSurface)
            }
            if compositor.layerSurfaceIsOnPrimaryOutput(group[0].output) {
                insets = EdgeInsets(top: usable.minY - bounds.minY, left: usable.minX - bounds.minX,
                                    bottom: bounds.maxY - usable.maxY, right: bounds.maxX - usable.maxX)
            }
        }
        Transaction.commit()
        if insets != compositor.windowAreaInsets {
            compositor.windowAreaInsets = insets
            windowAreaChanged()
        }
    }

    private func apply(_ frame: Rect, to layerSurface: LayerSurface) {
        let size = (width: UInt32(max(0, frame.width)), height: UInt32(max(0, frame.height)))
        if layerSurface.configuredSize.map({ $0 != size }) ?? true {
            layerSurface.configure(width: size.width, height: size.height)
        }
        guard layerSurface.isMapped else { return }
        compositor.showLayerSurface(layerSurface.surface, on: layerSurface.state.layer, output: layerSurface.output)
        compositor.moveLayerSurface(layerSurface.surface, to: explicitOrigins[ObjectIdentifier(layerSurface.surface)] ?? frame.origin)
    }

    /// The layer surfaces that committed, one group per output they are shown on.
    private func groupedByOutput() -> [[LayerSurface]] {
        var groups: [[LayerSurface]] = []
        for layerSurface in layerSurfaces {
            let onPrimary = compositor.layerSurfaceIsOnPrimaryOutput(layerSurface.output)
            if let index = groups.firstIndex(where: { group in
                onPrimary ? compositor.layerSurfaceIsOnPrimaryOutput(group[0].output) : group[0].output === layerSurface.output
            }) {
                groups[index].append(layerSurface)
            } else {
                groups.append([layerSurface])
            }
        }
        return groups
    }
}
