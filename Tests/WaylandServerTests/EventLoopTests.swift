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
}
