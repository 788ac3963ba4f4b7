internal import CWaylandServer
import Glibc
public import SystemCalls

/// The compositor thread's event loop (libwayland-server's `wl_event_loop`): client sockets,
/// timers, signals and any other file descriptor the backends add all feed it.
public final class EventLoop {
    let raw: OpaquePointer
    /// The sources added and not yet removed. A handler can keep its own source (a frame waiting
    /// for the GPU does), so a display destroyed with sources left removes them first: their
    /// handlers, and all they hold, are released, and no source touches the destroyed loop later.
    private var sources: [ObjectIdentifier: RegisteredSource] = [:]

    /// Unowned, not weak (a weak reference gives the source a side table, which makes every
    /// retain and release of it slow, and a client's socket source is retained at each of its
    /// wakeups): a source leaves this table when it is removed, which its deinit does, so every
    /// entry is alive.
    private struct RegisteredSource {
        unowned(unsafe) let source: EventSource
    }

    init(raw: OpaquePointer) {
        self.raw = raw
    }

    /// A file descriptor to poll from an outer loop: readable when `dispatch` has work.
    public var fileDescriptor: FileDescriptor { FileDescriptor(rawValue: wl_event_loop_get_fd(raw)) }

    /// Waits up to `timeoutMilliseconds` (-1: forever, 0: not at all) and runs what is ready.
    public func dispatch(timeoutMilliseconds: Int32) throws(SystemCallError) {
        if wl_event_loop_dispatch(raw, timeoutMilliseconds) < 0 {
            let error = SystemCallError.current("wl_event_loop_dispatch")
            // A signal interrupting the wait is not a failure of the loop.
            if error.errno != .interrupted { throw error }
        }
        wl_event_loop_dispatch_idle(raw)
    }

    /// Calls `handler` whenever `fileDescriptor` is ready for `events`; the source stops when released.
    public func addFileDescriptor(
        _ fileDescriptor: FileDescriptor, events: FileDescriptorEvents, handler: @escaping (FileDescriptorEvents) -> Void
    ) throws(SystemCallError) -> FileDescriptorSource {
        let box = EventSource.Handler.fd(handler)
        let context = Unmanaged.passRetained(box)
        guard let source = wl_event_loop_add_fd(raw, fileDescriptor.rawValue, events.rawValue, { _, mask, data in
            guard let data, case .fd(let handler) = Unmanaged<EventSource.Handler>.fromOpaque(data).takeUnretainedValue().kind
            else { return 0 }
            handler(FileDescriptorEvents(rawValue: mask))
            return 0
        }, context.toOpaque()) else {
            context.release()
            throw SystemCallError.current("wl_event_loop_add_fd")
        }
        return registered(FileDescriptorSource(raw: source, context: context, loop: self))
    }

    /// Wakes the loop once, when `fileDescriptor` turns readable, then stops watching it: for a
    /// descriptor that stays readable once it fired (a process's pidfd after the process exited),
    /// whose cause the woken iteration handles (reaps the process). Keep the source until then.
    public func addWakeup(whenReadable fileDescriptor: FileDescriptor) throws(SystemCallError) -> EventSource {
        // Unowned, not weak (see `sources`; a process's wakeup is asked about every loop turn):
        // the handler runs only while the source is registered, so alive.
        unowned(unsafe) var added: FileDescriptorSource?
        let source = try addFileDescriptor(fileDescriptor, events: .readable) { _ in added?.remove() }
        added = source
        return source
    }

    /// A timer that calls `handler` once each time it is armed and expires.
    public func addTimer(handler: @escaping () -> Void) throws(SystemCallError) -> TimerSource {
        let box = EventSource.Handler.plain(handler)
        let context = Unmanaged.passRetained(box)
        guard let source = wl_event_loop_add_timer(raw, { data in
            guard let data, case .plain(let handler) = Unmanaged<EventSource.Handler>.fromOpaque(data).takeUnretainedValue().kind
            else { return 0 }
            handler()
            return 0
        }, context.toOpaque()) else {
            context.release()
            throw SystemCallError.current("wl_event_loop_add_timer")
        }
        return registered(TimerSource(raw: source, context: context, loop: self))
    }

