import WaylandProtocolModel

/// WaylandTestClient's part: a `TestProxy` subclass per interface whose methods send its requests
/// with typed arguments (a request that creates an object returns the new object's proxy), and
/// whose `events` are its events as they arrived, decoded into its `Event` enum.
struct ClientEmitter {
    let model: ProtocolModel

    func file(_ file: ProtocolFile) -> String {
        var lines = [header(file), "", "import SystemCalls", "import WaylandProtocols"]
        for interface in file.interfaces {
            lines += [""] + proxy(interface)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func proxyName(_ interface: String) -> String {
        Naming.type(interface) + "Proxy"
    }

    private func proxy(_ interface: Interface) -> [String] {
        var lines = [
            "/// A client's `\(interface.name)` object: its requests, typed, and the events it received.",
            "public final class \(Self.proxyName(interface.name)): TestProxy {",
            "    override class var interface: Interface { .\(Naming.member(interface.name)) }",
        ]
        if !interface.events.isEmpty {
            lines += [""] + events(of: interface)
        }
        for (opcode, request) in interface.requests.enumerated() {
            lines += [""] + method(request, opcode: opcode, in: interface)
        }
        lines.append("}")
        return lines
    }

    // MARK: Events

    private func events(of interface: Interface) -> [String] {
        var lines = ["    /// The events of \(interface.name).", "    public enum Event: ProxyEvent, Equatable {"]
        for event in interface.events {
            lines.append("        /// `\(interface.name).\(event.name)`\(notes(event))")
            lines.append("        case \(enumCase(event, in: interface))")
        }
        lines += ["", "        public var name: String {", "            switch self {"]
        for event in interface.events {
            lines.append("            case .\(Naming.member(event.name)): \(quoted(event.name))")
        }
        lines += [
            "            }",
            "        }",
            "    }",
            "",
            "    /// The events received since the proxy was made or `clearEvents()`, oldest first.",
            "    public private(set) var events: [Event] = []",
            "",
            "    public override func clearEvents() {",
            "        events = []",
            "    }",
            "",
            "    override func decodeEvent(_ opcode: UInt32, _ arguments: MessageReader) -> (any ProxyEvent)? {",
            "        let event: Event",
            "        switch opcode {",
        ]
        for (opcode, event) in interface.events.enumerated() {
            let values = event.arguments.enumerated().map { index, argument in
                "\(Naming.member(argument.name)): \(decoding(argument, at: index, in: interface))"
            }
            let value = values.isEmpty ? "" : "(" + values.joined(separator: ", ") + ")"
            lines.append("        case \(opcode): event = .\(Naming.member(event.name))\(value)")
        }
        lines += [
            "        default: return nil",
            "        }",
            "        events.append(event)",
            "        return event",
            "    }",
        ]
        return lines
    }

    private func enumCase(_ message: Message, in interface: Interface) -> String {
        let name = Naming.member(message.name)
        guard !message.arguments.isEmpty else { return name }
        let values = message.arguments.map { "\(Naming.member($0.name)): \(eventType(of: $0, in: interface))" }
        return name + "(" + values.joined(separator: ", ") + ")"
    }

    /// An object argument is the client's proxy of it: nil when null, or when the client already
    /// destroyed its proxy (libwayland passes such objects as null).
    private func eventType(of argument: Argument, in interface: Interface) -> String {
        switch argument.kind {
        case .int, .uint: return model.enumerationType(of: argument, in: interface) ?? (argument.kind == .int ? "Int32" : "UInt32")
        case .fixed: return "Double"
        case .string: return argument.allowNull ? "String?" : "String"
        case .object: return (argument.interface.map(Self.proxyName) ?? "TestProxy") + "?"
        case .newID: return argument.interface.map(Self.proxyName) ?? "TestProxy"
        case .array: return "[UInt8]"
        case .fd: return "FileDescriptor"
        }
    }

    private func decoding(_ argument: Argument, at index: Int, in interface: Interface) -> String {
        switch argument.kind {
        case .int:
            guard let type = model.enumerationType(of: argument, in: interface) else { return "arguments.int(\(index))" }
            return "\(type)(rawValue: UInt32(bitPattern: arguments.int(\(index))))"
        case .uint:
            guard let type = model.enumerationType(of: argument, in: interface) else { return "arguments.uint(\(index))" }
            return "\(type)(rawValue: arguments.uint(\(index)))"
        case .fixed: return "arguments.fixed(\(index))"
        case .string: return argument.allowNull ? "arguments.string(\(index))" : "arguments.string(\(index)) ?? \"\""
        case .object:
            return "proxy(arguments.object(\(index)), as: \(argument.interface.map(Self.proxyName) ?? "TestProxy").self)"
        case .newID: return "adopt(arguments.object(\(index)), as: \(argument.interface.map(Self.proxyName) ?? "TestProxy").self)"
        case .array: return "arguments.array(\(index))"
        case .fd: return "received(arguments.fileDescriptor(\(index)))"
        }
    }

    // MARK: Requests

    private func method(_ request: Message, opcode: Int, in interface: Interface) -> [String] {
        var parameters: [String] = []
        var encoded: [String] = []
        var created: Argument?
        for argument in request.arguments {
            let name = Naming.member(argument.name)
            let optional = argument.allowNull ? "?" : ""
            switch argument.kind {
            case .int, .uint:
                let type = model.enumerationType(of: argument, in: interface)
                parameters.append("\(name): \(type ?? (argument.kind == .int ? "Int32" : "UInt32"))")
                switch (argument.kind, type) {
                case (.int, nil): encoded.append(".int(\(name))")
                case (.int, _): encoded.append(".int(Int32(bitPattern: \(name).rawValue))")
                case (_, nil): encoded.append(".uint(\(name))")
                default: encoded.append(".uint(\(name).rawValue)")
                }
            case .fixed:
                parameters.append("\(name): Double")
                encoded.append(".fixed(\(name))")
            case .string:
                parameters.append("\(name): String\(optional)")
                encoded.append(".string(\(name))")
            case .object:
                parameters.append("\(name): \(argument.interface.map(Self.proxyName) ?? "TestProxy")\(optional)")
                encoded.append(argument.allowNull ? ".object(\(name)?.raw)" : ".object(\(name).raw)")
            case .newID:
                created = argument
                if argument.interface == nil {
                    // wl_registry.bind: the interface travels as its name and version before the id.
                    parameters += ["interface: Proxy.Type", "version: UInt32"]
                    encoded += [".string(interface.interface.name)", ".uint(version)"]
                }
                encoded.append(".newID")
            case .array:
                parameters.append("\(name): [UInt8]")
                encoded.append(".array(\(name))")
            case .fd:
                parameters.append("\(name): FileDescriptor")
                encoded.append(".fileDescriptor(\(name).rawValue)")
            }
        }
        let name = Naming.member(request.name)
        let arguments = "[" + encoded.joined(separator: ", ") + "]"
        var lines = ["    /// `\(interface.name).\(request.name)`\(notes(request))"]
        switch created {
        case .some(let argument) where argument.interface == nil:
            lines += [
                "    public func \(name)<Proxy: TestProxy>(\(parameters.joined(separator: ", "))) throws(TestClientError) -> Proxy {",
                "        try marshal(\(opcode), \(arguments), creating: interface, version: version)",
            ]
        case .some(let argument):
            let type = Self.proxyName(argument.interface!)
            lines += [
                "    @discardableResult",
                "    public func \(name)(\(parameters.joined(separator: ", "))) throws(TestClientError) -> \(type) {",
                "        try marshal(\(opcode), \(arguments), creating: \(type).self)",
            ]
        case nil:
            lines += [
                "    public func \(name)(\(parameters.joined(separator: ", "))) throws(TestClientError) {",
                "        try \(request.isDestructor ? "marshalDestructor" : "marshal")(\(opcode), \(arguments))",
            ]
        }
        lines.append("    }")
        return lines
    }

    private func notes(_ message: Message) -> String {
        var notes: [String] = []
        if message.since > 1 { notes.append("since version \(message.since)") }
        if message.isDestructor { notes.append("a destructor: the proxy goes with it") }
        return notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")"
    }
}
