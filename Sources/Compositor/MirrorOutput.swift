import DisplayBackend
import CPURenderer
import Graphics
import LayerKit
import Renderer
import WaylandServer

/// A display that shows another output's picture (a board's `mirror`): the source's logical
/// output, scaled to fit the mirror's panel turned by its own transform, aspect kept, centred
/// between black bars. It has no wl_output and no windows: clients see one output, as Mutter's
/// mirrored monitors share one logical monitor. A touchscreen mapped to it touches what it shows.
///
/// Each frame the source draws is drawn again here, on the mirror's own frame clock: the source's
/// render tree with its root placed by the fit (`RenderTree.placingRoot(by:)`), in full every
/// time (no damage tracking across the two outputs). While the source is absent (unplugged, or
/// not lit yet) the mirror shows black.
final class MirrorOutput: FrameInFlight.Owner {
    let backend: any BackendOutput
    /// The name (connector) of the output it mirrors.
    let sourceName: String
    /// The output it mirrors now, while that is lit.
    private(set) weak var source: CompositorOutput?
    /// Draws on the source's device, so that the source's `VulkanLayer`s show here too.
    private var renderer: (any LayerTreeRenderer)?
    /// The source's latest frame as it sampled it, with the source's geometry then; nil: black.
    private var frame: (tree: RenderTree, source: SourceGeometry)?
    /// Errors while drawing (the frame is skipped).
    var onRenderError: ((Error) -> Void)?
    /// The frame drawn last, until the GPU is done with it and it is committed.
    private var frameInFlight: FrameInFlight?
    private let eventLoop: EventLoop

    init(backend: any BackendOutput, source: String, eventLoop: EventLoop) {
        self.backend = backend
        self.eventLoop = eventLoop
        sourceName = source
        backend.frameScheduler.onFrame = { [unowned self] _ in drawFrame() }
        backend.scheduleFrame()
    }

    /// Mirrors `output` from its next frame on (asked for now, so that an idle source shows at once).
    func follow(_ output: CompositorOutput) throws {
        renderer = try (output.renderer as? Renderer).map { try Renderer(sharingDeviceOf: $0) } ?? CPURenderer()
        source = output
        output.scheduleFrame()
    }

    /// The source went away: black until it comes back.
    func sourceLeft() {
        source = nil
        renderer = nil
        frame = nil
        backend.scheduleFrame()
    }

    /// The mirror's display changed its mode: the source's picture is fitted to the new size.
    func followMode() {
        // The backend dropped a frame drawn for the old mode from its schedule.
        frameInFlight?.cancel()
        backend.scheduleFrame()
    }

    /// The mirror's display went away: its frame cycle ends.
    func stop() {
        backend.frameScheduler.onFrame = nil
        frameInFlight?.cancel()
        source = nil
    }

    /// The source drew `tree` (its scanout, as sampled for that frame): it shows at the mirror's next refresh.
    func sourceDrew(_ tree: RenderTree, by output: CompositorOutput) {
        guard output === source else { return }
        frame = (tree, SourceGeometry(output))
        backend.scheduleFrame()
    }

    /// Where a touch at (`x`, `y`), fractions of the mirror's panel, lands on what it shows: the
    /// source and the point of its root layer under the finger; nil on the black bars, or while
    /// the source is absent.
    func sourcePoint(normalizedX x: Double, y: Double) -> (output: CompositorOutput, point: Point)? {
        guard let source else { return nil }
        let fit = fit(showing: SourceGeometry(source))
        let panel = Point(x: x * Double(backend.mode.width) / fit.scale, y: y * Double(backend.mode.height) / fit.scale)
        let onScanout = panel.applying(fit.transform.inverted())
        guard source.scanout.bounds.contains(onScanout) else { return nil }
        return (source, source.scanout.convert(onScanout, to: source.root))
    }

    /// What of the source the fit depends on, as it was when a frame was drawn.
    struct SourceGeometry {
        let scanout: Size
        let logical: Size
        let transform: OutputTransform

        init(_ output: CompositorOutput) {
            scanout = output.scanout.bounds.size
            logical = output.logicalSize
            transform = output.backend.transform
        }
    }

    private func fit(showing source: SourceGeometry) -> (transform: AffineTransform2D, scale: Double) {
        Self.fit(
            sourceScanout: source.scanout, sourceLogical: source.logical, sourceTransform: source.transform,
            mode: backend.mode, transform: backend.transform)
    }

    private func drawFrame() {
        do {
            guard let renderer, let frame else {
                try showBlack()
                return
            }
            // Trees of the source's context at another place and scale: damage tracked between
            // them would not hold, so every frame is drawn whole.
            renderer.invalidatePreviousFrame()
            let fit = fit(showing: frame.source)
            guard let (state, completion) = try backend.draw(
                frame.tree.placingRoot(by: Transform3D(fit.transform)), with: renderer, scale: fit.scale)
            else {
                backend.frameScheduler.frameSkipped()
                return
            }
            frameInFlight = FrameInFlight.send(state, completion: completion, on: backend, loop: eventLoop, owner: self)
        } catch {
            onRenderError?(error)
            backend.frameScheduler.frameSkipped()
        }
    }

    func frameFailed(_ failure: FrameInFlight.Failure) {
        // A mirror's frames are drawn: no client buffer to be refused.
        if case .error(let error) = failure { onRenderError?(error) }
    }

    /// Fills the next buffer with opaque black and shows it (the source's frames are drawn whole,
    /// so none counts on what a buffer held).
    private func showBlack() throws {
        guard let buffer = backend.nextBuffer() else {
            backend.frameScheduler.frameSkipped()
            return
        }
        buffer.clear()
        try backend.commit(OutputState(buffer: .swapchain(buffer)))
    }

    /// What places the source's scanout (points) on the mirror's panel: back through the source's
    /// transform to its logical output, scaled by `scale` to fit the panel turned by `transform`
    /// (aspect kept, centred), turned onto the panel; the result is in panel pixels over `scale`,
    /// so that drawing at `scale` lands on pixels and rasterizes text and shapes at that size.
    static func fit(
        sourceScanout: Size, sourceLogical: Size, sourceTransform: OutputTransform, mode: OutputMode, transform: OutputTransform
    ) -> (transform: AffineTransform2D, scale: Double) {
        let (width, height) = (Double(mode.width), Double(mode.height))
        let (turnedWidth, turnedHeight) = transform.swapsAxes ? (height, width) : (width, height)
        let scale = min(turnedWidth / sourceLogical.width, turnedHeight / sourceLogical.height)
        let centred = AffineTransform2D(translationX: -sourceLogical.width / 2, y: -sourceLogical.height / 2)
        let toScanout = centred.concatenating(sourceTransform.contentTransform)
            .concatenating(AffineTransform2D(translationX: sourceScanout.width / 2, y: sourceScanout.height / 2))
        let toPanel = centred.concatenating(AffineTransform2D(scaleX: scale, y: scale))
            .concatenating(transform.contentTransform)
            .concatenating(AffineTransform2D(translationX: width / 2, y: height / 2))
        return (toScanout.inverted().concatenating(toPanel).concatenating(AffineTransform2D(scaleX: 1 / scale, y: 1 / scale)), scale)
    }
}
