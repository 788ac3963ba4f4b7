import Foundation
import GoldenImages
import Graphics
import Testing
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

/// This target's goldens, in Golden/ beside this file.
let golden = GoldenImages(besideFile: #filePath)
