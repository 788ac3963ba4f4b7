import ArgumentParser
import Foundation
import LayerKit

/// Every command names itself (`commandName`): ArgumentParser otherwise derives each name from
/// its type's description, a reflection of every command type at every start.
@main
struct Vitrine: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vitrine",
        abstract: "A Wayland compositor for kiosk and embedded devices.",
        version: version,
        subcommands: [Run.self, Capture.self, Print.self, Status.self, CheckConfig.self, ListOutputs.self, ListInputs.self, Version.self, Demo.self])

    static let version = "0.1.0"
}

/// Until the compositor exists, the main job builds the seeds' example scenes, commits them,
/// prints the committed layer tree with computed frames and leaves a screenshot of it, rendered
/// with Vulkan (lavapipe where there is no GPU).
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build a LayerKit scene from the seeds, commit it and print its render tree.")

    @Option(name: .shortAndLong, help: "Where to write the screenshot (PNG).")
    var output = "vitrine-demo.png"

    @Option(help: "Width and height of the root layer in points, as WxH.")
    var size = "640x480"

    @Option(help: "The output's scale factor: pixels per point, also the drawn layer's contentsScale.")
    var scale = 2.0

    func validate() throws {
        guard parseSize(size) != nil else { throw ValidationError("--size must look like 640x480, got '\(size)'") }
        guard scale > 0, scale <= 8 else { throw ValidationError("--scale must be in (0, 8], got \(scale)") }
    }

    func run() throws {
        let rootSize = parseSize(size)!
        let lines = try DemoScene.run(rootSize: rootSize, scale: scale, pngPath: output)
        print(lines.joined(separator: "\n"))
    }

    private func parseSize(_ text: String) -> Size? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]), w > 0, h > 0 else { return nil }
        return Size(width: w, height: h)
    }
}
