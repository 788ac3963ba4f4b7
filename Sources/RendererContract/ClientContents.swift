import Buffers
import Graphics
import LayerKit

/// A client's buffer shown as a layer's contents, read where it lies (the Vulkan renderer's
/// `ClientBufferContents` is one): what any renderer needs to sample it, to track what a commit
/// changed, and to say whose surface a frame showed.
///
/// A class, not a protocol: a frame tells client contents from the other external contents of its
/// tree several times (drawing, damage, occlusion, the surfaces it showed), and a class check is a
/// comparison of the object's class, where a cast to a protocol searches the runtime's
/// conformance tables each time (hundreds of instructions, and cache lines a frame reads cold).
/// On its own it knows no surface and no history: the Vulkan renderer's contents tell both.
open class ClientContents: ExternalContents, @unchecked Sendable {
    /// The client's buffer, which the contents hold from its client while a frame may read it; its
    /// pixels are read through `withPixels` while a frame draws.
    public let buffer: any LentBuffer

    public init(buffer: any LentBuffer) {
        self.buffer = buffer
    }

    public final var pixelSize: (width: Int, height: Int)? { (buffer.width, buffer.height) }

    /// The buffer's pixels as they are in the client's memory now (a buffer already released may
    /// hold a newer frame); nil for a buffer the CPU cannot read (a dma-buf) or one that is gone.
    public final func snapshot() -> Image? {
        try? buffer.withPixels(Image.init(copying:))
    }

    /// Whose surface the buffer belongs to (the compositor's object), for the frames that show it;
    /// nil when not known.
    open var surfaceOwner: AnyObject? { nil }

    /// The buffer pixels that may differ from `ancestor`'s, when these contents replaced it
    /// through a few commits of their surface; nil otherwise (damage tracking).
    open func changedRect(sinceContents ancestor: ClientContents) -> ImageRect? { nil }
}
