import WaylandProtocolModel

/// Goal-directed steps: a share of sessions first works toward one request deep in the protocol's
/// state machine (xdg_surface.get_popup on a mapped parent, wl_pointer.set_cursor, a viewport's
/// destination on a mapped surface), then fuzzes from there. The way there is planned from the
/// model, not scripted per interface: an object comes from a request whose new_id makes it
/// (globals from wl_registry.bind), after the objects that request takes; objects given as
/// arguments are set up first (their requests that make nothing, in declared order); a surface that
/// a request gives a role to is one without a role, and every other object bound to a surface is
/// mapped first: given a role (and the role's own object, a toplevel or a popup), committed,
/// configured, acknowledged, given a buffer and committed again. Requests on the way carry
/// plausible values, but for the goal request itself and a set-up object's optional setters,
/// which have the session's usual mix; fuzzing goes on from the goal with the same mix.
extension FuzzSession {
    struct Goal {
        var interface: String
        var opcode: Int
        /// Orders the ways to make an object, the same way for the whole goal, so that the
        /// planner keeps to the path it started on.
        var salt: UInt64
        /// Set once the goal request went out: the objects it took and made, which are mapped next.
        var involved: [UInt32]?
        var requests = 0
        var waits = 0
    }

    /// What an object argument needs to be.
    enum Use {
        /// A surface without a role, or an object that made nothing yet (an xdg_surface without its
        /// toplevel, buffer parameters not used), set up.
        case fresh
        /// Bound to a surface that is mapped, as is its parent.
        case mapped
        /// Bound to a surface without a buffer yet (mapped after the request).
        case unmapped
        /// Any, set up.
        case setUp
    }

    /// The next request toward a goal, or why there is none.
    enum Plan: Equatable {
        case ready(UInt32)
        /// A request on the way; `hostile` when its values may be the session's hostile ones.
        case send(id: UInt32, opcode: Int, fixed: [Int: WireValue], global: UInt32? = nil, hostile: Bool = false)
        /// The goal's own request (the same request may also come on the way, for a parent), with
        /// the session's usual mix of values: what it sets (a window geometry, a positioner's
        /// offset) meets what comes after (a popup placed against it).
        case goalRequest(id: UInt32, fixed: [Int: WireValue])
        /// Nothing to send until an event comes (a configure).
        case wait
        case impossible
    }

    /// What one plan carries down its recursion.
    struct PlanContext {
        /// The goal's: orders the ways to one object the same way for the whole goal.
        var salt: UInt64
        /// Surfaces being mapped further up, which cannot be their own parents.
        var mapping: Set<UInt32> = []
    }

    /// How deep a plan may nest objects it needs, and how many it may consider for one request:
    /// bounds on the planner's work, whatever the session built.
    static let planDepth = 16
    static let planBudget = 400
    /// Requests and waits a goal may take before it is given up.
    static let goalRequestLimit = 80
    static let goalWaitLimit = 4

    // MARK: Choosing and pursuing goals

    /// Starts the next goal when one is due: the first right after the globals, the others once
    /// the session has fuzzed its share of requests since the last.
    func startGoalIfDue() -> Bool {
        guard goal == nil, goalsLeft > 0, fuzzedSinceGoal >= fuzzQuota else { return false }
        let candidates = goalCandidates()
        guard !candidates.isEmpty else {
            goalsLeft = 0
            return false
        }
        let chosen = candidates[random.weightedIndex(candidates.map(\.weight))]
        goalsLeft -= 1
        goalsStarted += 1
        goal = Goal(interface: chosen.interface, opcode: chosen.opcode, salt: random.next())
        note("(goal: \(chosen.interface).\(model[chosen.interface]!.requests[chosen.opcode].name))")
        return true
    }

