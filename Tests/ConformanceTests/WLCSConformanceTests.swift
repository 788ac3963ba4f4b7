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

    static var expectedPasses: Set<String> {
        let list = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("wlcs-expected-pass.txt")
        let text = (try? String(contentsOf: list, encoding: .utf8)) ?? ""
        return Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") })
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
        let regressions = Self.expectedPasses.subtracting(outcome.passed).sorted()
        #expect(regressions.isEmpty, "expected to pass but did not: \(regressions.joined(separator: ", "))")
        let newlyPassing = outcome.passed.subtracting(Self.expectedPasses).sorted()
        if !newlyPassing.isEmpty {
            print("WLCS tests passing but not yet in wlcs-expected-pass.txt:\n" + newlyPassing.joined(separator: "\n"))
        }
    }
}
