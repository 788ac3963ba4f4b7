import CWaylandUtil
import Foundation
import Testing
import WaylandProtocols

/// The `wl_interface` tables the bindings build at run time say what libwayland's own generator
/// says for the same XML: every interface's version, and each request's and event's name,
/// signature and argument interfaces, in order.
@Suite struct InterfaceTableTests {
    /// One message as a table describes it: name, signature and the interface of each argument.
    struct MessageEntry: Equatable {
        let name: String
        let signature: String
        let types: [String?]
    }

    struct InterfaceEntry: Equatable {
        let version: Int32
        let requests: [MessageEntry]
        let events: [MessageEntry]
    }

    @Test func everyInterfaceTableMatchesWaylandScannerOutput() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = root.appendingPathComponent("Sources/WaylandProtocols")
        let list = try String(contentsOf: directory.appendingPathComponent("protocols.txt"), encoding: .utf8)
        let files = list.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { URL(filePath: String($0), relativeTo: directory).path }
        #expect(files.count == 23)
        var compared = 0
        for file in files {
            for (name, expected) in try Self.scannerTables(of: file) {
                let interface = try #require(Interface.named(name), "no table for \(name)")
                #expect(Self.entry(of: interface) == expected, "\(name) differs from wayland-scanner's table")
                compared += 1
            }
        }
        #expect(compared == 76)
    }

    private static func entry(of interface: Interface) -> InterfaceEntry {
        let table = interface.raw.pointee
        func messages(_ pointer: UnsafePointer<wl_message>?, _ count: Int32) -> [MessageEntry] {
            (0..<Int(count)).map { index in
                let message = pointer![index]
                let signature = String(cString: message.signature)
                let types = (0..<signature.filter(\.isLetter).count).map { argument in
                    message.types[argument].map { String(cString: $0.pointee.name) }
                }
                return MessageEntry(name: String(cString: message.name), signature: signature, types: types)
            }
        }
        return InterfaceEntry(version: table.version, requests: messages(table.methods, table.method_count),
                              events: messages(table.events, table.event_count))
    }

    /// The tables `wayland-scanner private-code` writes for one protocol file, by interface name.
    private static func scannerTables(of file: String) throws -> [String: InterfaceEntry] {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wayland-scanner")
        // The protocol on standard input, the code on standard output: an output file named
        // /dev/stdout reaches the pipe only while that path is still the link to it.
        process.arguments = ["private-code"]
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
        process.standardOutput = output
        try process.run()
        let code = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = code.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        // `static const struct wl_interface *X_types[] = {` then `NULL,` or `&wl_surface_interface,` lines.
        let typesStart = try #require(lines.firstIndex { $0.hasSuffix("_types[] = {") })
        let types: [String?] = lines[(typesStart + 1)...].prefix { $0 != "};" }.map { line in
            line == "NULL," ? nil : String(line.dropFirst().dropLast("_interface,".count))
        }
        var messages: [String: [MessageEntry]] = [:]
        var tables: [String: InterfaceEntry] = [:]
        for (index, line) in lines.enumerated() {
            // `static const struct wl_message X_requests[] = {` then `{ "name", "sig", X_types + 4 },` lines.
            if line.hasPrefix("static const struct wl_message "), let name = line.split(separator: " ").dropFirst(4).first {
                messages[String(name.dropLast(2))] = lines[(index + 1)...].prefix { $0 != "};" }.map { entry in
                    let fields = entry.split(separator: "\"", omittingEmptySubsequences: false)
                    let offset = Int(entry.split(separator: "+").last!.split(separator: " ").first!)!
                    let signature = String(fields[3])
                    return MessageEntry(name: String(fields[1]), signature: signature,
                                        types: Array(types[offset..<(offset + signature.filter(\.isLetter).count)]))
                }
            }
            // `WL_PRIVATE const struct wl_interface X_interface = {` then `"X", 5,`.
            if line.hasPrefix("WL_PRIVATE const struct wl_interface ") {
                let header = lines[index + 1].split(separator: "\"", omittingEmptySubsequences: false)
                let name = String(header[1])
                let version = Int32(header[2].trimmingCharacters(in: CharacterSet(charactersIn: ", ")))!
                tables[name] = InterfaceEntry(version: version, requests: messages[name + "_requests"] ?? [],
                                              events: messages[name + "_events"] ?? [])
            }
        }
        return tables
    }
}