    /// Up to six requests toward the goal, fewer when it must wait for an event or is over.
    func pursueGoal() {
        defer { careful = false }
        for _ in 0..<6 {
            guard var current = goal else { return }
            bufferSize = nil
            planBudget = Self.planBudget
            careful = true
            let plan = nextGoalRequest(current)
            current.requests += 1
            switch plan {
            case .send(let id, let opcode, let fixed, let global, let hostile):
                careful = !hostile
                sendRequest(on: id, opcode: opcode, name: global, fixed: fixed)
                // A global announces what its requests may take (wl_shm's formats) once bound.
                if global != nil {
                    goal = current
                    return
                }
            case .goalRequest(let id, let fixed):
                careful = false
                let made = sendRequest(on: id, opcode: current.opcode, fixed: fixed)
                current.involved = [id] + fixed.values.compactMap { if case .object(let other) = $0, other != 0 { other } else { nil } } + made
            case .wait:
                current.waits += 1
            case .ready:
                finishGoal(reached: true)
                return
            case .impossible:
                finishGoal(reached: false)
                return
            }
            if current.requests > Self.goalRequestLimit || current.waits > Self.goalWaitLimit {
                goal = current
                finishGoal(reached: false)
                return
            }
            goal = current
            if plan == .wait { return }
        }
    }

    private func finishGoal(reached: Bool) {
        if reached {
            goalsReached += 1
            // Fuzzing goes on around what the goal built.
            recent = Array((goal?.involved ?? []).filter { objects[$0]?.alive == true }.suffix(4))
        }
        note("(goal \(reached ? "reached" : "given up"))")
        goal = nil
        fuzzedSinceGoal = 0
        // A few fuzzed requests between goals: the next goal builds on what this one left (a
        // popup of the popup, on a positioner given a hostile offset), before fuzzing wears it down.
        fuzzQuota = random.below(9)
    }

    /// The goal request once its receiver and arguments are ready; then each surface it involved
    /// mapped.
    private func nextGoalRequest(_ goal: Goal) -> Plan {
        let context = PlanContext(salt: goal.salt)
        guard let involved = goal.involved else {
            let request = model[goal.interface]!.requests[goal.opcode]
            let makes = request.arguments.contains { $0.kind == .newID }
            // A client has a window before anything else (text input needs a focused surface, a
            // cursor the serial of the pointer's enter). Where the request itself needs one
            // mapped, that is the window: a second plan for one would take over its surfaces.
            if receiverUse(goal.interface, making: makes) != .mapped, !needsMapped(goal.interface, goal.opcode) {
                let window = obtain("wl_surface", .mapped, context: context, depth: 0)
                guard case .ready = window else { return window }
            }
            let plan = planRequest(goal.interface, goal.opcode, receiverUse: receiverUse(goal.interface, making: makes), context: context,
                                   depth: 0, isGoal: true)
            // A receiver that gets enter events (a pointer, a text input) is given a round trip
            // for one first: its requests answer the focus (a cursor needs enter's serial).
            if case .goalRequest(let id, _) = plan, let object = objects[id], !object.entered, !object.waitedForEnter,
               object.interface.events.contains(where: { $0.name == "enter" }) {
                objects[id]?.waitedForEnter = true
                return .wait
            }
            return plan
        }
        for id in involved {
            guard let object = objects[id], object.alive, let surface = object.surface, surfaces[surface] != nil else { continue }
            let plan = map(surface, context: context, depth: 0)
            if case .ready = plan { continue }
            return plan
        }
        return .ready(involved.first ?? 0)
    }

    /// Requests of the interfaces the compositor's globals lead to, weighted by what it takes to
    /// send them: the objects to make on the way and the surfaces to map.
    private func goalCandidates() -> [(interface: String, opcode: Int, weight: Double)] {
        var candidates: [(interface: String, opcode: Int, weight: Double)] = []
        for name in servedVersions.keys.sorted() where !["wl_display", "wl_registry", "wl_callback"].contains(name) {
            guard let interface = model[name] else { continue }
            var requests: [(opcode: Int, cost: Double)] = []
            for (opcode, request) in interface.requests.enumerated() where !request.isDestructor && request.since <= servedVersions[name]! {
                let cost = requestCost(name, opcode)
                if cost.isFinite { requests.append((opcode, cost)) }
            }
            // Each interface weighs its dearest request, shared among its requests by cost: an
            // interface with many requests (text input) is as likely as one with few (a popup).
            let total = requests.map(\.cost).reduce(0, +)
            let weight = requests.map(\.cost).max() ?? 0
            candidates += requests.map { (name, $0.opcode, weight * $0.cost / total) }
        }
        return candidates
    }

