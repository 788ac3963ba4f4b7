import Foundation

/// The motion of a damped spring (CASpringAnimation's physics) as a normalised displacement:
/// `fraction(at:)` runs from 0 at t = 0 towards 1, the animation's target, in real seconds.
///
/// With `ω₀ = √(k/m)` and damping ratio `ζ = c / (2√(km))`, the distance still to go is
/// `1 − x(t) = e^{−ζω₀t}(cos ω_d t + ((ζω₀ − v₀)/ω_d) sin ω_d t)` below critical damping
/// (`ω_d = ω₀√(1 − ζ²)`), `e^{−ω₀t}(1 + (ω₀ − v₀)t)` at it, and a sum of two decaying
/// exponentials above it.
public struct SpringMotion: Hashable, Sendable {
    /// Must be greater than 0.
    public var mass: Double
    /// Must be greater than 0.
    public var stiffness: Double
    /// Must be at least 0; 0 oscillates for ever.
    public var damping: Double
    /// The starting speed; positive values move toward the target, in units of the whole
    /// distance per second.
    public var initialVelocity: Double
    /// When false (Core Animation's default), damping beyond critical is treated as critical.
    public var allowsOverdamping: Bool

    public init(
        mass: Double = 1, stiffness: Double = 100, damping: Double = 10, initialVelocity: Double = 0,
        allowsOverdamping: Bool = false
    ) {
        precondition(mass > 0 && stiffness > 0 && damping >= 0, "a spring needs mass, stiffness > 0 and damping ≥ 0")
        self.mass = mass
        self.stiffness = stiffness
        self.damping = damping
        self.initialVelocity = initialVelocity
        self.allowsOverdamping = allowsOverdamping
    }

    /// A unit-mass spring whose undamped period is `perceptualDuration` and whose damping ratio
    /// is `1 − bounce` for `bounce ≥ 0` and `1 / (1 + bounce)` below (negative bounce overdamps,
    /// so `allowsOverdamping` is set). `bounce` must lie in −1 < bounce ≤ 1.
    public init(perceptualDuration: Double, bounce: Double) {
        precondition(perceptualDuration > 0 && perceptualDuration.isFinite, "perceptualDuration must be positive")
        precondition(bounce > -1 && bounce <= 1, "bounce must lie in −1 < bounce ≤ 1")
        let omega = 2 * Double.pi / perceptualDuration
        let ratio = bounce >= 0 ? 1 - bounce : 1 / (1 + bounce)
        self.init(mass: 1, stiffness: omega * omega, damping: 2 * ratio * omega, allowsOverdamping: true)
    }

    /// The undamped period `2π/ω₀` (0.628 s for the defaults).
    public var perceptualDuration: Double { 2 * Double.pi / naturalFrequency }

    /// `1 − ζ` up to critical damping and `1/ζ − 1` beyond it, from the damping as set.
    public var bounce: Double {
        let ratio = damping / (2 * (stiffness * mass).squareRoot())
        return ratio <= 1 ? 1 - ratio : 1 / ratio - 1
    }

    /// ω₀ = √(k/m), in radians per second.
    var naturalFrequency: Double { (stiffness / mass).squareRoot() }

    /// ζ as the motion uses it: capped at 1 unless overdamping is allowed.
    var effectiveDampingRatio: Double {
        let ratio = damping / (2 * (stiffness * mass).squareRoot())
        return allowsOverdamping ? ratio : min(ratio, 1)
    }

    /// The normalised position at `t` seconds: 0 at t ≤ 0, tending to 1; above 1 while it
    /// overshoots.
    public func fraction(at t: Double) -> Double {
        guard t > 0 else { return 0 }
        return 1 - remaining(at: t)
    }

    /// `1 − x(t)`.
    private func remaining(at t: Double) -> Double {
        let omega = naturalFrequency, zeta = effectiveDampingRatio, v0 = initialVelocity
        if zeta < 1 {
            let omegaD = omega * (1 - zeta * zeta).squareRoot()
            return exp(-zeta * omega * t)
                * (cos(omegaD * t) + (zeta * omega - v0) / omegaD * sin(omegaD * t))
        }
        if zeta == 1 {
            return exp(-omega * t) * (1 + (omega - v0) * t)
        }
        let (r1, r2, a, b) = overdampedTerms(omega: omega, zeta: zeta)
        return a * exp(r1 * t) + b * exp(r2 * t)
    }

