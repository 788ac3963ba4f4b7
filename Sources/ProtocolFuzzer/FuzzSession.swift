import WaylandProtocolModel
import Glibc

/// One fuzzing client: a connection whose requests are drawn from the protocol model by a random
/// stream of its own (seed, iteration). It works in steps: a few requests, then wl_display.sync,
/// and the next step is drawn only once the callback is done, so that what it decides depends on
/// the stream and on the compositor's replies alone. It follows the protocol's state machine as a
/// client would: binds the globals the registry announces, answers pings, keeps the serials events
/// carry for the requests that take one, and tracks the objects both sides create.
final class FuzzSession {
    let iteration: UInt64
    let socket: WaylandSocket
    var random: FuzzRandom
    /// Captures draw from a stream of their own: whether one may start depends on when the last
    /// one's reply came, and that timing must not change the Wayland requests drawn after it.
    private var captureRandom: FuzzRandom
    let model: ProtocolModel
    let profile: Profile
    private let trace: ((String) -> Void)?

    struct Profile: CustomStringConvertible {
        /// The chance that an argument gets a hostile value instead of a plausible one.
        var hostility: Double
        /// The chance that a request goes out malformed.
        var malformed: Double
        /// Requests before the session ends, besides those on goals' ways.
        var length: Int
        var ending: Ending
        /// Goals the session works toward before fuzzing (see GoalPlanner); none in most.
        var goals: Int

        enum Ending: String { case close, abrupt, midMessage = "mid-message" }

        var description: String {
            "hostility \(hostility), malformed \(malformed), \(length) requests, ending: \(ending.rawValue), goals: \(goals)"
        }
    }

    /// What one object id stands for on this connection.
    struct Object {
        var interface: Interface
        var version: UInt32
        var alive = true
        /// Serials that events on this object carried, newest last.
        var serials: [UInt32] = []
        /// How often each request (by opcode) was sent on it.
        var sent: [Int: Int] = [:]
        /// The numbers of the request that made it, by argument name (a pool's size).
        var creation: [String: Int64] = [:]
        /// The request arguments it was given to ("xdg_wm_base.get_xdg_surface.surface").
        var usedAs: Set<String> = []
        /// Bound from the registry.
        var isGlobal = false
        /// Objects its requests made.
        var children = 0
        /// The wl_surface it is or belongs to (a toplevel's, a viewport's), if any.
        var surface: UInt32?
        /// The object its creation's `parent` argument named (a popup's parent xdg_surface).
        var parent: UInt32?
        /// The first object its requests made (an xdg_surface's toplevel or popup).
        var firstChild: UInt32?
        /// An enter event came and no leave since (a text input's surface has the focus).
        var entered = false
        /// Made on a goal's way, with plausible values only.
        var madeCarefully = false
        /// A goal set it up as far as it chose to (see setUp in GoalPlanner).
        var setUpDone = false
        /// A goal waited a round trip for its enter event.
        var waitedForEnter = false
    }

    var objects: [UInt32: Object] = [:]
    /// Live object ids of each interface, oldest first.
    var live: [String: [UInt32]] = [:]
    /// The objects made last, newest last: requests favour them, as a client builds a window.
    var recent: [UInt32] = []
    var nextID: UInt32 = 2
    /// Announced globals: name → interface and version.
    var globals: [UInt32: (interface: String, version: UInt32)] = [:]
    /// The globals this session works with (see chooseGlobals), chosen once the registry is known.
    var chosen: [UInt32]?
    /// Objects being set up and how many requests they still get (see setUp).
    var settingUp: [(id: UInt32, remaining: Int)] = []
    /// Values events carried, by enum or argument name (see announcementKey), newest last.
    var announced: [String: [UInt32]] = [:]
    let descriptors = SessionDescriptors()
    /// The session's surfaces by id (see SessionState).
    var surfaces: [UInt32: SurfaceState] = [:]
    var commits = 0
    /// The deep states it reached.
    var milestones: Set<Milestone> = []
    /// The interfaces the compositor's globals lead to, at the highest version they are announced.
    var servedVersions: [String: UInt32] = [:]
    /// About how many requests an object of each of those interfaces takes (see updateCosts).
    var costs: [String: Double] = [:]
    /// The goal being worked toward (see GoalPlanner), the goals still to come, and the fuzzed
    /// requests due before the next.
    var goal: Goal?
    var goalsLeft: Int
    var fuzzQuota = 0
    var fuzzedSinceGoal = 0
    var goalsStarted = 0
    var goalsReached = 0
    /// Requests go out with plausible values only (on a goal's way).
    var careful = false
    /// What the planner may still consider for the request it is planning.
    var planBudget = 0
    /// The size a goal's buffer should have (its surface's configure), while it makes one.
    var bufferSize: (width: Int32, height: Int32)?

