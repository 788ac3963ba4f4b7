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
        model.type(of: argument, in: interface) { argument in
            switch argument.kind {
            case .object: (argument.interface.map(Self.proxyName) ?? "TestProxy") + "?"
            case .newID: argument.interface.map(Self.proxyName) ?? "TestProxy"
            default: "FileDescriptor"
            }
        }
    }

    /// An event's new_id is the proxy libwayland made for the server's new object; a descriptor is
    /// the proxy's from then on.
    private func decoding(_ argument: Argument, at index: Int, in interface: Interface) -> String {
        model.decoding(of: argument, at: index, in: interface) { argument in
            let proxy = argument.interface.map(Self.proxyName) ?? "TestProxy"
            switch argument.kind {
            case .object: return "proxy(arguments.object(\(index)), as: \(proxy).self)"
            case .newID: return "adopt(arguments.object(\(index)), as: \(proxy).self)"
            default: return "received(arguments.fileDescriptor(\(index)))"
            }
        }
    }

    // MARK: Requests

    private func method(_ request: Message, opcode: Int, in interface: Interface) -> [String] {
        var parameters: [String] = []
        var encoded: [String] = []
        var created: Argument?
        for argument in request.arguments {
            let name = Naming.member(argument.name)
            switch argument.kind {
            case .newID:
                created = argument
                if argument.interface == nil {
                    // wl_registry.bind: the interface travels as its name and version before the id.
                    parameters += ["interface: Proxy.Type", "version: UInt32"]
                    encoded += [".string(interface.interface.name)", ".uint(version)"]
                }
                encoded.append(".newID")
            default:
                parameters.append("\(name): \(requestType(of: argument, in: interface))")
                encoded.append(model.encoding(of: argument, named: name, in: interface) { argument in
                    switch argument.kind {
                    case .object: argument.allowNull ? ".object(\(name)?.raw)" : ".object(\(name).raw)"
                    default: ".fileDescriptor(\(name).rawValue)"
                    }
                })
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

    /// An object argument is the proxy of an object of the client's; a descriptor stays the
    /// caller's (libwayland sends a duplicate).
    private func requestType(of argument: Argument, in interface: Interface) -> String {
        model.type(of: argument, in: interface) { argument in
            switch argument.kind {
            case .object: (argument.interface.map(Self.proxyName) ?? "TestProxy") + (argument.allowNull ? "?" : "")
            default: "FileDescriptor"
            }
        }
    }

    private func notes(_ message: Message) -> String {
        var notes: [String] = []
        if message.since > 1 { notes.append("since version \(message.since)") }
        if message.isDestructor { notes.append("a destructor: the proxy goes with it") }
        return notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")"
    }
}
