import Glibc

/// The current CLOCK_MONOTONIC time in nanoseconds (wp_presentation's clock): what frames, timers
/// and the renderers' timings read, through the C library as the rest of this module, not
/// `ContinuousClock`, whose code and metadata the Swift concurrency library would otherwise map
/// into every process that reads the time.
public func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
