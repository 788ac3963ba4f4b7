import WaylandProtocolModel
import Foundation
import Glibc

/// What one fuzzing run does.
public struct FuzzConfiguration: Sendable {
    /// The `vitrine` executable to run as the compositor under test.
    public var vitrine: String
    public var seed: UInt64
    /// The iterations to run (one client session each); a single one replays it.
    public var iterations: Range<UInt64>
    /// Clients connected at once.
    public var clients = 8
    /// The headless output, WIDTHxHEIGHT.
    public var output = "640x480"
    /// A fresh client's round trip is measured after this many iterations (and at least every second).
    public var probeEvery = 50
    /// A round trip slower than this is a stall: the compositor served no one meanwhile.
    public var stallLimit = 2.0
    /// A well-formed session whose sync is not answered within this is a failure.
    public var unansweredLimit = 10.0
    /// A session that sent something malformed and got no answer within this ends without blame
    /// (the compositor may be waiting for bytes that never come).
    public var malformedWaitLimit = 2.0
    /// The compositor's resident memory after the run may exceed the sample after `warmUpIterations`
    /// by at most this (KiB); nil leaves memory unchecked.
    public var residentGrowthLimitKiB: Int?
    public var warmUpIterations = 500
    /// Restart the compositor after a failure and go on (a long run counts every failure) instead
    /// of stopping at the first.
    public var keepGoing = false
    /// Replay each suspect iteration of a crash or stall alone, to name the one that causes it.
    public var triage = true
    /// Every request and event, as sessions send and receive them.
    public var trace: (@Sendable (String) -> Void)?
    /// A line now and then on how the run goes.
    public var progress: (@Sendable (String) -> Void)?

    public init(vitrine: String, seed: UInt64, iterations: Range<UInt64>) {
        self.vitrine = vitrine
        self.seed = seed
        self.iterations = iterations
    }

    /// The `vitrine` built beside the running executable (`vitrine-fuzz`, or the test bundle).
    public static var vitrineBesideThisExecutable: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("vitrine").path
    }
}

public struct FuzzFailure: Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The compositor died ("signal 4 (Illegal instruction)").
        case crash(String)
        /// A fresh client's round trip took this long (seconds), or never finished.
        case stall(Double)
        /// A well-formed session's sync went unanswered while the compositor ran.
        case unanswered(iteration: UInt64)
        /// A session's capture on the control socket got no reply in time, or a malformed one.
        case captureFailed(iteration: UInt64, reason: String)
        /// Open descriptors after every client left, against before any came.
        case descriptorLeak(baseline: Int, end: Int)
        /// Resident memory (KiB) after the warm-up and at the end.
        case residentGrowth(warmUp: Int, end: Int)
    }

    public struct Suspect: Sendable {
        public var iteration: UInt64
        /// The last requests it sent, oldest first.
        public var requests: [String]
    }

    public var kind: Kind
    public var seed: UInt64
    /// The sessions in flight when it happened (and those that had just ended).
    public var suspects: [Suspect] = []
    /// The end of the compositor's log.
    public var log = ""
    /// The suspects that, replayed alone, fail the same way.
    public var reproducedAlone: [UInt64] = []

    public var description: String {
        var lines: [String]
        switch kind {
        case .crash(let how): lines = ["the compositor died: \(how)"]
        case .stall(let seconds): lines = ["a fresh client's round trip took \(seconds < .infinity ? "\(rounded(seconds)) s" : "forever")"]
        case .unanswered(let iteration): lines = ["iteration \(iteration)'s sync went unanswered"]
        case .captureFailed(let iteration, let reason): lines = ["iteration \(iteration)'s capture failed: \(reason)"]
        case .descriptorLeak(let baseline, let end): lines = ["\(end) descriptors open after every client left, \(baseline) before"]
        case .residentGrowth(let warmUp, let end): lines = ["resident memory grew from \(warmUp) KiB after the warm-up to \(end) KiB"]
        }
        if !reproducedAlone.isEmpty {
            lines.append("reproduced alone: " + reproducedAlone.map { "--seed \(seed) --iteration \($0)" }.joined(separator: "; "))
            let others = suspects.filter { !reproducedAlone.contains($0.iteration) }
            if !others.isEmpty { lines.append("also in flight: iterations " + others.map { "\($0.iteration)" }.joined(separator: ", ")) }
        }
        for suspect in suspects where reproducedAlone.isEmpty || reproducedAlone.contains(suspect.iteration) {
            lines.append("seed \(seed) iteration \(suspect.iteration), last requests:")
            lines += suspect.requests.map { "    " + $0 }
        }
        if !log.isEmpty { lines += ["compositor log:", log] }
        return lines.joined(separator: "\n")
    }
}

