/// `TextLayer`'s values, carried in `LayerProperties.text` to the render tree, where the renderer
/// rasterises them (see `rasterized(in:scale:)`) and keeps the image while they stay the same.
public struct TextProperties: Sendable, Hashable {
    /// Runs without attributes take `font`, `fontSize` and `foregroundColor`.
    public var string: AttributedText?
    /// Its size is ignored: `fontSize` sets the size, as Core Animation ignores a font object's own.
    public var font = Font(family: Font.defaultFamily, size: 36)
    public var fontSize = 36.0
    /// Default opaque white, as in Core Animation; nil draws the runs without a colour of their own
    /// in nothing.
    public var foregroundColor: Color? = .white
    public var isWrapped = false
    public var truncationMode = TextTruncation.none
    public var alignmentMode = TextAlignment.natural

    public init() {}

    /// The string laid out in a box of `size` points (wrapped and cut to it as the modes say), or
    /// nil without a string or without Pango (`GraphicsError.textUnavailable`, logged once).
    public func layout(in size: Size) -> TextLayout? {
        guard let string, !string.string.isEmpty else { return nil }
        var face = font
        face.size = fontSize
        return try? TextLayout(
            string, font: face, color: foregroundColor ?? .clear, width: size.width, height: size.height,
            wraps: isWrapped, truncation: truncationMode, alignment: alignmentMode)
    }

    /// Draws the text from the top left of `bounds` (in the context's user space), clipped to
    /// `bounds` as the backing store on screen is; glyphs stay glyphs in a document.
    public func draw(in context: GraphicsContext, bounds: Rect) {
        guard !bounds.isNull, !bounds.isEmpty, let layout = layout(in: bounds.size) else { return }
        context.saveGState()
        context.clip(to: bounds)
        layout.draw(in: context, at: bounds.origin)
        context.restoreGState()
    }

    /// The text drawn from the top left of `bounds` at `scale` pixels per point into an image
    /// covering `bounds` (text past the bounds is clipped, as Core Animation's backing store clips
    /// it), capped at `maximumPixels` a side by lowering the scale; `frame` is the image's place in
    /// the bounds space. Nil without text, for empty bounds, or on allocation failure.
    public func rasterized(in bounds: Rect, scale: Double, maximumPixels: Int = 4096) -> (image: Image, frame: Rect)? {
        guard !bounds.isNull, !bounds.isEmpty, bounds.width.isFinite, bounds.height.isFinite, scale > 0, scale.isFinite,
            let layout = layout(in: bounds.size)
        else { return nil }
        let largest = Double(maximumPixels)
        let k = min(scale, largest / bounds.width, largest / bounds.height)
        let width = max(1, Int((bounds.width * k).rounded(.up))), height = max(1, Int((bounds.height * k).rounded(.up)))
        guard let context = try? GraphicsContext(width: width, height: height) else { return nil }
        context.scaleBy(x: k, y: k)
        layout.draw(in: context, at: .zero)
        let frame = Rect(x: bounds.minX, y: bounds.minY, width: Double(width) / k, height: Double(height) / k)
        return (context.makeImage(), frame)
    }
}

/// A layer that draws text, laid out by Pango (CATextLayer): plain or attributed, wrapped or on one
/// line per paragraph, cut with "…" and aligned in the bounds. The text is composited above the
/// layer's contents and below its sublayers, drawn from the top of the bounds. It stays crisp at
/// any scale: the renderer rasterises it at the layer's `contentsScale` and redraws it only when
/// the text, its attributes, the bounds or the scale change.
///
/// The default font is DejaVu Sans (Core Animation's is Helvetica, which Debian does not ship);
/// characters it lacks come from any installed font that has them.
open class TextLayer: Layer {
    public override init() {
        super.init()
        properties.text = TextProperties()
    }

    public required init(layer: Layer) {
        super.init(layer: layer)
    }

    /// The text; a string literal is plain text. Not animatable.
    public var string: AttributedText? {
        get { properties.text?.string }
        set { setProperty(\.text!.string, newValue, key: "string") }
    }
    /// The family and weight; its size is ignored in favour of `fontSize`. Default DejaVu Sans.
    public var font: Font {
        get { properties.text?.font ?? TextProperties().font }
        set { setProperty(\.text!.font, newValue, key: "font") }
    }
    /// Default 36; animatable.
    public var fontSize: Double {
        get { properties.text?.fontSize ?? 36 }
        set { setProperty(\.text!.fontSize, newValue, key: "fontSize") }
    }
    /// Default opaque white; animatable.
    public var foregroundColor: Color? {
        get { properties.text?.foregroundColor }
        set { setProperty(\.text!.foregroundColor, newValue, key: "foregroundColor") }
    }
    /// Whether text wraps at the bounds' width; default false (one line per paragraph).
    public var isWrapped: Bool {
        get { properties.text?.isWrapped ?? false }
        set { setProperty(\.text!.isWrapped, newValue, key: "wrapped") }
    }
    public var truncationMode: TextTruncation {
        get { properties.text?.truncationMode ?? .none }
        set { setProperty(\.text!.truncationMode, newValue, key: "truncationMode") }
    }
    public var alignmentMode: TextAlignment {
        get { properties.text?.alignmentMode ?? .natural }
        set { setProperty(\.text!.alignmentMode, newValue, key: "alignmentMode") }
    }

    /// The size the text takes unwrapped, for sizing the layer to it.
    open override func preferredFrameSize() -> Size {
        guard let text = properties.text, let layout = text.layout(in: Size(width: .infinity, height: .infinity))
        else { return super.preferredFrameSize() }
        return layout.size
    }

    override class func propertyEntry(forKey key: String) -> LayerKeyTable.Entry? {
        textEntries[key] ?? super.propertyEntry(forKey: key)
    }

    override class var defaultProperties: LayerProperties {
        var p = LayerProperties()
        p.text = TextProperties()
        return p
    }

    override class var implicitlyAnimatedKeys: Set<String> { textAnimatedKeys }

    private static let textAnimatedKeys = Layer.baseImplicitlyAnimatedKeys.union(["fontSize", "foregroundColor"])

    private static let textEntries: [String: LayerKeyTable.Entry] = [
        // A plain String is accepted too, as CATextLayer takes an NSString or an NSAttributedString.
        "string": LayerKeyTable.Entry(
            typeName: "AttributedText?",
            get: { $0.text?.string },
            set: { target, value in
                guard let target = target as? TextLayer else { return false }
                switch value {
                case nil: target.string = nil
                case let text as AttributedText: target.string = text
                case let text as String: target.string = AttributedText(text)
                default: return false
                }
                return true
            }),
        // A family name is accepted too, as CATextLayer takes a font name.
        "font": LayerKeyTable.Entry(
            typeName: "Font",
            get: { $0.text?.font },
            set: { target, value in
                guard let target = target as? TextLayer else { return false }
                switch value {
                case let font as Font: target.font = font
                case let family as String: target.font = Font(family: family, size: target.fontSize)
                default: return false
                }
                return true
            }),
        "fontSize": LayerKeyTable.entry({ $0.text?.fontSize }, \TextLayer.fontSize),
        "foregroundColor": LayerKeyTable.optionalEntry({ $0.text?.foregroundColor }, \TextLayer.foregroundColor),
        "wrapped": LayerKeyTable.entry({ $0.text?.isWrapped }, \TextLayer.isWrapped),
        "truncationMode": LayerKeyTable.entry({ $0.text?.truncationMode }, \TextLayer.truncationMode),
        "alignmentMode": LayerKeyTable.entry({ $0.text?.alignmentMode }, \TextLayer.alignmentMode),
    ]
}
