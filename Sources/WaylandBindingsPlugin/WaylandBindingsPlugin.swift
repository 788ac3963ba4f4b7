import Foundation
import PackagePlugin

/// Generates the typed Wayland bindings of the target it is applied to from the protocol XML that
/// `Sources/WaylandProtocols/protocols.txt` lists, with `WaylandBindingsGenerator`, at build time:
/// the interface tables and enums in `WaylandProtocols`, Vitrine's request decoding and event
/// sending in `WaylandServer` (for the classes its `resource-classes.txt` names), typed proxies and
/// events in `WaylandTestClient`. One Swift file per XML file, named after it.
@main
struct WaylandBindingsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let mode: String
        var inputs: [URL] = []
        var options: [String] = []
        switch target.name {
        case "WaylandProtocols": mode = "protocols"
        case "WaylandServer":
            mode = "server"
            let classes = target.directoryURL.appending(path: "resource-classes.txt")
            inputs.append(classes)
            options = ["--classes", classes.path]
        case "WaylandTestClient": mode = "client"
        default: throw UnsupportedTarget(name: target.name)
        }
        let list = context.package.directoryURL.appending(path: "Sources/WaylandProtocols/protocols.txt")
        let protocols = try String(contentsOf: list, encoding: .utf8).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            // A relative path names a file of Vitrine's own (a protocol Debian does not package).
            .map { URL(filePath: $0, relativeTo: list.deletingLastPathComponent()).absoluteURL }
        let output = context.pluginWorkDirectoryURL
        var outputs = protocols.map { output.appending(path: $0.deletingPathExtension().lastPathComponent + "-\(mode).swift") }
        if mode == "protocols" { outputs.append(output.appending(path: "all-protocols.swift")) }
        return [
            .buildCommand(
                displayName: "Generating Wayland \(mode) bindings for \(target.name)",
                executable: try context.tool(named: "WaylandBindingsGenerator").url,
                arguments: [mode, "--output", output.path] + options + protocols.map(\.path),
                inputFiles: [list] + inputs + protocols,
                outputFiles: outputs),
        ]
    }
}

struct UnsupportedTarget: Error, CustomStringConvertible {
    let name: String

    var description: String {
        "WaylandBindingsPlugin generates bindings for WaylandProtocols, WaylandServer and WaylandTestClient, not \(name)"
    }
}
