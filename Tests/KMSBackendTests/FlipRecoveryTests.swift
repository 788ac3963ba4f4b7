import Glibc
import SystemCalls
import Testing

@testable import KMSBackend

/// What an output does after each refusal of a frame's page flip, so that the display never stays
/// black or frozen: pure steps, each case exact. (The QEMU rig checks the same on a real device,
/// with refusals injected through VITRINE_FAULTS.)
@Suite struct FlipRecoveryTests {
    /// The steps after refusals with `codes`, in order, of commits carrying `commit`.
    func steps(_ codes: [Errno], commit: FlipRecovery.Commit = .init()) -> [FlipRecovery.Step] {
        var recovery = FlipRecovery()
        return codes.map { recovery.refused($0, commit: commit) }
    }

    @Test func aBusyCRTCIsRetriedARefreshLaterThreeTimesThenTheModeIsSetAgain() {
        #expect(steps([.resourceBusy, .resourceBusy, .resourceBusy, .resourceBusy, .resourceBusy]) == [.retryAfterRefresh, .retryAfterRefresh, .retryAfterRefresh, .modeset, .giveUp])
    }

    @Test func anInvalidOrTooCostlyFrameDropsTheCursorPlaneThenSetsTheModeAgainThenGivesUp() {
        for code in [Errno.invalidArgument, .noSpace, .outOfRange] {
            var recovery = FlipRecovery()
            #expect(recovery.refused(code, commit: .init(cursorPlane: true)) == .retryWithoutCursorPlane)
            #expect(recovery.refused(code, commit: .init(cursorPlane: false)) == .modeset)
            #expect(recovery.refused(code, commit: .init(cursorPlane: false)) == .giveUp)
        }
        #expect(steps([.invalidArgument, .invalidArgument]) == [.modeset, .giveUp])
    }

    @Test func aRefusedDirectScanoutIsComposedInstead() {
        #expect(steps([.invalidArgument], commit: .init(directScanout: true, cursorPlane: true)) == [.compose])
        #expect(steps([.resourceBusy, .resourceBusy, .resourceBusy, .resourceBusy], commit: .init(directScanout: true)) == [.retryAfterRefresh, .retryAfterRefresh, .retryAfterRefresh, .compose])
    }

    @Test func anotherSessionHoldingTheDeviceIsNotFought() {
        #expect(steps([.permissionDenied]) == [.giveUp])
        #expect(steps([.notPermitted], commit: .init(cursorPlane: true)) == [.giveUp])
    }

    @Test func commitsAreNamedForFaultRulesByWhatTheyDo() {
        #expect(AtomicRequest.faultName(flags: 0x0400 | 0x0100) == "drmModeAtomicCommit:test")
        #expect(AtomicRequest.faultName(flags: 0x0400) == "drmModeAtomicCommit:modeset")
        #expect(AtomicRequest.faultName(flags: 0x0200 | 0x0001) == "drmModeAtomicCommit:flip")
    }
}
