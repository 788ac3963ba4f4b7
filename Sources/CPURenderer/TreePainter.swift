internal import CPixman
import LayerKit
import RendererContract

/// Draws a (sampled) render tree onto a canvas in Core Animation's per-layer order, as the Vulkan
/// renderer's `SceneEncoder` encodes it: background and contents, sublayers in drawing order,
/// border. Geometry is flattened per layer as CALayer does, then scaled to output pixels; shapes
/// are rasterised by cairo into coverage masks and composited by pixman, images sampled through
/// pixman's projective transforms. A `masksToBounds` layer's rounded bounds become a coverage mask
/// that its sublayers' draws are multiplied by; nested clips multiply.
struct TreePainter {
    /// The tree being drawn: the sample given, or while a replicator's delayed instance is drawn,
    /// that sample with the instance's sublayers sampled earlier.
    var tree: RenderTree
    let scale: Double
    let canvas: Canvas
    /// Shape and text layers' images, kept between frames by the renderer (and shared by its
    /// painters: a painter makes none of its own).
    var rasters: Rasters
    /// Multiplies the red, green and blue of the colours drawn now (replicator instances').
    var tint = (1.0, 1.0, 1.0)
    /// Composite operations done.
    var composites = 0
    /// Layers placed (see `FrameStatistics.placedLayerCount`).
    var placedLayers = 0
    /// Client buffers pixman cannot read (their format), drawn without their contents.
    var unreadableClients: [ClientContents] = []
    /// Measuring: the last layer found whose background or contents hide the whole canvas box.
    /// Drawing: that layer, where drawing starts (TreePainter+Occlusion.swift).
    var occluder: Occluder?
    let isMeasuring: Bool
    /// While drawing, whether the occluder is still ahead: nothing is drawn until it is reached.
    var isSkipping: Bool
    /// A layer's backdrop made from the canvas it is composited onto, for its offscreen image
    /// (TreePainter+Filters.swift).
    var carriedBackdrop: (id: LayerID, backdrop: Backdrop?)?
    /// The layer in a transition whose current state this painter draws (TreePainter+Transitions.swift).
    var drawnWithoutTransition: LayerID?
    /// What each subtree of `tree` may draw, for skipping those that miss the canvas's box; nil
    /// while `tree` is another sample (a replicator's delayed instances), where they do not hold.
    var subtreeBounds: SubtreeBounds?
    /// The entry in `subtreeBounds` of the sublayer visited last, as the walk of its superlayer's
    /// sublayers found it: that sublayer's walk of its own sublayers starts from it.
    var visitedSublayer: SubtreeBounds.Known?

    /// A painter that draws the tree onto `canvas` with the renderer's `rasters`, starting at
    /// `occluder` (found by a measuring painter) when given.
    init(tree: RenderTree, scale: Double, canvas: Canvas, rasters: Rasters, startingAt occluder: Occluder? = nil) {
        (self.tree, self.scale, self.canvas, self.rasters, self.occluder) = (tree, scale, canvas, rasters, occluder)
        isMeasuring = false
        isSkipping = occluder != nil
    }

    /// A painter that draws nothing and finds the occluder.
    init(measuring tree: RenderTree, scale: Double, canvas: Canvas, rasters: Rasters) {
        (self.tree, self.scale, self.canvas, self.rasters) = (tree, scale, canvas, rasters)
        isMeasuring = true
        isSkipping = false
    }

    /// Draws the whole tree, `root` being its root, at the output's scale.
    mutating func paintTree(root: RenderLayer) {
        assert(root === tree.root, "a painter draws its own tree")
        let toPixels = Transform3D(scaleX: scale, y: scale)
        visit(root, parentSpace: nil, parentTransform: toPixels, plainly: toPixels.isFinite, opacity: 1, clip: nil, flipped: false)
    }

