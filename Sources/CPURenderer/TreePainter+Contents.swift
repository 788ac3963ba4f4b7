internal import CPixman
import Buffers
import LayerKit
import RendererContract

/// Contents: an image, or a client's buffer read where it lies, placed in `frame` (gravity,
/// contentsScale and contentsRect already applied by `LayerProperties.contentsFrame`), stretched
/// in nine parts by contentsCenter, sampled through pixman's projective transform from canvas
/// pixels to source pixels, with edges extended (ca-semantics C3). As the Vulkan renderer draws
/// them, contents cover the pixels whose centres lie in their frame, and are cut to the rounded
/// bounds only with masksToBounds (A1).
extension TreePainter {
    /// How an image lands in a layer: where, which part of it, stretched how, cut to what.
    struct ContentsPlacement {
        var frame: Rect
        var contentsRect = Rect(x: 0, y: 0, width: 1, height: 1)
        /// contentsCenter, for nine-part stretching; nil: the whole image scales.
        var center: Rect?
        var contentsScale = 1.0
        var filter = ContentsFilter.linear
        /// The rounded bounds that cut the image (masksToBounds); nil: only its frame does.
        var roundedClip: RoundedRect?
        /// Turns the rows over within the frame (contents under an odd number of flips).
        var upright = false
        /// Where the covered pixel centres must also lie (a tile's: the layer's bounds).
        var cut: Rect?
        /// Adds the colours to what is below rather than drawing over it (additive particles).
        var isAdditive = false

        /// A layer's `contents` (or client buffer) in `frame`, as its properties place them.
        init(of p: LayerProperties, in frame: Rect, upright: Bool) {
            self.frame = frame
            contentsRect = p.contentsRect
            if p.contentsGravity.isResizing && p.contentsCenter != Rect(x: 0, y: 0, width: 1, height: 1) { center = p.contentsCenter }
            contentsScale = p.contentsScale
            filter = p.magnificationFilter
            roundedClip = p.masksToBounds ? RoundedRect(rect: p.bounds, radii: p.cornerRadii) : nil
            self.upright = upright
        }

        /// A rasterised shape or text filling `frame`.
        init(raster frame: Rect, roundedClip: RoundedRect?, upright: Bool) {
            (self.frame, self.roundedClip, self.upright) = (frame, roundedClip, upright)
        }
    }

    mutating func drawContents(
        of p: LayerProperties, in frame: Rect, transform: Transform3D, opacity: Double, clip: Coverage?, upright: Bool
    ) {
        let placement = ContentsPlacement(of: p, in: frame, upright: upright)
        if let client = p.externalContents as? ClientContents {
            let drawn = client.buffer.withPixels { rows in
                draw(rows, placed: placement, transform: transform, opacity: opacity, clip: clip, keepingView: true)
            }
            if drawn != true { unreadableClients.append(client) }
        } else if p.externalContents == nil, let image = p.contents {
            draw(image, placed: placement, transform: transform, opacity: opacity, clip: clip)
        }
    }

    /// A translucent layer's background and contents blended as the Vulkan shader blends them in
    /// one draw: the contents over the background at full strength, then the two faded as one by
    /// `opacity`. Drawn apart, each at the opacity, the background would show through opaque
    /// contents.
    mutating func drawBackgroundAndContents(
        of p: LayerProperties, bounds: RoundedRect, in frame: Rect, transform: Transform3D, opacity: Double, clip: Coverage?,
        upright: Bool
    ) {
        let box = pixelBox(of: p.masksToBounds ? bounds.rect : bounds.rect.union(frame), transform)
        guard !box.isEmpty else { return }
        let image = PixmanImage(format: PIXMAN_a8r8g8b8, width: box.width, height: box.height)
        var body = offscreenPainter(onto: image, box: box)
        body.drawBackground(of: p, bounds: bounds, transform: transform, opacity: 1, clip: nil)
        body.drawContents(of: p, in: frame, transform: transform, opacity: 1, clip: nil, upright: upright)
        absorb(body)
        let coverage = Coverage(box: box)
        coverage.paint(alpha: opacity)
        if let clip { coverage.intersect(with: clip) }
        canvas.composite(image, at: (box.minX, box.minY), mask: coverage, box: box)
        composites += 1
    }

