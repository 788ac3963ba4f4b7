import DisplayBackend
import LayerKit
import Renderer
import WaylandServer

/// Outputs coming and going while the compositor runs (a display plugged in or out). Windows live
/// on the primary output (the first, in the backend's order of importance); when it goes, the next
/// one takes them, and a more important output that appears takes them over; either way they are
/// configured again to its size (the kiosk's fullscreen policy). With no output at all the
/// compositor keeps running, and the next output to appear takes the windows in.
extension Compositor {
    /// Gives `backendOutput` its layer tree, frame cycle and wl_output global, right of the
    /// outputs there are.
    @discardableResult
    func attach(_ backendOutput: any BackendOutput, renderer: Renderer, at position: Int? = nil) -> CompositorOutput {
        let x = outputs.map { $0.global.state.x + $0.global.state.logicalWidth }.max() ?? 0
        let managed = CompositorOutput(backend: backendOutput, display: display, renderer: renderer, x: x) { [unowned self] surface in
            node(for: surface)
        }
        managed.onRenderError = { [logger] error in logger.error("frame failed on \(backendOutput.name): \(error)") }
        managed.onSurfacesShown = { [unowned self, unowned managed] surfaces in surfacesShown(surfaces, on: managed) }
        managed.onFramePresented = { [unowned self, unowned managed] in
            if let index = outputs.firstIndex(where: { $0 === managed }) { framePresented?(index) }
        }
        outputs.insert(managed, at: min(position ?? outputs.count, outputs.count))
        pointerOutputsChanged()
        return managed
    }

    /// A display was plugged in. It takes the backend's place for it among the outputs (the
    /// board's order of importance): in first place it is the primary, and the windows move to it.
    func outputAppeared(_ backendOutput: any BackendOutput) {
        do {
            try watchBackend()
            let position = backend.outputs.firstIndex { $0 === backendOutput } ?? outputs.count
            let output = attach(backendOutput, renderer: try Renderer(options: rendererOptions), at: position)
            logger.info("output \(backendOutput.name) appeared: \(backendOutput.description)")
            if outputs.first === output {
                Transaction.begin()
                Transaction.disableActions = true
                let previous = outputs.count > 1 ? outputs[1] : nil
                let windows = (previous?.windows ?? []) + windowsWithoutOutput
                for node in windows {
                    previous?.removeWindow(node)
                    output.addWindow(node)
                }
                windowsWithoutOutput = []
                Transaction.commit()
                windowManager.outputsChanged()
                previous?.scheduleFrame()
                refocusPointer()
                primaryOutputChanged()
            }
            output.scheduleFrame()
        } catch {
            logger.error("cannot drive output \(backendOutput.name): \(error)")
        }
    }

    func outputDisappeared(_ backendOutput: any BackendOutput) {
        guard let index = outputs.firstIndex(where: { $0.backend === backendOutput }) else { return }
        let removed = outputs.remove(at: index)
        do { try watchBackend() } catch { logger.error("cannot watch the display backend: \(error)") }
        // Surfaces hear they left before the global goes (wl_surface.leave names its wl_output).
        for node in nodesShown(on: removed.global) {
            node.surface.leave(removed.global)
            node.enteredOutput = nil
        }
        removed.global.withdraw()
        removed.stop()
        pointerOutputsChanged(removed: removed)
        let windows = removed.windows
        Transaction.begin()
        Transaction.disableActions = true
        for node in windows { removed.removeWindow(node) }
        if index == 0 {
            if let primary = outputs.first {
                for node in windows { primary.addWindow(node) }
            } else {
                windowsWithoutOutput += windows
            }
        }
        Transaction.commit()
        logger.info("output \(backendOutput.name) went away; \(outputs.count) left")
        if index == 0 {
            windowManager.outputsChanged()
            outputs.first?.scheduleFrame()
        }
        refocusPointer()
        if index == 0 { primaryOutputChanged() }
    }
}
