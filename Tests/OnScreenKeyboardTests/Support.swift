import Foundation
import Testing
import Graphics
@testable import OnScreenKeyboard

/// Whether `value` points are a whole number of pixels at `scale`.
func isOnPixel(_ value: Double, scale: Double) -> Bool {
    abs(value * scale - (value * scale).rounded()) < 1e-9
}

extension KeyboardGeometry {
    /// The first placed key whose unshifted label is `label`.
    func placed(_ label: String) -> PlacedKey? {
        keys.first { $0.key.label(shifted: false) == label }
    }

    /// The labels of row `row`, unshifted.
    func labels(ofRow row: Int) -> [String] {
        keys.filter { $0.row == row }.map { $0.key.label(shifted: false) }
    }
}

/// Golden-image comparison with RendererTests' rule: at most `maxDifferingShare` of the pixels
/// may differ from the golden by more than `tolerance`. A missing golden, or any golden when
/// VITRINE_RECORD_GOLDEN=1, is written and the test fails, so a person looks at it before it is
/// committed; a mismatch writes the actual image to the temporary directory and names it.
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func check(
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
            let actual = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-golden-\(name)-actual.png").path
            try image.writePNG(to: actual)
            Issue.record("\(name): \(differing) pixels differ by more than \(tolerance); see \(actual)", sourceLocation: sourceLocation)
        }
    }
}
