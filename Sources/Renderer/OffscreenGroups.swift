import LayerKit

/// A rectangle of whole pixels by its edges, for the arithmetic of pass boxes (may be empty).
struct PixelBox: Equatable {
    var minX: Int, minY: Int, maxX: Int, maxY: Int

    static let empty = PixelBox(minX: 0, minY: 0, maxX: 0, maxY: 0)

    init(minX: Int, minY: Int, maxX: Int, maxY: Int) {
        (self.minX, self.minY, self.maxX, self.maxY) = (minX, minY, maxX, maxY)
    }

    init(x: Int, y: Int, width: Int, height: Int) {
        self.init(minX: x, minY: y, maxX: x + width, maxY: y + height)
    }

    init(_ r: PixelRect) {
        self.init(x: Int(r.x), y: Int(r.y), width: Int(r.width), height: Int(r.height))
    }

    /// The whole pixels `r` touches, within ±2²⁴ so that far-off geometry stays representable.
    init(covering r: Rect) {
        func whole(_ v: Double, _ rule: FloatingPointRoundingRule) -> Int {
            guard v.isFinite else { return v > 0 ? 1 << 24 : -(1 << 24) }
            return Int(max(-16_777_216, min(16_777_216, v.rounded(rule))))
        }
        self.init(minX: whole(r.minX, .down), minY: whole(r.minY, .down), maxX: whole(r.maxX, .up), maxY: whole(r.maxY, .up))
    }

    var isEmpty: Bool { maxX <= minX || maxY <= minY }
    var width: Int { max(0, maxX - minX) }
    var height: Int { max(0, maxY - minY) }
    var rect: Rect { Rect(x: Double(minX), y: Double(minY), width: Double(width), height: Double(height)) }
    var pixelRect: PixelRect { PixelRect(x: Int32(minX), y: Int32(minY), width: UInt32(width), height: UInt32(height)) }

    func union(_ b: PixelBox) -> PixelBox {
        if isEmpty { return b }
        if b.isEmpty { return self }
        return PixelBox(minX: min(minX, b.minX), minY: min(minY, b.minY), maxX: max(maxX, b.maxX), maxY: max(maxY, b.maxY))
    }

    func intersection(_ b: PixelBox) -> PixelBox {
        PixelBox(minX: max(minX, b.minX), minY: max(minY, b.minY), maxX: min(maxX, b.maxX), maxY: min(maxY, b.maxY))
    }

    func insetBy(dx: Int, dy: Int) -> PixelBox {
        PixelBox(minX: minX + dx, minY: minY + dy, maxX: maxX - dx, maxY: maxY - dy)
    }

