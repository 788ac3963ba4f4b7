/// What one frame of a renderer (`LayerTreeRenderer`) did.
public struct FrameStatistics: Sendable, Equatable {
    public enum Damage: Sendable, Equatable {
        /// Nothing changed; nothing was drawn.
        case none
        case full
        /// Only this rectangle of output pixels was redrawn.
        case region(x: Int, y: Int, width: Int, height: Int)
    }

    public var damage: Damage = .full
    /// Draw calls recorded (Vulkan: consecutive instances that share a pipeline, textures and
    /// scissor make one call; CPU: composite operations).
    public var drawCount = 0
    /// CPU time from the call until the scene was encoded (Vulkan: the submission-ready command
    /// list; CPU: the layers to draw chosen).
    public var encodeSeconds = 0.0
    /// From the call until the frame's pixels were in place.
    public var totalSeconds = 0.0
    /// Layers the frame placed to draw them and their sublayers (the others it skipped, with
    /// their subtrees, as drawing nothing it redrew).
    public var placedLayerCount = 0
    /// Layers whose subtree's box the frame made again (`SubtreeBounds`).
    public var measuredLayerCount = 0

    public init(
        damage: Damage = .full, drawCount: Int = 0, encodeSeconds: Double = 0, totalSeconds: Double = 0, placedLayerCount: Int = 0,
        measuredLayerCount: Int = 0
    ) {
        (self.damage, self.drawCount, self.encodeSeconds, self.totalSeconds) = (damage, drawCount, encodeSeconds, totalSeconds)
        (self.placedLayerCount, self.measuredLayerCount) = (placedLayerCount, measuredLayerCount)
    }
}
