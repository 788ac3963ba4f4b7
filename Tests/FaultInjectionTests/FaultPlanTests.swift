import Glibc
import Testing

@testable import FaultInjection

/// `VITRINE_FAULTS`'s rules: which calls of a named function fail, and with what.
@Suite struct FaultPlanTests {
    /// Whether each of the first `count` calls of `call` fails under `plan`.
    func outcomes(_ plan: FaultPlan, _ call: String, count: Int) -> [FaultResult?] {
        (0..<count).map { _ in plan.fire(call) }
    }

    @Test func aRuleWithoutACallNumberFailsTheFirstCallOnly() throws {
        let plan = try FaultPlan("vkQueueSubmit2=VK_ERROR_DEVICE_LOST")
        #expect(outcomes(plan, "vkQueueSubmit2", count: 3) == [.vulkan("VK_ERROR_DEVICE_LOST"), nil, nil])
        #expect(plan.injectedCount == 1)
    }

    @Test func callNumbersCountOnlyTheNamedFunctionFromOne() throws {
        let plan = try FaultPlan("vkAllocateMemory@3=VK_ERROR_OUT_OF_DEVICE_MEMORY")
        #expect(plan.fire("vkCreateImage") == nil)
        #expect(outcomes(plan, "vkAllocateMemory", count: 4) == [nil, nil, .vulkan("VK_ERROR_OUT_OF_DEVICE_MEMORY"), nil])
    }

    @Test func rangesFailEachCallInThemAndOpenRangesEveryLaterOne() throws {
        let plan = try FaultPlan("drmModeAtomicCommit:flip@2..3=EBUSY, drmModeAtomicCommit:test@2..=EINVAL")
        #expect(outcomes(plan, "drmModeAtomicCommit:flip", count: 4) == [nil, .errno(EBUSY), .errno(EBUSY), nil])
        #expect(outcomes(plan, "drmModeAtomicCommit:test", count: 4) == [nil, .errno(EINVAL), .errno(EINVAL), .errno(EINVAL)])
        #expect(plan.description == "drmModeAtomicCommit:flip@2..3=EBUSY, drmModeAtomicCommit:test@2..=EINVAL")
    }

    @Test func malformedRulesAreRefusedNamingTheRule() {
        for text in ["vkQueueSubmit2", "vkQueueSubmit2@0=VK_ERROR_DEVICE_LOST", "vkQueueSubmit2@x=VK_ERROR_DEVICE_LOST",
                     "vkQueueSubmit2@3..2=VK_ERROR_DEVICE_LOST", "drmModeAtomicCommit:flip=EWHATEVER", "=EBUSY"] {
            #expect(throws: FaultPlanError.self, "\(text)") { try FaultPlan(text) }
        }
        #expect(throws: FaultPlanError.self) { try FaultPlan("a=EBUSY,b@1.2=EBUSY") }
    }

    @Test func aPlanArmedForATaskReachesOnlyThatTasksCalls() throws {
        let plan = try FaultPlan("probe@1..=ENOSPC")
        #expect(!FaultInjection.isArmed)
        let inside = FaultInjection.during(plan) { (FaultInjection.isArmed, FaultInjection.failure(of: "probe")) }
        #expect(inside.0)
        #expect(inside.1 == .errno(ENOSPC))
        #expect(FaultInjection.failure(of: "probe") == nil)
        #expect(!FaultInjection.isArmed)
    }
}
