import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The Wayland protocols as their XML defines them: interfaces, their requests and events with
/// typed arguments, enums and the versions everything appeared in. The fuzzer makes every request
/// from this model and decodes every event with it.
public struct ProtocolModel: Sendable {
    public private(set) var interfaces: [String: Interface] = [:]

    /// Interfaces whose objects are a surface or belong to one (an xdg_surface, its toplevel, a
    /// subsurface, a viewport): wl_surface, and what requests make from one or on one.
    public private(set) var surfaceBound: Set<String> = []
    /// For each interface, the requests whose new_id makes one: receiver interface and opcode.
    private var makersByInterface: [String: [(interface: String, opcode: Int)]] = [:]

    public init(interfaces: [Interface]) {
        for interface in interfaces { self.interfaces[interface.name] = interface }
        for name in self.interfaces.keys.sorted() {
            for (opcode, request) in self.interfaces[name]!.requests.enumerated() {
                for argument in request.arguments where argument.kind == .newID {
                    if let made = argument.interface { makersByInterface[made, default: []].append((name, opcode)) }
                }
            }
        }
        surfaceBound = ["wl_surface"]
        var grew = true
        while grew {
            grew = false
            for (made, makers) in makersByInterface where !surfaceBound.contains(made) {
                let bound = makers.contains { maker in
                    surfaceBound.contains(maker.interface) || self.interfaces[maker.interface]!.requests[maker.opcode].arguments.contains {
                        $0.kind == .object && $0.interface.map(surfaceBound.contains) == true
                    }
                }
                if bound {
                    surfaceBound.insert(made)
                    grew = true
                }
            }
        }
    }

    /// The core protocol (`/usr/share/wayland/wayland.xml`) and every protocol of the installed
    /// wayland-protocols, which holds all those the compositor serves. Where two files define an
    /// interface of the same name (xdg-shell's stable `xdg_surface` and its unstable v5 forerunner),
    /// the more stable file's definition is kept: stable, then staging, then unstable.
    public static func installed(
        core: String = "/usr/share/wayland/wayland.xml", extensions: String = "/usr/share/wayland-protocols"
    ) throws(ProtocolModelError) -> ProtocolModel {
        var files = [core]
        for stage in ["stable", "staging", "unstable"] {
            let folder = extensions + "/" + stage
            guard let walker = FileManager.default.enumerator(atPath: folder) else { continue }
            var found: [String] = []
            while let relative = walker.nextObject() as? String {
                if relative.hasSuffix(".xml") { found.append(folder + "/" + relative) }
            }
            files += found.sorted()
        }
        var kept: [String: Interface] = [:]
        for file in files {
            for interface in try parse(file: file) where kept[interface.name] == nil { kept[interface.name] = interface }
        }
        return ProtocolModel(interfaces: Array(kept.values))
    }

    /// The interfaces one protocol file defines, in its order.
    public static func parse(file: String) throws(ProtocolModelError) -> [Interface] {
        guard let data = FileManager.default.contents(atPath: file) else { throw .unreadable(file) }
        return try parse(data: data, name: file)
    }

    public static func parse(data: Data, name: String = "<data>") throws(ProtocolModelError) -> [Interface] {
        let parser = XMLParser(data: data)
        let reader = ProtocolReader()
        parser.delegate = reader
        guard parser.parse(), reader.failure == nil else {
            throw .malformed(name, reader.failure ?? parser.parserError.map { "\($0)" } ?? "unknown error")
        }
        return reader.interfaces
    }

    public subscript(name: String) -> Interface? { interfaces[name] }

    /// The interfaces whose objects can come from an object of `interface`: itself, and what its
    /// requests and events create, and so on (wl_compositor → wl_surface, wl_region).
    public func reachable(from interface: String) -> Set<String> {
        var found: Set<String> = [interface]
        var pending = [interface]
        while let name = pending.popLast() {
            guard let current = interfaces[name] else { continue }
            for message in current.requests + current.events {
                for argument in message.arguments where argument.kind == .newID {
                    if let created = argument.interface, found.insert(created).inserted { pending.append(created) }
                }
            }
        }
        return found
    }

    /// The interfaces that requests of these interfaces take as object arguments
    /// (xdg_wm_base.get_xdg_surface takes a wl_surface).
    public func arguments(of interfaces: Set<String>) -> Set<String> {
        var needed: Set<String> = []
        for name in interfaces {
            for request in self.interfaces[name]?.requests ?? [] {
                for argument in request.arguments where argument.kind == .object {
                    if let other = argument.interface { needed.insert(other) }
                }
            }
        }
        return needed
    }

    /// The requests that make an object of `interface` (xdg_wm_base.get_xdg_surface for xdg_surface).
    public func makers(of interface: String) -> [(interface: String, opcode: Int)] { makersByInterface[interface] ?? [] }

    /// Whether requests of `interface` give surfaces their roles: its errors name a surface that
    /// has another role (xdg_wm_base, wl_pointer, wl_data_device: `role`; wl_subcompositor:
    /// `bad_surface`). Their argument `surface` (or a drag's `icon`) takes a surface without one.
    public func givesRoles(_ interface: String) -> Bool {
        guard let errors = interfaces[interface]?.enums["error"]?.entries else { return false }
        return errors.contains { $0.name == "role" || $0.name == "bad_surface" }
    }