    /// Requests it takes to map a surface, about: a buffer, its attachment, commits, the acknowledgement.
    static let mappingCost = 6.0

    /// About how many requests it takes to get an object of each interface the compositor's
    /// globals lead to: a global one (the bind), others one more than their cheapest maker's
    /// receiver and arguments.
    func updateCosts() {
        costs = [:]
        for global in globals.values { costs[global.interface] = 1 }
        for _ in 0..<12 {
            var changed = false
            for name in servedVersions.keys.sorted() where costs[name] != 1 {
                for maker in model.makers(of: name) where servedVersions[maker.interface] != nil {
                    let cost = 1 + requestCost(maker.interface, maker.opcode)
                    if cost < costs[name] ?? .infinity {
                        costs[name] = cost
                        changed = true
                    }
                }
            }
            if !changed { break }
        }
    }

    /// What a request takes: its receiver and object arguments, each mapped where it must be.
    private func requestCost(_ interface: String, _ opcode: Int) -> Double {
        guard let request = model[interface]?.requests[opcode], let receiverCost = costs[interface] else { return .infinity }
        let makes = request.arguments.contains { $0.kind == .newID }
        var cost = receiverCost + (receiverUse(interface, making: makes) == .mapped ? Self.mappingCost : 0)
        for (index, argument) in request.arguments.enumerated() where argument.kind == .object {
            guard let other = argument.interface, let argumentCost = costs[other] else { return .infinity }
            // A surface given a role is mapped after the request (a cursor's), others before.
            cost += argumentCost + (use(of: argument, at: index, in: request, on: interface) != .setUp ? Self.mappingCost : 0)
        }
        return cost
    }

    /// Ways to the same end (requests that make a buffer, give a surface a role) in the goal's
    /// order: the cheapest mostly, each one's cost scaled by a factor of one to four the salt
    /// draws, so that a goal now and then takes a dearer way (a dma-buf); while a buffer of a
    /// configured size is wanted, those that take a width and a height first.
    private func ordered(_ ways: [(interface: String, opcode: Int)], context: PlanContext) -> [(interface: String, opcode: Int)] {
        func key(_ way: (interface: String, opcode: Int)) -> Double {
            let arguments = model[way.interface]!.requests[way.opcode].arguments.map(\.name)
            let sized = bufferSize == nil || arguments.contains("width") && arguments.contains("height")
            return requestCost(way.interface, way.opcode) * Double(1 + Self.mix(context.salt, way.interface, way.opcode) % 4) * (sized ? 1 : 16)
        }
        return ways.sorted { key($0) < key($1) }
    }

    // MARK: Planning

