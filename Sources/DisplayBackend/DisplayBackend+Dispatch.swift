import Glibc
public import SystemCalls

extension DisplayBackend {
    /// Handles the backend's events (frame timers, refreshes, page flips) as they come, without a
    /// compositor's event loop, until `done` holds or `seconds` have passed; returns `done()`. For
    /// code that drives a backend alone, as the backend tests do.
    @discardableResult
    public func dispatchEvents(forAtMost seconds: Double, until done: () -> Bool) -> Bool {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        while !done(), monotonicNanoseconds() < deadline {
            let schedulers = outputs.map(\.frameScheduler)
            let descriptors = fileDescriptors + schedulers.map(\.timer.fileDescriptor)
            var entries = descriptors.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
            _ = poll(&entries, nfds_t(entries.count), 50)
            for entry in entries where entry.revents & Int16(POLLIN) != 0 {
                if let scheduler = schedulers.first(where: { $0.timer.fileDescriptor.rawValue == entry.fd }) {
                    scheduler.timerExpired()
                } else {
                    dispatch(fileDescriptor: FileDescriptor(rawValue: entry.fd))
                }
            }
        }
        return done()
    }
}
