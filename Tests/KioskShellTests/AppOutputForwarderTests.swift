import Glibc
import Logging
import SystemCalls
import Testing
import WaylandServer

@testable import KioskShell

/// Collects what a logger logs, to see what the forwarder made of the app's output.
final class LogLines: @unchecked Sendable {
    var lines: [String] = []
}

struct CollectingLogHandler: LogHandler {
    let sink: LogLines
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        sink.lines.append("\(event.level) \(event.message)")
    }
}

@Suite struct AppOutputForwarderTests {
    @Test func linesAreLoggedWholeAPartialLineWhenTheAppEndsAndOverlongLinesInPieces() throws {
        let display = try Display()
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        defer { close(ends[0]) }
        let sink = LogLines()
        let forwarder = try AppOutputForwarder(
            fileDescriptor: FileDescriptor(rawValue: ends[0]), name: "cog", eventLoop: display.eventLoop,
            logHandler: { _ in CollectingLogHandler(sink: sink) })
        func write(_ text: String) {
            _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(ends[1], $0.baseAddress!, $0.count - 1) }
        }
        write("first line\nsecond ")
        try display.eventLoop.dispatch(timeoutMilliseconds: 1000)
        #expect(sink.lines == ["info first line"])
        write("half\n" + String(repeating: "x", count: AppOutputForwarder.maximumLineLength + 10) + "\nno newline")
        close(ends[1])
        for _ in 0..<5 { try display.eventLoop.dispatch(timeoutMilliseconds: 100) }
        #expect(sink.lines == [
            "info first line", "info second half",
            "info " + String(repeating: "x", count: AppOutputForwarder.maximumLineLength),
            "info " + String(repeating: "x", count: 10),
            "info no newline",
        ])
        forwarder.finish()
    }
}