    /// An object of `interface` (at `version` or later) as `use` needs it, or the next request
    /// toward one.
    func obtain(_ interface: String, _ use: Use, version: UInt32 = 1, context: PlanContext, depth: Int, avoiding: Set<UInt32> = [],
                preferring: [UInt32] = [], nested: Bool = false) -> Plan {
        planBudget -= 1
        guard depth < Self.planDepth, planBudget > 0 else { return .impossible }
        let pool = (live[interface] ?? []).filter {
            !avoiding.contains($0) && !context.mapping.contains($0) && objects[$0]!.version >= version
        }
        // Objects the session made on a goal's way are likelier to work than the fuzzed ones.
        let careful = pool.filter { objects[$0]?.madeCarefully == true || objects[$0]?.isGlobal == true }
        var candidates = careful.isEmpty ? pool : careful
        // Preferred ones last: the newest candidate is taken first.
        candidates = candidates.filter { !preferring.contains($0) } + candidates.filter(preferring.contains)
        switch use {
        case .fresh:
            let isSurface = interface == "wl_surface"
            if let id = candidates.last(where: { isSurface ? surfaces[$0]?.hasRole == false : objects[$0]?.firstChild == nil }) {
                return isSurface || model.surfaceBound.contains(interface) ? .ready(id) : setUp(id)
            }
        case .mapped:
            let unclaimed = candidates.filter { objects[$0]?.surface.map(context.mapping.contains) == false }
            // One with a parent when `nested`: whose role is still to be chosen, or has one.
            let fitting = nested ? unclaimed.filter { id in
                guard let surface = objects[id]?.surface, let state = surfaces[surface] else { return false }
                return parentSurface(of: surface) != nil || !state.hasRole || state.roleObject.flatMap { objects[$0]?.firstChild } == nil
            } : unclaimed
            // The newest shown (a popup's parent is the last popup), or the oldest on its way there.
            let shown = fitting.filter { isShown(objects[$0]!.surface!) }
            if let id = shown.last(where: { !nested || parentSurface(of: objects[$0]!.surface!) != nil }) { return .ready(id) }
            // Those further on their way (with a role) first.
            let mappable = fitting.filter { canMap($0) && !shown.contains($0) }
            let started = mappable.filter { objects[$0]?.surface.flatMap { surfaces[$0]?.hasRole } == true }
            for id in started + mappable.filter({ !started.contains($0) }) {
                switch map(objects[id]!.surface!, context: context, depth: depth, nested: nested) {
                case .impossible: continue
                case .ready: return .ready(id)
                case let plan: return plan
                }
            }
        case .unmapped:
            if let id = candidates.last(where: { id in
                canMap(id) && objects[id]?.surface.flatMap { surfaces[$0] }.map { !$0.hasBuffer && $0.attached == nil } == true
            }) {
                return .ready(id)
            }
        case .setUp:
            // Fuzzed objects are not set up by a goal (a positioner without a size).
            if let id = candidates.last(where: careful.contains) { return setUp(id) }
        }
        return make(interface, version: version, context: context, depth: depth)
    }

    private func canMap(_ id: UInt32) -> Bool {
        guard objects[id]?.alive == true, let surface = objects[id]?.surface, let state = surfaces[surface] else { return false }
        return !state.defunct && objects[surface]?.alive == true
    }

    /// The object's next setter (a request that makes nothing, takes no object, not sent yet), in
    /// the order the protocol declares them: the first two always, with plausible values, each
    /// later one by chance with the session's usual mix, so that a positioner gets its size and
    /// anchor rectangle and now and then its gravity, an offset (hostile now and then)…
    /// A request that does what one making an object does, without the object (buffer
    /// parameters' create beside create_immed), is no setter: the parameters are used once.
    private func setUp(_ id: UInt32) -> Plan {
        guard let object = objects[id], !object.isGlobal, !model.surfaceBound.contains(object.interface.name), !object.setUpDone else {
            return .ready(id)
        }
        let makerArguments = object.interface.requests.filter { $0.arguments.contains { $0.kind == .newID } }.map { Set($0.arguments.map(\.name)) }
        let setters = object.interface.requests.indices.filter { opcode in
            let request = object.interface.requests[opcode]
            return !request.isDestructor && request.since <= object.version
                && !request.arguments.contains { $0.kind == .newID || $0.kind == .object }
                && !makerArguments.contains { Set(request.arguments.map(\.name)).isSubset(of: $0) }
        }
        let sent = setters.filter { object.sent[$0] != nil }.count
        guard let next = setters.first(where: { object.sent[$0] == nil }), sent < 2 || random.chance(0.6) else {
            objects[id]?.setUpDone = true
            return .ready(id)
        }
        return .send(id: id, opcode: next, fixed: [:], hostile: sent >= 2)
    }

