import LayerKit
import RendererContract

/// Group opacity (ca-semantics A6), masks (A3) and shadows of composited alpha (A5): a subtree is
/// rendered into an intermediate covering the pixels it can reach, which is then drawn into the
/// enclosing pass as one textured quad (or blurred first, for a shadow).
///
/// Intermediates are in target pixels shifted by their box's origin, so a subtree renders into one
/// exactly as it would into the target and the composite maps texel to pixel one to one.
extension SceneEncoder {
    var targetBox: PixelBox { PixelBox(x: 0, y: 0, width: targetSize.width, height: targetSize.height) }

    mutating func beginPass() {
        openPasses.append(OpenPass())
    }

    /// Ends the current pass as an intermediate covering `box`, or the pixels its draws reach within
    /// `limit` when `box` is nil. Returns the intermediate and its box, or nil (the draws dropped)
    /// when that is empty.
    mutating func endPass(box fixed: PixelBox? = nil, limit: PixelBox) -> (index: Int, box: PixelBox)? {
        let pass = openPasses.removeLast()
        let box = (fixed ?? pass.reach).intersection(limit)
        guard !box.isEmpty else { return nil }
        let index = intermediates.count
        intermediates.append(box.pixelRect)
        var draws = pass.draws
        for i in draws.indices {
            instances[Int(draws[i].instance)].origin = (box.minX, box.minY)
            draws[i].scissor = draws[i].scissor.map { PixelBox($0).offsetBy(dx: -box.minX, dy: -box.minY).pixelRect }
        }
        passes.append(EncodedPass(intermediate: index, draws: draws))
        return (index, box)
    }

    /// The pixels of the current pass that a draw clipped by `clip` and `scissor` may cover.
    func limit(clip: Clip?, scissor: PixelRect?) -> PixelBox {
        var box = targetBox
        if let scissor { box = box.intersection(PixelBox(scissor)) }
        if let clip { box = box.intersection(PixelBox(covering: clip.pixelBox)) }
        return box
    }

    /// A layer with a mask, or a group: its subtree at one opacity into an intermediate, the mask's
    /// subtree into a second of the same box, then one quad into the enclosing pass.
    mutating func encodeOffscreen(
        _ layer: RenderLayer, mask: RenderLayer?, group: Bool, transform: Transform3D, parentOpacity: Double,
        clip: Clip?, scissor: PixelRect?, flipped: Bool
    ) {
        let opacity = parentOpacity * layer.properties.opacity
        // The layer's backdrop comes from this pass, though it is drawn inside the intermediate.
        carryBackdrop(layer, transform: transform, clip: clip, scissor: scissor)
        // A group renders at full opacity and fades as a whole; without group opacity each layer
        // keeps its own multiplied opacity and only the mask applies to the whole.
        // A replicator instance's colour tints the composite, not the layers inside it as well.
        let outerTint = tint
        tint = (1, 1, 1)
        defer { tint = outerTint }
        beginPass()
        drawLayer(layer, transform: transform, opacity: group ? 1 : opacity, clip: nil, scissor: nil, flipped: flipped)
        guard let content = endPass(limit: limit(clip: clip, scissor: scissor)) else { return }
        var maskIndex: Int?
        if let mask {
            // The mask lives in the masked layer's bounds space, with no sublayerTransform between
            // (transformToSuperlayer(nil)): its parent transform is the masked layer's.
            let outerCulling = culling
            culling = nil
            beginPass()
            visit(mask, parentSpace: nil, parentTransform: transform, opacity: 1, clip: nil, scissor: nil, flipped: flipped)
            maskIndex = endPass(box: content.box, limit: content.box)?.index
            culling = outerCulling
        }
        var flags: Flags = [.hasContents]
        if maskIndex != nil { flags.insert(.mask) }
        tint = outerTint
        appendComposite(
            of: content, flags: flags, color: (0, 0, 0, 0), opacity: group ? opacity : 1, clip: clip,
            scissor: scissor, mask: maskIndex)
    }

    /// Draws intermediate `source` into the current pass pixel for pixel.
    mutating func appendComposite(
        of source: (index: Int, box: PixelBox), flags: Flags, color: (Double, Double, Double, Double),
        opacity: Double, clip: Clip?, scissor: PixelRect?, mask: Int? = nil
    ) {
        let rect = source.box.rect
        append(
            Instance(
                transform: .identity, clip: clip, quad: rect, bounds: rect, color: color, contentsFrame: rect,
                opacity: opacity, flags: flags),
            kind: .body, scissor: scissor, filter: .nearest, intermediate: source.index, intermediate2: mask)
    }

