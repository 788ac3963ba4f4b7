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

    /// The calling thread's state, made on first use and released when the thread exits. One
    /// `pthread_getspecific` per access: this is on every property change, so nothing is cached.
    static var current: LayerKitThreadState {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<LayerKitThreadState>.fromOpaque(pointer).takeUnretainedValue()
        }
        return makeCurrent()
    }

    @inline(never)
    private static func makeCurrent() -> LayerKitThreadState {
        let state = LayerKitThreadState()
        let result = pthread_setspecific(key, Unmanaged.passRetained(state).toOpaque())
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
