import Foundation

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
        let pointer = pthread_getspecific(key) ?? makeCurrent()
        return try Unmanaged<LayerKitThreadState>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    @inline(never)
    private static func makeCurrent() -> UnsafeMutableRawPointer {
        let state = Unmanaged.passRetained(LayerKitThreadState()).toOpaque()
        let result = pthread_setspecific(key, state)
        precondition(result == 0, "pthread_setspecific failed: \(result)")
        return state
    }

    /// The process's one key; its destructor releases the state of a thread that exits.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<LayerKitThreadState>.fromOpaque(pointer).release()
        }
        precondition(result == 0, "pthread_key_create failed: \(result)")
        return key
    }()
}