public struct FuzzReport: Sendable, CustomStringConvertible {
    public var seed: UInt64 = 0
    public var iterations = 0
    /// Client connections: the sessions and the round-trip probes.
    public var connections = 0
    public var requests = 0
    public var malformed = 0
    /// Sessions the compositor ended with a protocol error, or by closing their connection.
    public var protocolErrors = 0
    public var closedByCompositor = 0
    public var compositorStarts = 0
    public var failures: [FuzzFailure] = []
    public var slowestRoundTrip = 0.0
    public var descriptorBaseline: Int?
    public var descriptorEnd: Int?
    public var residentWarmUpKiB: Int?
    public var residentEndKiB: Int?
    public var residentPeakKiB = 0
    /// Requests on the control socket, and those answered with their image or status.
    public var captures = 0
    public var capturesAnswered = 0
    /// Sessions that reached each deep state.
    public var milestones: [Milestone: Int] = [:]
    /// Sessions that worked toward goals, the goals they started and those they reached.
    public var goalDirected = 0
    public var goals = 0
    public var goalsReached = 0
    /// (iteration, descriptors, resident KiB) at each round-trip probe.
    public var samples: [(iteration: Int, descriptors: Int, residentKiB: Int)] = []
    public var seconds = 0.0

    public var description: String {
        var text = """
            seed \(seed): \(iterations) iterations, \(connections) connections, \(requests) requests (\(malformed) malformed) \
            in \(Int(seconds)) s; \(protocolErrors) sessions ended by a protocol error, \(closedByCompositor) by the compositor \
            closing them; slowest round trip \(rounded(slowestRoundTrip)) s; compositor started \(compositorStarts) times
            """
        if let descriptorBaseline, let descriptorEnd {
            text += "\ndescriptors: \(descriptorBaseline) before, \(descriptorEnd) after"
        }
        if let residentWarmUpKiB, let residentEndKiB {
            text += "\nresident memory: \(residentWarmUpKiB / 1024) MiB after the warm-up, \(residentEndKiB / 1024) MiB at the end, peak \(residentPeakKiB / 1024) MiB"
        }
        text += "\n\(goalDirected) goal-directed sessions reached \(goalsReached) of their \(goals) goals"
        text += "\n\(captures) control requests (captures, status), \(capturesAnswered) answered with a body"
        text += "\nsessions that reached:"
        for milestone in Milestone.allCases { text += "\n  \(milestone.rawValue): \(milestones[milestone, default: 0])" }
        text += "\nfailures: \(failures.count)"
        for (index, failure) in failures.enumerated() { text += "\n[\(index + 1)] \(failure)" }
        return text
    }
}

private func rounded(_ seconds: Double) -> String { String(Double(Int(seconds * 1000)) / 1000) }

private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Runs fuzzing clients against a compositor process and watches it for the failures of issue 23:
/// death, a stalled round trip, descriptors or memory that do not come back.
public enum Fuzzer {
    public static func run(_ configuration: FuzzConfiguration) throws -> FuzzReport {
        raiseDescriptorLimit()
        let model = try ProtocolModel.installed()
        var run = try FuzzRun(configuration: configuration, model: model)
        var report = run.execute()
        if configuration.triage {
            for index in report.failures.indices {
                switch report.failures[index].kind {
                case .crash, .stall: break
                default: continue
                }
                for suspect in report.failures[index].suspects {
                    var alone = configuration
                    alone.iterations = suspect.iteration..<suspect.iteration + 1
                    alone.clients = 1
                    alone.keepGoing = false
                    alone.triage = false
                    alone.residentGrowthLimitKiB = nil
                    alone.trace = nil
                    alone.progress = nil
                    var replay = try FuzzRun(configuration: alone, model: model)
                    if replay.execute().failures.contains(where: { $0.kind.isSameClass(as: report.failures[index].kind) }) {
                        report.failures[index].reproducedAlone.append(suspect.iteration)
                    }
                }
            }
        }
        return report
    }

    /// Clients in parallel each hold a socket and up to SessionDescriptors.limit descriptors.
    private static func raiseDescriptorLimit() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

extension FuzzFailure.Kind {
    func isSameClass(as other: Self) -> Bool {
        switch (self, other) {
        case (.crash, .crash), (.stall, .stall): true
        default: false
        }
    }
}

/// One run's state: the compositor, the sessions in flight, the probe.
private struct FuzzRun {
    let configuration: FuzzConfiguration
    let model: ProtocolModel
    var compositor: CompositorProcess
    var report = FuzzReport()
    var sessions: [FuzzSession] = []
    var next: UInt64
    /// Sessions that ended lately: a crash in the compositor's cleanup of a client comes after it left.
    var ended: [FuzzSession] = []
    var probe: (socket: WaylandSocket, started: Double)?
    var lastProbe = 0.0
    var completedSinceProbe = 0
    var lastProgress = 0.0
    /// The compositor running now died or stalled, and that was reported.
    var compositorFailed = false