    mutating func draw(_ image: Image, placed placement: ContentsPlacement, transform: Transform3D, opacity: Double, clip: Coverage?) {
        image.withRows { rows in _ = draw(rows, placed: placement, transform: transform, opacity: opacity, clip: clip, keepingView: false) }
    }

    /// Draws `rows` as `placement` says; false when pixman cannot read their format. A client's
    /// buffer (`keepingView`) is viewed through the view kept from the frames before
    /// (`PixmanViews`: few windows, each drawn every frame); images, which a scene may have by
    /// the thousand, through a view made for the draw.
    private mutating func draw(
        _ rows: PixelRows, placed placement: ContentsPlacement, transform: Transform3D, opacity: Double, clip: Coverage?,
        keepingView: Bool
    ) -> Bool {
        guard let source = keepingView ? rasters.views.image(viewing: rows) : PixmanImage.viewing(rows) else { return false }
        guard let toLayer = transform.planeInverse else { return true }
        let frame = placement.frame
        let filter = placement.filter == .nearest ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR
        pixman_image_set_filter(source.handle, filter, nil, 0)
        pixman_image_set_repeat(source.handle, PIXMAN_REPEAT_PAD)
        let rect = placement.contentsRect
        let region = Rect(
            x: rect.minX * Double(rows.width), y: rect.minY * Double(rows.height), width: rect.width * Double(rows.width),
            height: rect.height * Double(rows.height))
        let scale = max(placement.contentsScale, 1e-4)
        let xs = placement.center.map { c in
            Self.nineParts(destination: frame.width * scale, source: region.width, centre: c.minX, length: c.width)
        } ?? Self.wholeAxis
        let ys = placement.center.map { c in
            Self.nineParts(destination: frame.height * scale, source: region.height, centre: c.minY, length: c.height)
        } ?? Self.wholeAxis
        // Canvas pixels to the layer's plane.
        let canvasToLayer = Matrix3(planeInverse: toLayer).times(Matrix3(translationX: Double(canvas.origin.x), y: Double(canvas.origin.y)))
        for (tx0, tx1, ux0, ux1) in xs {
            for (ty0, ty1, uy0, uy1) in ys {
                let cell = Rect(
                    x: frame.minX + tx0 * frame.width, y: frame.minY + ty0 * frame.height,
                    width: (tx1 - tx0) * frame.width, height: (ty1 - ty0) * frame.height)
                guard cell.width > 0, cell.height > 0 else { continue }
                let covered = placement.cut.map { cell.intersection($0) } ?? cell
                guard !covered.isNull, covered.width > 0, covered.height > 0 else { continue }
                // Source pixels along each axis; upright turns the rows over within the region.
                let (v0, v1) = placement.upright ? (1 - uy0, 1 - uy1) : (uy0, uy1)
                let sx0 = region.minX + ux0 * region.width, sx1 = region.minX + ux1 * region.width
                let sy0 = region.minY + v0 * region.height, sy1 = region.minY + v1 * region.height
                let ax = (sx1 - sx0) / cell.width, ay = (sy1 - sy0) / cell.height
                let layerToSource = Matrix3(
                    ax, 0, sx0 - ax * cell.minX,
                    0, ay, sy0 - ay * cell.minY,
                    0, 0, 1)
                let canvasToSource = layerToSource.times(canvasToLayer)
                // Texel for pixel within whole pixels (and a square clip on whole pixels): copied,
                // without a transform or a mask of its own.
                let limit: PixelBox? = if let clip = placement.roundedClip { alignedBox(of: clip, transform) } else { canvas.box }
                if let offset = canvasToSource.integerTranslation, var box = centresBox(of: covered, transform), let limit {
                    box = box.intersection(limit)
                    pixman_image_set_transform(source.handle, nil)
                    drawAligned(
                        source, at: (canvas.origin.x - offset.x, canvas.origin.y - offset.y), box: box, opacity: opacity, clip: clip,
                        additive: placement.isAdditive)
                    continue
                }
                guard var pixman = canvasToSource.pixmanTransform else { continue }
                pixman_image_set_transform(source.handle, &pixman)
                drawCell(
                    covered, source: source, bounds: placement.roundedClip, transform: transform, opacity: opacity, clip: clip,
                    additive: placement.isAdditive)
            }
        }
        return true
    }

