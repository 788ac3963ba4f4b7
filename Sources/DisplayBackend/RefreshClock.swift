/// How long the next frame will take to draw and hand to the display, predicted from the last few:
/// every backend that starts frames just in time asks it how early to start.
public struct RenderTimePredictor: Sendable, Equatable {
    /// How many recent frames the prediction looks at.
    public static let window = 8
    /// The last `window` frames' times; once full, a ring whose oldest entry the next frame
    /// overwrites in place (removing the first of a list moved the others every frame).
    public private(set) var recentNanoseconds: [UInt64] = []
    /// Where the next time goes once the window is full: the oldest's place.
    private var oldest = 0

    public init() {}

    public mutating func record(_ nanoseconds: UInt64) {
        guard recentNanoseconds.count == Self.window else {
            recentNanoseconds.append(nanoseconds)
            return
        }
        recentNanoseconds[oldest] = nanoseconds
        oldest = (oldest + 1) % Self.window
    }

    /// How long before its refresh a frame is started: the slowest of the last 8 frames plus a
    /// quarter and a millisecond. The slowest, not the mean, since a frame that misses costs a
    /// whole refresh; the window forgets a slow frame after 8 faster ones.
    public var leadNanoseconds: UInt64 {
        let slowest = recentNanoseconds.max() ?? 0
        return slowest + slowest / 4 + 1_000_000
    }
}

/// A display's refreshes: one at `anchorNanoseconds` (CLOCK_MONOTONIC) numbered `anchorSequence`,
/// then one every `period` before and after it.
public struct RefreshClock: Sendable, Equatable {
    public var anchorNanoseconds: UInt64
    public var anchorSequence: UInt64
    public let period: UInt64

    public init(anchorNanoseconds: UInt64, anchorSequence: UInt64, period: UInt64) {
        self.anchorNanoseconds = anchorNanoseconds
        self.anchorSequence = anchorSequence
        self.period = max(1, period)
    }

    /// The first refresh at `time` or after it.
    public func refresh(atOrAfter time: UInt64) -> Refresh {
        if time >= anchorNanoseconds {
            let count = (time - anchorNanoseconds + period - 1) / period
            return Refresh(nanoseconds: anchorNanoseconds + count * period, sequence: anchorSequence &+ count)
        }
        let count = (anchorNanoseconds - time) / period
        return Refresh(nanoseconds: anchorNanoseconds - count * period, sequence: anchorSequence &- count)
    }

    /// The first refresh strictly after `time`.
    public func refresh(after time: UInt64) -> Refresh {
        refresh(atOrAfter: time + 1)
    }

    /// The last refresh at `time` or before it.
    public func refresh(atOrBefore time: UInt64) -> Refresh {
        let next = refresh(after: time)
        return Refresh(nanoseconds: next.nanoseconds - period, sequence: next.sequence &- 1)
    }

    /// Whether a display that last showed something at `lastUsed` (nil: nothing yet) has been idle
    /// at `now`: for a period or more.
    public func isIdle(at now: UInt64, lastUsed: Refresh?) -> Bool {
        lastUsed.map { now >= $0.nanoseconds + period } ?? true
    }

    /// The refreshes of a display that has no vblank (headless: its refreshes are a timer) when
    /// a frame is asked for at `now`: after an idle spell (`isIdle(at:lastUsed:)`), they restart at
    /// `now`, as a panel's leaving self-refresh, so that the frame starts at once instead of
    /// waiting up to a period for a refresh that nothing needs. They restart once more within the
    /// period after such a restart when its frame was the only one shown since and nothing waited
    /// for it (`lastUsedWasUnawaitedWake`: no client was told of it, no frame was asked for at
    /// it): the compositor's own first frame then does not hold back an app's first one by the
    /// rest of its period, and a restart that comes early is no wake, so frames that follow it
    /// keep the cadence. Otherwise, within a period of the last refresh used, the clock keeps its
    /// phase: frames that follow each other keep the refresh cadence. The refresh at `now` takes
    /// the number of the old phase's first refresh at or after it, and always one more than the
    /// last used, so numbers keep increasing.
    public func restarted(at now: UInt64, lastUsed: Refresh?, lastUsedWasUnawaitedWake: Bool = false) -> RefreshClock {
        guard isIdle(at: now, lastUsed: lastUsed) || lastUsedWasUnawaitedWake else { return self }
        var sequence = refresh(atOrAfter: now).sequence
        if let lastUsed, Int64(bitPattern: sequence &- lastUsed.sequence) <= 0 { sequence = lastUsed.sequence &+ 1 }
        return RefreshClock(anchorNanoseconds: now, anchorSequence: sequence, period: period)
    }

    /// When to start a frame asked for at `now` that needs `lead` before its refresh: the first
    /// refresh at least `lead` away (a nearer one would be missed, so the frame aims at the next
    /// one rather than being shown late) and after the refresh the previous frame aimed at,
    /// started exactly `lead` before it.
    ///
    /// Frames sample their animations at their target, so targets must advance even where a
    /// frame completes long before its own (a display without vblanks shows it at once, and the
    /// clock re-anchors there) and the next frame's lead is shorter.
    public func schedule(now: UInt64, lead: UInt64, after previous: Refresh? = nil) -> FrameSchedule {
        var target = refresh(atOrAfter: now + lead)
        if let previous, Int64(bitPattern: target.sequence &- previous.sequence) <= 0 {
            let behind = previous.sequence &- target.sequence &+ 1
            target = Refresh(nanoseconds: target.nanoseconds + behind * period, sequence: previous.sequence &+ 1)
        }
        return FrameSchedule(startNanoseconds: target.nanoseconds - lead, target: target)
    }

    /// Sets the clock by a page flip that completed at `time` showing the frame aimed at `target`.
    ///
    /// With a vblank counter (`sequence` given) the flip's time and number are a real refresh,
    /// and the clock takes them. Without one (virtio-gpu) a flip completes whenever the host got
    /// to it, so its time only stands in for a refresh where the frame's own target cannot: when
    /// it lies more than half a period from that target (a first frame, a stall, a frame far off
    /// its prediction). Nearer, the clock keeps its phase: re-anchoring every frame at its
    /// completion would move the refreshes by the commit → completion latency each frame, and
    /// the frames would drift off the mode's rate.
    public mutating func flipCompleted(at time: UInt64, sequence: UInt64?, aimedAt target: Refresh?) {
        if let sequence {
            anchorNanoseconds = time
            anchorSequence = sequence
            return
        }
        if let target {
            let offset = time > target.nanoseconds ? time - target.nanoseconds : target.nanoseconds - time
            if offset <= period / 2 {
                anchorNanoseconds = target.nanoseconds
                anchorSequence = target.sequence
                return
            }
        }
        // The completion's refresh is numbered as the nearest refresh of the clock so far.
        let after = refresh(atOrAfter: time)
        let nearest = after.nanoseconds - time <= period / 2 ? after.sequence : after.sequence &- 1
        anchorNanoseconds = time
        anchorSequence = nearest
    }
}

/// One refresh of a display.
public struct Refresh: Sendable, Equatable {
    public let nanoseconds: UInt64
    public let sequence: UInt64

    public init(nanoseconds: UInt64, sequence: UInt64) {
        self.nanoseconds = nanoseconds
        self.sequence = sequence
    }
}

/// A frame's plan: start drawing at `startNanoseconds` for the refresh `target`.
public struct FrameSchedule: Sendable, Equatable {
    public let startNanoseconds: UInt64
    public let target: Refresh

    public init(startNanoseconds: UInt64, target: Refresh) {
        self.startNanoseconds = startNanoseconds
        self.target = target
    }
}
