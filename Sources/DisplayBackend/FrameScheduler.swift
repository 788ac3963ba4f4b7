public import Signals
public import SystemCalls

/// One output's frame cycle, the same for every backend: a frame asked for starts just in time for
/// the first refresh it can make (`RenderTimePredictor`'s lead before it, on `RefreshClock`'s
/// refreshes), one frame at a time, and a frame asked for while one is on its way follows it.
/// Backends differ only in what a refresh is (a page-flip event, a timer) and what holds frames
/// back (a session switched away, a display powered down): they tell the scheduler when a frame
/// was committed and when it was presented, and it asks the compositor for the next.
///
/// Frames sample their animations at their target, so targets advance from frame to frame even
/// where a frame completes long before its own (see `RefreshClock.schedule`).
///
/// Its state is stored privately, read by other modules through computed properties: every access
/// to a public stored property of a class is checked for exclusivity at run time (another module
/// may access it directly), where the optimizer, seeing all of a private one's accesses, proves
/// that they never overlap and checks none.
public final class FrameScheduler {
    /// Starts frames: armed for a frame's start while one is scheduled, and for the next frame's
    /// likely start after a presentation clients were told of (`primeTimer()`). The event loop
    /// watches its descriptor and calls `timerExpired()`, with no backend in between.
    public let timer: MonotonicTimer
    /// When `timer` expires as last set (CLOCK_MONOTONIC ns); nil while it is not set, and once its
    /// expiry was read.
    private var timerDeadline: UInt64?
    /// Whether `timer` expired and stays readable: nothing read its expiry or set it since. Setting
    /// it (timerfd_settime) clears an expiry as reading it does, so a frame that sets it again in
    /// the turn its expiry started it (`framePresented`) needs no read(2).
    private var timerIsReadable = false
    /// The event loop's clock, whose turn's time serves frames asked for and started (nil: the
    /// clock is read each time, for a scheduler driven without a compositor's loop).
    public var loopClock: LoopClock? {
        get { turnClock }
        set { turnClock = newValue }
    }
    private var turnClock: LoopClock?
    /// The display's refreshes, set by its presentations; nil until the first, or after the mode
    /// changed.
    public var clock: RefreshClock? { refreshes }
    private var refreshes: RefreshClock?
    public var period: UInt64 { refreshPeriod }
    private var refreshPeriod: UInt64
    /// How long frames take from their start to their commit.
    public var renderTimes: RenderTimePredictor { renderTimePredictor }
    private var renderTimePredictor = RenderTimePredictor()
    /// At most this lead before a refresh (nil: no limit). A display that shows a frame at its
    /// commit (headless) starts frames at their refresh (0), so that the refresh's one wakeup
    /// draws the frame and shows it.
    private let maximumLead: UInt64?
    /// The latest refresh of a display that counts them at the time given, read when a frame is
    /// asked for then with none on its way (the last presentation may be long past, and the
    /// display's clock drifts from the CPU's); nil where it cannot tell. A display whose refreshes
    /// are only a timer (headless) restarts them at that time when it has been idle
    /// (`RefreshClock.restarted`).
    public var latestRefresh: ((UInt64) -> Refresh?)? {
        get { latestRefreshReader }
        set { latestRefreshReader = newValue }
    }
    private var latestRefreshReader: ((UInt64) -> Refresh?)?

    /// The compositor's renderer: called when it is time to draw a frame, which it then commits
    /// through its output (`frameCommitted()` follows) or skips (`frameSkipped()`).
    public var onFrame: ((FrameRequest) -> Void)? {
        get { frameHandler }
        set { frameHandler = newValue }
    }
    private var frameHandler: ((FrameRequest) -> Void)?
    /// Emitted when a committed frame reached the screen, with the display's own timing.
    public let presented = Signal<PresentationTiming>()
    /// Called whenever no frame is on its way any more (presented, skipped, or given up): the
    /// moment a backend may commit what it holds back meanwhile (a cursor plane's move).
    public var becameIdle: (() -> Void)? {
        get { idleHandler }
        set { idleHandler = newValue }
    }
    private var idleHandler: (() -> Void)?

    private enum Phase {
        case idle
        /// Waiting for the timer, then `onFrame` is called.
        case waiting(FrameRequest)
        /// `onFrame` ran; the compositor has not committed or skipped yet.
        case drawing(FrameRequest)
        /// A commit is on its way to the screen (a frame, or a backend's own: a cursor move).
        case committed
    }
    private var phase = Phase.idle
    private var wantsAnotherFrame = false
    /// Set while the display takes no frames (session away, powered down): asked-for frames wait.
    private var isHeld = false
    /// How the frame now in the works was planned, and how the last presented one was.
    private var pacing: FramePacing?
    public var lastFramePacing: FramePacing? { lastPacing }
    private var lastPacing: FramePacing?
    /// Whether anything waited for the last presented frame: a frame asked for while it was on its
    /// way or during its presentation, or clients told of it (whoever answers their frame
    /// callbacks or presentation feedback calls `markPresentationAwaited()` from a `presented`
    /// listener). A display whose refreshes are only a timer may start the next frame at once
    /// after a frame nobody waited for (`RefreshClock.restarted`).
    public var lastPresentationWasAwaited: Bool { lastWasAwaited }
    private var lastWasAwaited = false
    private var isPresenting = false

