import Foundation
import Graphics
import Testing

/// Golden-image comparison for tests that render, shared by the test targets.
///
/// A rendered image matches its golden when at most `maxDifferingShare` of its pixels differ from
/// the golden by more than `tolerance` in any channel (8-bit values). A missing golden, or any
/// golden when VITRINE_RECORD_GOLDEN=1, is written from the rendered image and the test fails, so
/// that a person looks at the new image before it is committed. A mismatch writes the actual,
/// expected and difference images next to each other in the temporary directory and names them.
public struct GoldenImages: Sendable {
    /// The folder the golden PNGs live in.
    public let directory: URL

    /// The goldens in the folder `Golden` beside `file` (a test target passes its `#filePath`).
    public init(besideFile file: String) {
        directory = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent("Golden")
    }

    /// Compares `image` with the golden `name`.png, recording an issue at `sourceLocation` when it
    /// is missing (it is written), being recorded, or differs.
    public func check(
        _ image: Image, named name: String, tolerance: Int = 2, maxDifferingShare: Double = 0.002,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let path = directory.appendingPathComponent("\(name).png").path
        let recording = ProcessInfo.processInfo.environment["VITRINE_RECORD_GOLDEN"] == "1"
        guard !recording, FileManager.default.fileExists(atPath: path) else {
            try image.writePNG(to: path)
            Issue.record("recorded golden image \(path): look at it, then commit it", sourceLocation: sourceLocation)
            return
        }
        let expected = try Image(contentsOfPNGFile: path)
        guard let differing = image.countOfPixelsDiffering(from: expected, byMoreThan: tolerance) else {
            Issue.record("\(name): size \(image.width)×\(image.height) differs from the golden's \(expected.width)×\(expected.height)", sourceLocation: sourceLocation)
            return
        }
        let share = Double(differing) / Double(image.width * image.height)
        if share > maxDifferingShare {
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-golden")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            let actualPath = out.appendingPathComponent("\(name)-actual.png").path
            let diffPath = out.appendingPathComponent("\(name)-difference.png").path
            try image.writePNG(to: actualPath)
            try expected.writePNG(to: out.appendingPathComponent("\(name)-expected.png").path)
            try Self.difference(image, expected).writePNG(to: diffPath)
            Issue.record(
                "\(name): \(differing) pixels (\(String(format: "%.3f", share * 100))%) differ by more than \(tolerance); see \(actualPath) and \(diffPath)",
                sourceLocation: sourceLocation)
        }
    }

    /// Per-channel absolute differences, opaque, amplified ×4 so small errors show.
    public static func difference(_ a: Image, _ b: Image) throws -> Image {
        var bytes = [UInt8](repeating: 255, count: a.width * a.height * 4)
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                let i = (y * a.width + x) * 4
                bytes[i] = UInt8(min(255, 4 * abs(Int(p.blue) - Int(q.blue))))
                bytes[i + 1] = UInt8(min(255, 4 * abs(Int(p.green) - Int(q.green))))
                bytes[i + 2] = UInt8(min(255, 4 * abs(Int(p.red) - Int(q.red))))
            }
        }
        return try bytes.withUnsafeBytes {
            try Image(width: a.width, height: a.height, pixelFormat: .argb8888, bytesPerRow: a.width * 4, bytes: $0)
        }
    }
}
