import DisplayBackend
import LayerKit

extension CompositorOutput {
    /// The backend's display has a new mode: clients hear it (wl_output's mode, zxdg_output's
    /// logical size, one done), and the scanout and the logical output take the new size; a frame on the
    /// GPU for the old mode is not committed (the backend dropped it from its schedule). Call inside a
    /// transaction; the windows are configured again by the window policy.
    func followMode() {
        let mode = backend.mode
        var description = global.state
        description.modeWidth = Int32(mode.width)
        description.modeHeight = Int32(mode.height)
        description.refreshMillihertz = Int32(mode.refreshMillihertz)
        description.description = backend.description
        global.update(description)
        scanout.bounds = Rect(
            x: 0, y: 0, width: Double(mode.width) / backend.scaleFactor, height: Double(mode.height) / backend.scaleFactor)
        root.bounds = Rect(x: 0, y: 0, width: Double(description.logicalWidth), height: Double(description.logicalHeight))
        root.position = Point(x: scanout.bounds.width / 2, y: scanout.bounds.height / 2)
        rootView.frame = root.bounds
        windowsView.frame = rootView.bounds
        cancelFrameInFlight()
    }
}
