import Foundation
import ProtocolFuzzer
import Testing

/// The fuzzer against the real compositor, and against stand-ins that fail in the ways it must
/// report.
@Suite(.serialized) struct FuzzerTests {
    static let vitrine = FuzzConfiguration.vitrineBesideThisExecutable

    /// CI's bounded pass: a fixed seed, thousands of clients, eight at a time, against `vitrine run
    /// --headless`. Any failure (the compositor's death, a stalled round trip, an unanswered client
    /// or capture, descriptors not closed, memory grown past 64 MiB) is printed with the (seed,
    /// iteration) of each suspect, so that `vitrine-fuzz --seed S --iteration I` replays it. Goal-
    /// directed sessions take it to every deep state the run summary counts.
    @Test func aBoundedPassFindsNoFailureAndReachesEveryDeepState() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.vitrine), "build vitrine first: swift build --product vitrine")
        var configuration = FuzzConfiguration(vitrine: Self.vitrine, seed: 23, iterations: 0..<5000)
        configuration.residentGrowthLimitKiB = 64 << 10
        // A freeze, not a slow machine: on a loaded 2-core machine a healthy compositor's round
        // trip has taken 2 s (the interactive default), so the pass fails a stall only past 10 s.
        configuration.stallLimit = 10
        let report = try Fuzzer.run(configuration)
        #expect(report.failures.isEmpty, "\(report)")
        #expect(report.iterations == 5000)
        #expect(report.descriptorEnd == report.descriptorBaseline)
        #expect(Milestone.allCases.filter { report.milestones[$0, default: 0] == 0 } == [], "\(report)")
    }

    /// One iteration replayed alone sends the same requests every time.
    @Test func anIterationReplaysTheSameRequests() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.vitrine), "build vitrine first: swift build --product vitrine")
        func requests() throws -> [String] {
            let lines = Lines()
            var configuration = FuzzConfiguration(vitrine: Self.vitrine, seed: 23, iterations: 54..<55)
            configuration.clients = 1
            // On a loaded machine the compositor may take seconds to answer; a session cut short
            // by a time limit would send fewer requests, which is timing, not replay.
            configuration.unansweredLimit = 120
            configuration.malformedWaitLimit = 120
            configuration.trace = { lines.append($0) }
            _ = try Fuzzer.run(configuration)
            // Wayland requests only: events (frame callbacks), the pongs they answer and the
            // control socket's captures (one starts only once the last is answered) come when
            // they come.
            return lines.all.filter { !$0.contains("<-") && !$0.contains(".pong(") && !$0.contains("(control:") }
        }
        let first = try requests()
        #expect(first.count > 20)
        let second = try requests()
        let differing = zip(first, second).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(first.count, second.count)
        #expect(second == first, "first difference at request \(differing): \(first.dropFirst(differing).first ?? "end") then \(second.dropFirst(differing).first ?? "end")")
    }

    @Test func aCompositorKilledByASignalIsACrashWithItsSuspects() throws {
        let report = try runStandIn(behaviour: "crash")
        let failure = try #require(report.failures.first)
        #expect(failure.kind == .crash("signal 11 (Segmentation fault)"))
        #expect(!failure.suspects.isEmpty)
        #expect(failure.log.contains("stand-in crashing"))
    }

    @Test func aCompositorThatStopsAnsweringIsAStall() throws {
        let report = try runStandIn(behaviour: "stall")
        let failure = try #require(report.failures.first)
        guard case .stall(let seconds) = failure.kind else { Issue.record("\(failure)"); return }
        #expect(seconds > 2)
    }

    @Test func descriptorsLeftOpenAfterEveryClientLeftAreALeak() throws {
        let report = try runStandIn(behaviour: "leak")
        #expect(report.failures.map(\.kind) == [.descriptorLeak(baseline: report.descriptorBaseline ?? 0, end: report.descriptorEnd ?? 0)])
        #expect((report.descriptorEnd ?? 0) > (report.descriptorBaseline ?? 0))
    }

    /// A Python compositor that answers wl_display.sync and nothing else, and after its third
    /// client misbehaves as told: dies of SIGSEGV, stops reading, or keeps every client's socket.
    func runStandIn(behaviour: String) throws -> FuzzReport {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-stand-in-\(UUID().uuidString).py").path
        try Self.standIn.replacingOccurrences(of: "BEHAVIOUR", with: behaviour).write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        chmod(script, 0o755)
        var configuration = FuzzConfiguration(vitrine: script, seed: 5, iterations: 0..<6)
        configuration.clients = 2
        configuration.probeEvery = 1
        configuration.triage = false
        return try Fuzzer.run(configuration)
    }

    static let standIn = #"""
        #!/usr/bin/env python3
        import os, selectors, signal, socket, struct, sys, time
        path = os.path.join(os.environ["XDG_RUNTIME_DIR"], sys.argv[sys.argv.index("--socket") + 1])
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(64)
        events, kept, buffers, accepted = selectors.DefaultSelector(), [], {}, 0
        events.register(server, selectors.EVENT_READ)
        while True:
            for key, _ in events.select():
                if key.fileobj is server:
                    client, _ = server.accept()
                    accepted += 1
                    if accepted > 3 and "BEHAVIOUR" == "crash":
                        print("stand-in crashing", flush=True)
                        os.kill(os.getpid(), signal.SIGSEGV)
                    if accepted > 3 and "BEHAVIOUR" == "stall":
                        time.sleep(3600)
                    buffers[client] = b""
                    events.register(client, selectors.EVENT_READ)
                    continue
                client = key.fileobj
                data = client.recv(65536)
                if not data:
                    events.unregister(client)
                    (kept.append if "BEHAVIOUR" == "leak" and accepted > 3 else lambda c: c.close())(client)
                    continue
                buffers[client] += data
                while len(buffers[client]) >= 8:
                    obj, word = struct.unpack("<II", buffers[client][:8])
                    size = word >> 16
                    if size < 8 or len(buffers[client]) < size:
                        break
                    message, buffers[client] = buffers[client][:size], buffers[client][size:]
                    if obj == 1 and word & 0xFFFF == 0:
                        callback = struct.unpack("<I", message[8:12])[0]
                        # wl_callback.done(0), then wl_display.delete_id(callback).
                        client.sendall(struct.pack("<IIIIII", callback, 12 << 16, 0, 1, 12 << 16 | 1, callback))
        """#
}

/// Lines a trace closure collects from the fuzzer.
private final class Lines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
