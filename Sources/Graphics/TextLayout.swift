internal import CPangoCairo
internal import CVitrinePango

/// Attributed text shaped (HarfBuzz), broken into lines, ordered for display (bidi) and placed,
/// by Pango with fontconfig's fonts: the role of a Core Text frame.
///
/// Sizes are in points, one point being one unit of the context it is drawn into, at any scale:
/// metrics are not hinted and glyph positions not rounded, so a layout measures the same whether it
/// is drawn at 1× or 3×, and only the glyphs' pixels get sharper. Lines stack from the top (y = 0).
/// A layout belongs to one thread at a time (Pango's default font map is per thread). Pango is
/// loaded by the process's first layout (`PangoLibrary`).
public final class TextLayout {
    /// One laid-out line.
    public struct Line: Hashable, Sendable {
        /// The characters the line shows, in logical order, with "…" in place of any cut text.
        public var text: String
        /// The line's logical box (advance width × line height), placed by the alignment.
        public var frame: Rect
        /// The baseline's y.
        public var baseline: Double
        /// Whether the line's paragraph runs right to left (Arabic, Hebrew).
        public var isRightToLeft: Bool
    }

    public let lines: [Line]
    /// The width lines are aligned in: the given width, or the widest line's without one.
    public let width: Double
    /// The size the lines take: the widest line and the total height.
    public let size: Size
    /// Whether truncation cut any text.
    public let isTruncated: Bool
    /// The colour of runs without one.
    public let color: Color

    private let pango: vitrine_pango_functions
    private let layout: OpaquePointer
    /// Each line's left edge, in the same order as Pango's lines.
    private let lineOrigins: [Point]

    /// Lays out `text`. `font` and `color` apply where a run does not say otherwise (a size that is
    /// negative or NaN counts as 0, which draws nothing; one past `Font.maximumSize` as that).
    /// `width`, when given, is the width lines are aligned in, and wrapped (`wraps`) or cut
    /// (`truncation`) to; `height`, when given with both, is where wrapped text stops, its last
    /// line cut. Throws `GraphicsError.textUnavailable` when Pango cannot be loaded.
    public init(
        _ text: AttributedText, font: Font = Font(), color: Color = .black, width: Double? = nil,
        height: Double? = nil, wraps: Bool = false, truncation: TextTruncation = .none,
        alignment: TextAlignment = .natural
    ) throws(GraphicsError) {
        let pango = try PangoLibrary.shared.get().functions
        let context = makePangoContext(pango)
        defer { pango.g_object_unref(UnsafeMutableRawPointer(context)) }
        let layout = pango.pango_layout_new(context)!
        self.pango = pango
        self.layout = layout
        self.color = color

        let string = text.string
        let byteCount = string.utf8.count
        string.withCString { pango.pango_layout_set_text(layout, $0, Int32(byteCount)) }

        let description = pango.pango_font_description_new()
        pango.pango_font_description_set_family(description, font.family)
        pango.pango_font_description_set_absolute_size(description, Double(fontUnits(font.size)))
        pango.pango_font_description_set_weight(description, PangoWeight(UInt32(clamping: font.weight.rawValue)))
        pango.pango_layout_set_font_description(layout, description)
        pango.pango_font_description_free(description)
        setAttributes(of: text, on: layout, with: pango)

        // A width that is not a finite length leaves lines unbounded, as none does.
        let usableWidth = width.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        if let usableWidth, wraps || truncation != .none {
            pango.pango_layout_set_width(layout, pangoUnits(usableWidth))
            pango.pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
            if truncation != .none {
                if wraps {
                    // Without a height, wrapped text never runs out of room and is never cut.
                    if let height, height.isFinite, height >= 0 {
                        pango.pango_layout_set_ellipsize(layout, truncation.pangoMode)
                        pango.pango_layout_set_height(layout, pangoUnits(height))
                    }
                } else {
                    // Height −1: each paragraph is one line, cut to the width.
                    pango.pango_layout_set_ellipsize(layout, truncation.pangoMode)
                    pango.pango_layout_set_height(layout, -1)
                }
            }
        }
        pango.pango_layout_set_justify(layout, alignment == .justified && wraps ? 1 : 0)

        var found: [(text: String, logical: PangoRectangle, baseline: Int32, rtl: Bool)] = []
        let iterator = pango.pango_layout_get_iter(layout)!
        repeat {
            let line = pango.pango_layout_iter_get_line_readonly(iterator)!
            var logical = PangoRectangle()
            pango.pango_layout_iter_get_line_extents(iterator, nil, &logical)
            found.append((
                lineText(line, in: string),
                logical,
                pango.pango_layout_iter_get_baseline(iterator),
                pango.pango_layout_line_get_resolved_direction(line) == PANGO_DIRECTION_RTL))
        } while pango.pango_layout_iter_next_line(iterator) != 0
        pango.pango_layout_iter_free(iterator)

        let widest = found.map { points($0.logical.width) }.max() ?? 0
        let alignWidth = usableWidth ?? widest
        var lines: [Line] = []
        for line in found {
            let w = points(line.logical.width)
            let x: Double
            switch alignment {
            case .left: x = 0
            case .right: x = alignWidth - w
            case .center: x = (alignWidth - w) / 2
            case .natural, .justified: x = line.rtl ? alignWidth - w : 0
            }
            lines.append(Line(
                text: line.text,
                frame: Rect(x: x, y: points(line.logical.y), width: w, height: points(line.logical.height)),
                baseline: points(line.baseline), isRightToLeft: line.rtl))
        }
        var total = PangoRectangle()
        pango.pango_layout_get_extents(layout, nil, &total)
        self.lines = lines
        self.width = alignWidth
        self.size = Size(width: widest, height: points(total.height))
        self.isTruncated = pango.pango_layout_is_ellipsized(layout) != 0
        self.lineOrigins = lines.map { Point(x: $0.frame.minX, y: $0.baseline) }
    }