    /// Draws `layer`, a sublayer of a layer whose sublayers `parentSpace` maps into its bounds
    /// space and `parentTransform` maps on to target pixels. `plainly`: `parentSpace` maps them
    /// as they are (no sublayerTransform, not flipped; it is nil then) and `parentTransform` is
    /// finite, so a layer that keeps to its plane is placed without the 4×4 products.
    mutating func visit(
        _ layer: RenderLayer, parentSpace: LayerProperties.SublayerSpace?, parentTransform: Transform3D, plainly: Bool = false,
        opacity parentOpacity: Double, clip: Coverage?, flipped: Bool
    ) {
        // The values are read where they lie (`layer.properties.x`, and `layer`'s own accessors for
        // what LayerProperties computes): a copy of them all costs more than the few this needs.
        let opacity = layer.properties.opacity
        // A layer in a transition shows its previous state too, though hidden or transparent now.
        guard layer.properties.transition != nil ? parentOpacity > 0 : !layer.properties.isHidden && parentOpacity * opacity > 0
        else { return }
        if layer.isTransformLayer {
            let transform = layer.transformToSuperlayer(in: parentSpace)
            for plane in tree.depthSortedSublayers(of: layer, transform: transform) {
                place(
                    plane.layer, transform: plane.transform.flattened.concatenating(parentTransform),
                    opacity: parentOpacity * opacity * plane.opacity, clip: clip, flipped: flipped != plane.isFlipped)
            }
        } else {
            // Most layers keep to their plane, under a superlayer that maps its sublayers plainly.
            let transform = plainly && layer.keepsToItsPlane
                ? layer.planarTransform(under: parentTransform)
                : layer.transformToSuperlayer(in: parentSpace).flattened.concatenating(parentTransform)
            place(layer, transform: transform, opacity: parentOpacity, clip: clip, flipped: flipped)
        }
    }

    /// Draws a layer that `transform` maps to target pixels, with its subtree, at its own opacity
    /// times `parentOpacity`; as one image first when it has group opacity.
    mutating func place(_ layer: RenderLayer, transform: Transform3D, opacity parentOpacity: Double, clip: Coverage?, flipped: Bool) {
        placedLayers += 1
        // Values read where they lie, as in `visit`.
        if let transition = layer.properties.transition, drawnWithoutTransition != layer.id {
            return drawTransition(layer, transition, transform: transform, opacity: parentOpacity, clip: clip, flipped: flipped)
        }
        let ownOpacity = layer.properties.opacity
        let opacity = parentOpacity * ownOpacity
        guard opacity > 0 else { return }
        if !layer.properties.isDoubleSided && transform.showsBack(of: layer.properties.bounds) != flipped { return }
        let mask = layer.maskID.flatMap { tree[$0] }
        let group = ownOpacity < 1 && layer.properties.allowsGroupOpacity && tree.hasVisibleSublayers(layer)
        if layer.hasFilterEffects {
            drawFiltered(layer, mask: mask, group: group, transform: transform, opacity: parentOpacity, clip: clip, flipped: flipped)
        } else if mask != nil || group {
            drawOffscreen(layer, mask: mask, group: group, transform: transform, opacity: opacity, clip: clip, flipped: flipped)
        } else {
            drawLayer(layer, transform: transform, opacity: opacity, clip: clip, flipped: flipped)
        }
    }

    /// Group opacity (ca-semantics A6) and masks (A3): the layer and its subtree into an image of
    /// the pixels they can reach (as a group at full opacity, fading as a whole; otherwise each
    /// layer at its own), composited within the enclosing clip through the mask's alpha, which
    /// is drawn in the masked layer's bounds space.
    mutating func drawOffscreen(
        _ layer: RenderLayer, mask: RenderLayer?, group grouped: Bool, transform: Transform3D, opacity: Double, clip: Coverage?,
        flipped: Bool
    ) {
        // Nothing offscreen hides what is behind it, and while skipping, all of it lies beneath
        // the occluder.
        guard !isMeasuring, !isSkipping else { return }
        let reach = DamageTracker.pixelBounds(ofSubtree: layer, in: tree, transform: transform, scale: scale)
        var box = canvas.box
        if !reach.isNull { box = box.intersection(PixelBox(covering: reach.insetBy(dx: -1, dy: -1))) }
        guard !box.isEmpty else { return }
        let image = PixmanImage(format: PIXMAN_a8r8g8b8, width: box.width, height: box.height)
        var content = offscreenPainter(onto: image, box: box)
        // The layer's backdrop is what is behind it here, though drawn inside the image.
        content.carriedBackdrop = carriedBackdrop(for: layer, transform: transform, clip: clip)
        content.drawLayer(layer, transform: transform, opacity: grouped ? 1 : opacity, clip: nil, flipped: flipped)
        absorb(content)
        composites += 1
        let coverage = Coverage(box: box)
        coverage.paint(alpha: grouped ? opacity : 1)
        if let mask {
            // The mask lives in the masked layer's bounds space, with no sublayerTransform between.
            let alpha = PixmanImage(format: PIXMAN_a8r8g8b8, width: box.width, height: box.height)
            var masking = TreePainter(
                tree: tree, scale: scale, canvas: Canvas(image: alpha, origin: (box.minX, box.minY), box: box, target: canvas.target),
                rasters: rasters)
            masking.visit(mask, parentSpace: nil, parentTransform: transform, opacity: 1, clip: nil, flipped: flipped)
            absorb(masking)
            pixman_image_composite32(
                PIXMAN_OP_IN, alpha.handle, nil, coverage.image.handle, 0, 0, 0, 0, 0, 0, Int32(box.width), Int32(box.height))
        }
        if let clip { coverage.intersect(with: clip) }
        canvas.composite(image, at: (box.minX, box.minY), mask: coverage, box: box)
    }

