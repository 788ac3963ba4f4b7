import Foundation
import LayerKit
import Renderer

/// A 512×512-pixel VulkanLayer in a 1920×1080 scene, animated by AnimatedPatternRenderer: each
/// frame renders the pattern into a drawable, presents it outside transactions and composites
/// the frame (only the layer's region is redrawn). Prints the medians of the app's encode and
/// submit, and of the composite to finished (which waits for the app's rendering on the GPU).
@MainActor
func benchmarkVulkanLayer(renderer: Renderer) throws {
    let root = Layer()
    root.bounds = Rect(x: 0, y: 0, width: 1920, height: 1080)
    root.anchorPoint = .zero
    root.backgroundColor = Color(white: 0.1)
    let layer = try VulkanLayer(renderer: renderer)
    layer.frame = Rect(x: 704, y: 284, width: 512, height: 512)
    layer.cornerRadius = 24
    layer.masksToBounds = true
    root.addSublayer(layer)
    let context = RenderContext(rootLayer: root)
    Transaction.flush()
    let pattern = try AnimatedPatternRenderer(layer: layer)
    var time = 0.0
    var encode: [Double] = []
    var composite: [Double] = []
    for _ in 0..<31 {
        time += 1.0 / 60
        let start = ContinuousClock.now
        try pattern.renderFrame(at: time)
        let elapsed = ContinuousClock.now - start
        encode.append(Double(elapsed.components.attoseconds) * 1e-18 + Double(elapsed.components.seconds))
        _ = try renderer.render(context.renderTree!, width: 1920, height: 1080)
        composite.append(renderer.lastFrameStatistics.totalSeconds)
    }
    encode.sort()
    composite.sort()
    print(
        "VulkanLayer 512×512 pattern, each frame: app encode+submit \(milliseconds(encode[15])),"
            + " composite to finished \(milliseconds(composite[15]))")
}
