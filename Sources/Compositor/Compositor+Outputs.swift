import DisplayBackend
import LayerKit
import Renderer
import WaylandServer

/// Outputs coming and going while the compositor runs (a display plugged in or out). Windows live
/// on the primary output (the first, in the backend's order of importance); when it goes, the next
/// one takes them, and a more important output that appears takes them over; either way the window
/// policy sizes and places them for it again. With no output at all the
/// compositor keeps running, and the next output to appear takes the windows in.
extension Compositor {
    /// Gives `backendOutput` its layer tree, frame cycle and wl_output global, at its configured
    /// origin or right of the outputs there are; mirrors waiting for it start showing it.
    @discardableResult
    func attach(_ backendOutput: any BackendOutput, renderer: any LayerTreeRenderer, at position: Int? = nil) -> CompositorOutput {
        let (x, y) = origin(for: backendOutput.layout)
        let managed = CompositorOutput(backend: backendOutput, display: display, renderer: renderer, x: x, y: y) { [unowned self] surface in
            node(for: surface)
        }
        managed.onRenderError = { [unowned self] error in
            logger.error("frame failed on \(backendOutput.name): \(error)")
            if case VulkanError.deviceLost = error { deviceWasLost(error) }
        }
        managed.onContentsUnavailable = { [logger] failure in logger.warning("\(backendOutput.name): \(failure)") }
        managed.onDirectScanoutChanged = { [logger, unowned managed] direct in
            let window = managed.windows.last.map { "surface \($0.surface.id) of client \($0.surface.client.processID)" } ?? "no window"
            logger.info(direct ? "direct scanout on \(backendOutput.name): \(window)'s dma-buf is the frame" : "composing \(backendOutput.name) again")
        }
        // Called by `managed` while it draws, so both are alive: unowned(unsafe), as unowned
        // references to objects with side tables cost the runtime's slow path every frame.
        managed.onSurfaceShown = { [unowned(unsafe) self, unowned(unsafe) managed] surface in surfaceShown(surface, on: managed) }
        // So is this one, by `managed` as it presents a frame (every frame).
        managed.onFramePresented = { [unowned(unsafe) self, unowned(unsafe) managed] in
            screenCapture.framePresented()
            if let index = outputs.firstIndex(where: { $0 === managed }) { framePresented.emit(index) }
        }
        // Captures with the cursor see it move on the plane.
        managed.onCursorPresented = { [unowned self] in screenCapture.framePresented() }
        managed.onFrameDrawn = { [unowned self, unowned managed] tree in
            for mirror in mirrors { mirror.sourceDrew(tree, by: managed) }
        }
        outputs.insert(managed, at: min(position ?? outputs.count, outputs.count))
        for mirror in mirrors where mirror.sourceName == backendOutput.name { follow(managed, with: mirror) }
        pointerOutputsChanged()
        return managed
    }

    /// Where an output's top-left corner goes in the global space: its configured origin, or else
    /// right of the output whose right edge is furthest right (the first such in the order of
    /// importance), top-aligned with it; the first output at 0,0.
    private func origin(for layout: OutputLayout) -> (x: Int32, y: Int32) {
        if case .origin(let x, let y) = layout { return (x, y) }
        let rightEdge = { (output: CompositorOutput) in output.global.state.x + output.global.state.logicalWidth }
        guard let rightmost = outputs.max(by: { rightEdge($0) < rightEdge($1) }) else { return (0, 0) }
        return (rightEdge(rightmost), rightmost.global.state.y)
    }

    /// Drives `backendOutput` as a mirror of the output named `source`, which it shows as soon
    /// as that output is lit.
    func addMirror(_ backendOutput: any BackendOutput, of source: String) {
        let mirror = MirrorOutput(backend: backendOutput, source: source, eventLoop: display.eventLoop)
        mirror.onRenderError = { [unowned self] error in
            logger.error("frame failed on \(backendOutput.name) (mirror of \(source)): \(error)")
            if case VulkanError.deviceLost = error { deviceWasLost(error) }
        }
        mirrors.append(mirror)
        if let shown = outputs.first(where: { $0.backend.name == source }) { follow(shown, with: mirror) }
    }

    func follow(_ output: CompositorOutput, with mirror: MirrorOutput) {
        do {
            try mirror.follow(output)
        } catch {
            logger.error("\(mirror.backend.name) cannot mirror \(output.backend.name): \(error)")
        }
        markMirroredCursors()
    }

    /// An output that a mirror shows draws its cursor into its frames (which the mirror redraws),
    /// not on its cursor plane.
    private func markMirroredCursors() {
        withoutAnimation {
            for output in outputs { output.cursor.isMirrored = mirrors.contains { $0.source === output } }
        }
    }

    /// A display was plugged in. It takes the backend's place for it among the outputs (the
    /// board's order of importance): in first place it is the primary, and the windows move to it.
    func outputAppeared(_ backendOutput: any BackendOutput) {
        windowVisibilityNeedsUpdate = true
        do {
            try watchBackend()
            if case .mirror(let source) = backendOutput.layout {
                logger.info("output \(backendOutput.name) appeared: \(backendOutput.description), mirroring \(source)")
                addMirror(backendOutput, of: source)
                return
            }
            let position = backend.outputs.filter(\.isExtending).firstIndex { $0 === backendOutput } ?? outputs.count
            let output = attach(backendOutput, renderer: try makeOutputRenderer(), at: position)
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
                windowPolicy?.primaryOutputChanged()
                previous?.scheduleFrame()
                refocusPointer()
                primaryOutputChanged.emit()
            }
            output.scheduleFrame()
        } catch {
            logger.error("cannot drive output \(backendOutput.name): \(error)")
        }
    }

    func outputDisappeared(_ backendOutput: any BackendOutput) {
        windowVisibilityNeedsUpdate = true
        if let index = mirrors.firstIndex(where: { $0.backend === backendOutput }) {
            mirrors.remove(at: index).stop()
            markMirroredCursors()
            do { try watchBackend() } catch { logger.error("cannot watch the display backend: \(error)") }
            logger.info("mirror \(backendOutput.name) went away")
            return
        }
        guard let index = outputs.firstIndex(where: { $0.backend === backendOutput }) else { return }
        let removed = outputs.remove(at: index)
        for mirror in mirrors where mirror.source === removed { mirror.sourceLeft() }
        do { try watchBackend() } catch { logger.error("cannot watch the display backend: \(error)") }
        // Surfaces hear they left before the global goes (wl_surface.leave names its wl_output).
        for node in nodesShown(on: removed.global) {
            node.surface.leave(removed.global)
            node.enteredOutput = nil
        }
        removed.global.withdraw()
        imageCopyCaptureManager.outputRemoved(removed.global)
        removed.stop()
        closeLayerSurfaces(of: removed)
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
            windowPolicy?.primaryOutputChanged()
            outputs.first?.scheduleFrame()
        }
        refocusPointer()
        if index == 0 { primaryOutputChanged.emit() }
    }
}

extension BackendOutput {
    /// Whether the output extends the global space (it is not a mirror).
    var isExtending: Bool {
        if case .mirror = layout { false } else { true }
    }
}