    /// The layer's own parts and its sublayers onto the canvas, at `opacity`.
    mutating func drawLayer(
        _ layer: RenderLayer, transform: Transform3D, opacity: Double, clip: Coverage?, flipped: Bool, shadow drawsShadow: Bool = true
    ) {
        // The one copy of the layer's values this visit makes: the helpers below read them here.
        let p = layer.properties
        // (A measuring painter never skips.)
        if isSkipping, layer.id == occluder?.id { isSkipping = false }
        // Square corners, most layers', need no look at each corner.
        let bounds = RoundedRect(rect: p.bounds, radii: p.cornerRadius == 0 ? (0, 0, 0, 0) : p.cornerRadii)
        // Contents orientation does not follow a flipped superlayer (ca-semantics G10): an odd
        // number of flips above the layer turns them back upright. A layer beneath the occluder
        // draws nothing of its own.
        let frame = isSkipping ? nil : p.contentsFrame(contentsAreFlipped: flipped)
        if isMeasuring {
            measureOcclusion(by: layer, p, bounds: bounds, contentsFrame: frame, transform: transform, opacity: opacity)
        }
        // What masksToBounds clips: the sublayers, and the layer's own shadow (seed ch. 2, "Adding
        // Shadows to Layers"): made when first needed.
        var innerClip = clip
        var innerClipIsMade = !p.masksToBounds
        if !isMeasuring, !isSkipping {
            if drawsShadow, p.shadowOpacity > 0, let shadowColor = p.shadowColor {
                // An empty or edge-on clip shows nothing of the shadow and the sublayers.
                innerClip = p.masksToBounds ? clipCoverage(bounds, transform: transform, within: clip) : clip
                innerClipIsMade = true
                if !p.masksToBounds || innerClip != nil {
                    drawShadow(of: layer, color: shadowColor, transform: transform, opacity: opacity, clip: innerClip, flipped: flipped)
                }
            }
            if drawsShadow, layer.hasBackdrop { drawBackdrop(of: layer, transform: transform, opacity: opacity, clip: clip) }
            if opacity < 1, let frame, p.hasBackground, p.showsContents {
                drawBackgroundAndContents(of: p, bounds: bounds, in: frame, transform: transform, opacity: opacity, clip: clip, upright: flipped)
            } else {
                if occluder != Occluder(id: layer.id, part: .contents) {
                    drawBackground(of: p, bounds: bounds, transform: transform, opacity: opacity, clip: clip)
                }
                if let frame {
                    drawContents(of: p, in: frame, transform: transform, opacity: opacity, clip: clip, upright: flipped)
                }
            }
            // Only layers of a specialised class have tiles, a shape or text; not those whose
            // contents are external (contents shown, but no `contents`), a client's surface.
            if layer.hasClassProperties, frame == nil || p.contents != nil {
                drawTiles(of: layer, p, transform: transform, opacity: opacity, clip: clip)
                drawRasters(of: layer, p, transform: transform, opacity: opacity, clip: clip, flipped: flipped)
            }
        }
        // Nothing inside a clip or a replicator (whose layers show once per instance) is an
        // occluder: a measuring painter does not look there, and one still before the occluder
        // has nothing to draw there.
        let isReplicator = layer.isReplicator
        if (p.masksToBounds || isReplicator) && (isMeasuring || isSkipping) { return }
        if !innerClipIsMade { innerClip = clipCoverage(bounds, transform: transform, within: clip) }
        if !p.masksToBounds || innerClip != nil {
            if !isMeasuring, !isSkipping, layer.hasClassProperties, let emitter = p.emitter {
                drawParticles(of: layer, emitter, transform: transform, opacity: opacity, clip: innerClip)
            }
            let childFlipped = flipped != p.isGeometryFlipped
            if isReplicator {
                drawInstances(of: layer, transform: transform, opacity: opacity, clip: innerClip, flipped: childFlipped)
            } else if !layer.sublayerIDs.isEmpty {
                // A space that maps the sublayers as they are (as most do) is handed on as none,
                // which `transformToSuperlayer(in:)` takes alike.
                if let subtreeBounds {
                    // A subtree that draws nothing the canvas holds holds no occluder either.
                    var sublayers = subtreeBounds.sublayerIDs(
                        of: layer, in: tree, transform: transform, within: canvas.box, known: visitedSublayer)
                    // The walk knows the space from the layer's index, without comparing its
                    // sublayerTransform with the identity every frame.
                    let space = sublayers.mapsSublayersAsTheyAre ? nil : p.sublayerSpace
                    let plainly = space == nil && transform.isFinite
                    while let id = sublayers.next() {
                        guard let sublayer = tree[id] else { continue }
                        // Only a sublayer with sublayers of its own asks for them (most are leaves).
                        if !sublayer.sublayerIDs.isEmpty { visitedSublayer = sublayers.known }
                        visit(
                            sublayer, parentSpace: space, parentTransform: transform, plainly: plainly, opacity: opacity, clip: innerClip,
                            flipped: childFlipped)
                    }
                } else {
                    let space = p.isGeometryFlipped || !p.sublayerTransform.isIdentity ? p.sublayerSpace : nil
                    let plainly = space == nil && transform.isFinite
                    for sublayer in tree.sortedSublayers(of: layer) {
                        visit(
                            sublayer, parentSpace: space, parentTransform: transform, plainly: plainly, opacity: opacity, clip: innerClip,
                            flipped: childFlipped)
                    }
                }
            }
        }
        if !isMeasuring, !isSkipping, p.borderWidth > 0, let borderColor = p.borderColor, borderColor.alpha > 0 {
            fill(
                [bounds, bounds.insetBy(p.borderWidth)], color: tinted(borderColor.premultipliedSRGB(times: opacity)),
                transform: transform, clip: clip, evenOdd: true)
        }
    }

