import ArgumentParser
import Foundation
import ProtocolFuzzer

/// The protocol fuzzer's command: runs fuzzing clients against `vitrine run --headless` and reports
/// what failed, each failure with the (seed, iteration) that replays it.
@main
struct VitrineFuzz: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vitrine-fuzz",
        abstract: "Fuzz the compositor's Wayland protocols with clients drawn from the protocol XML.",
        discussion: """
            Each iteration is one client's session, drawn from (seed, iteration) alone. Failures: the \
            compositor dies, a fresh client's round trip takes over 2 s, a well-formed client goes \
            unanswered, descriptors stay open after every client left, or resident memory grows past \
            --resident-growth-limit. Replay one iteration, printing every request and event: \
            vitrine-fuzz --seed S --iteration I
            """)

    @Option(help: "The vitrine executable (default: the one beside this command).")
    var vitrine: String?

    @Option(help: "The run's seed.")
    var seed: UInt64 = 1

    @Option(help: "How many iterations (client sessions) to run.")
    var iterations: UInt64 = 1000

    @Option(help: "The first iteration.")
    var first: UInt64 = 0

    @Option(help: "Replay this one iteration alone, printing its requests and events.")
    var iteration: UInt64?

    @Option(help: "Clients connected at once.")
    var clients = 8

    @Option(help: "Resident memory may grow by this many MiB from the sample after the warm-up to the end.")
    var residentGrowthLimit: Int?

    @Option(help: "Iterations before the memory sample the growth limit counts from.")
    var warmUp = 500

    @Flag(help: "After a failure, restart the compositor and go on (counting every failure).")
    var keepGoing = false

    @Flag(inversion: .prefixedNo, help: "Replay each suspect of a crash or stall alone to name the one that causes it.")
    var triage = true

    @Flag(help: "Print every request and event (as --iteration does).")
    var trace = false

    @Option(help: "Write the round-trip probes' samples (iteration, descriptors, resident KiB) to this CSV file.")
    var samples: String?

    func run() throws {
        let executable = vitrine ?? FuzzConfiguration.vitrineBesideThisExecutable
        let start = iteration ?? first
        var configuration = FuzzConfiguration(vitrine: executable, seed: seed, iterations: start..<start + (iteration == nil ? iterations : 1))
        configuration.clients = iteration == nil ? clients : 1
        configuration.keepGoing = keepGoing
        configuration.triage = triage && iteration == nil
        configuration.warmUpIterations = warmUp
        configuration.residentGrowthLimitKiB = residentGrowthLimit.map { $0 * 1024 }
        configuration.progress = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
        if iteration != nil || trace { configuration.trace = { print($0) } }
        let report = try Fuzzer.run(configuration)
        print(report)
        if let samples {
            let rows = ["iteration,descriptors,resident_kib"] + report.samples.map { "\($0.iteration),\($0.descriptors),\($0.residentKiB)" }
            try (rows.joined(separator: "\n") + "\n").write(toFile: samples, atomically: true, encoding: .utf8)
        }
        if !report.failures.isEmpty { throw ExitCode.failure }
    }
}
