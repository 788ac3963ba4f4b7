internal import CCairo

/// How the ends of stroked open subpaths are drawn (`CGLineCap`).
public enum LineCap: Sendable {
    /// Square ends exactly at the end points.
    case butt
    /// Semicircles centred on the end points.
    case round
    /// Squares extending half the line width past the end points.
    case square
}

/// How stroked segments meet (`CGLineJoin`).
public enum LineJoin: Sendable {
    case miter
    case round
    case bevel
}

/// A drawing context, the role of `CGContext`: over a premultiplied ARGB bitmap, or over the pages
/// of a PDF or SVG document whose paths, text and gradients stay vectors.
///
/// A bitmap starts fully transparent. The graphics state starts as CoreGraphics': opaque black
/// fill and stroke, line width 1, miter limit 10, butt caps, miter joins, no dash, alpha 1, the
/// identity CTM (y down, one unit per pixel, or per point on a page) and no clip. As in
/// CoreGraphics, the current path is not part of the graphics state, and `fillPath`, `strokePath`
/// and `clip` consume it.
public final class GraphicsContext {
    /// The bitmap's pixels, or a page's points rounded up.
    public let width: Int
    public let height: Int
    /// False for documents: a drawing delegate can tell a page (a print or an export) from pixels
    /// bound for a display, as AppKit's `isDrawingToScreen` does.
    public let isDrawingToScreen: Bool
    /// The only reference to the cairo context, which in turn keeps its target surface alive.
    let cr: OpaquePointer
    /// Collects a document's bytes as cairo writes them; nil for bitmaps.
    private let document: DocumentSink?

    /// The state cairo cannot hold: cairo has a single source where CoreGraphics has separate fill and
    /// stroke colours and a global alpha, and cairo refuses singular matrices.
    private struct State {
        var fillColor = Color.black
        var strokeColor = Color.black
        var alpha = 1.0
        /// The CTM once it has become singular. A singular matrix would put cairo into a permanent
        /// error state, so cairo keeps the last invertible one while drawing is suppressed: all
        /// geometry collapses to zero area, exactly as CoreGraphics would render it.
        var singularCTM: AffineTransform2D?
    }

    private var state = State()
    /// Mirrors cairo's save/restore stack one for one.
    private var savedStates: [State] = []
    /// The alpha to draw each open transparency layer with, innermost last.
    private var transparencyLayerAlphas: [Double] = []

    /// A context of `width` × `height` pixels; throws `GraphicsError.invalidSize` outside
    /// 1…`Image.maximumDimension`.
    public convenience init(width: Int, height: Int) throws {
        try checkImageSize(width: width, height: height)
        try self.init(surface: CairoSurface(mappedWidth: width, height: height), width: width, height: height, document: nil)
    }

    /// A context whose drawing becomes a `format` document of pages `pageSize` points large (a
    /// point is 1/72 inch); `finishDocument()` returns its bytes. Throws `GraphicsError.invalidPageSize`
    /// for a size that is not positive and finite or exceeds `Image.maximumDimension`.
    public convenience init(format: DocumentFormat, pageSize: Size) throws {
        let valid = 0...Double(Image.maximumDimension)
        guard pageSize.width > 0, pageSize.height > 0, valid.contains(pageSize.width), valid.contains(pageSize.height) else {
            throw GraphicsError.invalidPageSize(pageSize)
        }
        let sink = DocumentSink()
        let closure = Unmanaged.passUnretained(sink).toOpaque()
        let write: cairo_write_func_t = { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            Unmanaged<DocumentSink>.fromOpaque(closure).takeUnretainedValue().bytes
                .append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }
        let handle: OpaquePointer? = switch format {
        case .pdf: cairo_pdf_surface_create_for_stream(write, closure, pageSize.width, pageSize.height)
        case .svg: cairo_svg_surface_create_for_stream(write, closure, pageSize.width, pageSize.height)
        }
        let surface = try CairoSurface(taking: handle!)
        if format == .svg {
            // Points, as the page size is given, rather than cairo's default of pixels.
            surface.withHandle { cairo_svg_surface_set_document_unit($0, CAIRO_SVG_UNIT_PT) }
        }
        try self.init(
            surface: surface, width: Int(pageSize.width.rounded(.up)), height: Int(pageSize.height.rounded(.up)),
            document: sink)
    }