    deinit {
        pango.g_object_unref(UnsafeMutableRawPointer(layout))
    }

    /// Draws the lines with the layout's top left at `origin`, through the context's CTM and clip
    /// (glyphs are rasterised at the CTM's scale) and multiplied by its alpha. The current path is
    /// left alone.
    public func draw(in context: GraphicsContext, at origin: Point) {
        guard !context.isDrawingSuppressed else { return }
        let cr = context.cr
        // Runs with colours of their own (and colour emoji) ignore the source's alpha, so a
        // translucent context takes the text as a group.
        let grouped = context.alpha < 1
        context.preservingCurrentPath {
            cairo_save(cr)
            if grouped { cairo_push_group(cr) }
            context.setSource(color, applyingAlpha: !grouped)
            for (index, lineOrigin) in lineOrigins.enumerated() {
                guard let line = pango.pango_layout_get_line_readonly(layout, Int32(index)) else { break }
                // A line's origin is the left end of its baseline, less any negative logical x.
                var logical = PangoRectangle()
                pango.pango_layout_line_get_extents(line, nil, &logical)
                cairo_move_to(cr, origin.x + lineOrigin.x - points(logical.x), origin.y + lineOrigin.y)
                pango.pango_cairo_show_layout_line(cr, line)
            }
            if grouped {
                cairo_pop_group_to_source(cr)
                cairo_paint_with_alpha(cr, context.alpha)
            }
            cairo_restore(cr)
        }
    }
}

@available(*, unavailable, message: "a TextLayout belongs to one thread at a time")
extension TextLayout: Sendable {}

/// A Pango context on this thread's default font map at 72 dpi, so that a point is one unit,
/// with unhinted metrics and unrounded positions, so that layout does not depend on scale.
private func makePangoContext(_ pango: vitrine_pango_functions) -> OpaquePointer {
    let fontMap = pango.pango_cairo_font_map_get_default()
    let context = pango.pango_font_map_create_context(fontMap)!
    pango.pango_cairo_context_set_resolution(context, 72)
    let options = cairo_font_options_create()
    cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
    cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
    cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
    pango.pango_cairo_context_set_font_options(context, options)
    cairo_font_options_destroy(options)
    pango.pango_context_set_round_glyph_positions(context, 0)
    return context
}

