internal import CPixman
import LayerKit
import RendererContract

/// Layer filters (seed ch. 2, "Filters Add Visual Effects"), drawn as the Vulkan renderer draws
/// them (its FilterEffects.swift), each over an offscreen image of target pixels:
///
/// - `filters`: the layer and its subtree are drawn into an image of the pixels they reach, grown
///   by the blurs' reach and the distortions' circles and limited to what the frame redraws (a
///   blur's reach further, a distortion's circle up to the canvas's size around it); each filter
///   then makes a new image from the last, and the result is composited at the superlayer's
///   opacity within the clip. A blur is pixman's convolution, along x then y, with the Vulkan
///   shader's kernel (`FilterBlur`), at a half or a quarter of the resolution when σ is wide (2×2
///   averages down, bilinear back); a colour matrix works per pixel on unpremultiplied colour; a
///   distortion maps each pixel into the layer's plane, finds its source there with LayerKit's
///   `Distortion.sourcePoint(for:)` and samples it bilinearly (transparent past the image).
/// - `backgroundFilters`: what the canvas holds behind the layer (the frame's redrawn region grows
///   so that it holds all of it, `growForBackdrops`) is copied, filtered with its edges extended,
///   and composited within the layer's rounded bounds beneath the layer's own parts. A layer that
///   itself draws offscreen makes it first from the canvas it is composited onto: beneath its
///   image for `filters` or a blend mode, inside its image (so cut by its mask, faded with its
///   group) otherwise.
/// - a blend-mode `compositingFilter`: the layer's image composited onto the canvas with pixman's
///   PDF operator of that mode, which are the W3C formulas the Vulkan shader evaluates.
extension TreePainter {
    /// A layer's filtered backdrop: the image over `box` (target pixels) and where it shows, the
    /// layer's rounded bounds within the enclosing clip.
    struct Backdrop {
        let image: PixmanImage
        let box: PixelBox
        let shape: Coverage
    }

    /// A painter of this one's tree, rasters and tint onto an image covering `box`.
    func offscreenPainter(onto image: PixmanImage, box: PixelBox, tree sample: RenderTree? = nil) -> TreePainter {
        var painter = TreePainter(
            tree: sample ?? tree, scale: scale, canvas: Canvas(image: image, origin: (box.minX, box.minY), box: box, target: canvas.target),
            rasters: rasters)
        painter.tint = tint
        if sample == nil { painter.subtreeBounds = subtreeBounds }
        return painter
    }

    /// Counts what an offscreen painter did as this one's.
    mutating func absorb(_ painter: TreePainter) {
        composites += painter.composites
        placedLayers += painter.placedLayers
        unreadableClients += painter.unreadableClients
    }

    /// A layer with `filters` or a blending `compositingFilter` (and perhaps a mask or group
    /// opacity, applied before the filters).
    mutating func drawFiltered(
        _ layer: RenderLayer, mask: RenderLayer?, group: Bool, transform: Transform3D, opacity parentOpacity: Double,
        clip: Coverage?, flipped: Bool
    ) {
        guard !isMeasuring, !isSkipping else { return }
        let p = layer.properties
        var carried: (id: LayerID, backdrop: Backdrop?)?
        if layer.hasBackdrop {
            // Beneath the layer's image; its own drawing inside skips it.
            if let backdrop = makeBackdrop(of: layer, transform: transform, clip: clip) {
                composite(backdrop, opacity: parentOpacity * p.opacity)
            }
            carried = (layer.id, nil)
        }
        let chain = p.filters.filter { !$0.kind.isBlendMode }
        let reach = FilterBlur.reach(of: chain, scale: scale)
        // A transparent pixel more than the blur's reach around what is drawn; content off the
        // canvas blurs onto it from up to the reach away, and a distortion draws on its whole
        // circle from anywhere in it.
        let circles = DamageTracker.distortionBox(of: p, transform: transform)
        let near = circles.intersection(canvas.box.insetBy(dx: -canvas.image.width, dy: -canvas.image.height))
        let drawn = DamageTracker.pixelBounds(ofSubtree: layer, in: tree, transform: transform, scale: scale)
        let margin = reach > 0 ? reach + 1 : 0
        var box = canvas.box.insetBy(dx: -reach, dy: -reach).union(near)
        if !drawn.isNull { box = box.intersection(PixelBox(covering: drawn).insetBy(dx: -margin, dy: -margin).union(near)) }
        guard !box.isEmpty else { return }
        let image = PixmanImage(format: PIXMAN_a8r8g8b8, width: box.width, height: box.height)
        var content = offscreenPainter(onto: image, box: box)
        content.carriedBackdrop = carried
        if mask != nil || group {
            content.drawOffscreen(layer, mask: mask, group: group, transform: transform, opacity: p.opacity, clip: nil, flipped: flipped)
        } else {
            content.drawLayer(layer, transform: transform, opacity: p.opacity, clip: nil, flipped: flipped)
        }
        absorb(content)
        let filtered = applyFilters(chain, to: image, box: box, transform: transform, edges: PIXMAN_REPEAT_NONE)
        let target = box.intersection(canvas.box)
        guard !target.isEmpty else { return }
        let blend = layer.maskedLayerID == nil ? p.compositingFilter?.kind.blendModeIndex.map { Self.blendOperators[$0] } : nil
        canvas.composite(
            filtered, at: (box.minX, box.minY), mask: Coverage.uniform(parentOpacity, box: target, clip: clip), box: target,
            operation: blend ?? PIXMAN_OP_OVER)
        composites += 1
    }