    /// The target pixels `rect` (layer units) can touch through `transform`, a pixel more for
    /// anti-aliasing, within the canvas; the canvas's box where part of it lies behind the eye.
    func pixelBox(of rect: Rect, _ transform: Transform3D) -> PixelBox {
        let corners = rect.corners.compactMap { c in transform.apply(x: c.x, y: c.y) }
        guard corners.count == 4 else { return canvas.box }
        let box = Rect(boundingPoints: corners.map { Point(x: $0.x, y: $0.y) })
        return canvas.box.intersection(PixelBox(covering: box.insetBy(dx: -1, dy: -1)))
    }

    /// Fills `shapes` (their union, or the ring between two with `evenOdd`) with a premultiplied
    /// colour, anti-aliased, within `clip`.
    mutating func fill(
        _ shapes: [RoundedRect], color: (Double, Double, Double, Double), transform: Transform3D, clip: Coverage?,
        evenOdd: Bool = false
    ) {
        let box = pixelBox(of: shapes[0].rect, transform)
        guard !box.isEmpty else { return }
        let solid = PixmanImage(solid: color)
        if clip == nil, shapes.count == 1, let exact = alignedBox(of: shapes[0], transform) {
            // Whole pixels: no coverage to compute.
            guard !exact.isEmpty else { return }
            canvas.composite(solid, mask: nil, box: exact)
        } else {
            let coverage = Coverage(box: box)
            guard coverage.fill(shapes, transform: transform, evenOdd: evenOdd) else { return }
            if let clip { coverage.intersect(with: clip) }
            canvas.composite(solid, mask: coverage, box: box)
        }
        composites += 1
    }