    init(configuration: FuzzConfiguration, model: ProtocolModel) throws {
        self.configuration = configuration
        self.model = model
        next = configuration.iterations.lowerBound
        report.seed = configuration.seed
        compositor = try CompositorProcess(executable: configuration.vitrine, output: configuration.output)
        report.compositorStarts = 1
    }

    mutating func execute() -> FuzzReport {
        let start = monotonicSeconds()
        lastProgress = start
        takeBaseline()
        while true {
            let now = monotonicSeconds()
            while sessions.count < configuration.clients, next < configuration.iterations.upperBound {
                guard let session = FuzzSession(seed: configuration.seed, iteration: next, model: model, socketPath: compositor.socketPath,
                                                controlPath: compositor.controlPath, now: now, trace: configuration.trace) else { break }
                next += 1
                report.connections += 1
                sessions.append(session)
            }
            if sessions.isEmpty, probe == nil, next >= configuration.iterations.upperBound { break }
            pollOnce(now: now)
            if let exit = compositor.checkExit() {
                fail(.crash(exit), now: monotonicSeconds())
                guard restart() else { break }
                continue
            }
            if let stall = checkProbe(now: monotonicSeconds()) {
                fail(.stall(stall), now: monotonicSeconds())
                compositor.stop()
                guard restart() else { break }
            }
            if monotonicSeconds() - lastProgress > 10 {
                lastProgress = monotonicSeconds()
                configuration.progress?(
                    "\(report.iterations) iterations, \(report.requests) requests, \(report.failures.count) failures, "
                        + "\(report.samples.last.map { "\($0.descriptors) fds, \($0.residentKiB / 1024) MiB" } ?? "")")
            }
        }
        finishChecks()
        compositor.stop()
        report.seconds = monotonicSeconds() - start
        return report
    }

    /// Descriptors with no client connected, after one round trip has shown the compositor serving,
    /// one wl_keyboard has made what keyboards keep (the seat's keymap file, compiled for the first)
    /// and one capture has made what captures keep for the next (an event loop's descriptors).
    private mutating func takeBaseline() {
        _ = roundTrip(limit: 60)
        makeKeyboard(limit: 60)
        // Refused until the output has shown its first frame: asked again until answered.
        let deadline = monotonicSeconds() + 60
        while monotonicSeconds() < deadline,
              let capture = ControlCapture(path: compositor.controlPath, request: #"{"command":"capture"}"#, now: monotonicSeconds()) {
            var outcome = capture.receive()
            while outcome == .pending, monotonicSeconds() < deadline {
                usleep(10_000)
                outcome = capture.receive()
            }
            capture.socket.close()
            guard case .refused = outcome else { break }
            usleep(50_000)
        }
        usleep(200_000)
        report.descriptorBaseline = compositor.descriptorCount()
        lastProbe = monotonicSeconds()
    }

    private mutating func pollOnce(now: Double) {
        var descriptors = sessions.map { pollfd(fd: $0.socket.fd, events: Int16(POLLIN) | ($0.socket.hasPendingOutput ? Int16(POLLOUT) : 0), revents: 0) }
        if let probe { descriptors.append(pollfd(fd: probe.socket.fd, events: Int16(POLLIN), revents: 0)) }
        for session in sessions { if let capture = session.capture { descriptors.append(pollfd(fd: capture.socket.fd, events: Int16(POLLIN), revents: 0)) } }
        poll(&descriptors, nfds_t(descriptors.count), 20)
        let now = monotonicSeconds()
        for (session, polled) in zip(sessions, descriptors) {
            if polled.revents != 0 { session.receive(now: now) }
            session.serviceCapture(now: now, limit: configuration.unansweredLimit)
            session.step(now: now)
            if session.socket.isOpen, session.socket.flush() == .closed {
                // What the compositor said before closing explains why.
                session.receive(now: now)
                session.finish(.closedByCompositor, now: now)
            }
            session.checkTimeout(now: now, limit: configuration.unansweredLimit, malformedLimit: configuration.malformedWaitLimit)
        }
        for session in sessions where session.isFinished { account(session) }
        sessions.removeAll { $0.isFinished }
    }

