import LayerKit
import RendererContract

/// Layer filters (seed ch. 2, "Filters Add Visual Effects"; the kinds and their parameters are
/// documented on `Filter`), built from intermediates as group opacity and masks are
/// (OffscreenGroups.swift):
///
/// - `filters`: the layer and its subtree render into an intermediate enlarged by the blurs'
///   reach and the distortions' circles, each filter then makes a new intermediate from the last
///   (a blur two, along x then y, a colour filter or a distortion one), and the result is
///   composited at the layer's superlayer's opacity. A distortion maps each pixel into the layer's
///   plane, finds its source there (`Distortion.sourcePoint(for:)`) and samples that point's
///   pixel bilinearly.
/// - `backgroundFilters`: what is already drawn behind the layer in the same image (the target,
///   or the enclosing group's intermediate) is drawn into an intermediate covering the layer's
///   pixels and the blurs' reach, filtered, and composited within the layer's rounded bounds
///   beneath the layer's own parts. On the target, when all of it lies within that box (a
///   full-screen overlay), its draws move there and the target draws the intermediate instead;
///   otherwise they are drawn again, at a wide blur's reduced resolution.
/// - `compositingFilter` (a blend mode): the layer's image and a redraw of what is behind it
///   over the same box are blended by the shader, drawn over what is behind.
///
/// What is behind is drawn rather than copied out of the target, because the target's pass is
/// recorded as one render pass after all intermediates. A layer with `backgroundFilters` that
/// itself renders into an intermediate (for its `filters`, compositingFilter, mask or group
/// opacity) would find nothing behind it there, so its backdrop is made first from the pass the
/// layer is composited into. With `filters` or a compositingFilter it is composited there, at
/// the layer's opacity within its rounded bounds, beneath the layer's image: the layer's filters
/// apply to its own parts and sublayers only, and a blend blends the layer over the backdrop.
/// There a mask of the layer does not cut the backdrop, nor does group opacity fade it together
/// with the layer. With only a mask or group opacity it is drawn as the layer's first part
/// inside the layer's intermediate, so the mask and the group's opacity apply to it as to the
/// rest of the layer. A sublayer's backdrop inside any intermediate is that intermediate's
/// content only.
extension SceneEncoder {
    /// A layer with `filters` or a blending `compositingFilter` (and perhaps a mask or group
    /// opacity as well, applied before the filters).
    mutating func encodeFiltered(
        _ layer: RenderLayer, mask: RenderLayer?, group: Bool, transform: Transform3D, parentOpacity: Double,
        clip: Clip?, scissor: PixelRect?, flipped: Bool
    ) {
        let p = layer.properties
        // The backdrop goes beneath the layer's image here; drawLayer inside skips it.
        if layer.hasBackdrop {
            if let backdrop = makeBackdrop(layer, transform: transform, clip: clip, scissor: scissor) {
                appendBackdrop(backdrop, opacity: parentOpacity * p.opacity)
            }
            carriedBackdrop = (layer.id, nil)
        }
        let chain = p.filters.filter { !$0.kind.isBlendMode }
        let reach = FilterBlur.reach(of: chain, scale: scale)
        let circles = DamageTracker.distortionBox(of: p, transform: transform)
        let (outerTint, outerCulling) = (tint, culling)
        // Filters spread and move pixels: what lies outside the redrawn ones reaches into them.
        (tint, culling) = ((1, 1, 1), nil)
        defer { (tint, culling) = (outerTint, outerCulling) }

        beginPass()
        if mask != nil || group {
            encodeOffscreen(
                layer, mask: mask, group: group, transform: transform, parentOpacity: 1, clip: nil, scissor: nil,
                flipped: flipped)
        } else {
            drawLayer(layer, transform: transform, opacity: p.opacity, clip: nil, scissor: nil, flipped: flipped)
        }
        // A transparent pixel more than the blur's reach around what was drawn, so that the blur
        // clamped at the box's edge reads transparency beyond it. Content off the target still
        // blurs onto it from up to the reach away, and a distortion draws on its whole circle
        // from anywhere in it (up to a target's size around the target).
        let drawn = openPasses[openPasses.count - 1].reach
        let margin = reach > 0 ? reach + 1 : 0
        let near = circles.intersection(targetBox.insetBy(dx: -targetSize.width, dy: -targetSize.height))
        guard let content = endPass(
            box: drawn.insetBy(dx: -margin, dy: -margin).union(near),
            limit: targetBox.insetBy(dx: -reach, dy: -reach).union(near)),
            let filtered = applyFilters(chain, to: content, transform: transform)
        else { return }

        if layer.maskedLayerID == nil, let mode = p.compositingFilter?.kind.blendModeIndex {
            guard let backdrop = redrawBehind(box: filtered.box) else { return }
            tint = outerTint
            let rect = filtered.box.rect
            var instance = Instance(
                transform: .identity, clip: clip, quad: rect, bounds: rect, contentsFrame: rect, opacity: parentOpacity,
                flags: [.hasContents])
            instance.blendMode = Double(mode)
            append(
                instance, kind: .blend, scissor: scissor, filter: .nearest, intermediate: filtered.index,
                intermediate2: backdrop.index)
        } else {
            tint = outerTint
            appendComposite(
                of: filtered, flags: [.hasContents], color: (0, 0, 0, 0), opacity: parentOpacity, clip: clip,
                scissor: scissor)
        }
    }