    /// A shadow whose shape is the layer's composited alpha, or its `shadowPath`.
    ///
    /// Core Animation draws the shadow in the layer's own plane, offset there by shadowOffset,
    /// and projects it with the layer's transform, so the offset goes in before the transform:
    /// under perspective it is foreshortened like the layer. A `shadowPath` is rasterised and
    /// blurred in that plane once (`ShadowMaskSource`) and kept while the path, radius and scale
    /// stay, then drawn as one quad; composited alpha is drawn offset into an intermediate,
    /// blurred along x into a second and along y into a third, which tints the enclosing pass.
    mutating func encodeOffscreenShadow(
        _ layer: RenderLayer, transform: Transform3D, opacity: Double, clip: Clip?, scissor: PixelRect?,
        flipped: Bool
    ) {
        let p = layer.properties
        guard let shadowColor = p.shadowColor else { return }
        let color = premultiplied(shadowColor, times: p.shadowOpacity)
        let offsetTransform = Transform3D(translationX: p.shadowOffset.width, y: p.shadowOffset.height)
            .concatenating(transform)
        if let path = p.shadowPath {
            appendShadowMask(
                of: layer, path: path, transform: offsetTransform, color: color, opacity: opacity, clip: clip,
                scissor: scissor)
            return
        }
        // σ is shadowRadius layer units (Vitrine's decision), in the target pixels a unit covers,
        // as for a shadow path; three of them hold all but 0.3% of the Gaussian.
        let sigma = max(0, p.shadowRadius) * transform.pixelsPerUnit
        let radius = Int((3 * sigma).rounded(.up))
        // The shape is alpha only: a replicator instance's colour tints the shadow's composite.
        let outerTint = tint
        tint = (1, 1, 1)
        defer { tint = outerTint }

        // The shape is blurred: what lies outside the redrawn pixels reaches into them.
        let outerCulling = culling
        culling = nil
        beginPass()
        drawLayer(layer, transform: offsetTransform, opacity: 1, clip: nil, scissor: nil, flipped: flipped, shadow: false)
        culling = outerCulling
        // Shapes off the target still cast shadows onto it, from up to the blur away.
        guard let shape = endPass(limit: targetBox.insetBy(dx: -radius, dy: -radius)) else { return }

        beginPass()
        let across = shape.box.insetBy(dx: -radius, dy: 0)
        appendBlur(of: shape, into: across, direction: (1, 0), sigma: sigma)
        guard let horizontal = endPass(box: across, limit: targetBox.insetBy(dx: -radius, dy: -radius)) else { return }

        beginPass()
        let blurred = shape.box.insetBy(dx: -radius, dy: -radius)
        appendBlur(of: horizontal, into: blurred, direction: (0, 1), sigma: sigma)
        guard let vertical = endPass(box: blurred, limit: limit(clip: clip, scissor: scissor)) else { return }

        tint = outerTint
        appendComposite(of: vertical, flags: [.hasContents, .tint], color: color, opacity: opacity, clip: clip, scissor: scissor)
    }

    /// The target pixels one layer unit covers along its longer axis (the transform's scale, not
    /// its translation or turn).
    /// One direction of the Gaussian: every pixel of `box` sums `source`'s alpha along `direction`
    /// around itself (target pixels).
    private mutating func appendBlur(
        of source: (index: Int, box: PixelBox), into box: PixelBox, direction: (Double, Double), sigma: Double
    ) {
        append(
            Instance(
                transform: .identity, clip: nil, quad: box.rect, bounds: box.rect, contentsFrame: source.box.rect,
                contentsCenter: (0, 0, direction.0, direction.1), opacity: 1, sigma: sigma, flags: []),
            kind: .blur, scissor: nil, intermediate: source.index)
    }

    /// The blurred mask of `path` (kept by the renderer between frames) as one quad in the
    /// layer's plane, tinted by the shadow colour. Its resolution follows how many target pixels a
    /// layer unit covers (the transform's scale, not its translation or turn), capped so that a
    /// huge path cannot ask for a huge image.
    private mutating func appendShadowMask(
        of layer: RenderLayer, path: Path, transform: Transform3D, color: (Double, Double, Double, Double),
        opacity: Double, clip: Clip?, scissor: PixelRect?
    ) {
        let box = path.boundingBox
        guard !path.isEmpty, !box.isNull, box.width.isFinite, box.height.isFinite else { return }
        let source = ShadowMaskSource(path: path, radius: max(0, layer.properties.shadowRadius))
        guard
            let mask = shadowMasks.raster(
                for: layer.id, source: source, scale: source.scale(under: transform), draw: { $0.rasterized(scale: $1) })
        else { return }
        let margin = antialiasingMargin(transform)
        append(
            Instance(
                transform: transform, clip: clip, quad: mask.frame.insetBy(dx: -margin, dy: -margin), bounds: mask.frame,
                color: color, contentsFrame: mask.frame, opacity: opacity, flags: [.hasContents, .tint]),
            kind: .body, scissor: scissor, contents: mask.image)
    }
}