    private mutating func account(_ session: FuzzSession) {
        report.iterations += 1
        completedSinceProbe += 1
        report.requests += session.requestsSent
        report.malformed += session.malformedSent
        for milestone in session.milestones { report.milestones[milestone, default: 0] += 1 }
        if session.profile.goals > 0 { report.goalDirected += 1 }
        report.goals += session.goalsStarted
        report.goalsReached += session.goalsReached
        report.captures += session.captures
        report.capturesAnswered += session.capturesAnswered
        if let reason = session.captureFailure, compositor.checkExit() == nil {
            var failure = FuzzFailure(kind: .captureFailed(iteration: session.iteration, reason: reason), seed: configuration.seed)
            failure.suspects = [.init(iteration: session.iteration, requests: session.history)]
            report.failures.append(failure)
        }
        switch session.phase {
        case .finished(.protocolError): report.protocolErrors += 1
        case .finished(.closedByCompositor): report.closedByCompositor += 1
        case .finished(.unanswered) where compositor.checkExit() == nil:
            var failure = FuzzFailure(kind: .unanswered(iteration: session.iteration), seed: configuration.seed)
            failure.suspects = [.init(iteration: session.iteration, requests: session.history)]
            report.failures.append(failure)
        default: break
        }
        ended.append(session)
        if ended.count > 2 * configuration.clients { ended.removeFirst() }
    }

    /// Starts a probe when one is due; returns a stall's duration when the compositor took too long.
    private mutating func checkProbe(now: Double) -> Double? {
        if probe == nil, completedSinceProbe >= configuration.probeEvery || now - lastProbe > 1 {
            if let socket = try? WaylandSocket(path: compositor.socketPath) {
                socket.enqueue(WireMessage(objectID: 1, opcode: 0, arguments: [.newID(2)]).encoded().bytes)
                _ = socket.flush()
                probe = (socket, now)
                report.connections += 1
            }
            completedSinceProbe = 0
            lastProbe = now
        }
        guard let (socket, started) = probe else { return nil }
        if probeAnswered(socket) {
            probe = nil
            let seconds = now - started
            report.slowestRoundTrip = max(report.slowestRoundTrip, seconds)
            sample()
            return seconds > configuration.stallLimit ? seconds : nil
        }
        if now - started > configuration.stallLimit {
            probe = nil
            return now - started
        }
        return nil
    }

    /// Whether wl_display.sync's callback (object 2) has answered.
    private func probeAnswered(_ socket: WaylandSocket) -> Bool {
        var framer = MessageFramer()
        while case .bytes(let bytes) = socket.receive() {
            framer.append(bytes)
            while let message = try? framer.next() { if message.objectID == 2 { return true } }
        }
        return false
    }

    /// A blocking round trip for the start and the end of the run; its duration, or nil.
    private mutating func roundTrip(limit: Double) -> Double? {
        guard let socket = try? WaylandSocket(path: compositor.socketPath) else { return nil }
        report.connections += 1
        socket.enqueue(WireMessage(objectID: 1, opcode: 0, arguments: [.newID(2)]).encoded().bytes)
        _ = socket.flush()
        let started = monotonicSeconds()
        while monotonicSeconds() - started < limit, compositor.checkExit() == nil {
            var polled = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
            poll(&polled, 1, 50)
            if probeAnswered(socket) { return monotonicSeconds() - started }
        }
        return nil
    }

    /// A client that binds the first wl_seat, makes a wl_keyboard of it and waits for the answer
    /// to a sync that follows, then leaves.
    private mutating func makeKeyboard(limit: Double) {
        guard let global = model["wl_registry"]?.events.first(where: { $0.name == "global" }),
              let socket = try? WaylandSocket(path: compositor.socketPath) else { return }
        report.connections += 1
        defer { socket.close() }
        // New ids in the order they are made, as libwayland requires.
        let registry: UInt32 = 2, announced: UInt32 = 3, seat: UInt32 = 4, keyboard: UInt32 = 5, answered: UInt32 = 6
        socket.enqueue(WireMessage(objectID: 1, opcode: 1, arguments: [.newID(registry)]).encoded().bytes)
        socket.enqueue(WireMessage(objectID: 1, opcode: 0, arguments: [.newID(announced)]).encoded().bytes)
        _ = socket.flush()
        var framer = MessageFramer()
        var seatName: UInt32?
        var waitingFor = announced
        let started = monotonicSeconds()
        while monotonicSeconds() - started < limit, compositor.checkExit() == nil {
            var polled = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
            poll(&polled, 1, 50)
            while case .bytes(let bytes) = socket.receive() { framer.append(bytes) }
            while let message = try? framer.next() {
                if message.objectID == registry, message.opcode == 0,
                   let values = try? WireMessage.decodeArguments(message.body, as: global),
                   case .uint(let name) = values[0], case .string(let interface?) = values[1],
                   String(decoding: interface, as: UTF8.self) == "wl_seat", seatName == nil {
                    seatName = name
                }
                guard message.objectID == waitingFor else { continue }
                // The globals come before the first sync's answer; the second answer ends it.
                guard waitingFor == announced, let seatName else { return }
                // wl_registry.bind, wl_seat.get_keyboard, then wl_display.sync.
                socket.enqueue(WireMessage(objectID: registry, opcode: 0, arguments: [
                    .uint(seatName), .untypedNewID(interface: "wl_seat", version: 1, id: seat)]).encoded().bytes)
                socket.enqueue(WireMessage(objectID: seat, opcode: 1, arguments: [.newID(keyboard)]).encoded().bytes)
                socket.enqueue(WireMessage(objectID: 1, opcode: 0, arguments: [.newID(answered)]).encoded().bytes)
                _ = socket.flush()
                waitingFor = answered
            }
        }
    }