    enum Phase {
        case ready
        case waiting(callback: UInt32, since: Double)
        case finished(Outcome)
    }

    enum Outcome: Equatable {
        /// Every request sent and the connection closed by the client as planned.
        case completed
        /// The compositor reported a protocol error (and closed the connection).
        case protocolError(String)
        /// The compositor closed the connection without an error event (after a malformed message).
        case closedByCompositor
        /// The compositor did not answer the session's sync in time.
        case unanswered
    }

    private(set) var phase: Phase
    private var framer = MessageFramer()
    /// The last requests sent, for failure reports.
    private(set) var history: [String] = []
    static let historyLength = 60
    private(set) var requestsSent = 0
    var malformedSent = 0
    private(set) var remaining: Int
    private(set) var finishedAt = 0.0
    /// The compositor's control socket, where the session asks for captures now and then.
    let controlPath: String?
    private(set) var capture: ControlCapture?
    private(set) var captures = 0
    private(set) var capturesAnswered = 0
    /// A capture that got no reply in time, or one that breaks the control protocol.
    private(set) var captureFailure: String?

    init?(seed: UInt64, iteration: UInt64, model: ProtocolModel, socketPath: String, controlPath: String? = nil, now: Double,
          trace: ((String) -> Void)? = nil) {
        guard let socket = try? WaylandSocket(path: socketPath) else { return nil }
        self.iteration = iteration
        self.socket = socket
        self.controlPath = controlPath
        self.model = model
        self.trace = trace
        var random = FuzzRandom(seed: seed, iteration: iteration)
        profile = Profile(
            hostility: random.pick([0, 0.01, 0.03, 0.1, 0.3]),
            malformed: random.pick([0, 0, 0, 0.005, 0.02]),
            length: random.pick([8, 30, 80, 200, 400]),
            ending: [.close, .close, .close, .abrupt, .midMessage][random.below(5)],
            goals: random.pick([0, 0, 0, 1, 1, 2, 3]))
        self.random = random
        captureRandom = FuzzRandom(seed: ~seed, iteration: iteration)
        remaining = profile.length
        goalsLeft = profile.goals
        phase = .ready
        trace?("iteration \(iteration): \(profile)")
        guard let display = model["wl_display"], let registry = model["wl_registry"] else { return nil }
        objects[1] = Object(interface: display, version: 1)
        live["wl_display"] = [1]
        send(WireMessage(objectID: 1, opcode: 1, arguments: [.newID(2)]), describing: "wl_display@1.get_registry(new wl_registry@2)")
        register(id: 2, interface: registry, version: 1)
        nextID = 3
        sync(now: now)
    }

    var isFinished: Bool { if case .finished = phase { true } else { false } }

    /// Makes the next step's requests when the last one's sync is done; ends the session when its
    /// requests are spent.
    func step(now: Double) {
        guard case .ready = phase else { return }
        // A session ends once its capture is answered.
        guard remaining > 0 else { return capture == nil ? end(now: now) : () }
        if chosen == nil {
            // The globals first, alone in their step: what they announce on binding (formats)
            // shapes the requests after.
            bindChosenGlobals()
        } else if goal != nil || startGoalIfDue() {
            pursueGoal()
        } else {
            for _ in 0..<min(remaining, 1 + random.below(6)) {
                remaining -= 1
                fuzzedSinceGoal += 1
                act()
            }
        }
        // Now and then, while one of its surfaces is shown, a capture.
        if let controlPath, capture == nil, surfaces.keys.contains(where: { isShown($0) }), captureRandom.chance(0.1) {
            let request = ControlCapture.request(&captureRandom)
            capture = ControlCapture(path: controlPath, request: request, now: now)
            if capture != nil { captures += 1 }
            note("(control: \(request))")
        }
        sync(now: now)
    }

