import Testing
@testable import OnScreenKeyboard

@Suite struct KeyboardStateTests {
    let a = KeyAction.character("a", shifted: "A")

    func tap(_ state: inout KeyboardState, _ action: KeyAction, at time: Double) -> [KeyboardOutput] {
        state.press(action, at: time) + state.release(action, at: time + 0.05)
    }

    @Test func oneShiftTapShiftsOnlyTheNextCharacter() {
        var state = KeyboardState()
        _ = tap(&state, .shift, at: 0)
        #expect(state.shift == .once)
        #expect(tap(&state, a, at: 1) == [.insert("A")])
        #expect(state.shift == .off)
        #expect(tap(&state, a, at: 2) == [.insert("a")])
    }

    @Test func twoQuickShiftTapsLockCapsUntilShiftIsTappedAgain() {
        var state = KeyboardState()
        _ = tap(&state, .shift, at: 0)
        _ = tap(&state, .shift, at: 0.2)  // released 0.25, 0.2 after the first release
        #expect(state.shift == .locked)
        #expect(tap(&state, a, at: 1) + tap(&state, a, at: 2) == [.insert("A"), .insert("A")])
        _ = tap(&state, .shift, at: 3)
        #expect(state.shift == .off)
        #expect(tap(&state, a, at: 4) == [.insert("a")])
    }

    @Test func twoSlowShiftTapsTurnShiftOffAgain() {
        var state = KeyboardState()
        _ = tap(&state, .shift, at: 0)
        _ = tap(&state, .shift, at: 0.4)
        #expect(state.shift == .off)
    }

    @Test func thePageKeySwitchesPagesAndEndsAOneShotShiftButNotCapsLock() {
        var state = KeyboardState()
        _ = tap(&state, .shift, at: 0)
        _ = tap(&state, .page(.symbols), at: 1)
        #expect(state.pageKind == .symbols && state.shift == .off)
        _ = tap(&state, .page(.letters), at: 2)
        _ = tap(&state, .shift, at: 3)
        _ = tap(&state, .shift, at: 3.1)
        _ = tap(&state, .page(.symbols), at: 4)
        #expect(state.pageKind == .symbols && state.shift == .locked)
    }

    @Test func theLayoutKeyCyclesLayoutsKeepingThePageAndTurningShiftOff() {
        var state = KeyboardState(layoutCount: 3)
        _ = tap(&state, .shift, at: 0)
        _ = tap(&state, .shift, at: 0.1)
        #expect(state.shift == .locked)
        #expect(tap(&state, .nextLayout, at: 1) == [])
        #expect(state.layoutIndex == 1 && state.pageKind == .letters && state.shift == .off)
        _ = tap(&state, .shift, at: 2)
        _ = tap(&state, .nextLayout, at: 3)
        #expect(state.layoutIndex == 2 && state.shift == .off)
        _ = tap(&state, .nextLayout, at: 4)
        #expect(state.layoutIndex == 0)
        // A new field keeps the layout the user chose.
        _ = tap(&state, .nextLayout, at: 5)
        state.reset(to: .symbols)
        #expect(state.layoutIndex == 1 && state.pageKind == .symbols)
    }

    @Test func aShiftTapBeforeTheLayoutKeyDoesNotPairWithOneAfterIt() {
        var state = KeyboardState(layoutCount: 2)
        _ = tap(&state, .shift, at: 0)
        _ = tap(&state, .nextLayout, at: 0.1)
        _ = tap(&state, .shift, at: 0.2)
        #expect(state.shift == .once)
    }

    @Test func spaceReturnAndCharactersActOnReleaseOnly() {
        var state = KeyboardState()
        #expect(state.press(.space, at: 0) == [])
        #expect(state.release(.space, at: 0.1) == [.insert(" ")])
        #expect(state.press(.enter, at: 1) == [])
        #expect(state.release(.enter, at: 1.1) == [.return])
    }

    @Test func backspaceDeletesOnPressThenRepeatsAfterTheDelayAtTheRate() {
        var state = KeyboardState(repeatDelay: 0.5, repeatRate: 20)
        #expect(state.press(.backspace, at: 10) == [.deleteBackward])
        #expect(state.advance(to: 10.3).count == 0)
        #expect(state.advance(to: 10.49).count == 0)
        #expect(state.advance(to: 10.5).count == 1)  // the first repeat, at the delay
        #expect(state.advance(to: 10.54).count == 0)
        #expect(state.advance(to: 10.55).count == 1)
        #expect(state.advance(to: 11.0).count == 9)  // 10.6 … 11.0
        #expect(state.advance(to: 11.0).count == 0)
        // The release reports the repeats due by then, even without a tick in between.
        #expect(state.release(.backspace, at: 11.12).count == 2)  // 11.05, 11.1
        #expect(state.advance(to: 20).count == 0)
        #expect(!state.isRepeating)
    }

    @Test func theNextRepeatIsDueWhenAdvanceReportsIt() {
        var state = KeyboardState(repeatDelay: 0.5, repeatRate: 20)
        #expect(state.nextRepeatTime == nil)
        _ = state.press(.backspace, at: 10)
        #expect(state.nextRepeatTime == 10.5)
        #expect(state.advance(to: 10.5).count == 1)
        #expect(state.nextRepeatTime == 10.55)
        #expect(state.advance(to: 11.0).count == 10)  // 10.55 … 11.0
        #expect(abs(state.nextRepeatTime! - 11.05) < 1e-9)
        _ = state.release(.backspace, at: 11.02)
        #expect(state.nextRepeatTime == nil)
    }

    @Test func aCancelledBackspaceStopsRepeating() {
        var state = KeyboardState()
        _ = state.press(.backspace, at: 0)
        state.cancel(.backspace)
        #expect(state.advance(to: 5) == [])
    }
}
