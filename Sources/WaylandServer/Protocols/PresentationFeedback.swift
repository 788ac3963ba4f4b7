import WaylandProtocols

/// wp_presentation_feedback: the answer to one commit's "when was this shown?". The compositor
/// takes a surface's feedback with `Surface.takePresentationFeedbacks()` when it latches the
/// surface's state for a frame, then calls `presented(on:…)` once that frame turned into light, or
/// `discarded()` when the content was never shown. Either destroys the object.
public final class PresentationFeedback: Resource, RequestHandler {
    /// wp_presentation_feedback.kind: how the presentation time was obtained.
    public struct Kind: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Synchronized to the display's vertical retrace (no tearing).
        public static let vsync = Kind(rawValue: WpPresentationFeedbackKind.vsync.rawValue)
        /// The timestamp comes from the display hardware's clock.
        public static let hardwareClock = Kind(rawValue: WpPresentationFeedbackKind.hwClock.rawValue)
        /// The hardware signalled that it started showing the content.
        public static let hardwareCompletion = Kind(rawValue: WpPresentationFeedbackKind.hwCompletion.rawValue)
        /// The client's buffer was scanned out directly.
        public static let zeroCopy = Kind(rawValue: WpPresentationFeedbackKind.zeroCopy.rawValue)
    }

    init(client: Client, id: UInt32) {
        super.init(PresentationFeedback.self, client: client, version: 1, id: id)
    }

    /// The content was shown on `output` at `seconds`.`nanoseconds` of CLOCK_MONOTONIC.
    /// `refreshNanoseconds` predicts the next refresh (0 for a variable refresh rate), `sequence`
    /// is the output's vertical retrace counter (0 when it has none). Sends sync_output for each
    /// of the client's bindings of `output`, then presented, and destroys the feedback.
    public func presented(on output: Output, seconds: UInt64, nanoseconds: UInt32, refreshNanoseconds: UInt32,
                          sequence: UInt64, flags: Kind) {
        precondition(nanoseconds < 1_000_000_000, "tv_nsec must be below one second")
        guard isAlive else { return }
        for resource in output.resources(of: client) { send(.syncOutput(output: resource)) }
        send(.presented(tvSecHi: UInt32(seconds >> 32), tvSecLo: UInt32(truncatingIfNeeded: seconds), tvNsec: nanoseconds,
                        refresh: refreshNanoseconds, seqHi: UInt32(sequence >> 32), seqLo: UInt32(truncatingIfNeeded: sequence),
                        flags: WpPresentationFeedbackKind(rawValue: flags.rawValue)))
        destroy()
    }

    /// The content was never shown (superseded, hidden, or its surface destroyed); destroys the feedback.
    public func discarded() {
        guard isAlive else { return }
        send(.discarded)
        destroy()
    }
}

extension Surface {
    /// Takes the presentation feedback of every commit applied so far, in commit order. Call it
    /// when latching the surface's state for a frame (after `discardSupersededPresentationFeedbacks()`)
    /// and answer each one when the frame was presented or dropped.
    public func takePresentationFeedbacks() -> [PresentationFeedback] {
        presentationFeedbackQueue?.take() ?? []
    }

    /// Discards the feedback of every applied commit but the latest: their content was replaced
    /// before a frame showed it. The compositor calls this when it latches the surface's state for
    /// a frame (the commits applied since the previous latch, but the last, were never shown),
    /// before `takePresentationFeedbacks()`; a compositor that shows every commit never calls it.
    public func discardSupersededPresentationFeedbacks() {
        presentationFeedbackQueue?.discardSuperseded()
    }
}

/// One surface's presentation feedback on its way from the request through the commit (and a
/// synchronized subsurface's cache) to the compositor.
final class PresentationFeedbackQueue {
    /// Requested but not applied yet (pending, or in a synchronized subsurface's cache).
    private var unapplied: [PresentationFeedback] = []
    /// Gathered while one commit is applied.
    private var arriving: [PresentationFeedback] = []
    /// Feedback of the commits applied before the latest one, and of the latest one.
    private var superseded: [PresentationFeedback] = []
    private var latest: [PresentationFeedback] = []
    private var surfaceDestruction: ResourceDestructionListener?

    /// The surface's queue, created (and hooked to its commits and destruction) on first use.
    static func of(_ surface: Surface) -> PresentationFeedbackQueue {
        if let queue = surface.presentationFeedbackQueue { return queue }
        let key = ObjectIdentifier(PresentationFeedbackQueue.self)
        let queue = PresentationFeedbackQueue()
        surface.presentationFeedbackQueue = queue
        // Every commit, with feedback or not, ends with a hook that marks where it was applied,
        // so that a commit without feedback still supersedes an earlier one. Validators run on
        // every commit's requests: the one place to add that hook.
        surface.commitValidators[key] = { _, requests in
            requests.commitHooks.append { _ in queue.commitApplied() }
        }
        queue.surfaceDestruction = ResourceDestructionListener(surface) { [unowned queue, unowned surface] in
            queue.surfaceDestroyed(clientConnected: surface.client.isConnected)
        }
        return queue
    }

    /// Attaches `feedback` to the surface's next commit.
    func request(_ feedback: PresentationFeedback, on surface: Surface) {
        unapplied.append(feedback)
        surface.pending.commitHooks.append { _ in
            self.unapplied.removeAll { $0 === feedback }
            self.arriving.append(feedback)
        }
    }

    private func commitApplied() {
        superseded += latest
        latest = arriving
        arriving = []
    }

    func take() -> [PresentationFeedback] {
        defer {
            superseded = []
            latest = []
        }
        return (superseded + latest).filter(\.isAlive)
    }

    func discardSuperseded() {
        let dropped = superseded
        superseded = []
        for feedback in dropped { feedback.discarded() }
    }

    private func surfaceDestroyed(clientConnected: Bool) {
        let dropped = unapplied + arriving + superseded + latest
        unapplied = []
        arriving = []
        superseded = []
        latest = []
        // A leaving client's feedback objects go with it; there is no one to tell.
        guard clientConnected else { return }
        for feedback in dropped { feedback.discarded() }
    }
}
