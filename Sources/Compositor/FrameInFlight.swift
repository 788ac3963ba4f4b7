import DisplayBackend
import RendererContract
import WaylandServer

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
