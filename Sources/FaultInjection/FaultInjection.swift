import Glibc
import Synchronization

/// Failures injected where a layer translates a system result into its own error: the Renderer's
/// `VkResult` check and the KMS backend's atomic commit. The real call is not made; the layer
/// sees the named result instead, as if the driver had returned it (a refused call changes
/// nothing, so skipping it is what a real failure looks like).
///
/// Rules come from `VITRINE_FAULTS` (read by `vitrine run` at start, for the QEMU rig and soak
/// runs) or from a test through `during(_:_:)`, which applies them to its own task only, so that
/// tests running alongside are untouched. With no rule armed a layer pays one atomic load per call.
public enum FaultInjection {
    /// The process-wide plan (from the environment), if any.
    private static let processPlan = Mutex<FaultPlan?>(nil)
    /// How many plans are armed: process-wide and per task.
    private static let armedPlans = Atomic<Int>(0)
    @TaskLocal private static var taskPlan: FaultPlan?

    /// Whether any rule is armed: layers ask this before anything else.
    @inline(__always)
    public static var isArmed: Bool { armedPlans.load(ordering: .relaxed) != 0 }

    /// The result the current call of `call` is to fail with, or nil: it runs for real. Counts the
    /// call for the rules that name it.
    public static func failure(of call: String) -> FaultResult? {
        if let plan = taskPlan, let result = plan.fire(call) { return result }
        return processPlan.withLock { $0 }?.fire(call)
    }

    /// Arms `plan` for the whole process, replacing any armed before (nil disarms).
    public static func arm(_ plan: FaultPlan?) {
        processPlan.withLock { current in
            if current != nil { armedPlans.wrappingSubtract(1, ordering: .relaxed) }
            if plan != nil { armedPlans.wrappingAdd(1, ordering: .relaxed) }
            current = plan
        }
    }

    /// The plan `VITRINE_FAULTS` describes, armed for the process; nil when the variable is unset
    /// or empty. Throws when it does not parse.
    @discardableResult
    public static func armFromEnvironment() throws(FaultPlanError) -> FaultPlan? {
        guard let value = getenv("VITRINE_FAULTS").map({ String(cString: $0) }), !value.isEmpty else { return nil }
        let plan = try FaultPlan(value)
        arm(plan)
        return plan
    }

    /// Runs `body` with `plan` armed for the calls it makes on this task.
    static func during<Result>(_ plan: FaultPlan, _ body: () throws -> Result) rethrows -> Result {
        armedPlans.wrappingAdd(1, ordering: .relaxed)
        defer { armedPlans.wrappingSubtract(1, ordering: .relaxed) }
        return try $taskPlan.withValue(plan, operation: body)
    }
}

/// What an injected failure returns: a `VkResult` by its specification name, or an errno.
public enum FaultResult: Sendable, Hashable, CustomStringConvertible {
    case vulkan(String)
    case errno(Int32)

    public var description: String {
        switch self {
        case .vulkan(let name): name
        case .errno(let code): errnoNames.first { $0.code == code }?.name ?? "errno \(code)"
        }
    }
}

/// One rule: calls `first` through `last` of `call` (counted from when the rule was armed, from 1;
/// `last` nil: every call from `first` on) fail with `result`.
public struct FaultRule: Sendable, Hashable, CustomStringConvertible {
    public let call: String
    public let first: Int
    public let last: Int?
    public let result: FaultResult

    public var description: String {
        let range = last == first ? "\(first)" : "\(first)..\(last.map(String.init) ?? "")"
        return "\(call)@\(range)=\(result)"
    }

    func covers(_ index: Int) -> Bool { index >= first && index <= (last ?? .max) }
}

/// Why a `VITRINE_FAULTS` value does not parse.
public struct FaultPlanError: Error, CustomStringConvertible {
    public let rule: String
    public let reason: String

    public var description: String { "fault rule '\(rule)': \(reason)" }
}

/// Rules with the count of calls each has seen; shared by the threads that make the calls.
public final class FaultPlan: Sendable, CustomStringConvertible {
    public let rules: [FaultRule]
    private let state = Mutex<(calls: [String: Int], injected: Int)>(([:], 0))

