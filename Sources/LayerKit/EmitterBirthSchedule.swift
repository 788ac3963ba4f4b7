/// A birth rate that an explicit animation varies over a `BirthRateSegment`: per cell, piecewise
/// linear through samples `step` seconds apart from the segment's start, so the births are the
/// exact integral of that polyline (a linear ramp is tabulated exactly). A repeating curve starts
/// over every `period` seconds (an animation's cycle, repeated).
public struct BirthRateCurve: Sendable, Hashable {
    /// Seconds between samples.
    public let step: Double
    /// Per cell, particles per second at start + k · step, k = 0…n (the last one the value just
    /// before the period ends, so a cycle's jump back to its start is not smeared).
    public let samples: [[Double]]
    public let repeats: Bool
    /// Per cell, the births from the curve's start to each sample.
    let cumulative: [[Double]]

    public init(step: Double, samples: [[Double]], repeats: Bool) {
        self.step = step
        self.samples = samples
        self.repeats = repeats
        cumulative = samples.map { s in
            var sum = 0.0
            return [0] + zip(s, s.dropFirst()).map { r0, r1 in
                sum += (r0 + r1) / 2 * step
                return sum
            }
        }
    }

    /// The samples span this long.
    public var period: Double { step * Double(max(0, (samples.first?.count ?? 1) - 1)) }

    /// Whether cell `c` is born at all over the curve.
    func emits(_ c: Int) -> Bool {
        let total = cumulative[c].last ?? 0
        return total > 0 && total.isFinite
    }

    /// Cell `c`'s births over the first `u` seconds (past the last sample of a curve that does not
    /// repeat, at the last sample's rate).
    func births(_ c: Int, over u: Double) -> Double {
        let s = samples[c], q = cumulative[c], n = s.count - 1
        guard n > 0 else { return 0 }
        var u = max(0, u), base = 0.0
        if repeats {
            let k = (u / period).rounded(.down)
            (base, u) = (k * q[n], u - k * period)
        } else if u >= period {
            return q[n] + s[n] * (u - period)
        }
        let j = min(n - 1, Int(u / step))
        let x = u - Double(j) * step
        return base + q[j] + s[j] * x + (s[j + 1] - s[j]) * x * x / (2 * step)
    }

    /// The seconds from the curve's start at which cell `c`'s births reach `y` (the inverse of
    /// `births`): the interval is found by bisection, the moment within it by the quadratic.
    func time(_ c: Int, ofBirths y: Double) -> Double {
        let s = samples[c], q = cumulative[c], n = s.count - 1
        guard n > 0 else { return .infinity }
        var y = max(0, y), base = 0.0
        let total = q[n]
        if repeats {
            let k = (y / total).rounded(.down)
            (base, y) = (k * period, y - k * total)
        } else if y >= total {
            return s[n] > 0 ? period + (y - total) / s[n] : .infinity
        }
        var (lo, hi) = (0, n - 1)
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if q[mid] <= y { lo = mid } else { hi = mid - 1 }
        }
        let (r0, r1, d) = (s[lo], s[lo + 1], y - q[lo])
        // r0 x + (r1 − r0) x² / 2h = d, in the form that stays exact when r1 − r0 is tiny.
        let a = (r1 - r0) / (2 * step)
        let root = (r0 * r0 + 4 * a * d).squareRoot()
        let x = d <= 0 ? 0 : r0 + root > 0 ? 2 * d / (r0 + root) : step
        return base + Double(lo) * step + min(step, x)
    }
}

extension BirthRateSegment {
    /// Whether cell `c` is born at all over the segment.
    func emits(_ c: Int) -> Bool {
        if let curve, c < curve.samples.count { return curve.emits(c) }
        let rate = rates.at(c)
        return rate > 0 && rate.isFinite
    }

    /// Cell `c`'s births before local time `t` (counted from emission's start).
    func births(_ c: Int, at t: Double) -> Double {
        if let curve, c < curve.samples.count { return birthsBefore.at(c) + curve.births(c, over: t - start) }
        return birthsBefore.at(c) + rates.at(c) * (t - start)
    }

    /// The local time at which cell `c`'s births reach `i`: particle i's birth.
    func birthTime(_ c: Int, of i: Double) -> Double {
        if let curve, c < curve.samples.count { return start + curve.time(c, ofBirths: i - birthsBefore.at(c)) }
        return start + (i - birthsBefore.at(c)) / rates.at(c)
    }
}

