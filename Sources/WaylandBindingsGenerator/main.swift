import Foundation
import WaylandProtocolModel

// Generates Vitrine's typed Wayland bindings from protocol XML; WaylandBindingsPlugin runs it at
// build time. Usage:
//   WaylandBindingsGenerator protocols|server|client --output DIR [--classes FILE] XML...
// It writes DIR/<xml stem>-<mode>.swift for every XML file, and for the protocols mode
// DIR/all-protocols.swift with what spans them.

struct Usage: Error, CustomStringConvertible {
    let description: String
}

/// A protocol file and its interfaces, in the XML's order.
struct ProtocolFile {
    let url: URL
    let interfaces: [Interface]

    var stem: String { url.deletingPathExtension().lastPathComponent }
    /// The Swift name of the file's interface descriptions (`xdg-shell` → `xdgShell`).
    var memberName: String { Naming.member(stem.replacingOccurrences(of: "-", with: "_")) }
}

func run(_ arguments: [String]) throws {
    var remaining = arguments.dropFirst()
    guard let mode = remaining.popFirst() else { throw Usage(description: "no mode") }
    var output: URL?
    var classes: URL?
    var files: [ProtocolFile] = []
    while let argument = remaining.popFirst() {
        switch argument {
        case "--output": output = remaining.popFirst().map { URL(filePath: $0) }
        case "--classes": classes = remaining.popFirst().map { URL(filePath: $0) }
        default: files.append(ProtocolFile(url: URL(filePath: argument), interfaces: try ProtocolModel.parse(file: argument)))
        }
    }
    guard let output else { throw Usage(description: "no --output directory") }
    let model = ProtocolModel(interfaces: files.flatMap(\.interfaces))
    var generated: [String: String] = [:]
    switch mode {
    case "protocols":
        for file in files { generated[file.stem + "-protocols.swift"] = ProtocolsEmitter.file(file, model: model) }
        generated["all-protocols.swift"] = ProtocolsEmitter.all(files)
    case "server":
        guard let classes else { throw Usage(description: "server mode needs --classes") }
        let mapping = try ResourceClasses(contentsOf: classes, model: model)
        for file in files { generated[file.stem + "-server.swift"] = ServerEmitter(model: model, classes: mapping).file(file) }
    case "client":
        for file in files { generated[file.stem + "-client.swift"] = ClientEmitter(model: model).file(file) }
    default:
        throw Usage(description: "unknown mode \(mode) (protocols, server or client)")
    }
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    for (name, text) in generated {
        let url = output.appending(path: name)
        // Unchanged output keeps its timestamp, so that dependants are not compiled again.
        if (try? String(contentsOf: url, encoding: .utf8)) == text { continue }
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
}

do {
    try run(CommandLine.arguments)
} catch {
    FileHandle.standardError.write(Data("WaylandBindingsGenerator: \(error)\n".utf8))
    exit(1)
}