    private init(surface: CairoSurface, width: Int, height: Int, document: DocumentSink?) throws {
        let cr: OpaquePointer = surface.withHandle { cairo_create($0) }
        let status = cairo_status(cr)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_destroy(cr)
            throw GraphicsError(cairoStatus: status)
        }
        self.width = width
        self.height = height
        self.cr = cr
        self.document = document
        isDrawingToScreen = document == nil
        // cairo's default line width is 2; its other defaults already match CoreGraphics'.
        cairo_set_line_width(cr, 1)
    }

    deinit {
        cairo_destroy(cr)
    }

    // MARK: - Graphics state

    public func saveGState() {
        savedStates.append(state)
        cairo_save(cr)
    }

    /// Restores the state of the matching `saveGState()`; unbalanced calls are ignored, as cairo
    /// would otherwise enter a permanent error state.
    public func restoreGState() {
        guard let saved = savedStates.popLast() else { return }
        state = saved
        cairo_restore(cr)
    }

    /// The user-to-bitmap transform.
    public var ctm: AffineTransform2D {
        if let singular = state.singularCTM { return singular }
        var matrix = cairo_matrix_t()
        cairo_get_matrix(cr, &matrix)
        return AffineTransform2D(matrix)
    }

    public func translateBy(x: Double, y: Double) {
        concatenate(AffineTransform2D(translationX: x, y: y))
    }

    public func scaleBy(x: Double, y: Double) {
        concatenate(AffineTransform2D(scaleX: x, y: y))
    }

    /// Rotates user space by `angle` radians, turning +x towards +y (clockwise on screen).
    public func rotate(by angle: Double) {
        concatenate(AffineTransform2D(rotationAngle: angle))
    }

    /// Applies `t` to user coordinates before the current CTM (`CGContextConcatCTM`). A transform
    /// that makes the CTM singular suppresses all drawing until the matching `restoreGState()`.
    public func concatenate(_ t: AffineTransform2D) {
        if let singular = state.singularCTM {
            state.singularCTM = t.concatenating(singular)
            return
        }
        let product = t.concatenating(ctm)
        guard t.isInvertibleByCairo, product.isInvertibleByCairo else {
            state.singularCTM = product
            return
        }
        var matrix = cairo_matrix_t(t)
        cairo_transform(cr, &matrix)
    }

    public func setFillColor(_ color: Color) {
        state.fillColor = color
    }

    public func setStrokeColor(_ color: Color) {
        state.strokeColor = color
    }

    /// The global alpha, clamped to 0…1, which multiplies fills, strokes and images.
    public func setAlpha(_ alpha: Double) {
        state.alpha = unitInterval(alpha)
    }

    /// The stroke width in user space at the time of stroking; negative (and NaN) widths count as 0.
    public func setLineWidth(_ width: Double) {
        cairo_set_line_width(cr, width > 0 ? width : 0)
    }

    public func setLineCap(_ cap: LineCap) {
        switch cap {
        case .butt: cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT)
        case .round: cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        case .square: cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE)
        }
    }

    public func setLineJoin(_ join: LineJoin) {
        switch join {
        case .miter: cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER)
        case .round: cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        case .bevel: cairo_set_line_join(cr, CAIRO_LINE_JOIN_BEVEL)
        }
    }

    public func setMiterLimit(_ limit: Double) {
        cairo_set_miter_limit(cr, limit)
    }

    /// Alternating on and off lengths in user space, starting `phase` into the pattern; empty lengths
    /// give a solid line. So do unusable patterns (a negative or non-finite length, all lengths zero,
    /// a non-finite phase), which cairo would answer with a permanent error state.
    public func setLineDash(phase: Double, lengths: [Double]) {
        let usable = phase.isFinite && lengths.allSatisfy { $0.isFinite && $0 >= 0 } && lengths.contains { $0 > 0 }
        if usable {
            cairo_set_dash(cr, lengths, Int32(lengths.count), phase)
        } else {
            cairo_set_dash(cr, nil, 0, 0)
        }
    }

    // MARK: - Current path

    /// Discards the current path.
    public func beginPath() {
        cairo_new_path(cr)
    }

    /// Adds `path`, mapped through the current CTM, to the current path.
    public func addPath(_ path: Path) {
        guard state.singularCTM == nil else { return }
        var current = Point.zero, subpathStart = Point.zero
        for element in path.elements {
            switch element {
            case .move(let p):
                cairo_move_to(cr, p.x, p.y)
                subpathStart = p
                current = p
            case .line(let p):
                cairo_line_to(cr, p.x, p.y)
                current = p
            case .quadCurve(let p, let c):
                // cairo has only cubics; this cubic traces the quadratic exactly.
                let c1 = Point(x: current.x + 2 / 3 * (c.x - current.x), y: current.y + 2 / 3 * (c.y - current.y))
                let c2 = Point(x: p.x + 2 / 3 * (c.x - p.x), y: p.y + 2 / 3 * (c.y - p.y))
                cairo_curve_to(cr, c1.x, c1.y, c2.x, c2.y, p.x, p.y)
                current = p
            case .curve(let p, let c1, let c2):
                cairo_curve_to(cr, c1.x, c1.y, c2.x, c2.y, p.x, p.y)
                current = p
            case .closeSubpath:
                cairo_close_path(cr)
                current = subpathStart
            }
        }
    }

    public func move(to point: Point) {
        guard state.singularCTM == nil else { return }
        cairo_move_to(cr, point.x, point.y)
    }

    /// Adds a straight segment; with no current point this only moves there.
    public func addLine(to point: Point) {
        guard state.singularCTM == nil else { return }
        cairo_line_to(cr, point.x, point.y)
    }

    public func addCurve(to point: Point, control1: Point, control2: Point) {
        guard state.singularCTM == nil else { return }
        cairo_curve_to(cr, control1.x, control1.y, control2.x, control2.y, point.x, point.y)
    }

    public func closePath() {
        cairo_close_path(cr)
    }

    // MARK: - Drawing

    /// Fills the current path with the fill colour and consumes it.
    public func fillPath(using rule: FillRule = .winding) {
        guard state.singularCTM == nil else {
            beginPath()
            return
        }
        cairo_set_fill_rule(cr, rule.cairoFillRule)
        setSource(state.fillColor)
        cairo_fill(cr)
    }

    /// Strokes the current path with the stroke colour and line settings, and consumes it.
    public func strokePath() {
        guard state.singularCTM == nil else {
            beginPath()
            return
        }
        setSource(state.strokeColor)
        cairo_stroke(cr)
    }

    /// Fills `rect`; like `CGContextFillRect`, this replaces and consumes the current path.
    public func fill(_ rect: Rect) {
        beginPath()
        addPath(Path(rect: rect))
        fillPath()
    }

    /// Strokes `rect`; like `CGContextStrokeRect`, this replaces and consumes the current path.
    public func stroke(_ rect: Rect) {
        beginPath()
        addPath(Path(rect: rect))
        strokePath()
    }

    /// Fills the ellipse inscribed in `rect`, replacing and consuming the current path.
    public func fillEllipse(in rect: Rect) {
        beginPath()
        addPath(Path(ellipseIn: rect))
        fillPath()
    }

    /// Intersects the clip with the current path, and consumes it.
    public func clip(using rule: FillRule = .winding) {
        guard state.singularCTM == nil else {
            beginPath()
            return
        }
        cairo_set_fill_rule(cr, rule.cairoFillRule)
        cairo_clip(cr)
    }

    /// Intersects the clip with `rect`, leaving the current path alone.
    public func clip(to rect: Rect) {
        guard state.singularCTM == nil else { return }
        preservingCurrentPath {
            addPath(Path(rect: rect))
            cairo_clip(cr)
        }
    }

    /// Sets the pixels in `rect` (within the clip) to transparent, whatever the colours and alpha.
    public func clear(_ rect: Rect) {
        guard state.singularCTM == nil else { return }
        preservingCurrentPath {
            cairo_save(cr)
            cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
            addPath(Path(rect: rect))
            cairo_fill(cr)
            cairo_restore(cr)
        }
    }

    /// Draws `image` scaled to fill `rect` with bilinear filtering, its first row at `rect.minY`,
    /// through the CTM and clip and multiplied by the global alpha. The current path is left alone.
    public func draw(_ image: Image, in rect: Rect) {
        draw(image, from: Rect(x: 0, y: 0, width: Double(image.width), height: Double(image.height)), in: rect)
    }

    // MARK: - Groups

    /// Starts a transparency layer (`CGContextBeginTransparencyLayer`): what is drawn until the
    /// matching `endTransparencyLayer()` is composed as one image, then drawn with the alpha that
    /// was current here. Inside, alpha starts at 1. In a document the group stays vector.
    public func beginTransparencyLayer() {
        let outerAlpha = state.alpha
        saveGState()
        cairo_push_group(cr)
        state.alpha = 1
        transparencyLayerAlphas.append(outerAlpha)
    }

    /// Ends the innermost transparency layer and draws it; unbalanced calls are ignored.
    public func endTransparencyLayer() {
        guard let outerAlpha = transparencyLayerAlphas.popLast() else { return }
        cairo_pop_group_to_source(cr)
        cairo_paint_with_alpha(cr, outerAlpha)
        restoreGState()
    }

    /// Draws what `content` draws, multiplied by the alpha of what `mask` draws (a mask layer, or
    /// `CGContextClipToMask` with drawn rather than bitmap masks). Both run with the current state;
    /// the result is drawn with the current alpha. In a document both stay vector.
    public func drawMasked(content: () -> Void, mask: () -> Void) {
        let outerAlpha = state.alpha
        saveGState()
        state.alpha = 1
        cairo_push_group(cr)
        content()
        cairo_push_group(cr)
        mask()
        let maskPattern = cairo_pop_group(cr)!
        cairo_pop_group_to_source(cr)
        if outerAlpha < 1 {
            cairo_push_group(cr)
            cairo_mask(cr, maskPattern)
            cairo_pop_group_to_source(cr)
            cairo_paint_with_alpha(cr, outerAlpha)
        } else {
            cairo_mask(cr, maskPattern)
        }
        cairo_pattern_destroy(maskPattern)
        restoreGState()
    }

    /// A copy of the bitmap as it is now; the context stays usable. Only bitmap contexts have one.
    public func makeImage() -> Image {
        precondition(document == nil, "a document context has pages, not a bitmap: use finishDocument()")
        return Image(copyingPixelsOf: targetSurface)
    }

    // MARK: - Documents

    /// Ends the current page of a document and starts the next, with the graphics state kept.
    /// An SVG document has one page, so there this does nothing.
    public func beginNextPage() {
        guard document != nil else { return }
        cairo_show_page(cr)
    }

    /// Ends the document and returns its bytes; nothing drawn afterwards is kept. Throws cairo's
    /// error if any drawing or the writing failed.
    public func finishDocument() throws -> [UInt8] {
        guard let document else { throw GraphicsError.notADocument }
        try check(cairo_status(cr))
        let surface = cairo_get_target(cr)!
        cairo_surface_finish(surface)
        try check(cairo_surface_status(surface))
        return document.bytes
    }

    // MARK: - Internal

    /// Another reference to the bitmap surface.
    var targetSurface: CairoSurface {
        CairoSurface(retaining: cairo_get_target(cr))
    }

    /// Replaces every pixel with `surface`'s, converted to ARGB32 by cairo.
    func replaceContents(with surface: CairoSurface) {
        surface.withHandle { handle in
            cairo_save(cr)
            cairo_identity_matrix(cr)
            cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
            cairo_set_source_surface(cr, handle, 0, 0)
            cairo_paint(cr)
            cairo_restore(cr)
        }
    }

    /// Whether the CTM is singular, so that nothing may be drawn.
    var isDrawingSuppressed: Bool { state.singularCTM != nil }

    /// The global alpha that `setAlpha(_:)` set (saved and restored with the graphics state).
    public var alpha: Double { state.alpha }

    /// Makes `color`, times the global alpha unless told otherwise, cairo's source.
    func setSource(_ color: Color, applyingAlpha: Bool = true) {
        let c = color.converted(to: .sRGB)
        cairo_set_source_rgba(
            cr, unitInterval(c.red), unitInterval(c.green), unitInterval(c.blue),
            unitInterval(c.alpha) * (applyingAlpha ? state.alpha : 1))
    }

    /// Runs `body`, which builds and consumes a path of its own, then puts back the caller's current
    /// path: CoreGraphics leaves it untouched for these operations, but cairo clips and fills only paths.
    func preservingCurrentPath(_ body: () -> Void) {
        let saved = cairo_copy_path(cr)!
        defer { cairo_path_destroy(saved) }
        cairo_new_path(cr)
        body()
        cairo_new_path(cr)
        // An out-of-memory copy would put cairo into an error state if appended; the path is lost instead.
        if saved.pointee.status == CAIRO_STATUS_SUCCESS {
            cairo_append_path(cr, saved)
        }
    }
}

