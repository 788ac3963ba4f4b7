import Buffers
import RendererContract
import DisplayBackend
import LayerKit
import Renderer
import WaylandServer

/// The renderer's targets for an output's swapchain buffers, one per buffer and made when first
/// drawn into, so that each keeps its own buffer age; they go with the output.
final class ScanoutTargets {
    private var targets: [ObjectIdentifier: any HostFrameTarget] = [:]

    /// The target for `buffer`, nil where the renderer cannot draw into it (a dma-buf for the CPU
    /// renderer); the target holds the buffer, so the identifier stays its.
    func target(for buffer: any SwapchainBuffer, renderer: any LayerTreeRenderer) throws -> (any HostFrameTarget)? {
        if let target = targets[ObjectIdentifier(buffer)] { return target }
        let made: any HostFrameTarget
        switch buffer.memory {
        case .mapped(let mapping, let bytesPerRow):
            made = try renderer.makeHostFrameTarget(
                memory: mapping, width: buffer.width, height: buffer.height, bytesPerRow: bytesPerRow, owner: buffer)
        case .dmabuf(let layout):
            guard let target = try renderer.makeDmabufFrameTarget(layout, owner: buffer) else { return nil }
            made = target
        }
        targets[ObjectIdentifier(buffer)] = made
        return made
    }

    /// Lets go of every target (and the buffers they hold): the output's buffers were replaced.
    func removeAll() {
        targets = [:]
    }

    /// Draws `tree` at `scale` into `backend`'s next swapchain buffer and returns the state that
    /// shows it, with the frame's completion (at once for the CPU renderer, on the GPU for
    /// Vulkan); nil when no buffer is free. A buffer the renderer cannot draw into (a GBM buffer
    /// object it cannot import, or any dma-buf for the CPU renderer) turns the output to buffers
    /// the CPU maps.
    func draw(
        _ tree: RenderTree, for backend: any BackendOutput, renderer: any LayerTreeRenderer, scale: Double
    ) throws -> (state: OutputState, completion: any RenderCompletion)? {
        guard var buffer = backend.nextBuffer() else { return nil }
        var target: (any HostFrameTarget)?
        var refusal = "it draws into memory it maps only"
        do {
            target = try self.target(for: buffer, renderer: renderer)
        } catch {
            guard case .dmabuf = buffer.memory else { throw error }
            refusal = "\(error)"
        }
        if target == nil {
            try backend.useMappedBuffers(because: "the renderer cannot draw into its \(buffer.kind)s: \(refusal)")
            guard let mapped = backend.nextBuffer() else { return nil }
            buffer = mapped
            target = try self.target(for: buffer, renderer: renderer)
        }
        guard let target else { return nil }
        let completion = try renderer.render(tree, into: target, scale: scale, clearColor: Color(white: 0))
        // Where the renderer exports the frame's completion, the display waits for it, not we.
        return (OutputState(buffer: .swapchain(buffer), acquireFence: completion.takeAcquireFence()), completion)
    }
}

/// A frame on its way to its display: committed once what it shows is done (a frame drawn on the
/// GPU: when the event loop sees the frame's completion descriptor readable, so that the
/// compositor's thread goes on meanwhile and waits for nothing; a client's buffer scanned out
/// directly, or a frame the CPU drew: at once), or at once with an acquire fence that the display
/// waits on (a GPU frame whose completion the renderer exported as a sync_file; finished when its
/// descriptor turns readable). Every frame, composed or not, reaches the display through here.
/// The event loop's source keeps it until then.
final class FrameInFlight {
    /// Why a frame did not reach its display.
    enum Failure {
        /// The display refused to scan out the client's buffer the state showed (given back).
        case scanoutRefused
        case error(Error)
    }

    private let state: OutputState
    /// Let go once finished, with its descriptor.
    private var completion: (any RenderCompletion)?
    private var backend: (any BackendOutput)?
    private var failed: ((Failure) -> Void)?
    private var source: FileDescriptorSource?
    private var isCommitted = false

    /// Commits `state` to `backend` once `completion` is done (at once when it is, or when there
    /// is none); `failed` hears of a frame that could not be finished or committed, which the
    /// backend's scheduler skips.
    init(
        _ state: OutputState, completion: (any RenderCompletion)?, on backend: any BackendOutput, loop: EventLoop,
        failed: @escaping (Failure) -> Void
    ) {
        self.state = state
        self.completion = completion
        self.backend = backend
        self.failed = failed
        guard let completion, !completion.isComplete, let descriptor = completion.completionDescriptor else {
            done()
            return
        }
        if state.acquireFence != nil { commit() }
        do {
            // The closure holds the frame (a cycle the removal in `done()` breaks): a cancelled
            // frame is still finished, so that the client buffers it read are released.
            source = try loop.addFileDescriptor(descriptor, events: .readable) { _ in self.done() }
        } catch {
            cancel()
            failed(.error(error))
            backend.frameScheduler.frameSkipped()
        }
    }

    /// Whether the frame is on the GPU, its commit waiting for the event loop.
    var isWaiting: Bool { source != nil && backend != nil && !isCommitted }

    /// The frame is not to be committed (its display changed mode or went away); it is still
    /// finished when the GPU is done with it.
    func cancel() {
        backend = nil
        failed = nil
    }

    private func done() {
        source?.remove()
        source = nil
        let finished = completion
        completion = nil
        do {
            try finished?.finish()
        } catch {
            // A client's buffer that no display took goes back to its surface.
            if !isCommitted, case .client(_, let released) = state.buffer { released() }
            failed?(.error(error))
            if !isCommitted { backend?.frameScheduler.frameSkipped() }
            cancel()
            return
        }
        if !isCommitted { commit() }
        cancel()
    }

    private func commit() {
        isCommitted = true
        do {
            if let backend, try !backend.commit(state), case .client(_, let released) = state.buffer {
                released()
                failed?(.scanoutRefused)
                backend.frameScheduler.frameSkipped()
            }
        } catch {
            if case .client(_, let released) = state.buffer { released() }
            failed?(.error(error))
            backend?.frameScheduler.frameSkipped()
        }
    }
}
