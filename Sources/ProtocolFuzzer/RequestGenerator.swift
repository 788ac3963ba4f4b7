import WaylandProtocolModel
import Foundation

/// How a session draws its requests from the model: which object and request, then each argument,
/// plausible (what a careful client would send) or hostile (what the compositor must survive).
/// Only a few hints by argument name (sizes, strides, offsets, positions, serials, formats) shape
/// the plausible values; everything else comes from the argument's type, enum and nullability.
extension FuzzSession {
    /// One action: usually a request, sometimes malformed, sometimes memory the session passed
    /// shrunk under the compositor.
    func act() {
        if random.chance(0.005 + profile.hostility * 0.1),
           let line = descriptors.shrinkOne(choosing: { random.below($0) }, to: { random.pick([0, 1, $0 / 2]) }) {
            return note(line)
        }
        guard let (id, opcode) = chooseRequest() else { return }
        sendRequest(on: id, opcode: opcode)
    }

    func bindChosenGlobals() {
        for global in globals.values {
            for name in model.reachable(from: global.interface) { servedVersions[name] = max(servedVersions[name] ?? 0, global.version) }
        }
        updateCosts()
        let globals = chooseGlobals()
        chosen = globals
        guard let registry = live["wl_registry"]?.first,
              let bind = objects[registry]?.interface.requests.firstIndex(where: { $0.name == "bind" }) else { return }
        for name in globals { sendRequest(on: registry, opcode: bind, name: name) }
    }

    /// Clients set an object up right after making it (a positioner's size, anchor rectangle and
    /// gravity; a region's rectangles): half the time a new object with several requests that make
    /// nothing gets its next two to five requests, all different.
    private func setUp(_ id: UInt32) {
        guard let object = objects[id], !object.isGlobal, random.chance(0.5) else { return }
        let setters = object.interface.requests.filter { !$0.isDestructor && !$0.arguments.contains { $0.kind == .newID } }
        guard setters.count >= 3 else { return }
        settingUp.append((id, random.inRange(2...min(5, setters.count))))
    }

    /// A few globals, and for each interface their requests take as an argument, one global whose
    /// objects lead to it: a session that binds xdg_wm_base also binds wl_compositor for the
    /// surfaces it takes, and one of the globals that make buffers for those surfaces. A session
    /// spread over every global would rarely build anything deep enough to matter.
    private func chooseGlobals() -> [UInt32] {
        let names = globals.keys.sorted()
        guard !names.isEmpty else { return [] }
        var chosen: [UInt32] = (0..<1 + random.below(3)).map { _ in random.pick(names) }
        var reachable = chosen.reduce(into: Set<String>()) { $0.formUnion(model.reachable(from: globals[$1]!.interface)) }
        while let missing = model.arguments(of: reachable).subtracting(reachable).sorted().first {
            let providers = names.filter { model.reachable(from: globals[$0]!.interface).contains(missing) }
            reachable.insert(missing)
            guard !providers.isEmpty else { continue }
            let provider = random.pick(providers)
            chosen.append(provider)
            reachable.formUnion(model.reachable(from: globals[provider]!.interface))
        }
        var unique: [UInt32] = []
        for name in chosen where !unique.contains(name) { unique.append(name) }
        return unique
    }

    /// Sends one request with drawn arguments (`name` fixes wl_registry.bind's global, `fixed` the
    /// arguments at those indices); returns the objects it made.
    @discardableResult
    func sendRequest(on id: UInt32, opcode: Int, name: UInt32? = nil, fixed: [Int: WireValue] = [:]) -> [UInt32] {
        guard let object = objects[id] else { return [] }
        let message = object.interface.requests[opcode]
        var draft = Draft()
        draft.global = name
        draft.objects = [id]
        for (index, value) in fixed {
            guard case .object(let taken) = value else { continue }
            draft.objects.insert(taken)
            objects[taken]?.usedAs.insert("\(object.interface.name).\(message.name).\(message.arguments[index].name)")
        }
        // Descriptors last: their memory is sized by the numbers after them (create_pool's size).
        for (index, argument) in message.arguments.enumerated() where argument.kind != .fd {
            draft.values.append(fixed[index] ?? value(for: argument, of: message, on: id, object, draft: &draft))
            if case .int(let number) = fixed[index] { draft.numbers[argument.name] = Int64(number) }
        }
        for (index, argument) in message.arguments.enumerated() where argument.kind == .fd {
            draft.values.insert(value(for: argument, of: message, on: id, object, draft: &draft), at: index)
        }
        let request = WireMessage(objectID: id, opcode: UInt16(opcode), arguments: draft.values)
        if !careful, random.chance(profile.malformed) {
            sendMalformed(request, message: message, interface: object.interface)
            return []
        }
        for (newID, interface, version) in draft.created {
            register(id: newID, interface: interface, version: version, creation: draft.numbers)
            objects[newID]?.isGlobal = object.interface.name == "wl_registry"
            objects[newID]?.madeCarefully = careful
            objects[id]?.children += 1
            if !careful { setUp(newID) }
        }
        track(message, on: id, values: draft.values, created: draft.created.map(\.id))
        if message.isDestructor { retire(id) }
        objects[id]?.sent[opcode, default: 0] += 1
        send(request, describing: "\(object.interface.name)@\(id).\(message.name)(\(draft.values.map(describe).joined(separator: ", ")))")
        return draft.created.map(\.id)
    }