    /// The whole pixels a square-cornered rectangle covers exactly, when `transform` only scales
    /// and translates it onto pixel edges; nil otherwise.
    func alignedBox(of shape: RoundedRect, _ t: Transform3D) -> PixelBox? {
        let r = shape.radii
        guard r.0 == 0, r.1 == 0, r.2 == 0, r.3 == 0, t.m12 == 0, t.m21 == 0, t.m14 == 0, t.m24 == 0, t.m44 == 1,
            let a = t.apply(x: shape.rect.minX, y: shape.rect.minY), let b = t.apply(x: shape.rect.maxX, y: shape.rect.maxY)
        else { return nil }
        // No array of the edges, as in `centresBox(of:_:)`.
        func isWhole(_ v: Double) -> Bool { abs(v - v.rounded()) < 1e-9 && abs(v) < 16_777_216 }
        let (x0, y0, x1, y1) = (min(a.x, b.x), min(a.y, b.y), max(a.x, b.x), max(a.y, b.y))
        guard isWhole(x0), isWhole(y0), isWhole(x1), isWhole(y1) else { return nil }
        let box = PixelBox(minX: Int(x0.rounded()), minY: Int(y0.rounded()), maxX: Int(x1.rounded()), maxY: Int(y1.rounded()))
        return canvas.box.intersection(box)
    }

    /// The coverage of a masksToBounds layer's rounded bounds within the enclosing clip; nil when
    /// nothing of it shows.
    func clipCoverage(_ bounds: RoundedRect, transform: Transform3D, within outer: Coverage?) -> Coverage? {
        var box = pixelBox(of: bounds.rect, transform)
        if let outer { box = box.intersection(outer.box) }
        guard !box.isEmpty else { return nil }
        let coverage = Coverage(box: box)
        guard coverage.fill([bounds], transform: transform) else { return nil }
        if let outer { coverage.intersect(with: outer) }
        coverage.reach = (outer.map { PixelBox(covering: $0.reach) } ?? canvas.target).rect
            .intersection(targetRect(of: bounds.rect, transform))
        return coverage
    }
}

extension Transform3D {
    /// Whether every entry is finite (their sum is, unless it overflows: then this says no).
    var isFinite: Bool {
        let sum = m11 + m12 + m13 + m14 + m21 + m22 + m23 + m24 + m31 + m32 + m33 + m34 + m41 + m42 + m43 + m44
        return sum - sum == 0
    }
}

extension RenderLayer {
    /// Whether the layer's transform keeps to its plane (an identity, a translation, a 2D scale,
    /// rotation or shear: nothing from or to z, no perspective), as most layers' do, and the values
    /// that place it are finite: `planarTransform(under:)` then places it.
    var keepsToItsPlane: Bool {
        let t = properties.transform
        guard t.m14 == 0, t.m24 == 0, t.m34 == 0, t.m31 == 0, t.m32 == 0, t.m44 == 1 else { return false }
        let (bounds, anchor, position) = (properties.bounds, properties.anchorPoint, properties.position)
        let sum = bounds.origin.x + anchor.x * bounds.size.width + bounds.origin.y + anchor.y * bounds.size.height
            + properties.anchorPointZ + position.x + position.y
        return sum - sum == 0
    }

    /// `transformToSuperlayer(in: nil).flattened.concatenating(q)` for a layer that
    /// `keepsToItsPlane`, under a finite `q`, without the 4×4 products: their terms that the
    /// plane makes zero (0·x, for a finite x) are left out, which changes at most a zero's sign.
    func planarTransform(under q: Transform3D) -> Transform3D {
        let t = properties.transform
        let (bounds, anchor, position) = (properties.bounds, properties.anchorPoint, properties.position)
        let ax = bounds.origin.x + anchor.x * bounds.size.width
        let ay = bounds.origin.y + anchor.y * bounds.size.height
        // `LayerProperties.transformToSuperlayer`'s row operations leave rows 1 and 2 as they are
        // and make the translation this; flattening empties the z column (and row 3 is empty).
        let x = t.m41 - ax * t.m11 - ay * t.m21 + position.x
        let y = t.m42 - ax * t.m12 - ay * t.m22 + position.y
        return Transform3D(
            m11: t.m11 * q.m11 + t.m12 * q.m21, m12: t.m11 * q.m12 + t.m12 * q.m22,
            m13: t.m11 * q.m13 + t.m12 * q.m23, m14: t.m11 * q.m14 + t.m12 * q.m24,
            m21: t.m21 * q.m11 + t.m22 * q.m21, m22: t.m21 * q.m12 + t.m22 * q.m22,
            m23: t.m21 * q.m13 + t.m22 * q.m23, m24: t.m21 * q.m14 + t.m22 * q.m24,
            m31: 0, m32: 0, m33: 0, m34: 0,
            m41: x * q.m11 + y * q.m21 + q.m41, m42: x * q.m12 + y * q.m22 + q.m42,
            m43: x * q.m13 + y * q.m23 + q.m43, m44: x * q.m14 + y * q.m24 + q.m44)
    }
}