    public init(period: UInt64, clock: RefreshClock? = nil, maximumLead: UInt64? = nil) throws(SystemCallError) {
        timer = try MonotonicTimer()
        refreshPeriod = period
        refreshes = clock
        self.maximumLead = maximumLead
    }

    /// How long before its refresh the next frame starts.
    public var leadNanoseconds: UInt64 {
        // A display that shows frames at their commit (headless) needs no prediction, every frame.
        if maximumLead == 0 { return 0 }
        let lead = renderTimePredictor.leadNanoseconds
        return maximumLead.map { min($0, lead) } ?? lead
    }

    /// Whether nothing is asked for, drawn or on its way: a backend may commit on its own.
    public var isIdle: Bool {
        if case .idle = phase { true } else { false }
    }

    /// Whether a commit is on its way to the screen.
    public var hasCommitInFlight: Bool {
        if case .committed = phase { true } else { false }
    }

    /// Asks for one frame: `onFrame` is called once, in time for a coming refresh. Asking again
    /// before it ran does nothing more; asking while a frame is drawn or on its way gets one more
    /// after it.
    public func scheduleFrame() {
        if isPresenting { lastWasAwaited = true }
        guard !isHeld else {
            wantsAnotherFrame = true
            return
        }
        switch phase {
        case .idle:
            // This frame is also the one asked for while the last was drawn: a presentation's
            // listener may ask before `finish()` looks, and a wish left set would draw one more.
            wantsAnotherFrame = false
            let now = self.now
            if let latest = latestRefreshReader?(now) {
                refreshes = RefreshClock(anchorNanoseconds: latest.nanoseconds, anchorSequence: latest.sequence, period: refreshPeriod)
            }
            let lead = leadNanoseconds
            let clock = refreshes ?? RefreshClock(anchorNanoseconds: now, anchorSequence: 0, period: refreshPeriod)
            let schedule = clock.schedule(now: now, lead: lead, after: lastPacing?.target)
            let request = FrameRequest(targetPresentationNanoseconds: schedule.target.nanoseconds, sequence: schedule.target.sequence)
            phase = .waiting(request)
            pacing = FramePacing(requestedNanoseconds: now, leadNanoseconds: lead, target: schedule.target)
            // Already set for it after the last presentation (`framePresented`): no system call.
            if timerDeadline != schedule.startNanoseconds { setTimer(schedule.startNanoseconds) }
        case .waiting:
            break
        case .drawing, .committed:
            wantsAnotherFrame = true
        }
    }

    /// The timer's descriptor was readable: the frame waiting for it is drawn now. Its expiry is
    /// read (so that the loop does not wake for it again) only where the frame did not set the
    /// timer again.
    public func timerExpired() {
        guard let deadline = timerDeadline else { return }
        // Readiness the timer's setting since cleared (set for later) is no expiry: the time, not
        // a read(2), tells. A timer never expires early, and the loop's turn began after its
        // descriptor was found readable (the clock is read again where a loop did not say so).
        var now = self.now
        if now < deadline, let turnClock { now = turnClock.read() }
        guard now >= deadline else { return }
        timerIsReadable = true
        if case .waiting(let request) = phase {
            phase = .drawing(request)
            pacing?.startedNanoseconds = now
            frameHandler?(request)
        }
        if timerIsReadable { acknowledgeTimer() }
    }

    /// The frame being drawn was committed to the display (now, by the clock read here, which is
    /// returned). `measured`: false for a commit that waited on purpose (made again after a
    /// refusal), which says nothing of drawing's cost.
    @discardableResult
    public func frameCommitted(measured: Bool = true) -> UInt64 {
        let now = turnClock?.read() ?? monotonicNanoseconds()
        if measured, let started = pacing?.startedNanoseconds, started > 0 {
            renderTimePredictor.record(now - started)
        }
        pacing?.committedNanoseconds = now
        phase = .committed
        return now
    }

    /// The backend committed something of its own (a cursor plane's move) while no frame was
    /// asked for: frames asked for meanwhile wait for its `presentationCompleted()`.
    public func displayCommitted() {
        precondition(isIdle, "a display commit while a frame is in the works")
        phase = .committed
    }

    /// The frame drawn now will not be committed (nothing changed, or drawing failed, or the
    /// display refused it for good): no presentation follows.
    public func frameSkipped() {
        phase = .idle
        pacing = nil
        finish()
    }

