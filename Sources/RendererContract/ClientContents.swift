import Buffers
import Graphics
import LayerKit

/// A client's buffer shown as a layer's contents, read where it lies (the Vulkan renderer's
/// `ClientBufferContents`): what any renderer needs to sample it, to track what a commit
/// changed, and to say whose surface a frame showed.
public protocol ClientContents: ExternalContents {
    /// The client's buffer, which the contents hold from its client while a frame may read it; its
    /// pixels are read through `withPixels` while a frame draws.
    var buffer: any LentBuffer { get }
    /// Whose surface the buffer belongs to (the compositor's object), for the frames that show it.
    var surfaceOwner: AnyObject? { get }
    /// The buffer pixels that may differ from `ancestor`'s, when these contents replaced it
    /// through a few commits of their surface; nil otherwise (damage tracking).
    func changedRect(sinceContents ancestor: any ClientContents) -> ImageRect?
}
