import WaylandProtocolModel

/// What both sides generate alike for an argument: the Swift type of a plain value (int, uint,
/// fixed, string, array), reading it from a `MessageReader` and writing it as a `WireArgument`.
/// Objects, new_ids and descriptors differ between the server and the client: the emitter passes
/// its own code for them as `other`.
extension ProtocolModel {
    func type(of argument: Argument, in interface: Interface, other: (Argument) -> String) -> String {
        switch argument.kind {
        case .int, .uint: enumerationType(of: argument, in: interface) ?? (argument.kind == .int ? "Int32" : "UInt32")
        case .fixed: "Double"
        case .string: argument.allowNull ? "String?" : "String"
        case .array: "[UInt8]"
        case .object, .newID, .fd: other(argument)
        }
    }

    /// `arguments.…(index)`, the value of the argument at `index` of a message being dispatched.
    func decoding(of argument: Argument, at index: Int, in interface: Interface, other: (Argument) -> String) -> String {
        switch argument.kind {
        case .int:
            guard let type = enumerationType(of: argument, in: interface) else { return "arguments.int(\(index))" }
            return "\(type)(rawValue: UInt32(bitPattern: arguments.int(\(index))))"
        case .uint:
            guard let type = enumerationType(of: argument, in: interface) else { return "arguments.uint(\(index))" }
            return "\(type)(rawValue: arguments.uint(\(index)))"
        case .fixed: return "arguments.fixed(\(index))"
        // libwayland refuses a null string where the XML does not allow one.
        case .string: return argument.allowNull ? "arguments.string(\(index))" : "arguments.string(\(index)) ?? \"\""
        case .array: return "arguments.array(\(index))"
        case .object, .newID, .fd: return other(argument)
        }
    }

    /// The `WireArgument` of the value `name`, for a message being sent.
    func encoding(of argument: Argument, named name: String, in interface: Interface, other: (Argument) -> String) -> String {
        switch argument.kind {
        case .int: enumerationType(of: argument, in: interface) == nil ? ".int(\(name))" : ".int(Int32(bitPattern: \(name).rawValue))"
        case .uint: enumerationType(of: argument, in: interface) == nil ? ".uint(\(name))" : ".uint(\(name).rawValue)"
        case .fixed: ".fixed(\(name))"
        case .string: ".string(\(name))"
        case .array: ".array(\(name))"
        case .object, .newID, .fd: other(argument)
        }
    }
}
