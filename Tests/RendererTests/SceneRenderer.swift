import CPURenderer
import Graphics
import LayerKit
import Testing

/// The renderers the golden scenes are drawn with: the same scenes, compared with the same
/// reference images (recorded from the Vulkan renderer and looked at), and the same probe pixels
/// derived by hand.
enum SceneRenderer: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case vulkan, cpu

    var testDescription: String { rawValue }

    /// Compares `image` with the golden `name`: the Vulkan renderer within the goldens' default
    /// tolerance (2 of 255 per channel on at most 0.2% of the pixels), the CPU renderer within the
    /// tolerance the test states for it. cairo's coverage of an edge is the area a shape covers
    /// in the pixel, the Vulkan shader's a ramp over one pixel of the distance to the edge, so
    /// anti-aliased edges differ by up to about a third of the colour step across them.
    func check(
        _ image: Image, named name: String, cpu: (tolerance: Int, share: Double),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        switch self {
        case .vulkan: try golden.check(image, named: name, sourceLocation: sourceLocation)
        case .cpu:
            try golden.check(image, named: name, tolerance: cpu.tolerance, maxDifferingShare: cpu.share, sourceLocation: sourceLocation)
        }
    }
}

/// Commits `root` and renders it at `scale` with a new CPU renderer.
@MainActor
func renderOnCPU(_ root: Layer, scale: Double = 1) throws -> Image {
    let tree = try commit(root)
    return try CPURenderer().render(
        tree, width: Int(root.bounds.width * scale), height: Int(root.bounds.height * scale), scale: scale)
}