    /// Contents mapped texel for pixel onto `box`: copied through the clip at `opacity`, pixman's
    /// plain blit where neither cuts them (a fullscreen window's frame).
    private mutating func drawAligned(
        _ source: PixmanImage, at origin: (x: Int, y: Int), box: PixelBox, opacity: Double, clip: Coverage?, additive: Bool
    ) {
        guard !box.isEmpty else { return }
        var mask: Coverage?
        if opacity < 1 || clip != nil {
            let coverage = Coverage(box: box)
            coverage.paint(alpha: opacity)
            if let clip { coverage.intersect(with: clip) }
            mask = coverage
        }
        composite(image: source, at: origin, mask: mask, box: box, additive: additive)
        composites += 1
    }

    /// The target pixels whose centres lie in `rect` when `transform` only scales and translates
    /// it (within the canvas); nil otherwise.
    func centresBox(of rect: Rect, _ t: Transform3D) -> PixelBox? {
        guard t.m12 == 0, t.m21 == 0, t.m14 == 0, t.m24 == 0, t.m44 == 1,
            let a = t.apply(x: rect.minX, y: rect.minY), let b = t.apply(x: rect.maxX, y: rect.maxY)
        else { return nil }
        // No array of the edges: a frame asks this of every window it draws or measures.
        func edge(_ v: Double) -> Double { (v - 0.5).rounded(.up) }
        let (x0, y0, x1, y1) = (edge(min(a.x, b.x)), edge(min(a.y, b.y)), edge(max(a.x, b.x)), edge(max(a.y, b.y)))
        guard abs(x0) < 16_777_216, abs(y0) < 16_777_216, abs(x1) < 16_777_216, abs(y1) < 16_777_216 else { return nil }
        return canvas.box.intersection(PixelBox(minX: Int(x0), minY: Int(y0), maxX: Int(x1), maxY: Int(y1)))
    }

    /// One cell of contents: the pixels whose centres lie in `cell`, cut to `bounds` (rounded,
    /// anti-aliased) when given, and to the clip.
    private mutating func drawCell(
        _ cell: Rect, source: PixmanImage, bounds: RoundedRect?, transform: Transform3D, opacity: Double, clip: Coverage?,
        additive: Bool
    ) {
        let box = pixelBox(of: cell, transform)
        guard !box.isEmpty else { return }
        let coverage = Coverage(box: box)
        if let bounds { guard coverage.clip(to: bounds, transform: transform, antialias: true) else { return } }
        guard coverage.fill([RoundedRect(rect: cell)], transform: transform, alpha: opacity, antialias: false) else { return }
        if let clip { coverage.intersect(with: clip) }
        composite(image: source, mask: coverage, box: box, additive: additive)
        composites += 1
    }

    /// One part along an axis: the whole destination from the whole source (no nine-part stretching).
    static let wholeAxis = [(0.0, 1.0, 0.0, 1.0)]

    /// Core Animation's nine-part stretching along one axis (as the Vulkan renderer's shader does
    /// it): the parts before and after the centre keep their source size (scaled down together
    /// when the destination is shorter), the centre stretches. Each part as its range in the
    /// destination and in the source region, both as fractions.
    static func nineParts(destination: Double, source: Double, centre: Double, length: Double) -> [(Double, Double, Double, Double)] {
        guard destination > 0, source > 0 else { return [] }
        let before = centre * source, after = (1 - centre - length) * source
        let k = before + after > destination ? destination / max(before + after, 1e-4) : 1
        let t0 = before * k / destination, t1 = 1 - after * k / destination
        return [(0, t0, 0, centre), (t0, t1, centre, centre + length), (t1, 1, centre + length, 1)].filter { $0.1 > $0.0 }
    }
}

