import Buffers
import DisplayBackend
import LayerKit
import Renderer

/// A frame drawn for an output: an image to hand over, or pixels already in its scanout buffer.
enum DrawnFrame {
    case image(Image)
    case inPlace(any MappedPixelBuffer, any ScanoutMemoryOutput)
}

/// The renderer's targets for an output's scanout buffers (KMS dumb buffers), one per buffer and
/// made when first written, so that each keeps its own buffer age; they go with the output.
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
}

extension ScanoutTargets {
    /// Draws `tree` at `scale` straight into `backend`'s next scanout buffer where it has them,
    /// and otherwise into an image to hand over.
    func draw(_ tree: RenderTree, for backend: any BackendOutput, renderer: Renderer, scale: Double) throws -> DrawnFrame {
        let (width, height) = (backend.mode.width, backend.mode.height)
        if let output = backend as? any ScanoutMemoryOutput, let buffer = output.nextScanoutBuffer() {
            try renderer.render(tree, into: target(for: buffer, renderer: renderer), scale: scale, clearColor: Color(white: 0))
            return .inPlace(buffer, output)
        }
        return .image(try renderer.render(tree, width: width, height: height, scale: scale, clearColor: Color(white: 0)))
    }
}

extension DrawnFrame {
    /// Hands the frame to `backend` for the refresh `request` is meant for.
    func present(on backend: any BackendOutput, for request: FrameRequest) throws {
        switch self {
        case .image(let image): try backend.present(image, for: request)
        case .inPlace(let buffer, let output): try output.presentScanoutBuffer(buffer, for: request)
        }
    }
}

extension CompositorOutput {
    /// Draws `tree` straight into the output's next scanout buffer where it has them, and
    /// otherwise into an image to hand over.
    func drawFrame(of tree: RenderTree) throws -> DrawnFrame {
        try scanoutTargets.draw(tree, for: backend, renderer: renderer, scale: backend.scaleFactor)
    }

    func present(_ frame: DrawnFrame, for request: FrameRequest) throws {
        try frame.present(on: backend, for: request)
    }
}
