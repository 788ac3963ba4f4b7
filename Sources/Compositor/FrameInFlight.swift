import DisplayBackend
import RendererContract
import SystemCalls
import WaylandServer

/// A frame on its way to its display: committed once what it shows is done (a frame drawn on the
/// GPU: when the event loop sees the frame's completion descriptor readable, so that the
/// compositor's thread goes on meanwhile and waits for nothing; a client's buffer scanned out
/// directly, or a frame the CPU drew: at once), or at once with an acquire fence that the display
/// waits on (a GPU frame whose completion the renderer exported as a sync_file; finished when its
/// descriptor turns readable). Every frame, composed or not, reaches the display through here
/// (`send`); only a frame that waits is an object, which the event loop's source keeps until then.
final class FrameInFlight {
    /// Why a frame did not reach its display.
    enum Failure {
        /// The display refused to scan out the client's buffer the state showed (given back).
        case scanoutRefused
        case error(Error)
    }

    /// Hears of the frames that could not be finished or committed, which the backend's
    /// scheduler skips. Held weakly.
    protocol Owner: AnyObject {
        func frameFailed(_ failure: Failure)
    }

    private let state: OutputState
    /// Let go once finished, with its descriptor.
    private var completion: (any RenderCompletion)?
    private var backend: (any BackendOutput)?
    private weak var owner: (any Owner)?
    private var source: FileDescriptorSource?
    private var isCommitted = false

    /// Commits `state` to `backend` once `completion` is done: at once when it is, or when there
    /// is none (nil is returned then: nothing waits), else the frame in flight that waits for it.
    static func send(
        _ state: OutputState, completion: (any RenderCompletion)?, on backend: any BackendOutput, loop: EventLoop, owner: some Owner
    ) -> FrameInFlight? {
        guard let completion, !completion.isComplete, let descriptor = completion.completionDescriptor else {
            // Most frames: one the CPU drew, or a client's buffer shown as it is.
            finish(state, completion: completion, committed: false, on: backend, owner: owner)
            return nil
        }
        return FrameInFlight(state, completion: completion, descriptor: descriptor, on: backend, loop: loop, owner: owner)
    }

    private init(
        _ state: OutputState, completion: any RenderCompletion, descriptor: FileDescriptor, on backend: any BackendOutput, loop: EventLoop,
        owner: some Owner
    ) {
        self.state = state
        self.completion = completion
        self.backend = backend
        self.owner = owner
        if state.acquireFence != nil { commit() }
        do {
            // The closure holds the frame (a cycle the removal in `done()` breaks): a cancelled
            // frame is still finished, so that the client buffers it read are released.
            source = try loop.addFileDescriptor(descriptor, events: .readable) { _ in self.done() }
        } catch {
            cancel()
            owner.frameFailed(.error(error))
            backend.frameScheduler.frameSkipped()
        }
    }

    /// Whether the frame is on the GPU, its commit waiting for the event loop.
    var isWaiting: Bool { source != nil && backend != nil && !isCommitted }

    /// The frame is not to be committed (its display changed mode or went away); it is still
    /// finished when the GPU is done with it.
    func cancel() {
        backend = nil
        owner = nil
    }

    private func done() {
        source?.remove()
        source = nil
        let finished = completion
        completion = nil
        if let backend {
            Self.finish(state, completion: finished, committed: isCommitted, on: backend, owner: owner)
        } else {
            Self.finish(cancelled: state, completion: finished, committed: isCommitted)
        }
        isCommitted = true
        cancel()
    }

    private func commit() {
        isCommitted = true
        guard let backend else { return }
        Self.commit(state, on: backend, owner: owner)
    }

    /// Finishes `completion` and commits `state`, unless it is `committed` already; a client's
    /// buffer that no display took goes back to its surface when finishing fails.
    private static func finish(
        _ state: OutputState, completion: (any RenderCompletion)?, committed: Bool, on backend: any BackendOutput, owner: (any Owner)?
    ) {
        do {
            try completion?.finish()
        } catch {
            if !committed, case .client(let buffer) = state.buffer { buffer.endHold() }
            owner?.frameFailed(.error(error))
            if !committed { backend.frameScheduler.frameSkipped() }
            return
        }
        if !committed { commit(state, on: backend, owner: owner) }
    }

    /// A cancelled frame is finished all the same; a client's buffer it showed goes back to its
    /// surface if finishing fails before any commit.
    private static func finish(cancelled state: OutputState, completion: (any RenderCompletion)?, committed: Bool) {
        do {
            try completion?.finish()
        } catch {
            if !committed, case .client(let buffer) = state.buffer { buffer.endHold() }
        }
    }

    private static func commit(_ state: OutputState, on backend: any BackendOutput, owner: (any Owner)?) {
        do {
            if try !backend.commit(state), case .client(let buffer) = state.buffer {
                buffer.endHold()
                owner?.frameFailed(.scanoutRefused)
                backend.frameScheduler.frameSkipped()
            }
        } catch {
            if case .client(let buffer) = state.buffer { buffer.endHold() }
            owner?.frameFailed(.error(error))
            backend.frameScheduler.frameSkipped()
        }
    }
}