    private mutating func sample() {
        guard let descriptors = compositor.descriptorCount(), let resident = compositor.residentKiB() else { return }
        report.samples.append((report.iterations, descriptors, resident))
        report.residentPeakKiB = max(report.residentPeakKiB, resident)
        if report.residentWarmUpKiB == nil, report.iterations >= configuration.warmUpIterations { report.residentWarmUpKiB = resident }
    }

    private mutating func fail(_ kind: FuzzFailure.Kind, now: Double) {
        if kind.isSameClass(as: .crash("")) || kind.isSameClass(as: .stall(0)) { compositorFailed = true }
        var failure = FuzzFailure(kind: kind, seed: configuration.seed)
        let recent = ended.filter { now - $0.finishedAt < 1 }
        failure.suspects = (sessions + recent).sorted { $0.iteration < $1.iteration }.map { .init(iteration: $0.iteration, requests: $0.history) }
        failure.log = compositor.logTail()
        // A capture cut off by the compositor's death is that death, not a failure of its own.
        let suspects = Set(failure.suspects.map(\.iteration))
        report.failures.removeAll { if case .captureFailed(let iteration, _) = $0.kind { suspects.contains(iteration) } else { false } }
        report.failures.append(failure)
        configuration.progress?("failure: \(failure)")
    }

    /// After a crash or stall: a fresh compositor when the run goes on, or false when it stops.
    private mutating func restart() -> Bool {
        for session in sessions { session.finish(.closedByCompositor, now: monotonicSeconds()) }
        sessions = []
        ended = []
        probe = nil
        guard configuration.keepGoing, next < configuration.iterations.upperBound,
              let fresh = try? CompositorProcess(executable: configuration.vitrine, output: configuration.output) else {
            next = configuration.iterations.upperBound
            return false
        }
        compositor = fresh
        compositorFailed = false
        report.compositorStarts += 1
        takeBaseline()
        return true
    }

    /// Once every client has left: the descriptors are back to the baseline (given a few seconds to
    /// close) and memory grew no more than allowed.
    private mutating func finishChecks() {
        guard !compositorFailed else { return }
        // A crash in the cleanup after the last client left, or a stall, shows here.
        let seconds = compositor.checkExit() == nil ? roundTrip(limit: configuration.stallLimit) : nil
        guard let seconds else {
            for _ in 0..<50 where compositor.checkExit() == nil { usleep(20_000) }
            fail(compositor.checkExit().map(FuzzFailure.Kind.crash) ?? .stall(.infinity), now: monotonicSeconds())
            return
        }
        report.slowestRoundTrip = max(report.slowestRoundTrip, seconds)
        let deadline = monotonicSeconds() + 5
        var end = compositor.descriptorCount()
        while let count = end, let baseline = report.descriptorBaseline, count > baseline, monotonicSeconds() < deadline {
            usleep(100_000)
            end = compositor.descriptorCount()
        }
        report.descriptorEnd = end
        if let end, let baseline = report.descriptorBaseline, end > baseline {
            report.failures.append(FuzzFailure(kind: .descriptorLeak(baseline: baseline, end: end), seed: configuration.seed))
        }
        report.residentEndKiB = compositor.residentKiB()
        if let limit = configuration.residentGrowthLimitKiB, let warmUp = report.residentWarmUpKiB, let end = report.residentEndKiB,
           end - warmUp > limit {
            report.failures.append(FuzzFailure(kind: .residentGrowth(warmUp: warmUp, end: end), seed: configuration.seed))
        }
    }
}
