import Foundation
import Synchronization

/// What LayerKit keeps per thread, as Core Animation keeps its transactions per thread: the
/// transactions open on the thread (its own implicit transaction among them), the animations its
/// commits started and finishes at its flushes, and its media clock.
///
/// LayerKit has no global actor: its classes are used from one thread at a time, and a layer tree
/// must be changed, committed and flushed on the thread whose transactions it joins. The
/// compositor keeps all its state on one thread, which need not be the process's main thread.
final class LayerKitThreadState {
    let transaction = TransactionState()
    let animationScheduler = AnimationScheduler()
    var clock: any MediaClock = MonotonicMediaClock()

    /// The calling thread's state, made on first use and released when the thread exits.
    static var current: LayerKitThreadState { withCurrent { $0 } }

    /// Runs `body` with the calling thread's state, lent rather than retained: this is on every
    /// property change and every transaction call, where a retain and release of the state and of
    /// its transactions cost more than the `pthread_getspecific` that finds them. The state lives
    /// until its thread exits, so it outlives any call on that thread.
    @inline(__always)
    static func withCurrent<R>(_ body: (LayerKitThreadState) throws -> R) rethrows -> R {
        let key = key.load(ordering: .acquiring)
        let pointer = key == noKey ? makeCurrent() : pthread_getspecific(key) ?? makeCurrent()
        return try Unmanaged<LayerKitThreadState>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    @inline(never)
    private static func makeCurrent() -> UnsafeMutableRawPointer {
        let state = Unmanaged.passRetained(LayerKitThreadState()).toOpaque()
        let result = pthread_setspecific(makeKey(), state)
        precondition(result == 0, "pthread_setspecific failed: \(result)")
        return state
    }

    /// The process's one key, made by the first thread to need it; its destructor releases the
    /// state of a thread that exits. Kept in an atomic that starts as `noKey`, a constant the
    /// binary holds: a lazily made `static let` would pass through `swift_once` on every call
    /// above, nine times a frame.
    private static let key = Atomic<pthread_key_t>(noKey)
    /// Not a key: glibc's keys count from 0 below `PTHREAD_KEYS_MAX` (1024).
    private static let noKey = pthread_key_t.max

    /// The key, made now when no thread has made it; of two threads making it at once, one's is
    /// kept and the other's deleted.
    private static func makeKey() -> pthread_key_t {
        let existing = key.load(ordering: .acquiring)
        if existing != noKey { return existing }
        var made = pthread_key_t()
        let result = pthread_key_create(&made) { pointer in
            guard let pointer else { return }
            Unmanaged<LayerKitThreadState>.fromOpaque(pointer).release()
        }
        precondition(result == 0 && made != noKey, "pthread_key_create failed: \(result)")
        let (exchanged, winner) = key.compareExchange(expected: noKey, desired: made, ordering: .acquiringAndReleasing)
        if !exchanged { pthread_key_delete(made) }
        return exchanged ? made : winner
    }
}
