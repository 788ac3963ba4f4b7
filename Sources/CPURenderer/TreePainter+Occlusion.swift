import Buffers
import LayerKit
import RendererContract

/// Occlusion: a frame starts drawing at the last layer whose own background or contents hide
/// everything it redraws (opaque, at full opacity, unclipped, square and axis-aligned, covering
/// the whole box), so nothing beneath it is drawn and the target is not cleared. For the kiosk's
/// common frame, one opaque window covering the output texel for pixel with nothing above it, that
/// leaves one blit of the window's damaged rows from the client's memory into the scanout buffer.
struct Occluder: Equatable {
    enum Part { case background, contents }

    var id: LayerID
    /// What of the layer hides the box: contents hide its background too.
    var part: Part
}

extension TreePainter {
    /// Notes `layer` as the occluder when its background or contents hide the canvas's box: a
    /// later one replaces an earlier one, as it is drawn above it. `p`: the layer's values.
    mutating func measureOcclusion(
        by layer: RenderLayer, _ p: LayerProperties, bounds: RoundedRect, contentsFrame: Rect?, transform: Transform3D, opacity: Double
    ) {
        guard opacity >= 1 else { return }
        if let frame = contentsFrame, hasOpaqueContents(p), !(p.masksToBounds && !bounds.isSquare),
            !(p.contentsGravity.isResizing && p.contentsCenter != Rect(x: 0, y: 0, width: 1, height: 1)),
            let box = centresBox(of: frame, transform), box == canvas.box
        {
            occluder = Occluder(id: layer.id, part: .contents)
        } else if let background = p.backgroundColor, background.converted(to: .sRGB).alpha >= 1,
            let box = alignedBox(of: bounds, transform), box == canvas.box
        {
            occluder = Occluder(id: layer.id, part: .background)
        }
    }

    /// Whether every pixel of the layer's contents is opaque whatever its alpha bits hold: a
    /// client buffer or an image in a format without alpha.
    private func hasOpaqueContents(_ p: LayerProperties) -> Bool {
        if let client = p.externalContents as? any ClientContents { return !client.buffer.format.hasAlpha }
        if p.externalContents == nil, let image = p.contents { return !image.pixelFormat.hasAlpha }
        return false
    }
}