extension EmitterProperties {
    /// Ends the schedule at local time `time`: later segments are dropped and the one running then
    /// is cut short (an animation of the rate removed early); before the last segment's end the
    /// current rates were in force, so they are kept as a segment up to `time`. The current rates
    /// apply from `time` unless segments are appended.
    mutating func cutBirthSchedule(at time: Double) {
        guard time.isFinite else { return }
        birthRateHistory.removeAll { $0.start >= time }
        let start = birthRateHistory.last?.end ?? 0
        if start > time {
            birthRateHistory[birthRateHistory.count - 1].end = time
        } else if start < time {
            appendBirthSegment(until: time, rates: cellRates, curve: nil)
        }
        dropDeadSegments(at: time)
    }

    /// Appends a segment from the last one's end (0 when none) to `end`, carrying the births on.
    mutating func appendBirthSegment(until end: Double, rates: [Double], curve: BirthRateCurve?) {
        let start = birthRateHistory.last?.end ?? 0
        guard end > start else { return }
        let born = birthRateHistory.last?.birthsAfter ?? rates.map { _ in 0 }
        birthRateHistory.append(BirthRateSegment(start: start, end: end, birthsBefore: born, rates: rates, curve: curve))
    }
}

extension EmitterLayer {
    /// Whether `animation` animates the layer's or one of its cells' birth rate
    /// (`birthRate`, `emitterCells.<name>.birthRate`).
    static func animatesBirthRate(_ animation: Animation) -> Bool {
        guard let keyPath = (animation as? PropertyAnimation)?.keyPath else { return false }
        let parts = keyPath.split(separator: ".")
        return keyPath == "birthRate" || (parts.count == 3 && parts[0] == "emitterCells" && parts[2] == "birthRate")
    }

    /// A committed animation of a birth rate.
    private struct RateAnimation {
        let track: any RenderAnimation
        let timing: AnimationTiming
        /// Whether it stays after its end, showing its last value.
        let holds: Bool
        /// Whether its cycles are all alike (a cumulative one's are not), so one can stand for the rest.
        let isPeriodic: Bool
        /// Whether it shows anything at local time `t`: one removed on completion shows no fill
        /// after its end (the flush after the end removes it).
        func applies(at t: Double) -> Bool { holds || !timing.hasFinished(atParentTime: t) }
    }

    /// The committed animations of a birth rate that run forwards (others are only sampled).
    private var birthRateAnimations: [RateAnimation] {
        animationEntries.compactMap { entry in
            guard let track = entry.track, let timing = entry.timing, timing.speed > 0,
                  Self.animatesBirthRate(entry.animation) else { return nil }
            let holds = !entry.animation.isRemovedOnCompletion && (timing.fillMode == .forwards || timing.fillMode == .both)
            let cumulative = (entry.animation as? PropertyAnimation)?.isCumulative == true
            return RateAnimation(track: track, timing: timing, holds: holds, isPeriodic: !cumulative)
        }
    }

    /// Rates are tabulated this many times a second of local time.
    static let birthRateSamplesPerSecond = 240.0
    private static let maximumSamples = 240 * 60
    /// At most this many of an animation's cycles are breaks of the tabulation (where a cycle
    /// jumps back to its start); past them, an animation's cycles are sampled like any change, or
    /// repeated as the schedule's tail.
    private static let tabulatedCycles = 1_000

