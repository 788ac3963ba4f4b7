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

    /// The dma-buf layouts besides linear that frames are drawn into (`render(_:into:…)` of a
    /// swapchain buffer that is a dma-buf): XRGB8888 with each single-plane modifier the device
    /// renders into. What a display's GBM buffers may be tiled with
    /// (`DisplayBackend.useRenderTargetFormats`); empty where the renderer draws linear dma-bufs
    /// only (a device without `VK_EXT_image_drm_format_modifier`, lavapipe) or none (the CPU
    /// renderer).
    var renderTargetFormats: [DmabufFormat] { get }

    /// Renders `tree` into `buffer`, a display's swapchain buffer, at `scale` pixels per point over
    /// `clearColor`; the pixels are there once the returned completion is done and finished. The
    /// renderer keeps what it needs of each buffer (an import, what the buffer lacks of later
    /// frames) while anyone else holds the buffer, so only what changed since the buffer's own
    /// last frame is written. Throws `UnwritableBuffer` for a buffer it cannot draw into.
    func render(_ tree: RenderTree, into buffer: any SwapchainBuffer, scale: Double, clearColor: Color) throws -> any RenderCompletion

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