    /// The next request toward a new object of `interface`: binding its global, or a request that
    /// makes one (see ordered).
    private func make(_ interface: String, version: UInt32, context: PlanContext, depth: Int) -> Plan {
        if let name = globals.keys.sorted().first(where: { globals[$0]!.interface == interface }) {
            guard globals[name]!.version >= version else { return .impossible }
            guard let registry = live["wl_registry"]?.first,
                  let bind = objects[registry]?.interface.requests.firstIndex(where: { $0.name == "bind" }) else { return .impossible }
            return .send(id: registry, opcode: bind, fixed: [:], global: name)
        }
        let makers = model.makers(of: interface).filter { maker in
            servedVersions[maker.interface].map { model[maker.interface]!.requests[maker.opcode].since <= $0 } == true
        }
        for maker in ordered(makers, context: context) {
            let plan = planRequest(maker.interface, maker.opcode, version: version, receiverUse: receiverUse(maker.interface, making: true),
                                   context: context, depth: depth)
            if plan != .impossible { return plan }
        }
        return .impossible
    }

    /// The request once its receiver (at the request's version, or `version`: what it makes has
    /// the receiver's) and every object argument are ready, or the next request toward them.
    func planRequest(_ interface: String, _ opcode: Int, receiver: UInt32? = nil, fixed: [Int: WireValue] = [:], version: UInt32 = 1,
                     receiverUse: Use, context: PlanContext, depth: Int, isGoal: Bool = false) -> Plan {
        guard depth < Self.planDepth, let request = model[interface]?.requests[opcode] else { return .impossible }
        let makes = request.arguments.contains { $0.kind == .newID }
        var fixed = fixed
        var taken = Set(fixed.values.compactMap { if case .object(let id) = $0 { id } else { nil } })
        if let receiver { taken.insert(receiver) }

        func argument(_ index: Int, relatives: [UInt32]) -> Plan? {
            let argument = request.arguments[index]
            guard let name = argument.interface else { return nil }
            var use = use(of: argument, at: index, in: request, on: interface)
            // What a request makes for a surface (a viewport, a decoration) is made before the
            // surface is mapped as often as after: clients add them as they build a window.
            if use == .mapped, makes, argument.name != "parent", Self.mix(context.salt, "unmapped " + interface, opcode) % 2 == 0 {
                use = .unmapped
            }
            let related = relatives.compactMap { objects[$0]?.interface.name == name ? $0 : name == "wl_surface" ? objects[$0]?.surface : nil }
            // What a request makes for an object it makes once (a toplevel has one decoration).
            let argumentUse = "\(interface).\(request.name).\(argument.name)"
            let given = makes ? Set((live[name] ?? []).filter { objects[$0]?.usedAs.contains(argumentUse) == true }) : []
            // A goal's parent is, as often as not, one that has a parent itself (a popup of a
            // popup, a subsurface of a subsurface); deeper down, parents are roots.
            let nested = argument.name == "parent" && context.mapping.isEmpty && canNest(name, context: context)
                && Self.mix(context.salt, "nested " + interface, index) % 2 == 0
            let plan = obtain(name, use, context: context, depth: depth + 1, avoiding: taken.union(given), preferring: related,
                              nested: nested)
            guard case .ready(let id) = plan else { return plan }
            fixed[index] = .object(id)
            taken.insert(id)
            return nil
        }

        // A parent first: built for this request, it is not the receiver (a popup's parent is
        // mapped before the popup's xdg_surface is made).
        let objectArguments = request.arguments.indices.filter { request.arguments[$0].kind == .object && fixed[$0] == nil }
        for index in objectArguments where request.arguments[index].name == "parent" {
            if let plan = argument(index, relatives: []) { return plan }
        }
        let receiverID: UInt32
        if let receiver {
            receiverID = receiver
        } else {
            let plan = obtain(interface, receiverUse, version: max(version, request.since), context: context, depth: depth + 1, avoiding: taken)
            guard case .ready(let id) = plan else { return plan }
            receiverID = id
            taken.insert(id)
        }
        // The other arguments favour the receiver's relatives: what its creation named as parent,
        // and what was made with the same parent (a subsurface is placed above its parent or a
        // sibling).
        var relatives: [UInt32] = []
        if let parent = objects[receiverID]?.parent {
            relatives = [parent] + objects.keys.sorted().filter { $0 != receiverID && objects[$0]?.alive == true && objects[$0]?.parent == parent }
        }
        for index in objectArguments where fixed[index] == nil {
            if let plan = argument(index, relatives: relatives) { return plan }
        }
        return isGoal ? .goalRequest(id: receiverID, fixed: fixed) : .send(id: receiverID, opcode: opcode, fixed: fixed)
    }