    /// A layer's backdrop made before the layer goes into an intermediate (see above): the filtered
    /// intermediate, where it lies, and how to composite it.
    struct Backdrop {
        var index: Int
        var box: PixelBox
        /// Where the intermediate's texels lie: its box, or stretched back from a reduced blur.
        var frame: Rect
        var filter: ContentsFilter
        /// The layer's rounded bounds, clipping through the shader.
        var shape: Clip
        /// The enclosing clip and scissor, in target pixels.
        var scissor: PixelRect?
    }

    /// Makes the backdrop of a layer with a mask or group opacity (and no filters) from the pass
    /// it is composited into, for `encodeBackdrop` to draw inside the layer's intermediate.
    mutating func carryBackdrop(_ layer: RenderLayer, transform: Transform3D, clip: Clip?, scissor: PixelRect?) {
        guard layer.hasBackdrop, carriedBackdrop?.id != layer.id else { return }
        carriedBackdrop = (layer.id, makeBackdrop(layer, transform: transform, clip: clip, scissor: scissor))
    }

    /// The layer's `backgroundFilters` applied to what is behind it, composited within its rounded
    /// bounds at `opacity`; or the backdrop made before the layer went into an intermediate.
    mutating func encodeBackdrop(
        _ layer: RenderLayer, transform: Transform3D, opacity: Double, clip: Clip?, scissor: PixelRect?
    ) {
        if let carried = carriedBackdrop, carried.id == layer.id {
            carriedBackdrop = nil
            if let backdrop = carried.backdrop { appendBackdrop(backdrop, opacity: opacity) }
            return
        }
        guard let backdrop = makeBackdrop(layer, transform: transform, clip: clip, scissor: scissor) else { return }
        appendBackdrop(backdrop, opacity: opacity)
    }

    /// The backdrop drawn into the current pass at `opacity`.
    mutating func appendBackdrop(_ b: Backdrop, opacity: Double) {
        append(
            Instance(
                transform: .identity, clip: b.shape, quad: b.box.rect, bounds: b.box.rect, contentsFrame: b.frame,
                opacity: opacity, flags: [.hasContents]),
            kind: .body, scissor: b.scissor, filter: b.filter, intermediate: b.index)
    }

