/// What one `Renderer.render` call did.
public struct FrameStatistics: Sendable, Equatable {
    public enum Damage: Sendable, Equatable {
        /// Nothing changed; no GPU work was done.
        case none
        case full
        /// Only this rectangle of output pixels was redrawn.
        case region(x: Int, y: Int, width: Int, height: Int)
    }

    public var damage: Damage = .full
    /// Draw calls recorded: consecutive instances that share a pipeline, textures and scissor
    /// make one call.
    public var drawCount = 0
    /// CPU time from the call to the submission-ready command list (encoding the scene).
    public var encodeSeconds = 0.0
    /// From the call until the frame's pixels were read back.
    public var totalSeconds = 0.0
}
