/// A contents image that a renderer could not draw (`LayerTreeRenderer.onContentsUnavailable`):
/// the Vulkan renderer could not make it a texture.
public struct ContentsFailure: Sendable, Equatable, CustomStringConvertible {
    public let width: Int
    public let height: Int
    /// The error, as its description says it.
    public let reason: String

    public init(width: Int, height: Int, reason: String) {
        (self.width, self.height, self.reason) = (width, height, reason)
    }

    public var description: String {
        "a \(width)×\(height) contents image cannot be drawn (\(reason)): its layer is drawn without it"
    }
}
