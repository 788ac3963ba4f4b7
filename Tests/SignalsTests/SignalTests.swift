import Signals
import Testing

@Suite struct SignalTests {
    @Test func everyListenerHearsEachValueInTheOrderTheyStartedListening() {
        let signal = Signal<Int>()
        var heard: [String] = []
        let first = signal.listen { heard.append("first \($0)") }
        let second = signal.listen { heard.append("second \($0)") }
        signal.emit(1)
        signal.emit(2)
        #expect(heard == ["first 1", "second 1", "first 2", "second 2"])
        withExtendedLifetime((first, second)) {}
    }

    @Test func aReleasedListenerHearsNothingMoreAndTheOthersStillDo() {
        let signal = Signal<Int>()
        var heard: [String] = []
        let second = signal.listen { heard.append("second \($0)") }
        do {
            let first = signal.listen { heard.append("first \($0)") }
            signal.emit(1)
            withExtendedLifetime(first) {}
        }
        signal.emit(2)
        #expect(heard == ["second 1", "first 1", "second 2"])
        withExtendedLifetime(second) {}
    }

    @Test func aCancelledListenerHearsNothingMore() {
        let signal = Signal<Void>()
        var count = 0
        let listener = signal.listen { count += 1 }
        signal.emit()
        listener.cancel()
        listener.cancel()
        signal.emit()
        #expect(count == 1)
    }

    @Test func aListenerCancelledByAnEarlierOneDuringAnEmitIsNotCalled() {
        let signal = Signal<Int>()
        var heard: [String] = []
        var second: SignalListener?
        let first = signal.listen { value in
            heard.append("first \(value)")
            second?.cancel()
        }
        second = signal.listen { heard.append("second \($0)") }
        signal.emit(1)
        signal.emit(2)
        #expect(heard == ["first 1", "first 2"])
        withExtendedLifetime(first) {}
    }

    @Test func aListenerAddedDuringAnEmitHearsFromTheNextValueOn() {
        let signal = Signal<Int>()
        var heard: [String] = []
        var added: SignalListener?
        let first = signal.listen { value in
            heard.append("first \(value)")
            if added == nil { added = signal.listen { heard.append("added \($0)") } }
        }
        signal.emit(1)
        signal.emit(2)
        #expect(heard == ["first 1", "first 2", "added 2"])
        withExtendedLifetime(first) {}
    }

    /// A presented frame emits signals and retains them: their listeners hold them without weak
    /// references (each would give the signal a side table, which slows every retain and release
    /// of it). A count of 1 is the object's own: none.
    @Test func aListenedToSignalIsNotWeaklyReferenced() {
        let signal = Signal<Int>()
        let listeners = [signal.listen { _ in }, signal.listen { _ in }]
        #expect(_getWeakRetainCount(signal) == 1)
        withExtendedLifetime(listeners) {}
    }

    /// Listeners do not keep their signal: it goes when its owner lets go of it, and listeners
    /// that outlive it can be cancelled and released.
    @Test func aSignalIsReleasedWhileItsListenersLive() {
        var count = 0
        weak var released: Signal<Int>?
        var listeners: [SignalListener] = []
        do {
            let signal = Signal<Int>()
            listeners = [signal.listen { count += $0 }, signal.listen { count += 10 * $0 }]
            signal.emit(1)
            released = signal
        }
        #expect(released == nil)
        listeners[0].cancel()
        listeners = []
        #expect(count == 11)
    }

    @Test func aListenerThatOutlivesItsSignalCanStillBeCancelled() {
        var count = 0
        let listener = Signal<Int>().listen { _ in count += 1 }
        listener.cancel()
        #expect(count == 0)
    }
}
