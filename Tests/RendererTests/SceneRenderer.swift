import CPURenderer
import Graphics
import LayerKit
import Renderer
import Testing

/// The renderers the golden scenes are drawn with: the same scenes, compared with the same
/// reference images (recorded from the Vulkan renderer and looked at), and the same probe pixels
/// derived by hand.
enum SceneRenderer: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case vulkan, cpu

    var testDescription: String { rawValue }

    /// A new renderer of this kind, for tests that draw frame after frame.
    @MainActor
    func makeRenderer() throws -> any LayerTreeRenderer {
        switch self {
        case .vulkan: try Renderer()
        case .cpu: CPURenderer()
        }
    }

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

/// Renders `tree` (a sample, say) into `width`×`height` pixels with a new CPU renderer, or with the
/// validating Vulkan renderer, expecting no validation message.
@MainActor
func render(
    _ tree: RenderTree, width: Int, height: Int, with sceneRenderer: SceneRenderer, sourceLocation: SourceLocation = #_sourceLocation
) throws -> Image {
    guard sceneRenderer == .vulkan else { return try CPURenderer().render(tree, width: width, height: height) }
    let renderer = try validatingRenderer.get()
    let image = try renderer.render(tree, width: width, height: height)
    #expect(renderer.takeValidationMessages() == [], sourceLocation: sourceLocation)
    return image
}
