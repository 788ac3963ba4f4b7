import Foundation
import Synchronization
import Testing
@testable import LayerKit

/// Runs each body on a Foundation thread of its own, all released together once every thread has
/// started, and waits for them all; returns their results in order.
func onNewThreads<T: Sendable>(_ bodies: [@Sendable () -> T]) -> [T] {
    let results = ThreadResults<T>(count: bodies.count)
    let ready = DispatchSemaphore(value: 0)
    let start = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    for (index, body) in bodies.enumerated() {
        Thread {
            ready.signal()
            start.wait()
            results.set(body(), at: index)
            done.signal()
        }.start()
    }
    for _ in bodies { ready.wait() }
    for _ in bodies { start.signal() }
    for _ in bodies { done.wait() }
    return results.all
}

func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
    onNewThreads([body])[0]
}

/// Where threads leave their results for the thread that joins them.
final class ThreadResults<T: Sendable>: Sendable {
    private let values: Mutex<[T?]>

    init(count: Int) {
        values = Mutex(Array(repeating: nil, count: count))
    }

    func set(_ value: T, at index: Int) {
        values.withLock { $0[index] = value }
    }

    var all: [T] {
        values.withLock { $0.map { $0! } }
    }
}

@MainActor
@Suite struct ThreadConfinementTests {
    /// What a second thread saw of its own tree and transactions.
    struct SecondThreadReport: Sendable {
        var rootID: LayerID
        var openBeforeFlush: [Bool]
        var openAfterFlush: Int
        var disableActions: Bool
        var animationDuration: Double
        var committed: RenderTree?
        var received: [RenderTree]
    }

    @Test func aTreeOnASecondThreadCommitsItsOwnImplicitTransactionAndLeavesThisThreadsOpen() throws {
        Transaction.flush()
        let mainRoot = makeLayer(100, 100, at: Point(x: 50, y: 50))
        let mainContext = RenderContext(rootLayer: mainRoot)
        Transaction.flush()
        let firstGeneration = try #require(mainContext.renderTree).generation
        Transaction.disableActions = true
        mainRoot.position = Point(x: 70, y: 80)
        #expect(Transaction.withState { $0.stack.map(\.isImplicit) } == [true])

        let report = onNewThread { () -> SecondThreadReport in
            let root = Layer()
            root.bounds = Rect(x: 0, y: 0, width: 10, height: 10)
            let context = RenderContext(rootLayer: root)
            var received: [RenderTree] = []
            context.onCommit = { received.append($0) }
            root.position = Point(x: 30, y: 40)
            let openBeforeFlush = Transaction.withState { $0.stack.map(\.isImplicit) }
            let disableActions = Transaction.disableActions
            let animationDuration = Transaction.animationDuration
            Transaction.flush()
            return SecondThreadReport(
                rootID: root.id, openBeforeFlush: openBeforeFlush, openAfterFlush: Transaction.withState { $0.stack.count },
                disableActions: disableActions, animationDuration: animationDuration,
                committed: context.renderTree, received: received)
        }

        // The second thread had its own implicit transaction, without this thread's values, and
        // its flush committed it to its context.
        #expect(report.openBeforeFlush == [true] && report.openAfterFlush == 0)
        #expect(!report.disableActions && report.animationDuration == 0.25)
        let committed = try #require(report.committed)
        #expect(committed.rootID == report.rootID && committed.count == 1)
        #expect(committed.root?.properties.position == Point(x: 30, y: 40))
        #expect(report.received.map(\.generation) == [committed.generation])
        #expect(report.received.first?.root?.properties.position == Point(x: 30, y: 40))

        // This thread's implicit transaction is still open, and its change not yet committed.
        #expect(Transaction.withState { $0.stack.map(\.isImplicit) } == [true] && Transaction.disableActions)
        #expect(Transaction.withState { $0.changedLayers.map(\.id) } == [mainRoot.id])
        #expect(mainContext.renderTree?.generation == firstGeneration)
        #expect(mainContext.renderTree?.root?.properties.position == Point(x: 50, y: 50))

        Transaction.flush()
        #expect(Transaction.withState { $0.stack.isEmpty } && !Transaction.disableActions)
        #expect(mainContext.renderTree?.generation == firstGeneration + 1)
        #expect(mainContext.renderTree?.root?.properties.position == Point(x: 70, y: 80))
    }

    @Test func eachThreadHasItsOwnMediaClock() {
        let previous = MediaTime.clock
        defer { MediaTime.clock = previous }
        let mainClock = ManualMediaClock(startingAt: 500)
        MediaTime.clock = mainClock

        let seen = onNewThread { () -> (startsMonotonic: Bool, now: Double) in
            let startsMonotonic = MediaTime.clock is MonotonicMediaClock
            MediaTime.clock = ManualMediaClock(startingAt: 7)
            return (startsMonotonic, MediaTime.now)
        }

        #expect(seen.startsMonotonic && seen.now == 7)
        #expect(MediaTime.clock === mainClock && MediaTime.now == 500)
    }

    @Test func layerIDsMadeConcurrentlyOnTwoThreadsAreAllDistinct() {
        let makeIDs: @Sendable () -> [LayerID] = { (0..<10_000).map { _ in Layer().id } }
        let batches = onNewThreads([makeIDs, makeIDs])
        #expect(batches.map(\.count) == [10_000, 10_000])
        #expect(Set(batches.joined()).count == 20_000)
    }
}
