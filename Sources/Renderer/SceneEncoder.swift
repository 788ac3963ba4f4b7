import LayerKit

/// One draw of the layer shader: which instance, which part of the layer, and its textures.
struct EncodedDraw: Equatable {
    enum Kind: UInt32 {
        case body = 0, border = 1, shadow = 2
    }

    var instance: UInt32
    var kind: Kind
    var contents: Image?
    var previousContents: Image?
    var filter: ContentsFilter
    /// In output pixels; nil for the whole target.
    var scissor: PixelRect?
}

/// A rectangle of whole output pixels.
struct PixelRect: Equatable {
    var x: Int32, y: Int32, width: UInt32, height: UInt32
}

/// Turns a (sampled) render tree into the layer shader's instances and draws, in Core Animation's
/// per-layer order: shadow, background and contents, sublayers in drawing order, border.
///
/// Geometry is flattened per layer as CALayer does (`transformToSuperlayer(_:).flattened`), then
/// scaled to output pixels. A `masksToBounds` layer clips its sublayers to its rounded bounds in
/// the shader; when clips nest, the outer ones also clip through the scissor (their pixel bounding
/// boxes). Colours are premultiplied sRGB-encoded values, blended as they are.
struct SceneEncoder {
    /// Floats per instance: two matrices and eleven vectors (std430, see Shaders/layer.glsl).
    static let floatsPerInstance = 16 * 2 + 4 * 11

    private(set) var floats: [Float] = []
    private(set) var draws: [EncodedDraw] = []
    let tree: RenderTree
    let scale: Double
    let targetSize: (width: Int, height: Int)

    struct Clip {
        var bounds: Rect
        var radii: (Double, Double, Double, Double)
        var inverse: Transform3D
        var pixelBox: Rect
    }

    struct Flags: OptionSet {
        let rawValue: UInt32
        static let hasContents = Flags(rawValue: 1)
        static let clip = Flags(rawValue: 2)
        static let contentsRounded = Flags(rawValue: 4)
        static let ninePart = Flags(rawValue: 8)
        static let flipContents = Flags(rawValue: 16)
        static let hasBackground = Flags(rawValue: 32)
        static let crossFade = Flags(rawValue: 64)
    }

    init(tree: RenderTree, scale: Double, targetSize: (width: Int, height: Int)) {
        self.tree = tree
        self.scale = scale
        self.targetSize = targetSize
        guard let root = tree.root else { return }
        visit(root, parent: nil, parentTransform: Transform3D(scaleX: scale, y: scale), opacity: 1,
              clip: nil, scissor: nil, flipped: false)
    }

    private mutating func visit(
        _ layer: RenderLayer, parent: RenderLayer?, parentTransform: Transform3D, opacity parentOpacity: Double,
        clip: Clip?, scissor: PixelRect?, flipped: Bool
    ) {
        let p = layer.properties
        guard !p.isHidden else { return }
        let opacity = parentOpacity * p.opacity
        guard opacity > 0 else { return }
        let transform = p.transformToSuperlayer(parent?.properties.sublayerSpace).flattened.concatenating(parentTransform)
        let margin = antialiasingMargin(transform)
        let radii = p.cornerRadii

        // Contents orientation does not follow a flipped superlayer (ca-semantics G10): an odd
        // number of flips above the layer turns its texture back upright.
        let contentsFlipped = flipped

        if p.shadowOpacity > 0, let shadowColor = p.shadowColor, !p.masksToBounds, !p.bounds.isEmpty {
            let sigma = max(0, p.shadowRadius)
            let shadowRect = p.bounds.offsetBy(dx: p.shadowOffset.width, dy: p.shadowOffset.height)
            let reach = 3 * sigma + margin
            appendInstance(
                transform: transform, quad: shadowRect.insetBy(dx: -reach, dy: -reach), bounds: shadowRect,
                radii: radii, color: premultiplied(shadowColor, times: p.shadowOpacity), opacity: opacity,
                borderWidth: 0, sigma: sigma, flags: [], clip: clip)
            appendDraw(.shadow, scissor: scissor)
        }

        let contentsFrame = p.contentsFrame(contentsAreFlipped: flipped)
        let hasBackground = (p.backgroundColor?.alpha ?? 0) > 0
        if hasBackground || contentsFrame != nil {
            var flags: Flags = []
            if hasBackground { flags.insert(.hasBackground) }
            var quad = p.bounds
            if let contentsFrame, p.contents != nil {
                flags.insert(.hasContents)
                if p.masksToBounds { flags.insert(.contentsRounded) } else { quad = quad.union(contentsFrame) }
                if p.contentsGravity.isResizing && p.contentsCenter != Rect(x: 0, y: 0, width: 1, height: 1) {
                    flags.insert(.ninePart)
                }
                if contentsFlipped { flags.insert(.flipContents) }
                if p.contentsCrossFade != nil { flags.insert(.crossFade) }
            }
            appendInstance(
                transform: transform, quad: quad.insetBy(dx: -margin, dy: -margin), bounds: p.bounds, radii: radii,
                color: p.backgroundColor.map { premultiplied($0, times: 1) } ?? (0, 0, 0, 0), opacity: opacity,
                borderWidth: 0, sigma: 0, flags: flags, clip: clip, contentsFrame: contentsFrame, properties: p)
            appendDraw(.body, scissor: scissor, contents: p.contents, previous: p.contentsCrossFade?.from, filter: p.magnificationFilter)
        }

        var childClip = clip
        var childScissor = scissor
        if p.masksToBounds, let inverse = transform.planeInverse {
            let box = pixelBox(of: p.bounds, transform)
            if let outer = clip { childScissor = intersect(childScissor, pixelRect(outer.pixelBox)) }
            childClip = Clip(bounds: p.bounds, radii: radii, inverse: inverse, pixelBox: box)
            childScissor = intersect(childScissor, pixelRect(box))
        }
        let childFlipped = flipped != p.isGeometryFlipped
        for sublayer in tree.sortedSublayers(of: layer) {
            visit(sublayer, parent: layer, parentTransform: transform, opacity: opacity,
                  clip: childClip, scissor: childScissor, flipped: childFlipped)
        }

        if p.borderWidth > 0, let borderColor = p.borderColor, borderColor.alpha > 0 {
            appendInstance(
                transform: transform, quad: p.bounds.insetBy(dx: -margin, dy: -margin), bounds: p.bounds, radii: radii,
                color: premultiplied(borderColor, times: 1), opacity: opacity, borderWidth: p.borderWidth, sigma: 0,
                flags: [], clip: clip)
            appendDraw(.border, scissor: scissor)
        }
    }