    /// Follows the capture in flight: counts its answer, or notes a failure when the reply breaks
    /// the protocol or does not come within `limit` seconds.
    func serviceCapture(now: Double, limit: Double) {
        guard let capture else { return }
        switch capture.receive() {
        case .pending:
            guard now - capture.started > limit else { return }
            captureFailure = "no reply to \(capture.request) within \(Int(limit)) s"
        case .answered:
            capturesAnswered += 1
            if surfaces.keys.contains(where: { isShown($0) }) { reach(.captureWhileMapped) }
        case .refused(let reason):
            trace?("  \(iteration): <- control: \(reason)")
        case .malformed(let reason):
            captureFailure = "\(capture.request) answered with \(reason)"
        }
        capture.socket.close()
        self.capture = nil
    }

    /// A session that sent something malformed may be left waiting for bytes the compositor never
    /// gets: it ends after `malformedLimit` without blame. One that sent only well-formed requests
    /// and got no answer within `limit` is a failure.
    func checkTimeout(now: Double, limit: Double, malformedLimit: Double) {
        guard case .waiting(_, let since) = phase, now - since > (malformedSent > 0 ? malformedLimit : limit) else { return }
        finish(malformedSent > 0 ? .closedByCompositor : .unanswered, now: now)
    }

    func finish(_ outcome: Outcome, now: Double) {
        guard !isFinished else { return }
        socket.close()
        capture?.socket.close()
        capture = nil
        descriptors.closeAll()
        phase = .finished(outcome)
        finishedAt = now
        trace?("iteration \(iteration) ended: \(outcome)")
    }

    private func end(now: Double) {
        switch profile.ending {
        case .close, .abrupt:
            break
        case .midMessage:
            // Part of a well-formed message, then the connection goes.
            let message = WireMessage(objectID: 1, opcode: 0, arguments: [.newID(nextID)]).encoded().bytes
            let cut = 1 + random.below(message.count - 1)
            socket.enqueue(Array(message[..<cut]))
            _ = socket.flush()
            note("(\(cut) of \(message.count) bytes of a wl_display.sync, then disconnect)")
        }
        finish(.completed, now: now)
    }

    private func sync(now: Double) {
        let id = allocateID()
        send(WireMessage(objectID: 1, opcode: 0, arguments: [.newID(id)]), describing: "wl_display@1.sync(new wl_callback@\(id))")
        if let callback = model["wl_callback"] { register(id: id, interface: callback, version: 1) }
        phase = .waiting(callback: id, since: now)
        // An abrupt ending leaves before the compositor answers the last step.
        if remaining == 0, profile.ending == .abrupt { finish(.completed, now: now) }
    }

    func allocateID() -> UInt32 {
        defer { nextID += 1 }
        return nextID
    }

    func register(id: UInt32, interface: Interface, version: UInt32, creation: [String: Int64] = [:]) {
        objects[id] = Object(interface: interface, version: version, creation: creation)
        live[interface.name, default: []].append(id)
        recent.append(id)
        if recent.count > 4 { recent.removeFirst() }
    }

    func retire(_ id: UInt32) {
        guard let name = objects[id]?.interface.name else { return }
        objects[id]?.alive = false
        live[name]?.removeAll { $0 == id }
        recent.removeAll { $0 == id }
    }

    func send(_ message: WireMessage, describing description: String) {
        let (bytes, fds) = message.encoded()
        sendRaw(bytes, fds: fds, describing: description)
    }

    func sendRaw(_ bytes: [UInt8], fds: [Int32], describing description: String) {
        socket.enqueue(bytes, fds: fds)
        requestsSent += 1
        note(description)
    }

    func note(_ line: String) {
        history.append(line)
        if history.count > Self.historyLength { history.removeFirst() }
        trace?("  \(iteration): \(line)")
    }

    // MARK: Events

    /// Reads what the compositor sent and follows it; the session finishes when the compositor
    /// closes the connection.
    func receive(now: Double) {
        while !isFinished {
            switch socket.receive() {
            case .wouldBlock:
                return
            case .closed:
                return finish(lastError.map(Outcome.protocolError) ?? .closedByCompositor, now: now)
            case .bytes(let bytes):
                framer.append(bytes)
                do {
                    while let (objectID, opcode, body) = try framer.next() { handleEvent(objectID: objectID, opcode: opcode, body: body) }
                } catch {
                    return finish(.protocolError("undecodable event stream: \(error)"), now: now)
                }
            }
        }
    }