/// A 3×3 matrix acting on column vectors (x, y, w): the plane maps pixman's transforms are made of.
struct Matrix3 {
    /// Row by row; inline, so that a frame's matrices allocate nothing.
    var m: InlineArray<9, Double>

    init(_ m11: Double, _ m12: Double, _ m13: Double, _ m21: Double, _ m22: Double, _ m23: Double, _ m31: Double, _ m32: Double, _ m33: Double) {
        m = [m11, m12, m13, m21, m22, m23, m31, m32, m33]
    }

    init(translationX x: Double, y: Double) { self.init(1, 0, x, 0, 1, y, 0, 0, 1) }

    /// A flattened layer transform's inverse (`Transform3D.planeInverse`, row vectors) as a map
    /// of the plane.
    init(planeInverse t: Transform3D) {
        self.init(t.m11, t.m21, t.m41, t.m12, t.m22, t.m42, t.m14, t.m24, t.m44)
    }

    func times(_ other: Matrix3) -> Matrix3 {
        // Written out: a loop's checked indexing costs more than the products.
        let (a, b) = (m, other.m)
        return Matrix3(
            a[0] * b[0] + a[1] * b[3] + a[2] * b[6], a[0] * b[1] + a[1] * b[4] + a[2] * b[7], a[0] * b[2] + a[1] * b[5] + a[2] * b[8],
            a[3] * b[0] + a[4] * b[3] + a[5] * b[6], a[3] * b[1] + a[4] * b[4] + a[5] * b[7], a[3] * b[2] + a[4] * b[5] + a[5] * b[8],
            a[6] * b[0] + a[7] * b[3] + a[8] * b[6], a[6] * b[1] + a[7] * b[4] + a[8] * b[7], a[6] * b[2] + a[7] * b[5] + a[8] * b[8])
    }

    /// The whole-pixel offset when the matrix only moves by one; nil otherwise.
    var integerTranslation: (x: Int, y: Int)? {
        func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }
        guard near(m[0], 1), near(m[1], 0), near(m[3], 0), near(m[4], 1), near(m[6], 0), near(m[7], 0), near(m[8], 1),
            near(m[2], m[2].rounded()), near(m[5], m[5].rounded()), abs(m[2]) < 16_777_216, abs(m[5]) < 16_777_216
        else { return nil }
        return (Int(m[2].rounded()), Int(m[5].rounded()))
    }

    /// In pixman's 16.16 fixed point; nil when it does not fit. Scaling a projective map changes
    /// nothing, so an affine one is kept with w = 1 (pixman's fast paths want exactly that) and a
    /// perspective one scaled so its largest entry is 1024, which keeps the small perspective
    /// terms precise.
    var pixmanTransform: pixman_transform_t? {
        var largest = 0.0
        for i in 0..<9 {
            guard m[i].isFinite else { return nil }
            largest = max(largest, abs(m[i]))
        }
        guard largest > 0 else { return nil }
        let divisor = m[6] == 0 && m[7] == 0 && m[8] != 0 ? m[8] : largest / 1024
        var f = pixman_f_transform()
        withUnsafeMutableBytes(of: &f.m) { bytes in
            let values = bytes.bindMemory(to: Double.self)
            for i in 0..<9 { values[i] = m[i] / divisor }
        }
        var t = pixman_transform_t()
        guard pixman_transform_from_pixman_f_transform(&t, &f) != 0 else { return nil }
        return t
    }
}

extension LayerProperties {
    /// Whether a background colour or a gradient lies beneath the layer's contents.
    var hasBackground: Bool { (backgroundColor?.alpha ?? 0) > 0 || gradient?.stops.isEmpty == false }

    /// Whether the layer has contents this renderer draws: an image, or a client's buffer.
    var showsContents: Bool { externalContents is ClientContents || (externalContents == nil && contents != nil) }
}