/// `value` clamped to 0…1, NaN becoming 0: cairo clamps colours itself but lets NaN through.
private func unitInterval(_ value: Double) -> Double {
    value > 0 ? min(value, 1) : 0
}

/// The kinds of document a `GraphicsContext` can write.
public enum DocumentFormat: String, Sendable, CaseIterable {
    /// PDF 1.5 or later, one page per `beginNextPage()`.
    case pdf
    /// SVG 1.1, one page, in points.
    case svg
}

/// The bytes cairo has written so far for a document.
private final class DocumentSink {
    var bytes: [UInt8] = []
}

@available(*, unavailable, message: "a GraphicsContext belongs to one thread or actor at a time")
extension GraphicsContext: Sendable {}

extension FillRule {
    fileprivate var cairoFillRule: cairo_fill_rule_t {
        switch self {
        case .winding: CAIRO_FILL_RULE_WINDING
        case .evenOdd: CAIRO_FILL_RULE_EVEN_ODD
        }
    }
}

extension AffineTransform2D {
    fileprivate init(_ m: cairo_matrix_t) {
        self.init(a: m.xx, b: m.yx, c: m.xy, d: m.yy, tx: m.x0, ty: m.y0)
    }

    /// cairo rejects, with a permanent error state, matrices whose determinant is zero or not finite.
    var isInvertibleByCairo: Bool {
        let det = determinant
        return det != 0 && det.isFinite && tx.isFinite && ty.isFinite
    }
}

extension cairo_matrix_t {
    fileprivate init(_ t: AffineTransform2D) {
        self.init(xx: t.a, yx: t.b, xy: t.c, yy: t.d, x0: t.tx, y0: t.ty)
    }
}