    /// Calls `handler` on the loop when `signal` arrives (the signal is blocked and read via signalfd).
    public func addSignal(_ signal: Int32, handler: @escaping () -> Void) throws(SystemCallError) -> EventSource {
        let box = EventSource.Handler.plain(handler)
        let context = Unmanaged.passRetained(box)
        guard let source = wl_event_loop_add_signal(raw, signal, { _, data in
            guard let data, case .plain(let handler) = Unmanaged<EventSource.Handler>.fromOpaque(data).takeUnretainedValue().kind
            else { return 0 }
            handler()
            return 0
        }, context.toOpaque()) else {
            context.release()
            throw SystemCallError.current("wl_event_loop_add_signal")
        }
        return registered(EventSource(raw: source, context: context, loop: self))
    }

    private func registered<Source: EventSource>(_ source: Source) -> Source {
        sources[ObjectIdentifier(source)] = RegisteredSource(source: source)
        return source
    }

    func forget(_ source: EventSource) {
        sources[ObjectIdentifier(source)] = nil
    }

    /// Removes every source still registered (the display is being destroyed).
    func removeAllSources() {
        let left = sources.values.map(\.source)
        sources = [:]
        for source in left { source.remove() }
    }
}

/// Readiness of a file descriptor (`WL_EVENT_READABLE` and friends).
public struct FileDescriptorEvents: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let readable = FileDescriptorEvents(rawValue: UInt32(WL_EVENT_READABLE))
    public static let writable = FileDescriptorEvents(rawValue: UInt32(WL_EVENT_WRITABLE))
    public static let hangUp = FileDescriptorEvents(rawValue: UInt32(WL_EVENT_HANGUP))
    public static let error = FileDescriptorEvents(rawValue: UInt32(WL_EVENT_ERROR))
}

/// A registration on the event loop; removed when released or `remove()`d.
public class EventSource {
    final class Handler {
        enum Kind {
            case fd((FileDescriptorEvents) -> Void)
            case plain(() -> Void)
        }
        let kind: Kind
        init(_ kind: Kind) { self.kind = kind }
        static func fd(_ body: @escaping (FileDescriptorEvents) -> Void) -> Handler { Handler(.fd(body)) }
        static func plain(_ body: @escaping () -> Void) -> Handler { Handler(.plain(body)) }
    }

    private(set) var raw: OpaquePointer?
    private let context: Unmanaged<Handler>
    /// Unowned, not weak (see `EventLoop.sources`): read only while `raw` is set, that is while
    /// the source is registered, and the display that owns the loop removes every registered
    /// source before it lets the loop go.
    private unowned(unsafe) let loop: EventLoop

    init(raw: OpaquePointer, context: Unmanaged<Handler>, loop: EventLoop) {
        self.raw = raw
        self.context = context
        self.loop = loop
    }

    /// Whether the source still watches (not removed; a wakeup that fired removed itself).
    public var isActive: Bool { raw != nil }

    public func remove() {
        guard let source = raw else { return }
        wl_event_source_remove(source)
        raw = nil
        loop.forget(self)
        // Last: the handler may hold this source's only owner.
        context.release()
    }

    deinit {
        remove()
    }
}

/// A file descriptor's registration, whose events of interest can change (a socket with a reply
/// to write waits for writable, not readable).
public final class FileDescriptorSource: EventSource {
    /// Polls for `events` from now on.
    public func update(events: FileDescriptorEvents) {
        guard let raw else { return }
        wl_event_source_fd_update(raw, events.rawValue)
    }
}

/// A one-shot timer source (timerfd) that can be re-armed.
public final class TimerSource: EventSource {
    /// Arms the timer to fire once after `milliseconds` (at least 1 ms; libwayland's resolution).
    public func arm(milliseconds: Int32) {
        guard let raw else { return }
        wl_event_source_timer_update(raw, max(1, milliseconds))
    }

    public func disarm() {
        guard let raw else { return }
        wl_event_source_timer_update(raw, 0)
    }
}