    /// One output pixel in the layer's units (at least), so quads reach the anti-aliased fringe.
    private func antialiasingMargin(_ t: Transform3D) -> Double {
        let sx = (t.m11 * t.m11 + t.m12 * t.m12).squareRoot()
        let sy = (t.m21 * t.m21 + t.m22 * t.m22).squareRoot()
        let pixelsPerUnit = max(min(sx, sy), 1e-3)
        return min(1.5 / pixelsPerUnit, 1e4)
    }

    private func pixelBox(of rect: Rect, _ t: Transform3D) -> Rect {
        Rect(boundingPoints: rect.corners.compactMap { c in t.apply(x: c.x, y: c.y).map { Point(x: $0.x, y: $0.y) } })
    }

    private func pixelRect(_ r: Rect) -> PixelRect {
        let x0 = max(0, min(Double(targetSize.width), r.minX.rounded(.down)))
        let y0 = max(0, min(Double(targetSize.height), r.minY.rounded(.down)))
        let x1 = max(x0, min(Double(targetSize.width), r.maxX.rounded(.up)))
        let y1 = max(y0, min(Double(targetSize.height), r.maxY.rounded(.up)))
        return PixelRect(x: Int32(x0), y: Int32(y0), width: UInt32(x1 - x0), height: UInt32(y1 - y0))
    }

    private func intersect(_ a: PixelRect?, _ b: PixelRect) -> PixelRect {
        guard let a else { return b }
        let x0 = max(a.x, b.x), y0 = max(a.y, b.y)
        let x1 = min(Int64(a.x) + Int64(a.width), Int64(b.x) + Int64(b.width))
        let y1 = min(Int64(a.y) + Int64(a.height), Int64(b.y) + Int64(b.height))
        return PixelRect(x: x0, y: y0, width: UInt32(max(0, x1 - Int64(x0))), height: UInt32(max(0, y1 - Int64(y0))))
    }

    private func premultiplied(_ c: Color, times alpha: Double) -> (Double, Double, Double, Double) {
        let s = c.converted(to: .sRGB)
        let a = s.alpha * alpha
        return (s.red * a, s.green * a, s.blue * a, a)
    }

    private mutating func appendDraw(
        _ kind: EncodedDraw.Kind, scissor: PixelRect?, contents: Image? = nil, previous: Image? = nil,
        filter: ContentsFilter = .linear
    ) {
        draws.append(EncodedDraw(
            instance: UInt32(floats.count / SceneEncoder.floatsPerInstance - 1), kind: kind,
            contents: contents, previousContents: previous, filter: filter, scissor: scissor))
    }

    private mutating func appendInstance(
        transform: Transform3D, quad: Rect, bounds: Rect, radii: (Double, Double, Double, Double),
        color: (Double, Double, Double, Double), opacity: Double, borderWidth: Double, sigma: Double,
        flags: Flags, clip: Clip?, contentsFrame: Rect? = nil, properties: LayerProperties? = nil
    ) {
        var flags = flags
        if clip != nil { flags.insert(.clip) }
        func matrix(_ t: Transform3D) { floats.append(contentsOf: t.rows.joined().map { Float($0) }) }
        func vector(_ a: Double, _ b: Double, _ c: Double, _ d: Double) {
            floats.append(contentsOf: [Float(a), Float(b), Float(c), Float(d)])
        }
        func rect(_ r: Rect) { vector(r.minX, r.minY, r.width, r.height) }
        matrix(transform)
        matrix(clip?.inverse ?? .identity)
        rect(quad)
        rect(bounds)
        vector(radii.0, radii.1, radii.2, radii.3)
        vector(color.0, color.1, color.2, color.3)
        rect(contentsFrame ?? .zero)
        rect(properties?.contentsRect ?? Rect(x: 0, y: 0, width: 1, height: 1))
        rect(properties?.contentsCenter ?? Rect(x: 0, y: 0, width: 1, height: 1))
        rect(clip?.bounds ?? .zero)
        let clipRadii = clip?.radii ?? (0, 0, 0, 0)
        vector(clipRadii.0, clipRadii.1, clipRadii.2, clipRadii.3)
        vector(opacity, borderWidth, sigma, Double(flags.rawValue))
        vector(properties?.contentsCrossFade?.progress ?? 1, properties?.contentsScale ?? 1, 0, 0)
    }
}
