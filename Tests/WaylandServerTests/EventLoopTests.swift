import Glibc
import SystemCalls
import Testing
import WaylandServer

/// What the event loop's sources hold is released with the display, even where a handler keeps
/// its own source (as a frame waiting for the GPU does until the GPU is done).
@Suite struct EventLoopTests {
    /// Holds the source whose handler holds it: a cycle only removing the source breaks.
    final class Waiter {
        var source: FileDescriptorSource?
    }

    @Test func aDisplayDestroyedWithASourceLeftReleasesWhatItsHandlerHolds() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        weak var released: Waiter?
        do {
            let display = try Display()
            let waiter = Waiter()
            waiter.source = try display.eventLoop.addFileDescriptor(FileDescriptor(rawValue: ends[0]), events: .readable) { _ in
                waiter.source = nil
            }
            released = waiter
        }
        #expect(released == nil)
    }

    /// The loop and a source hear of each other without weak references, which would give them
    /// side tables: every retain and release of a client's socket source, at each of its wakeups,
    /// would take the runtime's slow path. (A count of 1 is the object's own: no weak reference.)
    @Test func registeringSourcesFormsNoWeakReferences() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        let display = try Display()
        let source = try display.eventLoop.addFileDescriptor(FileDescriptor(rawValue: ends[0]), events: .readable) { _ in }
        let timer = try display.eventLoop.addTimer {}
        let wakeup = try display.eventLoop.addWakeup(whenReadable: FileDescriptor(rawValue: ends[0]))
        #expect(_getWeakRetainCount(source) == 1)
        #expect(_getWeakRetainCount(timer) == 1)
        #expect(_getWeakRetainCount(wakeup) == 1)
        #expect(_getWeakRetainCount(display.eventLoop) == 1)
    }

    @Test func aWakeupStopsWatchingOnceItFired() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        let display = try Display()
        let wakeup = try display.eventLoop.addWakeup(whenReadable: FileDescriptor(rawValue: ends[0]))
        try display.eventLoop.dispatch(timeoutMilliseconds: 0)
        #expect(wakeup.isActive)
        var byte: UInt8 = 1
        try #require(write(ends[1], &byte, 1) == 1)
        try display.eventLoop.dispatch(timeoutMilliseconds: 0)
        #expect(!wakeup.isActive)
        // Still readable: a source still watching would fire again and again.
        try display.eventLoop.dispatch(timeoutMilliseconds: 0)
        #expect(!wakeup.isActive)
    }
}
