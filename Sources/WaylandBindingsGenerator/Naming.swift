import WaylandProtocolModel

/// Swift names for the XML's snake_case names, one rule for every generated file.
enum Naming {
    /// `zwp_linux_buffer_params_v1` → `ZwpLinuxBufferParamsV1`.
    static func type(_ name: String) -> String {
        words(name).map(capitalized).joined()
    }

    /// `set_app_id` → `setAppID` (Swift's guidelines write acronyms in one case); Swift keywords are
    /// escaped (`class_` → `` `class` ``).
    static func member(_ name: String) -> String {
        let parts = words(name)
        guard let first = parts.first else { return name }
        let joined = first.lowercased() + parts.dropFirst().map(capitalized).joined()
        return keywords.contains(joined) ? "`\(joined)`" : joined
    }

    /// An enum entry: a member name, except that one starting with a digit (`wl_output.transform`'s
    /// `90`) is prefixed with the enum's name (`transform90`).
    static func entry(_ name: String, of enumeration: String) -> String {
        guard let first = name.first, first.isNumber else { return member(name) }
        return member(enumeration + "_" + name)
    }

    /// The Swift name of an interface's enum: `xdg_toplevel` and `resize_edge` → `XdgToplevelResizeEdge`.
    static func enumeration(_ name: String, of interface: String) -> String {
        type(interface) + type(name)
    }

    private static func words(_ name: String) -> [String] {
        name.split(separator: "_").map(String.init)
    }

    private static func capitalized(_ word: String) -> String {
        word == "id" ? "ID" : word.prefix(1).uppercased() + word.dropFirst()
    }

    private static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "protocol", "public", "static", "struct", "subscript",
        "typealias", "var", "break", "case", "continue", "default", "defer", "do", "else", "fallthrough", "for",
        "guard", "if", "in", "repeat", "return", "switch", "where", "while", "as", "catch", "false", "is", "nil",
        "rethrows", "super", "self", "Self", "throw", "throws", "true", "try", "Type", "Protocol",
    ]
}

extension ProtocolModel {
    /// The Swift type of the enum an argument names (`wl_output.transform` or the interface's own
    /// `resize_edge`), or nil when it names none.
    func enumerationType(of argument: Argument, in interface: Interface) -> String? {
        guard let reference = argument.enumeration else { return nil }
        if let dot = reference.firstIndex(of: ".") {
            return Naming.enumeration(String(reference[reference.index(after: dot)...]), of: String(reference[..<dot]))
        }
        return Naming.enumeration(reference, of: interface.name)
    }
}

extension Message {
    /// libwayland's signature: the version the message appeared in (when above 1), then one
    /// letter per argument, `?` before a nullable one; a new_id of no fixed interface
    /// (wl_registry.bind) is three arguments, the interface's name, its version and the id.
    var signature: String {
        var signature = since > 1 ? String(since) : ""
        for argument in arguments {
            if argument.allowNull { signature += "?" }
            switch argument.kind {
            case .int: signature += "i"
            case .uint: signature += "u"
            case .fixed: signature += "f"
            case .string: signature += "s"
            case .object: signature += "o"
            case .newID: signature += argument.interface == nil ? "sun" : "n"
            case .array: signature += "a"
            case .fd: signature += "h"
            }
        }
        return signature
    }

    /// The interface of each `wl_argument` (nil where there is none), as the signature counts them.
    var argumentTypes: [String?] {
        arguments.flatMap { argument -> [String?] in
            argument.kind == .newID && argument.interface == nil ? [nil, nil, nil] : [argument.interface]
        }
    }
}