    /// The layer's `backgroundFilters` applied to what the current pass has drawn behind it.
    mutating func makeBackdrop(
        _ layer: RenderLayer, transform: Transform3D, clip: Clip?, scissor: PixelRect?
    ) -> Backdrop? {
        let p = layer.properties
        let chain = p.backgroundFilters.filter { !$0.kind.isBlendMode }
        guard !chain.isEmpty, !p.bounds.isEmpty, let inverse = transform.planeInverse else { return nil }
        let shapePixels = pixelBox(of: p.bounds, transform)
        let shapeBox = PixelBox(covering: shapePixels).intersection(limit(clip: clip, scissor: scissor))
        guard !shapeBox.isEmpty else { return nil }
        let reach = FilterBlur.reach(of: chain, scale: scale)
        let outerTint = tint
        tint = (1, 1, 1)
        defer { tint = outerTint }
        let box = shapeBox.insetBy(dx: -reach, dy: -reach).intersection(targetBox)
        // What is behind moves into an intermediate when it all lies within the box; otherwise it
        // is drawn again, at a wide first blur's reduced resolution directly.
        let firstSigma = (chain[0].blurSigma ?? 0) * scale
        let factor = FilterBlur.reduction(forSigma: firstSigma)
        var rest = chain[...]
        var backdrop: (index: Int, box: PixelBox)
        var reducedBy = 1
        if let moved = moveBehind(into: box) {
            backdrop = moved
        } else {
            guard let redrawn = redrawBehind(box: box, reducedBy: factor) else { return nil }
            (backdrop, reducedBy) = (redrawn, factor)
        }
        // A wide blur alone stays reduced: the composite stretches it back bilinearly.
        var stretched: Rect?
        if chain.count == 1 && factor > 1 {
            guard let blurred = blur(backdrop, sigma: firstSigma, reducedBy: reducedBy, stretchBack: false) else { return nil }
            let (r, k) = (blurred.box.rect, Double(factor))
            (backdrop, rest, stretched) = (blurred, [], Rect(x: r.minX * k, y: r.minY * k, width: r.width * k, height: r.height * k))
        } else if reducedBy > 1 {
            guard let blurred = blur(backdrop, sigma: firstSigma, reducedBy: factor, into: box) else { return nil }
            (backdrop, rest) = (blurred, chain.dropFirst())
        }
        guard let filtered = applyFilters(Array(rest), to: backdrop, transform: transform) else { return nil }
        // The rounded bounds clip through the shader; an enclosing clip through the scissor.
        var compositeScissor = scissor
        if let outer = clip { compositeScissor = intersect(scissor, pixelRect(outer.pixelBox)) }
        return Backdrop(
            index: filtered.index, box: box, frame: stretched ?? filtered.box.rect,
            filter: stretched == nil ? .nearest : .linear,
            shape: Clip(bounds: p.bounds, radii: p.cornerRadii, inverse: inverse, pixelBox: shapePixels),
            scissor: compositeScissor)
    }

    /// When everything the current pass has drawn so far lies within `box` (a backdrop covering
    /// the screen, say), those draws move into an intermediate covering `box`, which the pass
    /// then draws in their place: the intermediate serves as the backdrop without drawing the
    /// scene twice. Nil, changing nothing, otherwise. The intermediate starts as the frame's clear
    /// colour, as the target does, which is exact for a transparent or an opaque clear colour.
    private mutating func moveBehind(into box: PixelBox) -> (index: Int, box: PixelBox)? {
        let pass = openPasses[openPasses.count - 1]
        guard openPasses.count == 1, !pass.draws.isEmpty,
            pass.draws.allSatisfy({ let r = $0.reach.intersection(targetBox); return r.isEmpty || r.intersection(box) == r })
        else { return nil }
        openPasses[0] = OpenPass()
        openPasses.append(pass)
        guard let moved = endPass(box: box, limit: box) else { return nil }
        passes[passes.count - 1].clearsToTargetColor = true
        let outerTint = tint
        tint = (1, 1, 1)
        appendComposite(of: moved, flags: [.hasContents], color: (0, 0, 0, 0), opacity: 1, clip: nil, scissor: nil)
        tint = outerTint
        return moved
    }

    /// What the current pass has drawn so far, drawn again into an intermediate covering `box`
    /// (over the frame's clear colour when the current pass is the target's), at 1/`factor` of
    /// the resolution in the reduced grid's pixels (see `blur`).
    private mutating func redrawBehind(box: PixelBox, reducedBy factor: Int = 1) -> (index: Int, box: PixelBox)? {
        let behind = openPasses[openPasses.count - 1].draws
        let onTarget = openPasses.count == 1
        let k = Double(factor)
        beginPass()
        for draw in behind {
            // A copy of the instance, as the intermediate shifts its instances by its own origin.
            var instance = instances[Int(draw.instance)]
            var copy = draw
            if factor > 1 {
                instance.transform = instance.transform.concatenating(Transform3D(scaleX: 1 / k, y: 1 / k))
                if let inverse = instance.clip?.inverse {
                    instance.clip?.inverse = Transform3D(scaleX: k, y: k).concatenating(inverse)
                }
                copy.scissor = draw.scissor.map { PixelBox($0).reduced(by: factor).pixelRect }
            }
            instances.append(instance)
            copy.instance = UInt32(instances.count - 1)
            copy.opaqueBox = nil
            copy.wholeWithin = nil
            openPasses[openPasses.count - 1].draws.append(copy)
        }
        let reducedBox = box.reduced(by: factor)
        guard let result = endPass(box: reducedBox, limit: reducedBox) else { return nil }
        passes[passes.count - 1].clearsToTargetColor = onTarget
        return result
    }