    /// What the arguments drawn so far for one request imply for the next ones.
    struct Draft {
        var values: [WireValue] = []
        /// Numbers by argument name (a stride follows the width).
        var numbers: [String: Int64] = [:]
        /// The global wl_registry.bind is to bind, when the session decided it.
        var global: UInt32?
        /// The object the request goes to and those already given to it, so that arguments differ
        /// from them where they can (a subsurface's surface and parent, a toplevel's parent).
        var objects: Set<UInt32> = []
        var created: [(id: UInt32, interface: Interface, version: UInt32)] = []
        /// Whether this request's positions are all zero, once its first is drawn.
        var zeroPositions: Bool?
    }

    // MARK: Choosing the request

    private func chooseRequest() -> (id: UInt32, opcode: Int)? {
        var choices: [(id: UInt32, opcode: Int)] = []
        var weights: [Double] = []
        // A destroyed object now and then: a request after its destructor.
        let includeDead = random.chance(profile.hostility * 0.05)
        // An object being set up gets the next requests (see setUp), each a different one.
        if let (id, _) = settingUp.first, let object = objects[id], object.alive {
            settingUp[0].remaining -= 1
            if settingUp[0].remaining <= 0 { settingUp.removeFirst() }
            let setters = object.interface.requests.indices.filter { opcode in
                let request = object.interface.requests[opcode]
                return !request.isDestructor && request.since <= object.version && object.sent[opcode] == nil
                    && !request.arguments.contains { $0.kind == .newID } && requestWeight(request, opcode: opcode, on: id, object: object) > 0
            }
            // Earlier ones first, mostly: protocols declare what an object needs before the extras
            // (a positioner's size and anchor rectangle before its gravity and offset).
            if !setters.isEmpty { return (id, setters[random.weightedIndex(setters.indices.map { 1 / Double(1 + $0) })]) }
        }
        settingUp.removeAll { objects[$0.id]?.alive != true }
        for id in objects.keys.sorted() {
            guard let object = objects[id], object.alive || includeDead else { continue }
            let objectWeight = (recent.contains(id) ? 4.0 : 1.0) * (id == 1 ? 0.2 : 1)
            for (opcode, request) in object.interface.requests.enumerated() {
                let weight = objectWeight * requestWeight(request, opcode: opcode, on: id, object: object)
                guard weight > 0 else { continue }
                choices.append((id, opcode))
                weights.append(weight)
            }
        }
        return choices.isEmpty ? nil : choices[random.weightedIndex(weights)]
    }

