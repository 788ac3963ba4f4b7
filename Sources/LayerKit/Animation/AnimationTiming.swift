import Foundation

/// The timing of one committed animation (CAMediaTiming's rules, ca-semantics M1–M5), as a value
/// the render tree can evaluate on any thread.
///
/// From the parent time `tp` (the layer's local time, or a group's local time for its members):
/// 1. active time `a = (tp − beginTime) · speed`; the animation is active for `0 ≤ a < D`, where the
///    active duration `D = repeatDuration` when set, else `duration · max(repeatCount, 1) · (autoreverses ? 2 : 1)`;
/// 2. outside that interval, `fillMode` decides: backwards/both show the start, forwards/both the end;
/// 3. local time `t = a + timeOffset`, wrapped into the active duration when an offset is set;
/// 4. the repeat index `k = ⌊t / cycle⌋` with `cycle = duration · (autoreverses ? 2 : 1)`, and the
///    time in the cycle, reflected in its second half when autoreversing, gives the progress
///    `p = u / duration` in 0…1.
public struct AnimationTiming: Hashable, Sendable {
    public var beginTime: Double
    public var duration: Double
    public var speed: Double
    public var timeOffset: Double
    public var repeatCount: Double
    public var repeatDuration: Double
    public var autoreverses: Bool
    public var fillMode: FillMode

    public init(
        beginTime: Double = 0, duration: Double, speed: Double = 1, timeOffset: Double = 0,
        repeatCount: Double = 0, repeatDuration: Double = 0, autoreverses: Bool = false, fillMode: FillMode = .removed
    ) {
        self.beginTime = beginTime
        self.duration = duration
        self.speed = speed
        self.timeOffset = timeOffset
        self.repeatCount = repeatCount
        self.repeatDuration = repeatDuration
        self.autoreverses = autoreverses
        self.fillMode = fillMode
    }

    /// The time a forward-and-back (or plain) cycle takes.
    public var cycleDuration: Double { duration * (autoreverses ? 2 : 1) }

    /// D: how long the animation runs in its own time, infinite for an infinite repeat count.
    public var activeDuration: Double {
        if repeatDuration > 0 { return repeatDuration }
        return cycleDuration * max(repeatCount, 1)
    }

    /// Where the animation is at a parent time.
    public struct Sample: Hashable, Sendable {
        /// Simple progress in 0…1 through the current cycle (before the timing function).
        public var progress: Double
        /// Completed repeats before this one (for cumulative animations).
        public var repeatIndex: Int
        /// Seconds into the current forward run (what a spring is evaluated at).
        public var elapsed: Double
    }

    /// The sample at parent time `tp`, or nil when the animation shows nothing then (before it
    /// starts or after it ends without a fill that covers that side).
    public func sample(atParentTime tp: Double) -> Sample? {
        guard duration > 0 else { return nil }
        let d = activeDuration
        let a = (tp - beginTime) * speed
        if a < 0 {
            guard fillMode == .backwards || fillMode == .both else { return nil }
            return position(atLocalTime: wrap(timeOffset, in: d), activeDuration: d)
        }
        if a >= d {
            guard fillMode == .forwards || fillMode == .both else { return nil }
            return endSample(activeDuration: d)
        }
        return position(atLocalTime: wrap(a + timeOffset, in: d), activeDuration: d)
    }

    /// Whether the animation has run its whole active duration at parent time `tp`.
    public func hasFinished(atParentTime tp: Double) -> Bool {
        let d = activeDuration
        return d.isFinite && speed != 0 && (tp - beginTime) * speed >= d
    }

    /// The parent time at which the active duration ends (infinite for endless animations).
    public var endTime: Double {
        guard speed != 0 else { return .infinity }
        return beginTime + activeDuration / speed
    }

    private func wrap(_ t: Double, in d: Double) -> Double {
        guard timeOffset != 0, d.isFinite, d > 0 else { return t }
        let r = t.truncatingRemainder(dividingBy: d)
        return r < 0 ? r + d : r
    }

    private func position(atLocalTime t: Double, activeDuration d: Double) -> Sample {
        let cycle = cycleDuration
        let k = (t / cycle).rounded(.down)
        let u = t - k * cycle
        return Sample(
            progress: cycleProgress(u),
            repeatIndex: Int(max(0, min(k, Double(Int32.max)))),
            elapsed: u > duration ? u - duration : u)
    }

    /// The state at the end of the active duration: the end of the last (possibly partial) cycle.
    private func endSample(activeDuration d: Double) -> Sample {
        let cycle = cycleDuration
        guard d.isFinite else { return position(atLocalTime: 0, activeDuration: d) }
        let k = max(0, (d / cycle).rounded(.up) - 1)
        let u = d - k * cycle
        return Sample(progress: cycleProgress(u), repeatIndex: Int(k), elapsed: u > duration ? u - duration : u)
    }

    private func cycleProgress(_ u: Double) -> Double {
        let forward = u <= duration ? u : 2 * duration - u
        return min(1, max(0, forward / duration))
    }
}
