import Buffers
import LayerKit

/// What the compositor, the backends' frames, captures and tests ask of a renderer, whichever
/// draws: Vulkan (`Renderer`) or the CPU with pixman (`CPURenderer`). Both draw the same committed
/// `RenderTree`s (sampled for animations by the caller), redraw only what `DamageTracker` finds
/// changed, and read client buffers (`ClientContents`) where they lie.
public protocol LayerTreeRenderer: AnyObject {
    /// What draws, for the log: a Vulkan device's name ("llvmpipe (LLVM 15.0.6, 256 bits)"), or
    /// the CPU renderer's.
    var deviceName: String { get }

    /// Renders `tree` into a `width`×`height`-pixel image at `scale` pixels per point over
    /// `clearColor`, redrawing only what changed since the last image of this size.
    func render(_ tree: RenderTree, width: Int, height: Int, scale: Double, clearColor: Color) throws -> Image

    /// A target over `memory` (at least `bytesPerRow` × (`height` − 1) + `width` × 4 bytes, which
    /// `owner` keeps valid: the target holds it) for `render(_:into:scale:clearColor:)`.
    func makeHostFrameTarget(
        memory: UnsafeMutableRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, owner: AnyObject?
    ) throws -> any HostFrameTarget

    /// A target over the linear dma-buf `dmabuf` (a GBM buffer object a display scans out; `owner`
    /// keeps its descriptor open: the target holds it), or nil where this renderer draws into
    /// memory it maps only (the CPU renderer), whose displays then use dumb buffers. Throws where
    /// the device cannot import it.
    func makeDmabufFrameTarget(_ dmabuf: DmabufLayout, owner: AnyObject?) throws -> (any HostFrameTarget)?

    /// Renders `tree` into `target` (one this renderer made); the pixels are there once the
    /// returned completion is done and finished. Only what changed since the target's own last
    /// frame is written.
    func render(_ tree: RenderTree, into target: any HostFrameTarget, scale: Double, clearColor: Color) throws -> any RenderCompletion

    /// The owners of the client surfaces (`ClientContents.surfaceOwner`) whose buffers the last
    /// frame showed, in drawing order: whose frame callbacks and presentation feedback it answers.
    var sampledSurfaceOwners: [AnyObject] { get }

    /// Called the first time a contents image cannot be drawn; its layer is drawn without it.
    var onContentsUnavailable: ((ContentsFailure) -> Void)? { get set }

    /// How the last frame went.
    var lastFrameStatistics: FrameStatistics { get }

    /// Forgets the last frame, so that the next one is drawn in full.
    func invalidatePreviousFrame()

    /// Drops what the renderer keeps between frames that it can make again (rasterised shapes,
    /// text, shadow masks).
    func purgeCaches()
}