    /// `1 − x(t) = a·e^{r1·t} + b·e^{r2·t}` with roots `r = −ζω₀ ± ω₀√(ζ² − 1)` (both negative)
    /// and `a + b = 1`, `a·r1 + b·r2 = −v₀`.
    private func overdampedTerms(omega: Double, zeta: Double) -> (r1: Double, r2: Double, a: Double, b: Double) {
        let r2 = -omega * (zeta + (zeta * zeta - 1).squareRoot())
        // r1·r2 = ω₀², which avoids the cancellation in −ζω₀ + ω₀√(ζ² − 1) for large ζ.
        let r1 = omega * omega / r2
        let a = (-initialVelocity - r2) / (r1 - r2)
        return (r1, r2, a, 1 - a)
    }

    /// The tolerance of `settlingDuration`: the spring counts as settled once it is guaranteed to
    /// stay within 0.1 % of the distance from its target (the ε SwiftUI documents for its
    /// `Spring.settlingDuration`).
    public static let settlingTolerance = 0.001

    /// How long the spring takes to come to rest (CASpringAnimation.settlingDuration): the time
    /// after which an upper bound of `|1 − x(t)|` stays below `settlingTolerance`; infinite when
    /// the spring is undamped.
    ///
    /// Below critical damping the bound is the envelope `e^{−ζω₀t}(1 + |ζω₀ − v₀|/ω_d)`, which
    /// `|cos + k·sin| ≤ 1 + |k|` gives, so the time is `ln((1 + |ζω₀ − v₀|/ω_d)/ε)/(ζω₀)`. This
    /// reproduces Apple's documented figures (mass 1, stiffness 100, v₀ 0): damping 5 →
    /// "approximately 2.85 s" (2.855) and 15 → "just over 1 second" (1.022); damping 1 gives
    /// 13.913 and 10 gives 1.4727. At and above critical damping the bound is
    /// `e^{−ω₀t}(1 + |ω₀ − v₀|t)` (critical) or `|a|e^{r1·t} + |b|e^{r2·t}` (overdamped), and the
    /// time is rounded up to a whole tenth of a second, matching the reported measurement that the
    /// critically damped default spring (damping 20, or any higher damping without overdamping)
    /// settles in exactly 1.0 s; the unrounded time would be 0.923.
    public var settlingDuration: Double {
        let omega = naturalFrequency, zeta = effectiveDampingRatio, v0 = initialVelocity
        let epsilon = Self.settlingTolerance
        if zeta < 1 {
            guard zeta > 0 else { return .infinity }
            let omegaD = omega * (1 - zeta * zeta).squareRoot()
            let amplitude = 1 + abs(zeta * omega - v0) / omegaD
            return log(amplitude / epsilon) / (zeta * omega)
        }
        let bound: (Double) -> Double
        // Before `peak` the bound may rise (a fast start overshoots); from `peak` on it only falls.
        let peak: Double
        if zeta == 1 {
            let slope = abs(omega - v0)
            bound = { exp(-omega * $0) * (1 + slope * $0) }
            peak = slope > omega ? (slope - omega) / (slope * omega) : 0
        } else {
            let (r1, r2, a, b) = overdampedTerms(omega: omega, zeta: zeta)
            bound = { abs(a) * exp(r1 * $0) + abs(b) * exp(r2 * $0) }
            peak = 0
        }
        guard bound(peak) >= epsilon else { return 0 }
        // Bracket the crossing past the peak, then bisect it.
        var low = peak, high = peak + 1 / omega
        while bound(high) >= epsilon {
            low = high
            high += 2 * (high - peak)
        }
        while high - low > 1e-12 * high {
            let mid = (low + high) / 2
            if bound(mid) >= epsilon { low = mid } else { high = mid }
        }
        return (high * 10).rounded(.up) / 10
    }
}