    private func requestWeight(_ request: Message, opcode: Int, on id: UInt32, object: Object) -> Double {
        // Requests newer than the object's version, or lacking an object they need, only as hostile ones.
        if request.since > object.version { return profile.hostility * 0.2 }
        var weight = 1.0
        if request.isDestructor { weight *= 0.15 }
        if request.name == "commit" { weight *= 3 }
        // A request with a serial answers an event that carried one (xdg_surface.ack_configure).
        if request.arguments.contains(where: { $0.name == "serial" }) { weight *= object.serials.isEmpty ? 0.2 : 4 }
        // Many requests may be sent once per object: each repetition is less likely.
        weight *= max(0.15, pow(0.4, Double(object.sent[opcode, default: 0])))
        // A fresh object is mostly given a role or memory first (xdg_surface.get_toplevel,
        // zwp_linux_buffer_params_v1.add), as clients do.
        let creates = request.arguments.contains { $0.kind == .newID }
        if object.sent.isEmpty {
            if request.arguments.contains(where: { $0.kind == .fd }) { weight *= 6 }
            if creates { weight *= 3 }
        }
        // Globals make objects over and over; other objects mostly make one (a role, a buffer).
        if creates, !object.isGlobal, object.children > 0 { weight *= 0.3 }
        var needed: [String: Int] = [:]
        for argument in request.arguments {
            switch argument.kind {
            case .newID where argument.interface == nil:
                // wl_registry.bind: a session binds its globals first; more now and then.
                weight *= 0.3
            case .newID:
                if let name = argument.interface, live[name, default: []].isEmpty { weight *= 1.5 }
            case .object:
                // Enough distinct objects of the kind (a subsurface's surface and parent); a
                // nullable argument is mostly meant to get one too (a popup's parent).
                if let name = argument.interface {
                    needed[name, default: 0] += 1
                    let pool = live[name, default: []].filter { $0 != id }
                    if pool.count < needed[name]! {
                        if !argument.allowNull { return profile.hostility * 0.2 }
                        weight *= 0.1
                        continue
                    }
                    // Objects are mostly set up before they are used (a positioner's size and anchor).
                    if !pool.contains(where: { objects[$0]?.sent.count ?? 0 >= 2 }), !(objects[pool[0]]?.isGlobal ?? false) { weight *= 0.3 }
                }
            case .fd:
                weight *= 2
            default:
                break
            }
        }
        return weight
    }

    // MARK: Arguments

    /// On a goal's way (`careful`) values are plausible only.
    private func hostile() -> Bool { !careful && random.chance(profile.hostility) }

    /// Hostile values for what holds the session together (object ids, the registry) are rarer:
    /// a session that breaks those ends before it reaches anything else.
    private func hostileStructure() -> Bool { !careful && random.chance(profile.hostility * 0.2) }

