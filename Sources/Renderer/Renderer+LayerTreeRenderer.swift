// The contract's types (ContentsFailure, FrameStatistics, …) are part of this renderer's API.
@_exported import RendererContract
import Buffers
import LayerKit
import SystemCalls

extension Renderer: LayerTreeRenderer {
    public func makeHostFrameTarget(
        memory: UnsafeMutableRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, owner: AnyObject?
    ) throws -> any HostFrameTarget {
        try makeBufferTarget(memory: memory, width: width, height: height, bytesPerRow: bytesPerRow, owner: owner)
    }

    public func makeDmabufFrameTarget(_ dmabuf: DmabufLayout, owner: AnyObject?) throws -> (any HostFrameTarget)? {
        try makeBufferTarget(dmabuf: dmabuf, owner: owner)
    }

    public var sampledSurfaceOwners: [AnyObject] { sampledClientContents.compactMap { $0.surface.owner } }
}

extension BufferTarget: HostFrameTarget {}

extension FrameCompletion: RenderCompletion {
    public var completionDescriptor: FileDescriptor? { fileDescriptor }
}

extension ClientBufferContents: ClientContents {
    public var surfaceOwner: AnyObject? { surface.owner }

    public func changedRect(sinceContents ancestor: any ClientContents) -> ImageRect? {
        guard let ancestor = ancestor as? ClientBufferContents else { return nil }
        return changedRect(since: ancestor)
    }
}
