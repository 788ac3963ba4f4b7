import Foundation
import WaylandProtocolModel

/// Which Swift classes of WaylandServer dispatch each interface, and which only send its events
/// (its `resource-classes.txt`: one `interface Class… [| Class…]` line each, the classes after `|`
/// sending events only).
struct ResourceClasses {
    private(set) var classes: [String: [String]] = [:]
    private(set) var eventSenders: [String: [String]] = [:]

    init(contentsOf url: URL, model: ProtocolModel) throws {
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            guard let interface = fields.first, !interface.hasPrefix("#") else { continue }
            guard model[interface] != nil else { throw Usage(description: "\(url.lastPathComponent): no interface \(interface)") }
            let names = fields.dropFirst()
            let bar = names.firstIndex(of: "|") ?? names.endIndex
            classes[interface] = Array(names[..<bar])
            eventSenders[interface] = Array(names[bar...].dropFirst())
        }
    }

    /// The one class whose objects an argument of `interface` is, or nil when none or several are.
    func single(_ interface: String?) -> String? {
        guard let interface, let found = classes[interface], found.count == 1 else { return nil }
        return found[0]
    }
}

/// WaylandServer's part: for every class that dispatches an interface, its `Request` enum and
/// their decoding, its `Event` enum and `send(_:)`, as an extension of the class. Objects are
/// Vitrine's resource classes where one class dispatches the interface; otherwise a request's are
/// `ForeignObject`s (wl_buffer: libwayland's wl_shm makes them too) and an event's `Resource`s.
struct ServerEmitter {
    let model: ProtocolModel
    let classes: ResourceClasses