    /// What a request's receiver needs: a global is bound; an object bound to a surface is mapped,
    /// unless the request makes its role's object (an xdg_surface's toplevel: one that made none);
    /// others made nothing yet (buffer parameters are used once) when the request makes something.
    private func receiverUse(_ interface: String, making: Bool) -> Use {
        if model.surfaceBound.contains(interface) {
            return making && model.makers(of: interface).contains { model.givesRoles($0.interface) } ? .fresh : .mapped
        }
        return making ? .fresh : .setUp
    }

    /// What an object argument needs: the surface a request gives a role to has none; other
    /// objects bound to a surface are mapped (a popup's parent, a viewport's surface); the rest
    /// are set up.
    private func use(of argument: Argument, at index: Int, in request: Message, on interface: String) -> Use {
        guard let name = argument.interface else { return .setUp }
        if name == "wl_surface", model.givesRoles(interface), ["surface", "icon"].contains(argument.name) { return .fresh }
        return model.surfaceBound.contains(name) ? .mapped : .setUp
    }

    /// The next request toward showing the surface: a role (and its role object), the first
    /// commit, the configure's acknowledgement, a buffer, the commit that maps it, and its
    /// parent's commit (a subsurface's state applies with its parent's).
    func map(_ surface: UInt32, context: PlanContext, depth: Int, nested: Bool = false) -> Plan {
        guard depth < Self.planDepth, !context.mapping.contains(surface), let state = surfaces[surface], !state.defunct,
              objects[surface]?.alive == true else { return .impossible }
        if isShown(surface) { return .ready(surface) }
        // A surface mapped for another (a parent) takes a role that needs no other mapped surface
        // (a toplevel rather than a subsurface or a popup), or the chain would never end.
        let rooted = !context.mapping.isEmpty
        var context = context
        context.mapping.insert(surface)
        guard let commit = opcode("commit", of: surface), let attach = opcode("attach", of: surface) else { return .impossible }
        if !state.hasRole {
            for maker in nestedFirst(roleMakers(context: context), nested) where !rooted || !needsMapped(maker.interface, maker.opcode) {
                guard let index = model[maker.interface]!.requests[maker.opcode].arguments.firstIndex(where: {
                    $0.interface == "wl_surface" && $0.name == "surface" }) else { continue }
                let plan = planRequest(maker.interface, maker.opcode, fixed: [index: .object(surface)],
                                       receiverUse: receiverUse(maker.interface, making: true), context: context, depth: depth)
                if plan != .impossible { return plan }
            }
            return .impossible
        }
        if let role = state.roleObject, let object = objects[role], object.alive, object.firstChild == nil {
            let makers = object.interface.requests.indices.filter { opcode in
                let request = object.interface.requests[opcode]
                return !request.isDestructor && request.since <= object.version && request.arguments.contains { $0.kind == .newID }
            }
            for maker in nestedFirst(shuffled(makers.map { (object.interface.name, $0) }, context: context), nested)
            where !rooted || !needsMapped(maker.interface, maker.opcode) {
                let plan = planRequest(maker.interface, maker.opcode, receiver: role, receiverUse: .fresh, context: context, depth: depth)
                if plan != .impossible { return plan }
            }
        }
        if !state.committedWithRole { return .send(id: surface, opcode: commit, fixed: [:]) }
        if expectsConfigure(surface), !state.configured { return .wait }
        if let pending = state.unacknowledged, let object = objects[pending.object], object.alive,
           let ack = object.interface.requests.firstIndex(where: { $0.name.hasPrefix("ack_") }),
           let serial = object.interface.requests[ack].arguments.firstIndex(where: { $0.name == "serial" }) {
            return .send(id: pending.object, opcode: ack, fixed: [serial: .uint(pending.serial)])
        }
        if !state.mapped {
            if state.attached == true || state.attached == nil && state.hasBuffer { return .send(id: surface, opcode: commit, fixed: [:]) }
            // The size the configure asked for, from a request that takes a size (a fullscreen
            // buffer can be scanned out, a window the size of the output has the pointer).
            bufferSize = state.configuredSize
            let plan = obtain("wl_buffer", .setUp, context: context, depth: depth + 1, avoiding: Set(live["wl_buffer", default: []].filter {
                guard let size = state.configuredSize, let creation = objects[$0]?.creation else { return false }
                return creation["width"] != Int64(size.width) || creation["height"] != Int64(size.height)
            }))
            guard case .ready(let buffer) = plan else { return plan }
            // Since wl_surface version 5 the attachment's offset must be zero.
            return .send(id: surface, opcode: attach, fixed: [0: .object(buffer), 1: .int(0), 2: .int(0)])
        }
        guard let parent = parentSurface(of: surface) else { return .impossible }
        if !isShown(parent) { return map(parent, context: context, depth: depth + 1) }
        if (surfaces[parent]?.lastCommit ?? 0) < state.lastCommit { return .send(id: parent, opcode: commit, fixed: [:]) }
        return .impossible
    }

