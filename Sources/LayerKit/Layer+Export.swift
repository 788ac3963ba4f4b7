/// A printed page: the paper and the margins the layer is fitted inside, in points (1/72 inch).
public struct PageLayout: Sendable, Hashable {
    /// A height of 0 is a roll (a receipt printer's paper): the page is as tall as the content
    /// fitted to the width, plus the margins.
    public var paperSize: Size
    public var margins: Margins

    public struct Margins: Sendable, Hashable {
        public var top: Double
        public var left: Double
        public var bottom: Double
        public var right: Double

        public init(top: Double, left: Double, bottom: Double, right: Double) {
            (self.top, self.left, self.bottom, self.right) = (top, left, bottom, right)
        }

        public init(all: Double) {
            self.init(top: all, left: all, bottom: all, right: all)
        }
    }

    public init(paperSize: Size, margins: Margins) {
        self.paperSize = paperSize
        self.margins = margins
    }

    static let pointsPerMillimetre = 72 / 25.4

    /// ISO A4 (210 × 297 mm) with 12.7 mm (half-inch) margins.
    public static let a4 = PageLayout(
        paperSize: Size(width: 210 * pointsPerMillimetre, height: 297 * pointsPerMillimetre), margins: Margins(all: 36))
    /// US Letter (8.5 × 11 in) with half-inch margins.
    public static let letter = PageLayout(paperSize: Size(width: 612, height: 792), margins: Margins(all: 36))

    /// A receipt roll `width` millimetres wide (80 and 58 are usual) with 3 mm side margins.
    public static func receipt(widthInMillimetres width: Double) -> PageLayout {
        let side = 3 * pointsPerMillimetre
        return PageLayout(paperSize: Size(width: width * pointsPerMillimetre, height: 0), margins: Margins(all: side))
    }

    /// Where a layer of `size` points goes on the page: scaled to fit the printable area (up or
    /// down, keeping its aspect), centred across it and at the top margin; and the page's size.
    public func placement(of size: Size) -> (scale: Double, origin: Point, pageSize: Size)? {
        let printableWidth = paperSize.width - margins.left - margins.right
        guard size.width > 0, size.height > 0, printableWidth > 0 else { return nil }
        var scale = printableWidth / size.width
        if paperSize.height > 0 {
            let printableHeight = paperSize.height - margins.top - margins.bottom
            guard printableHeight > 0 else { return nil }
            scale = min(scale, printableHeight / size.height)
        }
        let height = paperSize.height > 0 ? paperSize.height : size.height * scale + margins.top + margins.bottom
        let origin = Point(x: margins.left + (printableWidth - size.width * scale) / 2, y: margins.top)
        return (scale, origin, Size(width: paperSize.width, height: height))
    }
}

/// What `Layer.exportData(as:)` writes.
public enum LayerExportFormat: Sendable, Hashable {
    /// A bitmap of the bounds at `scale` pixels per point.
    case png(scale: Double)
    /// A vector page the size of the bounds, or the layer fitted on a printed page.
    case pdf(page: PageLayout?)
    /// A vector image the size of the bounds, in points.
    case svg
}

/// Why a layer could not be exported.
public enum LayerExportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bounds are empty or not finite, or the scale is not positive: nothing to draw.
    case emptyBounds(Rect)
    case invalidScale(Double)
    /// The page's margins leave no room to print on.
    case noPrintableArea(PageLayout)

    public var description: String {
        switch self {
        case .emptyBounds(let bounds): "the layer's bounds \(bounds) are empty: there is nothing to export"
        case .invalidScale(let scale): "invalid scale \(scale): it must be more than 0"
        case .noPrintableArea(let page): "the margins of the \(page.paperSize) page leave no room to print"
        }
    }
}

extension Layer {
    /// The layer and its subtree rendered (see `render(in:)`) as PNG, PDF or SVG bytes, over
    /// `background` when given (an output's black, where nothing else is drawn). Text, paths and
    /// gradients are vectors in PDF and SVG; PDF text can be searched and copied.
    public func exportData(as format: LayerExportFormat, background: Color? = nil) throws -> [UInt8] {
        let b = bounds
        guard !b.isNull, b.width > 0, b.height > 0, b.width.isFinite, b.height.isFinite else {
            throw LayerExportError.emptyBounds(b)
        }
        switch format {
        case .png(let scale):
            return try renderedImage(scale: scale, background: background).pngData()
        case .pdf(nil), .svg:
            let context = try GraphicsContext(format: format == .svg ? .svg : .pdf, pageSize: b.size)
            context.translateBy(x: -b.minX, y: -b.minY)
            draw(over: background, in: context)
            return try context.finishDocument()
        case .pdf(let page?):
            guard let placement = page.placement(of: b.size) else { throw LayerExportError.noPrintableArea(page) }
            let context = try GraphicsContext(format: .pdf, pageSize: placement.pageSize)
            context.translateBy(x: placement.origin.x, y: placement.origin.y)
            context.scaleBy(x: placement.scale, y: placement.scale)
            context.translateBy(x: -b.minX, y: -b.minY)
            draw(over: background, in: context)
            return try context.finishDocument()
        }
    }

    /// The layer and its subtree rendered into a bitmap of its bounds at `scale` pixels per point,
    /// over `background` when given.
    public func renderedImage(scale: Double, background: Color? = nil) throws -> Image {
        let b = bounds
        guard !b.isNull, b.width > 0, b.height > 0, b.width.isFinite, b.height.isFinite else {
            throw LayerExportError.emptyBounds(b)
        }
        guard scale > 0, scale.isFinite else { throw LayerExportError.invalidScale(scale) }
        let context = try GraphicsContext(width: Int((b.width * scale).rounded(.up)), height: Int((b.height * scale).rounded(.up)))
        context.scaleBy(x: scale, y: scale)
        context.translateBy(x: -b.minX, y: -b.minY)
        draw(over: background, in: context)
        return context.makeImage()
    }

    private func draw(over background: Color?, in context: GraphicsContext) {
        if let background {
            context.setFillColor(background)
            context.fill(bounds)
        }
        render(in: context)
    }
}
