import Foundation
import Testing

@Suite struct GeneratedProtocolTests {
    @Test func committedProtocolGlueMatchesWaylandScannerOutput() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("Sources/CVitrineWayland/generate.py").path, "--check"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
