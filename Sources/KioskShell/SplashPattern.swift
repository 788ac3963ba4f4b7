import Compositor
import LayerKit
import Logging
import Renderer

/// The splash's animated pattern (the board's `animation = "pattern"`): a `VulkanLayer` over the
/// whole overlay, behind the image, into which `AnimatedPatternRenderer` draws each frame's
/// pattern for that frame's target time while a display link runs.
final class SplashPattern {
    let layer: VulkanLayer
    private let pattern: AnimatedPatternRenderer
    private let compositor: Compositor
    private let logger: Logger
    private var link: DisplayLink?
    /// The first frame's target time: the pattern's time 0.
    private var origin: Double?

    /// The pattern's layer, added at the back of `container` (which covers the primary output,
    /// output 0, whose device draws it).
    init(compositor: Compositor, container: Layer, scale: Double, logger: Logger) throws {
        layer = try compositor.makeVulkanLayer(forOutputAt: 0)
        pattern = try AnimatedPatternRenderer(layer: layer)
        self.compositor = compositor
        self.logger = logger
        layer.name = "splash pattern"
        layer.anchorPoint = .zero
        layer.bounds = container.bounds
        // Drawables of the output's pixels.
        layer.contentsScale = scale
        container.insertSublayer(layer, at: 0)
    }

    var isRunning: Bool { link != nil }

    /// Draws a new pattern every frame from now on.
    func run() {
        guard link == nil else { return }
        link = compositor.addDisplayLink(onOutputAt: 0) { [unowned self] link in
            let time = link.targetTimestamp - (origin ?? link.targetTimestamp)
            if origin == nil { origin = link.targetTimestamp }
            do {
                try pattern.renderFrame(at: time)
            } catch {
                logger.error("the splash pattern cannot be drawn: \(error); showing its last frame")
                stop()
            }
        }
    }

    /// Keeps the last frame on screen and draws no more: the output may come to rest.
    func stop() {
        link?.invalidate()
        link = nil
    }

    /// Stops and takes the layer out of the tree; its drawables go once no frame shows them.
    func remove() {
        stop()
        layer.removeFromSuperlayer()
    }
}
