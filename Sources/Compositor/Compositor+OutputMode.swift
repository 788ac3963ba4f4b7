import DisplayBackend
import LayerKit

/// A display that stays connected but changes its mode (another monitor on the same port, a
/// virtual display resized): its output keeps its place, globals and windows, and follows the
/// new size.
extension Compositor {
    func outputModeChanged(_ backendOutput: any BackendOutput) {
        windowVisibilityNeedsUpdate = true
        if let mirror = mirrors.first(where: { $0.backend === backendOutput }) {
            mirror.followMode()
            logger.info("mirror \(backendOutput.name) changed mode: \(backendOutput.description)")
            return
        }
        guard let output = outputs.first(where: { $0.backend === backendOutput }) else { return }
        let before = output.global.state
        Transaction.begin()
        Transaction.disableActions = true
        output.followMode()
        Transaction.commit()
        imageCopyCaptureManager.outputChanged(output.global)
        moveOutputsPlacedRight(of: output, from: before.x + before.logicalWidth, by: output.global.state.logicalWidth - before.logicalWidth)
        logger.info("output \(backendOutput.name) changed mode: \(backendOutput.description)")
        // The windows live on the primary output: the policy sizes them again for its new mode.
        if outputs.first === output {
            windowPolicy?.primaryOutputChanged()
            primaryOutputChanged.emit()
        }
        // A pointer left outside a shrunk output goes to the closest point of the layout.
        pointerOutputsChanged()
        refocusPointer()
        output.scheduleFrame()
    }

    /// Outputs placed automatically against `output`'s right edge (`edge` before it moved), and
    /// those placed against theirs in turn, move with it: the row stays without gaps or overlaps.
    /// Outputs the board placed stay where it put them.
    private func moveOutputsPlacedRight(of output: CompositorOutput, from edge: Int32, by change: Int32) {
        guard change != 0 else { return }
        var edges: Set<Int32> = [edge]
        for other in outputs.sorted(by: { $0.global.state.x < $1.global.state.x }) where other !== output {
            guard case .automatic = other.backend.layout, edges.contains(other.global.state.x) else { continue }
            var description = other.global.state
            edges.insert(description.x + description.logicalWidth)
            description.x += change
            other.global.update(description)
            logger.info("output \(other.backend.name) moved to \(description.x),\(description.y) with \(output.backend.name)'s new size")
        }
    }
}