    /// Plans the births from local time `now` on through the committed animations of a birth rate
    /// (a commit that carries a new one, or one removed): the rate each animation gives at every
    /// moment is tabulated into the schedule (`BirthRateCurve`), so the particles born are the
    /// integral of the animated rate and the births so far stay where they were. Only property
    /// animations running forwards count; a rate animated inside a group, at a negative speed or
    /// on a sub-cell is sampled per frame as any other value.
    func rescheduleBirths(atLocalTime localNow: Double) {
        guard var emitter = properties.emitter else { return }
        let now = max(0, localNow)
        emitter.cutBirthSchedule(at: now)
        let animations = birthRateAnimations
        let model = properties
        func rates(at t: Double) -> [Double] {
            var p = model
            for animation in animations where animation.applies(at: t) { animation.track.apply(to: &p, atLocalTime: t) }
            return (p.emitter?.cellRates ?? []).map { $0.isFinite ? max(0, $0) : 0 }
        }
        // The moments where an animation starts, turns a cycle or ends: the tabulation's breaks.
        // Of the repeating ones, the one ending last, once past the others' breaks, repeats one
        // tabulated cycle to its end (the tail); so does an endless cumulative one, approximately.
        var breaks: [Double] = []
        func addBreaks(of timing: AnimationTiming, until end: Double) {
            let cycle = timing.cycleDuration / timing.speed
            breaks.append(timing.beginTime)
            var k = 1.0
            while timing.beginTime + k * cycle < end, k < Double(Self.tabulatedCycles) {
                breaks.append(timing.beginTime + k * cycle)
                k += 1
            }
            breaks.append(end)
        }
        let timings = animations.map(\.timing)
        var tailTiming = animations.filter {
            let cycles = $0.timing.activeDuration / $0.timing.cycleDuration
            return cycles > 1 && ($0.isPeriodic || cycles.isInfinite)
        }.map(\.timing).max { $0.endTime < $1.endTime }
        for timing in timings where timing != tailTiming { addBreaks(of: timing, until: timing.endTime) }
        let horizon = breaks.filter(\.isFinite).max() ?? now
        if let t = tailTiming, t.endTime <= horizon {
            addBreaks(of: t, until: t.endTime)
            tailTiming = nil
        }
        var tail: (start: Double, period: Double, end: Double)?
        if let t = tailTiming {
            addBreaks(of: t, until: max(horizon, t.beginTime))
            tail = (t.beginTime, t.cycleDuration / t.speed, t.endTime)
        }
        breaks = Array(Set(breaks.filter { $0 > now && $0.isFinite })).sorted()
        var from = now
        for end in breaks {
            tabulate(&emitter, from: from, to: end, rates: rates, animations: animations)
            from = end
        }
        if let tail, tail.end > from {
            // Endless (or very many) repeats: one cycle from a cycle's start stands for them all.
            let turns = ((from - tail.start) / tail.period).rounded(.up)
            let aligned = tail.start + max(0, turns) * tail.period
            tabulate(&emitter, from: from, to: aligned, rates: rates, animations: animations)
            let cycle = sampled(from: aligned, to: aligned + tail.period, rates: rates, repeats: true)
            emitter.appendBirthSegment(until: tail.end, rates: cycle.samples.map { $0[0] }, curve: cycle)
            from = max(from, tail.end)
        }
        // An animation that stays after its end (fillMode forwards) holds its last rate until removed.
        if animations.contains(where: \.holds) {
            emitter.appendBirthSegment(until: .infinity, rates: rates(at: from.nextUp), curve: nil)
        }
        properties.emitter = emitter
    }

    /// Appends `from`…`to`: one constant segment where no animation is active, else a curve.
    private func tabulate(
        _ emitter: inout EmitterProperties, from: Double, to: Double, rates: (Double) -> [Double],
        animations: [RateAnimation]
    ) {
        guard to > from else { return }
        let active = animations.contains { $0.timing.beginTime < to && $0.timing.endTime > from }
        if !active {
            emitter.appendBirthSegment(until: to, rates: rates((from + to) / 2), curve: nil)
            return
        }
        let curve = sampled(from: from, to: to, rates: rates)
        emitter.appendBirthSegment(until: to, rates: curve.samples.map { $0[0] }, curve: curve)
    }

    /// The rates over `from`…`to` on a grid of about `birthRateSamplesPerSecond` (coarser past a
    /// minute, to bound the table), the ends taken just inside the span, where a cycle's or an
    /// animation's start and end jump.
    private func sampled(from: Double, to: Double, rates: (Double) -> [Double], repeats: Bool = false) -> BirthRateCurve {
        let n = min(Self.maximumSamples, max(1, Int(((to - from) * Self.birthRateSamplesPerSecond).rounded(.up))))
        let step = (to - from) / Double(n)
        let nudge = step * 1e-9
        let grid = (0...n).map { k in rates(k == 0 ? from + nudge : k == n ? to - nudge : from + Double(k) * step) }
        let cells = grid.map(\.count).max() ?? 0
        let perCell = (0..<cells).map { c in grid.map { $0.at(c) } }
        return BirthRateCurve(step: step, samples: perCell, repeats: repeats)
    }
}

extension Layer {
    /// After the committed animations of `entries` were added or removed: an emitter whose birth
    /// rate one of them animated plans its births again from now.
    func birthRateAnimationsChanged(_ entries: [AnimationEntry], atMediaTime now: Double) {
        guard let emitter = self as? EmitterLayer,
              entries.contains(where: { $0.track != nil && EmitterLayer.animatesBirthRate($0.animation) })
        else { return }
        emitter.rescheduleBirths(atLocalTime: localTime(fromMediaTime: now))
    }
}

extension EmitterCell {
    /// `emitterCells.<name>.birthRate`: the rate of the emitter's first cell with that name (0,
    /// and nothing changes, when there is none).
    static func birthRateBinding(named name: String) -> PropertyBinding<Double> {
        PropertyBinding(
            get: { $0.emitter?.emitterCells.first { $0.name == name }?.birthRate ?? 0 },
            set: { properties, rate in
                guard let c = properties.emitter?.emitterCells.firstIndex(where: { $0.name == name }) else { return }
                properties.emitter?.emitterCells[c].birthRate = rate
            })
    }
}