    /// pixman's operators for the blend modes, in `Filter.Kind.blendModeIndex` order.
    static let blendOperators: [pixman_op_t] = [
        PIXMAN_OP_MULTIPLY, PIXMAN_OP_SCREEN, PIXMAN_OP_OVERLAY, PIXMAN_OP_DARKEN, PIXMAN_OP_LIGHTEN, PIXMAN_OP_COLOR_DODGE,
        PIXMAN_OP_COLOR_BURN, PIXMAN_OP_SOFT_LIGHT, PIXMAN_OP_HARD_LIGHT, PIXMAN_OP_DIFFERENCE, PIXMAN_OP_EXCLUSION,
        PIXMAN_OP_HSL_HUE, PIXMAN_OP_HSL_SATURATION, PIXMAN_OP_HSL_COLOR, PIXMAN_OP_HSL_LUMINOSITY,
    ]

    /// What an offscreen image of `layer` (a mask or group) carries in: the layer's backdrop made
    /// from this canvas, or the one this painter carries for it already.
    func carriedBackdrop(
        for layer: RenderLayer, transform: Transform3D, clip: Coverage?
    ) -> (id: LayerID, backdrop: Backdrop?)? {
        guard layer.hasBackdrop else { return nil }
        if let carried = carriedBackdrop, carried.id == layer.id { return carried }
        return (layer.id, makeBackdrop(of: layer, transform: transform, clip: clip))
    }

    /// The layer's `backgroundFilters` applied to what is behind it, composited within its rounded
    /// bounds at `opacity`; or the backdrop carried in for it.
    mutating func drawBackdrop(of layer: RenderLayer, transform: Transform3D, opacity: Double, clip: Coverage?) {
        if let carried = carriedBackdrop, carried.id == layer.id {
            carriedBackdrop = nil
            if let backdrop = carried.backdrop { composite(backdrop, opacity: opacity) }
            return
        }
        guard let backdrop = makeBackdrop(of: layer, transform: transform, clip: clip) else { return }
        composite(backdrop, opacity: opacity)
    }

    mutating func composite(_ backdrop: Backdrop, opacity: Double) {
        let box = backdrop.shape.box
        canvas.composite(
            backdrop.image, at: (backdrop.box.minX, backdrop.box.minY),
            mask: Coverage.uniform(opacity, box: box, clip: backdrop.shape), box: box.intersection(canvas.box))
        composites += 1
    }

