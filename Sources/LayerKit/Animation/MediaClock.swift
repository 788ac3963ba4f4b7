import Synchronization

/// Where media time (Core Animation's CACurrentMediaTime) comes from: the monotonic clock in
/// production, a manually stepped clock in tests and frame tests, so that every sampled value is
/// reproducible.
public protocol MediaClock: AnyObject, Sendable {
    /// Seconds on this clock.
    var now: Double { get }
}

/// The host's monotonic clock (CLOCK_MONOTONIC), as Core Animation's media time is.
public final class MonotonicMediaClock: MediaClock {
    public init() {}
    public var now: Double { currentMediaTime() }
}

/// A clock that moves only when told to.
public final class ManualMediaClock: MediaClock {
    private let time: Mutex<Double>

    public init(startingAt time: Double = 0) {
        self.time = Mutex(time)
    }

    public var now: Double {
        time.withLock { $0 }
    }

    public func advance(by seconds: Double) {
        time.withLock { $0 += seconds }
    }

    public func set(to seconds: Double) {
        time.withLock { $0 = seconds }
    }
}

/// The media clock LayerKit stamps animations with and finishes them by.
///
/// Each thread has its own clock, as it has its own transactions (see `Transaction`): setting
/// `clock` changes the calling thread's media time only. It starts as the monotonic clock.
public enum MediaTime {
    /// The calling thread's media clock.
    public static var clock: any MediaClock {
        get { LayerKitThreadState.current.clock }
        set { LayerKitThreadState.current.clock = newValue }
    }

    /// The calling thread's media time.
    public static var now: Double { LayerKitThreadState.current.clock.now }
}