    private func value(for argument: Argument, of message: Message, on id: UInt32, _ object: Object, draft: inout Draft) -> WireValue {
        switch argument.kind {
        case .int:
            let number = integer(for: argument, on: id, object, draft: &draft)
            return .int(Int32(truncatingIfNeeded: number))
        case .uint:
            let number = integer(for: argument, on: id, object, draft: &draft)
            return .uint(UInt32(truncatingIfNeeded: number))
        case .fixed:
            return .fixed(hostile() ? Int32(truncatingIfNeeded: hostileInteger()) : Int32(random.inRange(-64 * 256...704 * 256)))
        case .string:
            return .string(string(for: argument))
        case .array:
            let count = hostile() ? random.pick([3, 4093, 4096]) : 4 * random.below(9)
            return .array((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        case .fd:
            return .fd(descriptor(draft: draft))
        case .object:
            let use = "\(object.interface.name).\(message.name).\(argument.name)"
            let id = objectArgument(argument, for: use, avoiding: draft.objects)
            draft.objects.insert(id)
            objects[id]?.usedAs.insert(use)
            return .object(id)
        case .newID:
            if argument.interface == nil { return boundGlobal(draft: &draft) }
            return .newID(newObject(argument, version: object.version, draft: &draft))
        }
    }

    /// A number for an int or uint argument: an entry of its enum, a value the hints suggest, or a
    /// hostile one.
    private func integer(for argument: Argument, on id: UInt32, _ object: Object, draft: inout Draft) -> Int64 {
        let number: Int64
        let structural = argument.name == "name" && object.interface.name == "wl_registry"
        if structural, let global = draft.global {
            number = Int64(global)
        } else if structural ? hostileStructure() : hostile() {
            number = hostileInteger()
        } else if argument.enumeration != nil, let seen = announced[announcementKey(argument, in: object.interface)], !seen.isEmpty,
                  careful || random.chance(0.97) {
            // Of an enum's values, those the compositor announced (wl_shm's formats) work.
            number = Int64(random.pick(seen))
        } else if let reference = argument.enumeration ?? (object.interface.enums[argument.name] != nil ? argument.name : nil),
                  // An argument named as an enum of its interface takes its values even where the
                  // XML does not say so (xdg_positioner.set_constraint_adjustment).
                  let enumeration = model.enumeration(reference, in: object.interface),
                  !enumeration.entries.isEmpty {
            let entries = enumeration.entries.filter { $0.since <= object.version }
            if entries.isEmpty {
                number = 0
            } else if enumeration.isBitfield {
                // On a goal's way no flags: what one asks for may be refused (an interlaced dma-buf).
                number = careful ? 0 : Int64((0..<random.below(3)).reduce(UInt32(0)) { bits, _ in bits | random.pick(entries).value })
            } else {
                number = Int64(random.pick(entries).value)
            }
        } else {
            number = plausible(argument.name, on: id, object, draft: &draft)
        }
        draft.numbers[argument.name] = number
        return number
    }

    private func plausible(_ name: String, on id: UInt32, _ object: Object, draft: inout Draft) -> Int64 {
        switch name {
        case "width":
            return dimension(name)
        case "height":
            // A buffer already wide past a texture's usual size is now and then as tall too.
            let height = !careful && (draft.numbers["width"] ?? 0) >= 4096 && random.chance(0.3) ? random.pick([4096, 8192, 16384, 16385]) : dimension(name)
            // Within the memory the object was made with (a wl_shm_pool's size), rows of 4 bytes a pixel.
            guard let size = object.creation["size"], let width = draft.numbers["width"], width > 0 else { return height }
            return max(1, min(height, (size - (draft.numbers["offset"] ?? 0)) / (4 * width)))
        case "stride":
            // On a goal's way, before the size is known (a dma-buf plane's), rows wide enough for
            // the widths drawn there.
            return 4 * (draft.numbers["width"] ?? (careful ? bufferSize.map { Int64($0.width) } ?? 1024 : Int64(random.inRange(16...256))))
        case "offset":
            return random.chance(0.8) ? 0 : 4 * Int64(random.below(1024))
        case "size":
            // An object made with a size grows (wl_shm_pool.resize); now and then to 1 GiB, past
            // the memory behind it.
            // On a goal's way a pool has room for a buffer of the output's size, and keeps it.
            if careful { return object.creation["size"] ?? 4 << 20 }
            return (object.creation["size"] ?? 0) + (random.chance(0.1) ? 1 << 30 : random.pick([65536, 1 << 20, 4 << 20]))
        case "x", "y", "dx", "dy", "sx", "sy", "hotspot_x", "hotspot_y":
            // Mostly all zero in a request: some (wl_surface.attach since version 5) need it.
            if draft.zeroPositions == nil { draft.zeroPositions = careful || random.chance(0.8) }
            return draft.zeroPositions! ? 0 : Int64(random.inRange(-64...704))
        case "scale":
            return Int64(random.inRange(1...3))
        case "cursor", "anchor":
            // Text offsets: on a goal's way the start, a code point boundary in any text.
            return careful ? 0 : random.chance(0.05) ? Int64(UInt32(truncatingIfNeeded: random.next())) : Int64(random.below(9))
        case "serial":
            // An event's serial is answered once (an acknowledged configure is gone).
            if let serial = object.serials.last, random.chance(0.8) {
                objects[id]?.serials.removeAll()
                return Int64(serial)
            }
            if let seen = announced["serial"], !seen.isEmpty { return Int64(random.pick(seen)) }
            return Int64(random.below(16))
        case "name", "format":
            // What the compositor announced: globals' names, dma-buf formats.
            if let seen = announced[name], !seen.isEmpty { return Int64(random.pick(seen)) }
            return Int64(random.below(4))
        case "plane_idx", "modifier_hi", "modifier_lo":
            return 0
        case "version":
            return Int64(random.inRange(1...4))
        default:
            return random.chance(0.05) ? Int64(UInt32(truncatingIfNeeded: random.next())) : Int64(random.below(9))
        }
    }

    /// A size: small mostly, now and then one the compositor announced (the output's, a configure's).
    private func dimension(_ name: String) -> Int64 {
        // A goal's buffer has the size its surface's configure asked for.
        if careful, let size = bufferSize { return Int64(name == "width" ? size.width : size.height) }
        if !careful, let seen = announced[name]?.filter({ (1...4096).contains($0) }), !seen.isEmpty, random.chance(0.15) {
            return Int64(random.pick(seen))
        }
        // Now and then a buffer as large as a texture may be, or larger (16384 × 16384).
        if !careful, random.chance(0.01) { return random.pick([4096, 8192, 16384, 16385]) }
        return Int64(random.chance(0.85) ? random.inRange(1...64) : random.inRange(1...1024))
    }

    /// Limits (half the time exactly: the negation of Int32.min traps), overflow at sums (a
    /// coordinate just below Int32.max plus an offset), sizes no buffer should have, and plain
    /// random bits.
    private func hostileInteger() -> Int64 {
        switch random.below(4) {
        case 0: return Int64(Int32.max) - Int64(random.chance(0.5) ? 0 : random.below(64))
        case 1: return Int64(Int32.min) + Int64(random.chance(0.5) ? 0 : random.below(64))
        case 2: return Int64(Int32(truncatingIfNeeded: random.next()))
        default:
            return random.pick([0, 1, -1, 0x7fff, 0x8000, 0xffff, 16384, 16385, 65536, -65536, 1 << 24, 1 << 30, 0xffff_ffff])
        }
    }

    private func string(for argument: Argument) -> [UInt8]? {
        if hostile() {
            switch random.below(6) {
            case 0: return nil
            case 1: return []
            // Long enough to fill a message to libwayland's 4096-byte limit, or far past it.
            case 2: return Array(repeating: UInt8(ascii: "a"), count: random.pick([4000, 4072, 4084, 4096, 65536]))
            case 3: return [0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0xf4, 0x90]  // not UTF-8
            case 4: return Array("left\0right".utf8)
            default: return (0..<random.inRange(1...300)).map { _ in UInt8(truncatingIfNeeded: random.next()) | 1 }
            }
        }
        if argument.allowNull, random.chance(0.2) { return nil }
        if argument.name.contains("mime") { return Array("text/plain;charset=utf-8".utf8) }
        return Array(random.pick(["vitrine-fuzz", "", "kiosk", "ünïcödé ✓", "text/plain"]).utf8)
    }

    /// Memory of the size the request implies (its `size`, or enough rows of its `stride`), sealed
    /// against shrinking or not; or, when hostile, too little memory or no memory at all.
    private func descriptor(draft: Draft) -> Int32 {
        if descriptors.isFull { return random.pick(descriptors.open).descriptor.rawValue }
        let size: Int
        if let requested = draft.numbers["size"], (1...Int64(64 << 20)).contains(requested) {
            size = Int(requested)
        } else if let stride = draft.numbers["stride"], (1...Int64(1 << 16)).contains(stride) {
            size = Int(max(0, draft.numbers["offset"] ?? 0) + stride * 1024)
        } else {
            size = 65536
        }
        let kind: DescriptorKind
        if hostile() {
            kind = random.pick([.memory(size: random.pick([0, 1, size / 4]), sealed: false),
                                .devNull, .pipe, .socket, .eventfd, .directory])
        } else {
            kind = .memory(size: min(size, 64 << 20), sealed: careful || random.chance(0.5))
        }
        // Past the session's memory budget: an empty memfd instead.
        return descriptors.make(kind) ?? descriptors.make(.memory(size: 0, sealed: false)) ?? -1
    }

    /// An object for an argument: of its interface, not one this request already took, and mostly
    /// one not given to this argument before (a surface gets one xdg_surface).
    private func objectArgument(_ argument: Argument, for use: String, avoiding taken: Set<UInt32>) -> UInt32 {
        var pool = argument.interface.map { live[$0, default: []] } ?? liveIDs()
        if pool.contains(where: { !taken.contains($0) }) || argument.allowNull { pool.removeAll { taken.contains($0) } }
        if random.chance(0.8), pool.contains(where: { objects[$0]?.usedAs.contains(use) == false }) {
            pool.removeAll { objects[$0]?.usedAs.contains(use) == true }
        }
        if hostileStructure() || (pool.isEmpty && !argument.allowNull) {
            let dead = objects.keys.sorted().filter { objects[$0]?.alive == false }
            switch random.below(4) {
            case 0: return 0
            case 1: return dead.isEmpty ? 0 : random.pick(dead)
            case 2: return random.pick(liveIDs())
            default: return nextID + 1000
            }
        }
        if pool.isEmpty || (argument.allowNull && random.chance(0.1)) { return 0 }
        // Newer objects, those set up with more requests (a positioner with a size and an anchor
        // rectangle) and those that made objects (an xdg_surface with its toplevel) are likelier.
        return pool[random.weightedIndex(pool.enumerated().map { index, id in
            let object = objects[id]
            return Double(1 + min(4, object?.sent.count ?? 0) + 2 * min(2, object?.children ?? 0)) * (index == pool.count - 1 ? 2 : 1)
        })]
    }

    private func liveIDs() -> [UInt32] { objects.keys.sorted().filter { objects[$0]?.alive == true } }

    private func newObject(_ argument: Argument, version: UInt32, draft: inout Draft) -> UInt32 {
        if hostileStructure() {
            // An id in use, the null id, one past the next free id, one of the compositor's range.
            return random.pick([liveIDs().last ?? 1, 0, nextID + 1, 0xff00_0001])
        }
        let id = allocateID()
        if let name = argument.interface, let interface = model[name] { draft.created.append((id, interface, version)) }
        return id
    }

    /// wl_registry.bind's new_id: the global its `name` argument chose, at a version both sides
    /// know (or, when hostile, another interface's name, version 0 or one past the global's).
    private func boundGlobal(draft: inout Draft) -> WireValue {
        let id = allocateID()
        let names = globals.keys.sorted()
        let chosen = draft.numbers["name"].flatMap { UInt32(exactly: $0) }.flatMap { globals[$0] != nil ? $0 : nil }
            ?? (names.isEmpty ? nil : random.pick(names))
        guard let chosen, let global = globals[chosen] else {
            return .untypedNewID(interface: "wl_compositor", version: 1, id: id)
        }
        let known = model[global.interface]
        let highest = min(global.version, known?.version ?? global.version)
        if hostileStructure() {
            let interface = random.chance(0.5) ? random.pick(model.interfaces.keys.sorted()) : global.interface
            return .untypedNewID(interface: interface, version: random.pick([0, highest + 1, UInt32.max]), id: id)
        }
        // The highest version mostly: what a current client binds.
        let version = careful || random.chance(0.7) ? max(1, highest) : UInt32(random.inRange(1...Int(max(1, highest))))
        if let known, draft.values.last == .uint(chosen) { draft.created.append((id, known, version)) }
        return .untypedNewID(interface: global.interface, version: version, id: id)
    }

    // MARK: Malformed messages

    /// The request, broken: a header whose size lies, an unknown object or opcode, a string without
    /// its terminator, a length past the message's end, descriptors missing, or noise.
    private func sendMalformed(_ request: WireMessage, message: Message, interface: Interface) {
        var (bytes, fds) = request.encoded()
        let what: String
        // Where the first string or array argument's length word is.
        let lengthOffset = request.arguments.indices.first {
            switch request.arguments[$0] {
            case .string(.some), .array: true
            default: false
            }
        }.map { WireMessage(objectID: 0, opcode: 0, arguments: Array(request.arguments[..<$0])).encoded().bytes.count }
        switch random.below(8) {
        case 0:
            let size = random.pick([0, 4, bytes.count - 4, bytes.count + 1, bytes.count + 2, bytes.count + 4 * random.inRange(1...16)])
            bytes.replaceSubrange(4..<8, with: WireMessage.header(objectID: 0, size: size, opcode: request.opcode)[4..<8])
            what = "size field \(size) for \(bytes.count) bytes"
        case 1:
            bytes.replaceSubrange(0..<4, with: WireMessage.header(objectID: nextID + 5000, size: 0, opcode: 0)[0..<4])
            what = "unknown object \(nextID + 5000)"
        case 2:
            let opcode = UInt16(interface.requests.count + random.below(3))
            bytes.replaceSubrange(4..<8, with: WireMessage.header(objectID: 0, size: bytes.count, opcode: opcode)[4..<8])
            what = "opcode \(opcode) of \(interface.requests.count)"
        case 3 where lengthOffset != nil:
            // The length no longer counts the terminating NUL (or the array's last byte).
            let length = bytes.word(at: lengthOffset!)
            bytes.replaceSubrange(lengthOffset! ..< lengthOffset! + 4, with: [UInt8](wordBytes: length &- 1))
            what = "a length of \(length &- 1) instead of \(length)"
        case 4 where lengthOffset != nil:
            let length = random.pick([UInt32(bytes.count * 4), 0xffff_fff0, UInt32.max])
            bytes.replaceSubrange(lengthOffset! ..< lengthOffset! + 4, with: [UInt8](wordBytes: length))
            what = "a length of \(length) past the message's end"
        case 5 where !fds.isEmpty:
            fds = []
            what = "no descriptors"
        case 6 where bytes.count > 8:
            bytes.removeLast(4)
            bytes.replaceSubrange(4..<8, with: WireMessage.header(objectID: 0, size: bytes.count, opcode: request.opcode)[4..<8])
            what = "its last argument cut off"
        default:
            bytes = WireMessage.header(objectID: request.objectID, size: 8 + 4 * random.below(8), opcode: UInt16(random.below(8)))
                + (0..<4 * random.below(8)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            fds = []
            what = "noise"
        }
        malformedSent += 1
        sendRaw(bytes, fds: fds, describing: "malformed \(interface.name)@\(request.objectID).\(message.name): \(what)")
    }
}

extension [UInt8] {
    init(wordBytes value: UInt32) {
        self = []
        appendWord(value)
    }
}
