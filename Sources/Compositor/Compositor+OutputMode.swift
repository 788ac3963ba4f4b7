import DisplayBackend
import LayerKit

/// A display that stays connected but changes its mode (another monitor on the same port, a
/// virtual display resized): its output keeps its place, globals and windows, and follows the
/// new size.
extension Compositor {
    func outputModeChanged(_ backendOutput: any BackendOutput) {
        if let mirror = mirrors.first(where: { $0.backend === backendOutput }) {
            mirror.followMode()
            logger.info("mirror \(backendOutput.name) changed mode: \(backendOutput.description)")
            return
        }
        guard let output = outputs.first(where: { $0.backend === backendOutput }) else { return }
        Transaction.begin()
        Transaction.disableActions = true
        output.followMode()
        Transaction.commit()
        logger.info("output \(backendOutput.name) changed mode: \(backendOutput.description)")
        // The windows live on the primary output: they are configured again at its new size.
        if outputs.first === output {
            windowManager.outputsChanged()
            primaryOutputChanged()
        }
        // A pointer left outside a shrunk output goes to the closest point of the layout.
        pointerOutputsChanged()
        refocusPointer()
        output.scheduleFrame()
    }
}