    func file(_ file: ProtocolFile) -> String {
        var lines = [header(file), "", "import SystemCalls", "import WaylandProtocols"]
        for interface in file.interfaces {
            for name in classes.classes[interface.name] ?? [] {
                lines += [""] + self.extension(of: name, for: interface)
            }
            for name in classes.eventSenders[interface.name] ?? [] {
                lines += [""] + eventExtension(of: name, for: interface)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func `extension`(of name: String, for interface: Interface) -> [String] {
        var lines = [
            "extension \(name) {",
            "    static var interface: Interface { .\(Naming.member(interface.name)) }",
            "",
        ]
        if interface.requests.isEmpty {
            lines += ["    /// \(interface.name) has no requests.", "    typealias Request = Never", ""]
        } else {
            lines.append("    /// The requests of \(interface.name), decoded.")
            lines.append("    enum Request {")
            for request in interface.requests {
                lines.append("        /// `\(interface.name).\(request.name)`\(notes(request))")
                lines.append("        case \(enumCase(request, in: interface, isEvent: false))")
            }
            lines += ["    }", ""]
        }
        lines.append("    static func decode(_ opcode: UInt32, _ arguments: MessageReader) throws(ProtocolError) -> Request {")
        if !interface.requests.isEmpty {
            lines.append("        switch opcode {")
            for (opcode, request) in interface.requests.enumerated() {
                let values = request.arguments.enumerated().map { index, argument in
                    "\(Naming.member(argument.name)): \(decoding(argument, at: index, in: interface))"
                }
                let value = values.isEmpty ? "" : "(" + values.joined(separator: ", ") + ")"
                lines.append("        case \(opcode): return .\(Naming.member(request.name))\(value)")
            }
            lines.append("        default: break")
            lines.append("        }")
        }
        lines.append("        throw ProtocolError.unknownRequest(opcode, of: interface)")
        lines.append("    }")
        if !interface.events.isEmpty { lines += [""] + events(of: interface) }
        lines.append("}")
        return lines
    }

    /// The extension of a class that sends the interface's events and handles none of its requests.
    private func eventExtension(of name: String, for interface: Interface) -> [String] {
        ["extension \(name) {"] + events(of: interface) + ["}"]
    }

    /// The interface's `Event` enum and `send(_:)`.
    private func events(of interface: Interface) -> [String] {
        var lines = ["    /// The events of \(interface.name), sent with `send(_:)`.", "    enum Event {"]
        for event in interface.events {
            lines.append("        /// `\(interface.name).\(event.name)`\(notes(event))")
            lines.append("        case \(enumCase(event, in: interface, isEvent: true))")
        }
        lines += [
            "    }",
            "",
            "    /// Sends `event`, unless it is newer than the resource's version: a client that bound an older",
            "    /// version does not know it, so it is left out (callers need not check).",
            "    func send(_ event: Event) {",
            "        switch event {",
        ]
        for (opcode, event) in interface.events.enumerated() {
            let names = event.arguments.map { Naming.member($0.name) }
            let bindings = names.isEmpty ? "" : "(" + names.map { "let \($0)" }.joined(separator: ", ") + ")"
            lines.append("        case .\(Naming.member(event.name))\(bindings):")
            if event.since > 1 { lines.append("            guard version >= \(event.since) else { return }") }
            let encoded = event.arguments.map { encoding($0, named: Naming.member($0.name), in: interface) }
            switch encoded.count {
            case 0: lines.append("            post(\(opcode))")
            case 1: lines.append("            post(\(opcode), WireArgument\(encoded[0]), count: 1)")
            default: lines.append("            post(\(opcode), (\(encoded.map { "WireArgument" + $0 }.joined(separator: ", "))), count: \(encoded.count))")
            }
        }
        lines += ["        }", "    }"]
        return lines
    }

    private func notes(_ message: Message) -> String {
        var notes: [String] = []
        if message.since > 1 { notes.append("since version \(message.since)") }
        if message.isDestructor { notes.append("a destructor") }
        return notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")"
    }

    private func enumCase(_ message: Message, in interface: Interface, isEvent: Bool) -> String {
        let name = Naming.member(message.name)
        guard !message.arguments.isEmpty else { return name }
        let values = message.arguments.map { "\(Naming.member($0.name)): \(type(of: $0, in: interface, isEvent: isEvent))" }
        return name + "(" + values.joined(separator: ", ") + ")"
    }

    /// A request's new_id is the id to create the resource with, an event's the resource created;
    /// a request's descriptor is the handler's to close, an event's stays the caller's.
    private func type(of argument: Argument, in interface: Interface, isEvent: Bool) -> String {
        model.type(of: argument, in: interface) { argument in
            switch argument.kind {
            case .object: (classes.single(argument.interface) ?? (isEvent ? "Resource" : "ForeignObject")) + (argument.allowNull ? "?" : "")
            case .newID: isEvent ? classes.single(argument.interface) ?? "Resource" : "UInt32"
            default: isEvent ? "FileDescriptor" : "OwnedFileDescriptor"
            }
        }
    }

    /// A request argument's value read from `arguments` (requests have no untyped new_id: only
    /// wl_registry.bind, which libwayland dispatches, has one).
    private func decoding(_ argument: Argument, at index: Int, in interface: Interface) -> String {
        model.decoding(of: argument, at: index, in: interface) { argument in
            switch argument.kind {
            case .object:
                let required = argument.allowNull ? "" : "required"
                guard let type = classes.single(argument.interface) else {
                    return required.isEmpty ? "arguments.foreignObject(\(index))" : "try arguments.requiredForeignObject(\(index))"
                }
                return "try arguments.\(required.isEmpty ? "resource" : "requiredResource")(\(index), as: \(type).self)"
            case .newID: return "arguments.newID(\(index))"
            default: return "OwnedFileDescriptor(rawValue: arguments.fileDescriptor(\(index)))"
            }
        }
    }

    /// An event argument as a `WireArgument` (a new_id in an event is the new object's resource).
    private func encoding(_ argument: Argument, named name: String, in interface: Interface) -> String {
        model.encoding(of: argument, named: name, in: interface) { argument in
            switch argument.kind {
            case .object: argument.allowNull ? ".object(\(name)?.raw)" : ".object(\(name).raw)"
            case .newID: ".object(\(name).raw)"
            default: ".fileDescriptor(\(name).rawValue)"
            }
        }
    }
}