    private var lastError: String?

    private func handleEvent(objectID: UInt32, opcode: UInt16, body: ArraySlice<UInt8>) {
        // Events for ids the session never made, or of opcodes its model lacks, are skipped.
        guard let object = objects[objectID], Int(opcode) < object.interface.events.count else { return }
        let event = object.interface.events[Int(opcode)]
        guard let values = try? WireMessage.decodeArguments(body, as: event) else { return }
        trace?("  \(iteration): <- \(object.interface.name)@\(objectID).\(event.name)(\(values.map(describe).joined(separator: ", ")))")
        track(event: event, on: objectID, values: values)
        switch (object.interface.name, event.name) {
        case ("wl_display", "error"):
            if case .object(let culprit) = values[0], case .uint(let code) = values[1], case .string(let text) = values[2] {
                let name = objects[culprit]?.interface.name ?? "?"
                lastError = "\(name)@\(culprit) error \(code): \(String(decoding: text ?? [], as: UTF8.self))"
            }
        case ("wl_registry", "global"):
            if case .uint(let name) = values[0], case .string(let interface?) = values[1], case .uint(let version) = values[2] {
                globals[name] = (String(decoding: interface, as: UTF8.self), version)
            }
        case ("wl_registry", "global_remove"):
            if case .uint(let name) = values[0] { globals[name] = nil }
        case ("wl_callback", "done"):
            if case .waiting(objectID, _) = phase { phase = .ready }
        default:
            break
        }
        for (argument, value) in zip(event.arguments, values) {
            switch value {
            case .newID(let id):
                if let name = argument.interface, let interface = model[name] { register(id: id, interface: interface, version: object.version) }
            case .uint(let number):
                remember(number, as: announcementKey(argument, in: object.interface))
                if argument.name == "serial" { objects[objectID]?.serials.append(number) }
            case .int(let number):
                remember(UInt32(bitPattern: number), as: announcementKey(argument, in: object.interface))
            default:
                break
            }
        }
        // A ping is answered at once, as every client must; no draw from the stream, so the
        // session's choices stay the same whenever the ping comes.
        if event.name == "ping", case .uint(let serial) = values.first,
           let pong = object.interface.requests.firstIndex(where: { $0.name == "pong" }) {
            send(WireMessage(objectID: objectID, opcode: UInt16(pong), arguments: [.uint(serial)]),
                 describing: "\(object.interface.name)@\(objectID).pong(\(serial))")
        }
    }

    /// Values events announce are offered again to requests' arguments of the same enum
    /// (wl_shm.format), or of the same name where there is none (a global's name, a dma-buf format).
    func announcementKey(_ argument: Argument, in interface: Interface) -> String {
        guard let reference = argument.enumeration else { return argument.name }
        return reference.contains(".") ? reference : interface.name + "." + reference
    }

    private func remember(_ value: UInt32, as name: String) {
        var values = announced[name, default: []]
        guard !values.contains(value) else { return }
        values.append(value)
        if values.count > 64 { values.removeFirst() }
        announced[name] = values
    }

    func describe(_ value: WireValue) -> String {
        switch value {
        case .int(let number): "\(number)"
        case .uint(let number): "\(number)"
        case .fixed(let raw): "fixed(\(raw))"
        case .string(nil): "null"
        case .string(let bytes?):
            bytes.count > 40 || String(validating: bytes, as: UTF8.self) == nil
                ? "string(\(bytes.count) bytes\(String(validating: bytes, as: UTF8.self) == nil ? ", not UTF-8" : ""))"
                : "\"\(String(decoding: bytes, as: UTF8.self))\""
        case .object(0): "null"
        case .object(let id): "\(objects[id]?.interface.name ?? "unknown")@\(id)"
        case .newID(let id): "new \(objects[id]?.interface.name ?? "")@\(id)"
        case .untypedNewID(let interface, let version, let id): "new \(interface) v\(version) @\(id)"
        case .array(let bytes): "array(\(bytes.count) bytes)"
        // By the session's own count, not the process's number, which depends on what else the
        // process has open: a replay describes the same requests the same way.
        case .fd(let fd):
            if let index = descriptors.open.firstIndex(where: { $0.descriptor.rawValue == fd }) {
                "fd #\(index): \(descriptors.open[index].kind)"
            } else {
                "fd \(fd)"
            }
        }
    }
}
