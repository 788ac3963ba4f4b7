// The contract's types (ContentsFailure, FrameStatistics, …) are part of this renderer's API.
@_exported import RendererContract
import Buffers
import LayerKit
import SystemCalls

extension Renderer: LayerTreeRenderer {
    public var renderTargetFormats: [DmabufFormat] {
        context.renderTargetModifiers().map { DmabufFormat(.xrgb8888, modifier: $0) }
    }

    public var sampledSurfaceOwners: [AnyObject] { sampledClientContents.compactMap { $0.surface.owner } }
}

extension FrameCompletion: RenderCompletion {
    public var completionDescriptor: FileDescriptor? { fileDescriptor }
}