    /// `filters` applied in order to intermediate `source`, each into a new intermediate of the
    /// same box; filters that change nothing (a zero radius, a kind not drawn here) are skipped.
    /// `transform` maps the layer's bounds space, where distortions lie, to target pixels.
    private mutating func applyFilters(
        _ filters: [Filter], to source: (index: Int, box: PixelBox), transform: Transform3D
    ) -> (index: Int, box: PixelBox)? {
        var current = source
        let rect = source.box.rect
        for filter in filters {
            if let sigma = filter.blurSigma.map({ $0 * scale }), sigma > 0 {
                guard let next = blur(current, sigma: sigma) else { return nil }
                current = next
            } else if let m = filter.colorMatrix {
                var instance = Instance(
                    transform: .identity, clip: nil, quad: rect, bounds: rect, contentsFrame: rect, opacity: 1, flags: [])
                // The rows' first four columns, then the fifth column (Shaders/layer.glsl).
                instance.gradient = (0..<4).flatMap { row in m[row * 5..<row * 5 + 4].map { Float($0) } }
                    + (0..<4).map { Float(m[$0 * 5 + 4]) }
                beginPass()
                append(instance, kind: .colorMatrix, scissor: nil, filter: .nearest, intermediate: current.index)
                guard let next = endPass(box: source.box, limit: source.box) else { return nil }
                current = next
            } else if let d = filter.distortion, d.radius > 0, let inverse = transform.planeInverse {
                var instance = Instance(
                    transform: .identity, clip: nil, quad: rect, bounds: rect, contentsFrame: rect, opacity: 1, flags: [])
                // Both maps between target pixels and the layer's plane, then the circle and the
                // kind (Shaders/layer.glsl, KIND_DISTORTION).
                instance.gradient = (transform.rows + inverse.rows).joined().map { Float($0) }
                    + [d.center.x, d.center.y, d.radius, d.amount, Double(d.kind.rawValue), 0, 0, 0].map { Float($0) }
                beginPass()
                append(instance, kind: .distortion, scissor: nil, filter: .linear, intermediate: current.index)
                guard let next = endPass(box: source.box, limit: source.box) else { return nil }
                current = next
            }
        }
        return current
    }

    /// A Gaussian of σ `sigma` pixels over `source`, into an intermediate of the same box. A wide
    /// blur runs at a half or a quarter of the resolution (σ staying at least 4 pixels there, where
    /// the lost detail is far below what the blur removes): the source halved by 2×2 averages,
    /// blurred, then stretched back bilinearly. Pixels of the reduced images are target pixels
    /// divided by the factor, so their boxes are those of the target's reduced grid.
    /// `source` may already be reduced by `reducedBy`, standing for `full` at full resolution;
    /// without `stretchBack` the result stays at the reduced resolution, in the reduced grid.
    private mutating func blur(
        _ source: (index: Int, box: PixelBox), sigma: Double, reducedBy start: Int = 1, into full: PixelBox? = nil,
        stretchBack: Bool = true
    ) -> (index: Int, box: PixelBox)? {
        var current = source
        var factor = start
        while factor < FilterBlur.reduction(forSigma: sigma) {
            let box = current.box.reduced(by: 2)
            let from = current.box.rect
            let frame = Rect(x: from.minX / 2, y: from.minY / 2, width: from.width / 2, height: from.height / 2)
            guard let next = resample(current, into: box, frame: frame) else { return nil }
            current = next
            factor *= 2
        }
        let rect = current.box.rect
        for direction in [(1.0, 0.0), (0.0, 1.0)] {
            beginPass()
            append(
                Instance(
                    transform: .identity, clip: nil, quad: rect, bounds: rect, contentsFrame: rect,
                    contentsCenter: (0, 0, direction.0, direction.1), opacity: 1, sigma: sigma / Double(factor), flags: []),
                kind: .filterBlur, scissor: nil, intermediate: current.index)
            guard let next = endPass(box: current.box, limit: current.box) else { return nil }
            current = next
        }
        guard factor > 1, stretchBack else { return current }
        let k = Double(factor)
        let frame = Rect(x: rect.minX * k, y: rect.minY * k, width: rect.width * k, height: rect.height * k)
        return resample(current, into: full ?? source.box, frame: frame)
    }

    /// Intermediate `source` drawn bilinearly over `frame` into a new intermediate covering `box`.
    private mutating func resample(
        _ source: (index: Int, box: PixelBox), into box: PixelBox, frame: Rect
    ) -> (index: Int, box: PixelBox)? {
        beginPass()
        append(
            Instance(
                transform: .identity, clip: nil, quad: box.rect, bounds: box.rect, contentsFrame: frame, opacity: 1,
                flags: [.hasContents]),
            kind: .body, scissor: nil, intermediate: source.index)
        return endPass(box: box, limit: box)
    }
}
