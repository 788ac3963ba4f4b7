import Foundation
import Testing

/// Runs the Wayland Conformance Suite (Debian's wlcs) against Vitrine's integration module and
/// holds the line: every test listed in wlcs-expected-pass.txt must pass. Tests that start passing
/// are printed so that the list can grow with them.
@Suite struct WLCSConformanceTests {
    static let runner = "/usr/lib/x86_64-linux-gnu/wlcs/wlcs"

    /// The integration module next to the test bundle (`swift build --product VitrineWLCS`).
    static var module: URL {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("libVitrineWLCS.so")
    }

    static let expectedPassList = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("wlcs-expected-pass.txt")

    struct EmptyList: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path) lists no test" }
    }

    /// The tests `list` names, one a line (# starts a comment). A list that cannot be read, or
    /// names nothing, is an error: the check must not quietly expect nothing.
    static func expectedPasses(in list: URL) throws -> Set<String> {
        let text = try String(contentsOf: list, encoding: .utf8)
        let names = Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") })
        guard !names.isEmpty else { throw EmptyList(path: list.path) }
        return names
    }

    /// Why the runner's exit does not agree with its report, or nil when it does: gtest exits with
    /// 0 when every test it ran passed and with 1 when some failed; a signal or any other status
    /// (a crash, a runner that could not start the suite) means the report cannot be trusted.
    static func exitDisagreement(reason: Process.TerminationReason, status: Int32, failures: Int) -> String? {
        guard reason == .exit else { return "the runner was killed by signal \(status)" }
        let expected: Int32 = failures == 0 ? 0 : 1
        return status == expected ? nil : "the runner exited with \(status) after \(failures) failures"
    }

    struct Outcome {
        var passed: Set<String> = []
        var failed: Set<String> = []
        var skipped: Set<String> = []
    }

    /// Parses gtest's JSON report: a test is skipped when WLCS marked it so (`wlcs-skip-test`: a
    /// protocol Vitrine does not advertise), failed when it has failures, passed otherwise.
    static func outcome(ofReport data: Data) throws -> Outcome {
        var outcome = Outcome()
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for suite in root["testsuites"] as? [[String: Any]] ?? [] {
            let suiteName = suite["name"] as? String ?? ""
            for test in suite["testsuite"] as? [[String: Any]] ?? [] {
                let name = "\(suiteName).\(test["name"] as? String ?? "")"
                if test["wlcs-skip-test"] != nil || (test["result"] as? String) == "SKIPPED" || (test["status"] as? String) == "NOTRUN" {
                    outcome.skipped.insert(name)
                } else if let failures = test["failures"] as? [Any], !failures.isEmpty {
                    outcome.failed.insert(name)
                } else {
                    outcome.passed.insert(name)
                }
            }
        }
        return outcome
    }

    @Test func everyExpectedConformanceTestPasses() throws {
        guard FileManager.default.fileExists(atPath: Self.module.path) else {
            Issue.record("\(Self.module.path) is missing: run `swift build --product VitrineWLCS` before `swift test`")
            return
        }
        let expectedPasses = try Self.expectedPasses(in: Self.expectedPassList)
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-wlcs-\(getpid()).json")
        defer { try? FileManager.default.removeItem(at: report) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.runner)
        process.arguments = [Self.module.path, "--gtest_output=json:\(report.path)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let outcome = try Self.outcome(ofReport: Data(contentsOf: report))
        let run = outcome.passed.count + outcome.failed.count
        print("WLCS: \(outcome.passed.count) passed / \(run) run / \(outcome.skipped.count) skipped")
        let disagreement = Self.exitDisagreement(
            reason: process.terminationReason, status: process.terminationStatus, failures: outcome.failed.count)
        #expect(disagreement == nil, "\(disagreement ?? "")")
        let regressions = expectedPasses.subtracting(outcome.passed).sorted()
        #expect(regressions.isEmpty, "expected to pass but did not: \(regressions.joined(separator: ", "))")
        let newlyPassing = outcome.passed.subtracting(expectedPasses).sorted()
        if !newlyPassing.isEmpty {
            print("WLCS tests passing but not yet in wlcs-expected-pass.txt:\n" + newlyPassing.joined(separator: "\n"))
        }
    }

    @Test func anExpectedPassListThatCannotBeReadOrNamesNothingIsAnError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-wlcs-list-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: (any Error).self) { try Self.expectedPasses(in: folder.appendingPathComponent("absent.txt")) }
        let comments = folder.appendingPathComponent("comments.txt")
        try "# only a comment\n\n".write(to: comments, atomically: true, encoding: .utf8)
        #expect(throws: EmptyList.self) { try Self.expectedPasses(in: comments) }
        let two = folder.appendingPathComponent("two.txt")
        try "# header\nA.first\n  B.second  \n".write(to: two, atomically: true, encoding: .utf8)
        #expect(try Self.expectedPasses(in: two) == ["A.first", "B.second"])
    }

    @Test func theRunnersExitMustAgreeWithItsReport() {
        #expect(Self.exitDisagreement(reason: .exit, status: 0, failures: 0) == nil)
        #expect(Self.exitDisagreement(reason: .exit, status: 1, failures: 13) == nil)
        #expect(Self.exitDisagreement(reason: .exit, status: 0, failures: 13) == "the runner exited with 0 after 13 failures")
        #expect(Self.exitDisagreement(reason: .exit, status: 1, failures: 0) == "the runner exited with 1 after 0 failures")
        #expect(Self.exitDisagreement(reason: .uncaughtSignal, status: SIGSEGV, failures: 0) == "the runner was killed by signal 11")
    }
}
