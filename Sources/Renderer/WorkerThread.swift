internal import CLinux
import Dispatch
import Glibc
import Synchronization

/// A thread of the renderer's own that runs the work handed to it in order and sleeps while it has
/// none. The renderer keeps off libdispatch's worker threads: on Linux the first of them starts the
/// library's pool monitor, a timer that then wakes the process every second for as long as it runs,
/// an idle kiosk included.
final class WorkerThread: Sendable {
    private let mailbox = Mailbox()
    private let thread: JoinableThread

    init(name: String) {
        let mailbox = mailbox
        thread = JoinableThread(name: name) { mailbox.run() }
    }

    /// Returns once the work handed to the thread before is done and the thread has ended.
    deinit {
        mailbox.post(nil)
        thread.join()
    }

    func async(_ work: @escaping @Sendable () -> Void) {
        mailbox.post(work)
    }

    /// Runs `work` for each index in `0..<iterations` on up to one thread per processor (the
    /// caller's among them) and returns once every index is done and the other threads have ended,
    /// as `DispatchQueue.concurrentPerform` does without a pool.
    static func concurrentPerform(iterations: Int, _ work: @Sendable (Int) -> Void) {
        withoutActuallyEscaping(work) { work in
            let next = Atomic<Int>(0)
            let drain: @Sendable () -> Void = {
                while case let index = next.add(1, ordering: .relaxed).oldValue, index < iterations { work(index) }
            }
            let helpers = (0..<max(0, min(iterations, sysconf(Int32(_SC_NPROCESSORS_ONLN))) - 1)).map { _ in
                JoinableThread(name: "vitrine-worker", drain)
            }
            drain()
            for helper in helpers { helper.join() }
        }
    }
}

/// A thread that its owner joins (Foundation's `Thread` cannot be joined): once `join()` returns,
/// the thread is gone, and a process that counts its threads finds none left over.
final class JoinableThread: Sendable {
    private nonisolated(unsafe) let handle: pthread_t
    private let joined = Atomic<Bool>(false)

    /// Starts `body` on a new thread named `name` (15 bytes at most are kept).
    init(name: String, _ body: @escaping @Sendable () -> Void) {
        final class Start {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let start = Unmanaged.passRetained(Start(body)).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { start in
            Unmanaged<Start>.fromOpaque(start!).takeRetainedValue().body()
            return nil
        }, start)
        // As when memory runs out: there is no way on without the thread.
        precondition(result == 0, "cannot start a thread: \(String(cString: strerror(result)))")
        pthread_setname_np(handle, String(name.utf8.prefix(15))!)
        self.handle = handle
    }

    /// Waits for the thread to end; only the first call waits.
    func join() {
        guard !joined.exchange(true, ordering: .acquiringAndReleasing) else { return }
        pthread_join(handle, nil)
    }

    deinit {
        join()
    }
}

/// The work handed to a `WorkerThread`, in order; nil ends the thread.
private final class Mailbox: Sendable {
    private let items = Mutex<[(@Sendable () -> Void)?]>([])
    private let posted = DispatchSemaphore(value: 0)

    func post(_ item: (@Sendable () -> Void)?) {
        items.withLock { $0.append(item) }
        posted.signal()
    }

    func run() {
        while true {
            posted.wait()
            guard let item = items.withLock({ $0.removeFirst() }) else { return }
            item()
        }
    }
}
