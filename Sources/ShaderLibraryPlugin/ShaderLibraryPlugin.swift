import Foundation
import PackagePlugin

/// Compiles the GLSL in `Shaders/` with glslc at build time and gives the target each shader's
/// SPIR-V as a Swift array: `Shaders/NAME.vert` becomes `ShaderLibrary.NAMEVertex` and `NAME.frag`
/// `ShaderLibrary.NAMEFragment`, one generated file per shader, so that editing one shader compiles
/// only that one again (every shader again when a shared `.glsl` file changes).
@main
struct ShaderLibraryPlugin: BuildToolPlugin {
    /// glslc's stage for each shader file extension, and the suffix of its array's name.
    static let stages = ["vert": (stage: "vert", suffix: "Vertex"), "frag": (stage: "frag", suffix: "Fragment")]

    /// Writes one shader's Swift file: glslc's `-mfmt=num` output (words, each followed by a comma)
    /// is the array's body. Written beside the file and then moved, so that a shader that does not
    /// compile leaves no half-written file for the next build to take as up to date.
    static let script = """
        set -e
        glslc=$1 stage=$2 source=$3 output=$4 name=$5
        trap 'rm -f "$output.partial"' EXIT
        {
            printf '// Generated at build time by ShaderLibraryPlugin from Shaders/%s; do not edit.\\n\\n' "${source##*/}"
            printf 'extension ShaderLibrary {\\n    static let %s: [UInt32] = [\\n' "$name"
            "$glslc" -fshader-stage="$stage" -O --target-env=vulkan1.3 -mfmt=num -o - "$source"
            printf '    ]\\n}\\n'
        } > "$output.partial"
        mv "$output.partial" "$output"
        """

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "Shaders")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let includes = files.filter { $0.pathExtension == "glsl" }
        let glslc = try Self.glslc()
        return files.compactMap { source in
            guard let stage = Self.stages[source.pathExtension] else { return nil }
            let name = source.deletingPathExtension().lastPathComponent + stage.suffix
            let output = context.pluginWorkDirectoryURL.appending(path: name + ".swift")
            return .buildCommand(
                displayName: "Compiling Shaders/\(source.lastPathComponent) with glslc",
                executable: URL(filePath: "/bin/sh"),
                arguments: ["-c", Self.script, "sh", glslc.path, stage.stage, source.path, output.path, name],
                inputFiles: [source] + includes,
                outputFiles: [output])
        }
    }

    /// glslc on `PATH`.
    static func glslc() throws(GlslcMissing) -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = URL(filePath: String(directory)).appending(path: "glslc")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw GlslcMissing(path: path)
    }
}

struct GlslcMissing: Error, CustomStringConvertible {
    let path: String

    var description: String {
        "glslc, which compiles the renderer's shaders (Shaders/) to SPIR-V at build time, is not on PATH (\(path)): "
            + "install Debian's glslc package (.ci/install-deps does)"
    }
}