    /// The layer's `backgroundFilters` applied to what the canvas holds behind it: the layer's
    /// pixels and the blurs' reach around them, within the canvas's image, its edges extended.
    func makeBackdrop(of layer: RenderLayer, transform: Transform3D, clip: Coverage?) -> Backdrop? {
        let p = layer.properties
        let chain = p.backgroundFilters.filter { !$0.kind.isBlendMode }
        guard !chain.isEmpty, !p.bounds.isEmpty,
            let shape = clipCoverage(RoundedRect(rect: p.bounds, radii: p.cornerRadii), transform: transform, within: clip)
        else { return nil }
        let corners = p.bounds.corners.compactMap { c in transform.apply(x: c.x, y: c.y).map { Point(x: $0.x, y: $0.y) } }
        var shapeBox = PixelBox(covering: Rect(boundingPoints: corners)).intersection(canvas.box)
        if let clip { shapeBox = shapeBox.intersection(clip.box) }
        let reach = FilterBlur.reach(of: chain, scale: scale)
        let imageBox = PixelBox(x: canvas.origin.x, y: canvas.origin.y, width: canvas.image.width, height: canvas.image.height)
        let box = shapeBox.insetBy(dx: -reach, dy: -reach).intersection(imageBox)
        guard !shapeBox.isEmpty, !box.isEmpty else { return nil }
        let behind = PixmanImage(format: PIXMAN_a8r8g8b8, width: box.width, height: box.height)
        pixman_image_composite32(
            PIXMAN_OP_SRC, canvas.image.handle, nil, behind.handle, Int32(box.minX - canvas.origin.x),
            Int32(box.minY - canvas.origin.y), 0, 0, 0, 0, Int32(box.width), Int32(box.height))
        let filtered = applyFilters(chain, to: behind, box: box, transform: transform, edges: PIXMAN_REPEAT_PAD)
        return Backdrop(image: filtered, box: box, shape: shape)
    }

    /// `filters` applied in order to `image` (covering `box`, target pixels), each into a new
    /// image of the same box; filters that change nothing (a zero radius) are skipped. `edges`:
    /// what a blur reads past the box (transparency, or the edge extended for a backdrop).
    /// `transform` maps the layer's bounds space, where distortions lie, to target pixels.
    func applyFilters(
        _ filters: [Filter], to image: PixmanImage, box: PixelBox, transform: Transform3D, edges: pixman_repeat_t
    ) -> PixmanImage {
        var current = image
        for (i, filter) in filters.enumerated() {
            if let sigma = filter.blurSigma.map({ $0 * scale }), sigma > 0 {
                current = FilterPixels.blurred(current, box: box, sigma: sigma, edges: edges)
            } else if let m = filter.colorMatrix {
                FilterPixels.applyColorMatrix(m, to: current)
            } else if let d = filter.distortion, d.radius > 0, let inverse = transform.planeInverse {
                // Only where the frame redraws, and the later blurs read.
                let later = FilterBlur.reach(of: Array(filters[(i + 1)...]), scale: scale)
                let needed = box.intersection(canvas.box.insetBy(dx: -later, dy: -later))
                current = FilterPixels.distorted(current, box: box, within: needed, by: d, transform: transform, inverse: inverse)
            }
        }
        return current
    }
}

extension Coverage {
    /// `alpha` over `box`, cut by `clip`; nil where that covers everything (no clip, alpha 1).
    static func uniform(_ alpha: Double, box: PixelBox, clip: Coverage?) -> Coverage? {
        guard clip != nil || alpha < 1 else { return nil }
        let coverage = Coverage(box: box)
        coverage.paint(alpha: alpha)
        if let clip { coverage.intersect(with: clip) }
        return coverage
    }
}

extension PixmanRegion {
    /// Adds what the backdrops the region touches read behind them (`DamageTracker.growForBackdrops`),
    /// so that when such a layer is drawn the canvas holds, there, what this frame draws behind it
    /// rather than the last frame's pixels.
    func growForBackdrops(in tree: RenderTree, scale: Double, within full: PixelBox) {
        DamageTracker.growForBackdrops(in: tree, scale: scale, within: full, meets: intersects, add: add)
    }

    /// Whether any pixel of `box` is in the region.
    func intersects(_ box: PixelBox) -> Bool {
        var rect = pixman_box32_t(x1: Int32(box.minX), y1: Int32(box.minY), x2: Int32(box.maxX), y2: Int32(box.maxY))
        return pixman_region32_contains_rectangle(region, &rect) != PIXMAN_REGION_OUT
    }
}