    /// The frame on its way reached the screen at `timing`'s refresh: the clock follows it
    /// (`vblankCounted`: the display numbers its refreshes, so the time and sequence are a real
    /// refresh), `presented` is emitted, and a frame asked for meanwhile is scheduled.
    public func framePresented(_ timing: PresentationTiming, vblankCounted: Bool) {
        if refreshes != nil {
            refreshes?.flipCompleted(at: timing.nanoseconds, sequence: vblankCounted ? timing.sequence : nil, aimedAt: pacing?.target)
        } else {
            refreshes = RefreshClock(anchorNanoseconds: timing.nanoseconds, anchorSequence: timing.sequence, period: refreshPeriod)
        }
        phase = .idle
        lastPacing = pacing
        pacing = nil
        lastWasAwaited = wantsAnotherFrame
        isPresenting = true
        presented.emit(timing)
        isPresenting = false
        finish()
        primeTimer()
    }

    /// After a presentation in the turn its frame's timer expired (a display that presents at its
    /// commit: headless) that clients were told of, they likely ask for the next frame before its
    /// start: the timer is set for that start now, which clears its expiry without a read(2), and
    /// `scheduleFrame()` finds it set. Where no frame is asked for by then, the timer's expiry
    /// draws nothing and is read.
    private func primeTimer() {
        guard timerIsReadable, lastWasAwaited, isIdle, !isHeld, let refreshes else { return }
        setTimer(refreshes.schedule(now: now, lead: leadNanoseconds, after: lastPacing?.target).startNanoseconds)
    }

    /// Called by a `presented` listener that told clients of the presentation (answered frame
    /// callbacks or presentation feedback): they may draw again now, so the next frame keeps the
    /// refresh cadence.
    public func markPresentationAwaited() {
        lastWasAwaited = true
    }

    /// What the backend committed on its own, or a modeset's first frame, reached the screen at
    /// the refresh `nanoseconds` numbered `sequence`: no frame's presentation. A display without
    /// a clock yet takes its refreshes from it.
    public func presentationCompleted(at nanoseconds: UInt64, sequence: UInt64) {
        if refreshes == nil {
            refreshes = RefreshClock(anchorNanoseconds: nanoseconds, anchorSequence: sequence, period: refreshPeriod)
        }
        phase = .idle
        finish()
    }

    /// Holds frames back (the session went away, the display was powered down): a frame waiting
    /// to start, and those asked for meanwhile, are made once `resume()` is called. A commit on
    /// its way stays so (`abandonCommit()` where it will never report back).
    public func hold() {
        isHeld = true
        guard case .waiting = phase else { return }
        disarmTimer()
        phase = .idle
        pacing = nil
        wantsAnotherFrame = true
    }

    /// The commit on its way will never report back (a session switched away meanwhile): the
    /// cycle starts afresh, with one more frame.
    public func abandonCommit() {
        guard hasCommitInFlight else { return }
        phase = .idle
        pacing = nil
        wantsAnotherFrame = true
    }

    /// Takes frames again after `hold()`, drawing one when any was asked for (`another`: one is
    /// drawn in any case, to show what changed meanwhile).
    public func resume(drawing another: Bool = false) {
        isHeld = false
        if another { wantsAnotherFrame = true }
        scheduleAnotherIfWanted()
    }

    /// The display's mode changed: its refreshes are the new mode's, from the next presentation
    /// on; a frame asked for or in flight is dropped, and one is drawn at the new size.
    public func restart(period: UInt64, clock: RefreshClock? = nil) {
        refreshPeriod = period
        refreshes = clock
        disarmTimer()
        phase = .idle
        pacing = nil
        lastPacing = nil
        wantsAnotherFrame = true
        scheduleAnotherIfWanted()
    }

    /// The loop turn's time, or the clock's without a loop clock.
    private var now: UInt64 { turnClock?.now ?? monotonicNanoseconds() }

    private func setTimer(_ deadline: UInt64) {
        timer.arm(at: deadline)
        timerDeadline = deadline
        timerIsReadable = false
    }

    private func disarmTimer() {
        timer.disarm()
        timerDeadline = nil
        timerIsReadable = false
    }

    private func acknowledgeTimer() {
        _ = timer.acknowledgeExpiration()
        timerDeadline = nil
        timerIsReadable = false
    }

    private func finish() {
        scheduleAnotherIfWanted()
        if isIdle { idleHandler?() }
    }

    private func scheduleAnotherIfWanted() {
        guard wantsAnotherFrame, !isHeld, isIdle else { return }
        wantsAnotherFrame = false
        scheduleFrame()
    }
}

/// How one frame was paced (CLOCK_MONOTONIC nanoseconds): for presentation logs and the rig's
/// checks that frames start just in time.
public struct FramePacing: Sendable, Equatable {
    /// When the frame was asked for (or, when one was on its way then, when that one was presented).
    public let requestedNanoseconds: UInt64
    /// The predicted time from start to commit, including the margin.
    public let leadNanoseconds: UInt64
    /// The refresh the frame was aimed at.
    public let target: Refresh
    /// When drawing started and when the frame was committed.
    public internal(set) var startedNanoseconds: UInt64 = 0
    public internal(set) var committedNanoseconds: UInt64 = 0

    public init(requestedNanoseconds: UInt64, leadNanoseconds: UInt64, target: Refresh) {
        self.requestedNanoseconds = requestedNanoseconds
        self.leadNanoseconds = leadNanoseconds
        self.target = target
    }
}