    /// The enum an argument names: `wl_shm.format` (another interface's) or `error` (its own).
    public func enumeration(_ reference: String, in interface: Interface) -> WaylandEnum? {
        if let dot = reference.firstIndex(of: ".") {
            return interfaces[String(reference[..<dot])]?.enums[String(reference[reference.index(after: dot)...])]
        }
        return interface.enums[reference]
    }
}

public enum ProtocolModelError: Error, Equatable {
    case unreadable(String)
    case malformed(String, String)
}

public struct Interface: Sendable, Equatable {
    public var name: String
    public var version: UInt32
    public var requests: [Message] = []
    public var events: [Message] = []
    public var enums: [String: WaylandEnum] = [:]

    public init(name: String, version: UInt32, requests: [Message] = [], events: [Message] = [], enums: [String: WaylandEnum] = [:]) {
        self.name = name
        self.version = version
        self.requests = requests
        self.events = events
        self.enums = enums
    }
}

public struct Message: Sendable, Equatable {
    public var name: String
    /// The interface version that introduced it.
    public var since: UInt32 = 1
    public var isDestructor = false
    public var arguments: [Argument] = []

    public init(name: String, since: UInt32 = 1, isDestructor: Bool = false, arguments: [Argument] = []) {
        self.name = name
        self.since = since
        self.isDestructor = isDestructor
        self.arguments = arguments
    }
}

public struct Argument: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case int, uint, fixed, string, object, newID = "new_id", array, fd
    }

    public var name: String
    public var kind: Kind
    /// For object and new_id arguments; a new_id without one (wl_registry.bind) travels as
    /// interface name, version and id.
    public var interface: String?
    public var allowNull = false
    /// The enum the value belongs to, as the XML names it (`wl_shm.format` or `error`).
    public var enumeration: String?

    public init(name: String, kind: Kind, interface: String? = nil, allowNull: Bool = false, enumeration: String? = nil) {
        self.name = name
        self.kind = kind
        self.interface = interface
        self.allowNull = allowNull
        self.enumeration = enumeration
    }
}

public struct WaylandEnum: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var value: UInt32
        public var since: UInt32

        public init(name: String, value: UInt32, since: UInt32 = 1) {
            self.name = name
            self.value = value
            self.since = since
        }
    }

    public var name: String
    public var isBitfield: Bool
    public var entries: [Entry] = []

    public init(name: String, isBitfield: Bool, entries: [Entry] = []) {
        self.name = name
        self.isBitfield = isBitfield
        self.entries = entries
    }
}

/// Builds the model from the parser's callbacks; descriptions and summaries are skipped.
private final class ProtocolReader: NSObject, XMLParserDelegate {
    var interfaces: [Interface] = []
    var failure: String?
    private var interface: Interface?
    private var message: Message?
    private var isRequest = false
    private var enumeration: WaylandEnum?

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch element {
        case "interface":
            guard let name = attributes["name"], let version = attributes["version"].flatMap(UInt32.init) else {
                return fail(parser, "an interface without name or version")
            }
            interface = Interface(name: name, version: version)
        case "request", "event":
            guard let name = attributes["name"] else { return fail(parser, "a \(element) without a name") }
            message = Message(name: name, since: attributes["since"].flatMap(UInt32.init) ?? 1,
                              isDestructor: attributes["type"] == "destructor")
            isRequest = element == "request"
        case "arg":
            guard let name = attributes["name"], let kind = attributes["type"].flatMap(Argument.Kind.init(rawValue:)) else {
                return fail(parser, "an argument without name or known type in \(message?.name ?? "?")")
            }
            message?.arguments.append(Argument(name: name, kind: kind, interface: attributes["interface"],
                                               allowNull: attributes["allow-null"] == "true", enumeration: attributes["enum"]))
        case "enum":
            guard let name = attributes["name"] else { return fail(parser, "an enum without a name") }
            enumeration = WaylandEnum(name: name, isBitfield: attributes["bitfield"] == "true")
        case "entry":
            guard let name = attributes["name"], let text = attributes["value"], let value = Self.number(text) else {
                return fail(parser, "an entry without name or numeric value in \(enumeration?.name ?? "?")")
            }
            enumeration?.entries.append(.init(name: name, value: value, since: attributes["since"].flatMap(UInt32.init) ?? 1))
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        switch element {
        case "interface":
            if let interface { interfaces.append(interface) }
            interface = nil
        case "request", "event":
            guard let message else { return }
            if isRequest { interface?.requests.append(message) } else { interface?.events.append(message) }
            self.message = nil
        case "enum":
            if let enumeration { interface?.enums[enumeration.name] = enumeration }
            enumeration = nil
        default:
            break
        }
    }

    private func fail(_ parser: XMLParser, _ reason: String) {
        failure = reason
        parser.abortParsing()
    }

    /// Entry values are decimal or `0x` hexadecimal.
    static func number(_ text: String) -> UInt32? {
        text.hasPrefix("0x") ? UInt32(text.dropFirst(2), radix: 16) : UInt32(text)
    }
}