    /// Requests that give a surface a role by making an object for it (xdg_wm_base.get_xdg_surface,
    /// wl_subcompositor.get_subsurface), in the goal's order (see shuffled).
    private func roleMakers(context: PlanContext) -> [(interface: String, opcode: Int)] {
        var makers: [(interface: String, opcode: Int)] = []
        for name in servedVersions.keys.sorted() where model.givesRoles(name) {
            for (opcode, request) in model[name]!.requests.enumerated() where request.since <= servedVersions[name]!
                && request.arguments.contains(where: { $0.kind == .newID })
                && request.arguments.contains(where: { $0.interface == "wl_surface" && $0.name == "surface" }) {
                makers.append((name, opcode))
            }
        }
        return shuffled(makers, context: context)
    }

    /// Roles in an order the goal's salt draws: any of them as likely, whatever it costs (a
    /// window that is a popup of a toplevel, or a subsurface of one).
    private func shuffled(_ ways: [(interface: String, opcode: Int)], context: PlanContext) -> [(interface: String, opcode: Int)] {
        ways.sorted { Self.mix(context.salt, $0.interface, $0.opcode) < Self.mix(context.salt, $1.interface, $1.opcode) }
    }

    /// Whether an object of `interface` can hang from another mapped one: a wl_surface as a
    /// subsurface, an xdg_surface as a popup (an xdg_toplevel gets its parent only later).
    private func canNest(_ interface: String, context: PlanContext) -> Bool {
        let ways = interface == "wl_surface" ? roleMakers(context: context)
            : model[interface]!.requests.indices.filter { model[interface]!.requests[$0].arguments.contains { $0.kind == .newID } }.map { (interface, $0) }
        return ways.contains { needsMapped($0.interface, $0.opcode) }
    }

    /// Roles that hang from another mapped surface (a popup, a subsurface) first when `nested`.
    private func nestedFirst(_ ways: [(interface: String, opcode: Int)], _ nested: Bool) -> [(interface: String, opcode: Int)] {
        nested ? ways.filter { needsMapped($0.interface, $0.opcode) } + ways.filter { !needsMapped($0.interface, $0.opcode) } : ways
    }

    /// Whether a request takes an object that must be mapped first (a subsurface's parent).
    private func needsMapped(_ interface: String, _ opcode: Int) -> Bool {
        let request = model[interface]!.requests[opcode]
        return request.arguments.indices.contains { request.arguments[$0].kind == .object && use(of: request.arguments[$0], at: $0, in: request, on: interface) == .mapped }
    }

    private func opcode(_ name: String, of id: UInt32) -> Int? { objects[id]?.interface.requests.firstIndex { $0.name == name } }

    /// A number the goal's salt and a choice's name draw, the same whenever the planner asks
    /// again (FNV-1a, then SplitMix64's finalizer so that its low bits are mixed too).
    static func mix(_ salt: UInt64, _ choice: String, _ index: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ salt
        for byte in choice.utf8 + [UInt8(truncatingIfNeeded: index)] {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
        hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
        return hash ^ (hash >> 31)
    }
}