    /// Parses rules separated by commas or spaces, each `CALL@N=RESULT` (the Nth call),
    /// `CALL@N..M=RESULT` (the Nth to the Mth), `CALL@N..=RESULT` (the Nth and every later one) or
    /// `CALL=RESULT` (the first). CALL is the name the layer gives the call (`vkQueueSubmit2`,
    /// `vkAllocateMemory`, `drmModeAtomicCommit:flip`…), RESULT a `VK_…` result or an errno name
    /// (`EBUSY`).
    public init(_ text: String) throws(FaultPlanError) {
        var rules: [FaultRule] = []
        for item in text.split(whereSeparator: { $0 == "," || $0 == " " }) {
            rules.append(try Self.parse(String(item)))
        }
        self.rules = rules
    }

    public var description: String { rules.map(\.description).joined(separator: ", ") }

    /// How many calls were made to fail so far.
    public var injectedCount: Int { state.withLock { $0.injected } }

    /// Counts a call of `call`; the result it fails with when a rule covers it.
    func fire(_ call: String) -> FaultResult? {
        let matching = rules.filter { $0.call == call }
        guard !matching.isEmpty else { return nil }
        return state.withLock { state in
            let index = state.calls[call, default: 0] + 1
            state.calls[call] = index
            guard let rule = matching.first(where: { $0.covers(index) }) else { return nil }
            state.injected += 1
            return rule.result
        }
    }

    private static func parse(_ text: String) throws(FaultPlanError) -> FaultRule {
        func failure(_ reason: String) -> FaultPlanError { FaultPlanError(rule: text, reason: reason) }
        let sides = text.split(separator: "=", omittingEmptySubsequences: false)
        guard sides.count == 2, !sides[1].isEmpty else { throw failure("expected CALL[@N[..M]]=RESULT") }
        let target = sides[0].split(separator: "@", omittingEmptySubsequences: false)
        guard let call = target.first, !call.isEmpty, target.count <= 2 else { throw failure("expected CALL[@N[..M]]") }
        var first = 1
        var last: Int? = 1
        if target.count == 2 {
            let bounds = target[1].split(separator: ".", omittingEmptySubsequences: false)
            switch bounds.count {
            case 1:
                guard let n = Int(bounds[0]) else { throw failure("the call number is not a number") }
                (first, last) = (n, n)
            case 3 where bounds[1].isEmpty:
                guard let n = Int(bounds[0]) else { throw failure("the first call number is not a number") }
                first = n
                if bounds[2].isEmpty {
                    last = nil
                } else {
                    guard let m = Int(bounds[2]), m >= n else { throw failure("the last call number is not a number from the first on") }
                    last = m
                }
            default:
                throw failure("calls are N, N..M or N..")
            }
            guard first >= 1 else { throw failure("calls are counted from 1") }
        }
        let name = String(sides[1])
        let result: FaultResult
        if name.hasPrefix("VK_") {
            result = .vulkan(name)
        } else if let code = errnoNames.first(where: { $0.name == name })?.code {
            result = .errno(code)
        } else {
            throw failure("\(name) is neither a VK_ result nor one of \(errnoNames.map(\.name).joined(separator: ", "))")
        }
        return FaultRule(call: String(call), first: first, last: last, result: result)
    }
}

/// The errno values a rule may name: what drivers and the kernel answer the calls that rules reach.
private let errnoNames: [(code: Int32, name: String)] = [
    (EBUSY, "EBUSY"), (EINVAL, "EINVAL"), (ENOSPC, "ENOSPC"), (ERANGE, "ERANGE"), (ENOMEM, "ENOMEM"), (EACCES, "EACCES"),
    (EPERM, "EPERM"), (EIO, "EIO"), (ENODEV, "ENODEV"), (EAGAIN, "EAGAIN"), (EINTR, "EINTR"), (EMFILE, "EMFILE"),
    (ENFILE, "ENFILE"), (ETIMEDOUT, "ETIMEDOUT"),
]
