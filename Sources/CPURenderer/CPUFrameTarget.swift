import Buffers
internal import CPixman
import RendererContract

/// A swapchain buffer the CPU renderer draws frames into in place: pixman composites straight
/// into its mapping, and the pixels it has not received since its own last frame are remembered
/// as a region that its next frame redraws along with that frame's changes (its buffer age). The
/// renderer keeps it, keyed by the buffer, while it draws into the buffer.
final class CPUFrameTarget {
    let width: Int
    let height: Int
    let image: PixmanImage
    /// The buffer: held so that its memory stays valid and its identity, the target's key, names
    /// no other buffer meanwhile.
    let buffer: AnyObject
    /// What the memory lacks of the renderer's latest frame; all of it at first.
    let stale = PixmanRegion()
    /// The renderer's frame that last drew into it.
    var lastFrame = 0

    init(_ buffer: any SwapchainBuffer, mapping memory: UnsafeMutableRawBufferPointer, bytesPerRow: Int) {
        let (width, height) = (buffer.width, buffer.height)
        precondition(width > 0 && height > 0, "a frame target of \(width)×\(height) pixels")
        precondition(bytesPerRow >= width * 4 && bytesPerRow % 4 == 0, "\(bytesPerRow) bytes per row for \(width) pixels")
        precondition(
            memory.baseAddress != nil && memory.count >= bytesPerRow * (height - 1) + width * 4,
            "\(memory.count) bytes for \(height) rows of \(bytesPerRow)")
        (self.width, self.height, self.buffer) = (width, height, buffer)
        image = PixmanImage(format: PIXMAN_a8r8g8b8, width: width, height: height, bits: memory.baseAddress!, bytesPerRow: bytesPerRow)
        stale.add(PixelBox(x: 0, y: 0, width: width, height: height))
    }
}
