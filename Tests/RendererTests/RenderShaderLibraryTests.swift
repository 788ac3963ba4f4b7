import Foundation
import Testing

/// The committed SPIR-V in ShaderLibrary.swift is what glslc makes of the GLSL in Shaders/.
@Suite struct RenderShaderLibraryTests {
    @Test func committedSPIRVMatchesTheShaderSources() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("Shaders/compile.py").path, "--check"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(message)")
    }
}