/// Gives `layout` each run's attributes over its bytes of the joined UTF-8 text.
private func setAttributes(of text: AttributedText, on layout: OpaquePointer, with pango: vitrine_pango_functions) {
    let list = pango.pango_attr_list_new()!
    var start: UInt32 = 0
    for run in text.runs {
        let end = start + UInt32(run.text.utf8.count)
        defer { start = end }
        let a = run.attributes
        guard !a.isEmpty, end > start else { continue }
        var attributes: [UnsafeMutablePointer<PangoAttribute>] = []
        if let family = a.fontFamily { attributes.append(pango.pango_attr_family_new(family)!) }
        if let size = a.fontSize { attributes.append(pango.pango_attr_size_new_absolute(fontUnits(size))!) }
        if let weight = a.fontWeight { attributes.append(pango.pango_attr_weight_new(PangoWeight(UInt32(clamping: weight.rawValue)))!) }
        if let color = a.color?.converted(to: .sRGB) {
            func channel(_ v: Double) -> UInt16 { UInt16((min(max(v, 0), 1) * 65535).rounded()) }
            attributes.append(pango.pango_attr_foreground_new(channel(color.red), channel(color.green), channel(color.blue))!)
            attributes.append(pango.pango_attr_foreground_alpha_new(max(1, channel(color.alpha)))!)
        }
        for attribute in attributes {
            attribute.pointee.start_index = start
            attribute.pointee.end_index = end
            pango.pango_attr_list_insert(list, attribute)
        }
    }
    pango.pango_layout_set_attributes(layout, list)
    pango.pango_attr_list_unref(list)
}

/// The characters a line shows, in logical order: its runs sorted by position in the text, with
/// "…" for the run Pango put in place of cut text (that run's item spans the cut text).
private func lineText(_ line: UnsafeMutablePointer<PangoLayoutLine>, in string: String) -> String {
    var pieces: [(offset: Int32, text: String)] = []
    let utf8 = Array(string.utf8)
    var node = line.pointee.runs
    while let current = node {
        if let run = current.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self), let item = run.pointee.item {
            let offset = item.pointee.offset, length = item.pointee.length
            if Int32(item.pointee.analysis.flags) & PANGO_ANALYSIS_FLAG_IS_ELLIPSIS != 0 {
                pieces.append((offset, "…"))
            } else {
                let lower = Int(offset), upper = Int(offset + length)
                pieces.append((offset, String(decoding: utf8[lower..<upper], as: UTF8.self)))
            }
        }
        node = current.pointee.next
    }
    return pieces.sorted { $0.offset < $1.offset }.map(\.text).joined()
}

/// `points` in Pango units, with what Pango cannot take made usable: negative or NaN lengths
/// become 0 and lengths past Pango's range its largest.
private func pangoUnits(_ points: Double) -> Int32 {
    let units = (points * Double(PANGO_SCALE)).rounded()
    guard units > 0 else { return 0 }
    return units >= Double(Int32.max) ? Int32.max : Int32(units)
}

/// A font size in Pango units, at most `Font.maximumSize`.
private func fontUnits(_ size: Double) -> Int32 {
    pangoUnits(min(size, Font.maximumSize))
}

private func points(_ units: Int32) -> Double {
    Double(units) / Double(PANGO_SCALE)
}

extension TextTruncation {
    fileprivate var pangoMode: PangoEllipsizeMode {
        switch self {
        case .none: PANGO_ELLIPSIZE_NONE
        case .start: PANGO_ELLIPSIZE_START
        case .middle: PANGO_ELLIPSIZE_MIDDLE
        case .end: PANGO_ELLIPSIZE_END
        }
    }
}
