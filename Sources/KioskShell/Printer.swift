import BoardConfig
import Foundation
import LayerKit

/// The board's printer: PDFs laid out on its paper and handed to CUPS with `lp` (Debian's
/// cups-client), which queues them for the printer.
public struct Printer: Sendable {
    public let configuration: PrinterConfiguration

    public init(_ configuration: PrinterConfiguration) {
        self.configuration = configuration
    }

    /// Where a layer goes on the board's paper.
    public var pageLayout: PageLayout {
        switch configuration.paper {
        case .a4: .a4
        case .letter: .letter
        case .receipt80mm: .receipt(widthInMillimetres: 80)
        case .receipt58mm: .receipt(widthInMillimetres: 58)
        }
    }

    /// `layer` as one PDF page of the board's paper.
    public func document(of layer: Layer) throws -> [UInt8] {
        try layer.exportData(as: .pdf(page: pageLayout))
    }

    /// The `lp` command line that queues `file` under `title`.
    public func lpArguments(file: String, title: String) -> [String] {
        var arguments = ["lp"]
        if let server = configuration.server { arguments += ["-h", server] }
        return arguments + ["-d", configuration.queue, "-t", title, "--", file]
    }

    /// Queues `pdf` and returns lp's answer ("request id is QUEUE-N (1 file(s))"). Blocks until lp
    /// has handed the file to CUPS (which copies it), so run it off the compositor's thread.
    public func submit(_ pdf: [UInt8], title: String) throws(PrintError) -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-print-\(UUID().uuidString).pdf")
        do {
            try Data(pdf).write(to: file, options: [.atomic])
        } catch {
            throw .cannotWrite(file.path, error.localizedDescription)
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = lpArguments(file: file.path, title: title)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            throw .cannotRun(error.localizedDescription)
        }
        let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        switch process.terminationStatus {
        case 0: return answer
        case 127: throw .lpMissing
        default: throw .refused(queue: configuration.queue, answer: answer)
        }
    }
}

/// Why a document did not reach the printer's queue.
public enum PrintError: Error, Equatable, CustomStringConvertible {
    case noPrinter
    case cannotWrite(String, String)
    case cannotRun(String)
    case lpMissing
    /// lp (or CUPS behind it) refused the job; `answer` is what lp said.
    case refused(queue: String, answer: String)

    public var description: String {
        switch self {
        case .noPrinter: "this board has no printer: add a [printer] table with the CUPS queue (see board-configs/FORMAT.md)"
        case .cannotWrite(let path, let reason): "cannot write the document to \(path): \(reason)"
        case .cannotRun(let reason): "cannot run lp: \(reason)"
        case .lpMissing: "lp is not installed (Debian's cups-client)"
        case .refused(let queue, let answer): "the print queue \(queue) refused the job: \(answer)"
        }
    }
}
