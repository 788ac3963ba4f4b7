internal import CPixman
import RendererContract

/// Host memory the CPU renderer draws frames into in place (`HostFrameTarget`): pixman composites
/// straight into it, and the pixels it has not received since its own last frame are remembered
/// as a region that its next frame redraws along with that frame's changes (its buffer age).
public final class CPUFrameTarget: HostFrameTarget {
    public let width: Int
    public let height: Int
    public let bytesPerRow: Int
    let image: PixmanImage
    /// Keeps the memory valid for as long as the target lives.
    private let owner: AnyObject?
    let renderer: ObjectIdentifier
    /// What the memory lacks of the renderer's latest frame; all of it at first.
    let stale = PixmanRegion()

    init(memory: UnsafeMutableRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, owner: AnyObject?, renderer: ObjectIdentifier) {
        precondition(width > 0 && height > 0, "a host frame target of \(width)×\(height) pixels")
        precondition(bytesPerRow >= width * 4 && bytesPerRow % 4 == 0, "\(bytesPerRow) bytes per row for \(width) pixels")
        precondition(
            memory.baseAddress != nil && memory.count >= bytesPerRow * (height - 1) + width * 4,
            "\(memory.count) bytes for \(height) rows of \(bytesPerRow)")
        (self.width, self.height, self.bytesPerRow, self.owner, self.renderer) = (width, height, bytesPerRow, owner, renderer)
        image = PixmanImage(format: PIXMAN_a8r8g8b8, width: width, height: height, bits: memory.baseAddress!, bytesPerRow: bytesPerRow)
        stale.add(PixelBox(x: 0, y: 0, width: width, height: height))
    }
}