    func offsetBy(dx: Int, dy: Int) -> PixelBox {
        PixelBox(minX: minX + dx, minY: minY + dy, maxX: maxX + dx, maxY: maxY + dy)
    }
}

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
            beginPass()
            visit(mask, parentSpace: nil, parentTransform: transform, opacity: 1, clip: nil, scissor: nil, flipped: flipped)
            maskIndex = endPass(box: content.box, limit: content.box)?.index
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

    /// A shadow whose shape is the layer's composited alpha, or its `shadowPath`: the shape into an
    /// intermediate, blurred along x (shifted by the offset) into a second and along y into a
    /// third, which tints the enclosing pass with the shadow colour.
    mutating func encodeOffscreenShadow(
        _ layer: RenderLayer, transform: Transform3D, opacity: Double, clip: Clip?, scissor: PixelRect?,
        flipped: Bool
    ) {
        let p = layer.properties
        guard let shadowColor = p.shadowColor else { return }
        // σ is shadowRadius points (Vitrine's decision), in output pixels; three of them hold all
        // but 0.3% of the Gaussian.
        let sigma = max(0, p.shadowRadius) * scale
        let radius = Int((3 * sigma).rounded(.up))
        let dx = p.shadowOffset.width * transform.m11 + p.shadowOffset.height * transform.m21
        let dy = p.shadowOffset.width * transform.m12 + p.shadowOffset.height * transform.m22
        let shift = (x: Int(dx.rounded()), y: Int(dy.rounded()))
        // The shape is alpha only: a replicator instance's colour tints the shadow's composite.
        let outerTint = tint
        tint = (1, 1, 1)
        defer { tint = outerTint }

        beginPass()
        if let path = p.shadowPath {
            appendShadowPath(path, transform: transform)
        } else {
            drawLayer(layer, transform: transform, opacity: 1, clip: nil, scissor: nil, flipped: flipped, shadow: false)
        }
        // Shapes off the target still cast shadows onto it, from up to the offset and blur away.
        let reach = targetBox.insetBy(dx: -(radius + abs(shift.x)), dy: -(radius + abs(shift.y)))
        guard let shape = endPass(limit: reach) else { return }
        let moved = shape.box.offsetBy(dx: shift.x, dy: shift.y)

        beginPass()
        appendBlur(of: shape, into: moved.insetBy(dx: -radius, dy: 0), shift: (dx, dy), direction: (1, 0), sigma: sigma)
        guard let horizontal = endPass(box: moved.insetBy(dx: -radius, dy: 0), limit: targetBox.insetBy(dx: -radius, dy: -radius))
        else { return }

        beginPass()
        let blurred = moved.insetBy(dx: -radius, dy: -radius)
        appendBlur(of: horizontal, into: blurred, shift: (0, 0), direction: (0, 1), sigma: sigma)
        guard let vertical = endPass(box: blurred, limit: limit(clip: clip, scissor: scissor)) else { return }

        tint = outerTint
        appendComposite(
            of: vertical, flags: [.hasContents, .tint], color: premultiplied(shadowColor, times: p.shadowOpacity),
            opacity: opacity, clip: clip, scissor: scissor)
    }

    /// One direction of the Gaussian: every pixel of `box` sums `source`'s alpha along `direction`
    /// around itself minus `shift` (target pixels).
    private mutating func appendBlur(
        of source: (index: Int, box: PixelBox), into box: PixelBox, shift: (Double, Double),
        direction: (Double, Double), sigma: Double
    ) {
        append(
            Instance(
                transform: .identity, clip: nil, quad: box.rect, bounds: box.rect, contentsFrame: source.box.rect,
                contentsCenter: (shift.0, shift.1, direction.0, direction.1), opacity: 1, sigma: sigma, flags: []),
            kind: .blur, scissor: nil, intermediate: source.index)
    }

    /// `path` filled (non-zero winding) by cairo at the resolution the layer has on the target, as
    /// contents of its bounding box in the layer's bounds space.
    private mutating func appendShadowPath(_ path: Path, transform: Transform3D) {
        let box = path.boundingBox
        guard !path.isEmpty, !box.isNull, box.width.isFinite, box.height.isFinite else { return }
        let sx = (transform.m11 * transform.m11 + transform.m12 * transform.m12).squareRoot()
        let sy = (transform.m21 * transform.m21 + transform.m22 * transform.m22).squareRoot()
        // A pixel of padding keeps the anti-aliased edge inside the image; the resolution is
        // capped so that a huge path cannot ask for a huge image.
        let largest = 4096.0
        var k = max(max(sx, sy), 1e-3)
        k = min(k, (largest - 2) / max(box.width, 1e-9), (largest - 2) / max(box.height, 1e-9))
        let padded = box.insetBy(dx: -1 / k, dy: -1 / k)
        let width = max(1, Int((padded.width * k).rounded(.up)))
        let height = max(1, Int((padded.height * k).rounded(.up)))
        // Only an allocation failure stops cairo here; the shadow is then left out of the frame.
        guard let context = try? GraphicsContext(width: width, height: height) else { return }
        context.scaleBy(x: k, y: k)
        context.translateBy(x: -padded.minX, y: -padded.minY)
        context.setFillColor(.white)
        context.addPath(path)
        context.fillPath(using: .winding)
        let frame = Rect(x: padded.minX, y: padded.minY, width: Double(width) / k, height: Double(height) / k)
        let margin = antialiasingMargin(transform)
        append(
            Instance(
                transform: transform, clip: nil, quad: frame.insetBy(dx: -margin, dy: -margin), bounds: frame,
                contentsFrame: frame, opacity: 1, flags: [.hasContents]),
            kind: .body, scissor: nil, contents: context.makeImage())
    }
}
