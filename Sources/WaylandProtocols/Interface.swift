package import CWaylandUtil
import Glibc

/// One protocol interface as libwayland reads it: the `wl_interface` with its requests' and
/// events' names, signatures and argument types. libwayland keeps the pointer in every object and
/// global made with it and follows it to check object arguments, so all tables are built once,
/// from the generated descriptions, and never freed.
package struct Interface: Hashable, @unchecked Sendable {
    package let raw: UnsafePointer<wl_interface>

    /// The interface's name, as in the XML ("wl_surface").
    package var name: String { String(cString: raw.pointee.name) }

    /// The interface named `name` in the protocols the package is built with, or nil.
    package static func named(_ name: String) -> Interface? {
        interfaceTables[name]
    }
}

/// An interface as the XML defines it, as the generated code describes it.
package struct InterfaceDescription: Sendable {
    let name: String
    let version: Int32
    let requests: [MessageDescription]
    let events: [MessageDescription]

    package init(name: String, version: Int32, requests: [MessageDescription], events: [MessageDescription]) {
        self.name = name
        self.version = version
        self.requests = requests
        self.events = events
    }
}

/// A request or event: its name, libwayland's signature (the version it appeared in, then one
/// letter per argument, `?` before a nullable one) and the interface of each object or new_id
/// argument (nil for the others).
package struct MessageDescription: Sendable {
    let name: String
    let signature: String
    let types: [String?]

    package init(_ name: String, _ signature: String, _ types: [String?]) {
        self.name = name
        self.signature = signature
        self.types = types
    }
}

/// Every interface's table, by name. The tables point at each other (an argument's type), so
/// every `wl_interface` is placed first and filled in afterwards.
private let interfaceTables: [String: Interface] = {
    let descriptions = InterfaceDescription.all
    let tables = UnsafeMutablePointer<wl_interface>.allocate(capacity: descriptions.count)
    var byName: [String: Interface] = [:]
    for (index, description) in descriptions.enumerated() {
        byName[description.name] = Interface(raw: UnsafePointer(tables + index))
    }
    func messages(_ messages: [MessageDescription]) -> UnsafePointer<wl_message>? {
        guard !messages.isEmpty else { return nil }
        let table = UnsafeMutablePointer<wl_message>.allocate(capacity: messages.count)
        for (index, message) in messages.enumerated() {
            let types = UnsafeMutablePointer<UnsafePointer<wl_interface>?>.allocate(capacity: max(1, message.types.count))
            for (argument, type) in message.types.enumerated() {
                (types + argument).initialize(to: type.flatMap { byName[$0]?.raw })
            }
            (table + index).initialize(to: wl_message(name: strdup(message.name), signature: strdup(message.signature), types: types))
        }
        return UnsafePointer(table)
    }
    for (index, description) in descriptions.enumerated() {
        (tables + index).initialize(to: wl_interface(
            name: strdup(description.name), version: description.version,
            method_count: Int32(description.requests.count), methods: messages(description.requests),
            event_count: Int32(description.events.count), events: messages(description.events)))
    }
    return byName
}()
