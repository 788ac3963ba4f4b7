import Buffers
import DisplayBackend
import LayerKit
import Renderer

/// The renderer's targets for an output's swapchain buffers, one per buffer and made when first
/// drawn into, so that each keeps its own buffer age; they go with the output.
final class ScanoutTargets {
    private var targets: [ObjectIdentifier: HostBufferTarget] = [:]

    /// The target for `buffer`; the target holds the buffer, so the identifier stays its.
    func target(for buffer: any MappedPixelBuffer, renderer: Renderer) throws -> HostBufferTarget {
        if let target = targets[ObjectIdentifier(buffer)] { return target }
        let made = try renderer.makeHostBufferTarget(
            memory: buffer.mapping, width: buffer.width, height: buffer.height, bytesPerRow: buffer.bytesPerRow, owner: buffer)
        targets[ObjectIdentifier(buffer)] = made
        return made
    }

    /// Lets go of every target (and the buffers they hold): the output's buffers were replaced.
    func removeAll() {
        targets = [:]
    }

    /// Draws `tree` at `scale` into `backend`'s next swapchain buffer and returns the state that
    /// shows it; nil when no buffer is free.
    func draw(_ tree: RenderTree, for backend: any BackendOutput, renderer: Renderer, scale: Double) throws -> OutputState? {
        guard let buffer = backend.nextBuffer() else { return nil }
        try renderer.render(tree, into: target(for: buffer, renderer: renderer), scale: scale, clearColor: Color(white: 0))
        return OutputState(buffer: .swapchain(buffer))
    }
}
