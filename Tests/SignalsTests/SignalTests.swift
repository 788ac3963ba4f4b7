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

    @Test func aListenerThatOutlivesItsSignalCanStillBeCancelled() {
        var count = 0
        let listener = Signal<Int>().listen { _ in count += 1 }
        listener.cancel()
        #expect(count == 0)
    }
}
