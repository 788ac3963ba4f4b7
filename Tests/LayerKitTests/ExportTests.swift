import Foundation
import Testing
@testable import LayerKit

/// Runs a poppler-utils tool (Debian's poppler-utils) and returns what it printed.
func runPoppler(_ tool: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "\(tool) \(arguments) exited with \(process.terminationStatus)")
    return String(decoding: output, as: UTF8.self)
}

/// A scratch file path that is removed with its folder when the test's `defer` runs.
func scratchDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-export-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Draws its text with a TextLayout and counts its calls, noting whether each was for a display.
final class TicketDrawer: LayerDrawingDelegate {
    var calls: [Bool] = []

    func draw(_ layer: Layer, in context: GraphicsContext) {
        calls.append(context.isDrawingToScreen)
        context.setFillColor(Color(red: 0.9, green: 0.9, blue: 1))
        context.fill(Rect(x: 0, y: 0, width: 200, height: 40))
        // Without Pango the header has no text, which the tests' expectations of it then report.
        try? TextLayout("Seat 14C", font: Font(family: Font.defaultFamily, size: 18), color: .black).draw(in: context, at: Point(x: 8, y: 8))
    }
}

@MainActor
@Suite struct ExportTests {
    /// A 200×120 ticket: a background, a drawn header, a shape and a text layer. The caller
    /// keeps `drawer` alive: a layer's delegate is weak, as in Core Animation.
    func ticket(drawer: TicketDrawer) -> Layer {
        let root = makeLayer(200, 120)
        root.anchorPoint = .zero
        root.backgroundColor = .white
        let header = makeLayer(200, 40)
        header.anchorPoint = .zero
        header.delegate = drawer
        header.setNeedsDisplay()
        header.displayIfNeeded()
        root.addSublayer(header)
        let stamp = ShapeLayer()
        stamp.frame = Rect(x: 140, y: 60, width: 50, height: 50)
        stamp.path = Path(ellipseIn: Rect(x: 5, y: 5, width: 40, height: 40))
        stamp.fillColor = nil
        stamp.strokeColor = Color(red: 0.8, green: 0, blue: 0)
        stamp.lineWidth = 4
        root.addSublayer(stamp)
        let text = TextLayer()
        text.frame = Rect(x: 8, y: 56, width: 130, height: 40)
        text.string = "Boarding pass 7F"
        text.fontSize = 14
        text.foregroundColor = .black
        root.addSublayer(text)
        return root
    }

    @Test func aPDFExportKeepsTextAsTextAndDrawsTheDelegateAgainForThePage() throws {
        let drawer = TicketDrawer()
        let root = ticket(drawer: drawer)
        #expect(drawer.calls == [true])
        let pdf = try root.exportData(as: .pdf(page: nil))
        #expect(Array(pdf.prefix(5)) == Array("%PDF-".utf8))
        #expect(drawer.calls == [true, false])
        let folder = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("ticket.pdf").path
        try Data(pdf).write(to: URL(fileURLWithPath: path))
        let text = try runPoppler("pdftotext", ["-layout", path, "-"])
        #expect(text.contains("Boarding pass 7F"), "\(text)")
        #expect(text.contains("Seat 14C"), "\(text)")
        let info = try runPoppler("pdfinfo", [path])
        #expect(info.split(separator: "\n").contains { $0.split(separator: " ").joined(separator: " ") == "Page size: 200 x 120 pts" }, "\(info)")
    }

    /// poppler draws the PDF page independently of cairo: it must show what the PNG export shows.
    /// Tolerance: outside the text, at most 0.2% of the pixels may differ by more than 40 (of
    /// 255), for the two rasterisers' antialiasing; glyphs are hinted differently by the two, so
    /// in each text box the amount of ink (summed darkness) must agree within 5%.
    @Test func thePDFPageRendersToWhatThePNGExportShows() throws {
        let drawer = TicketDrawer()
        let root = ticket(drawer: drawer)
        let folder = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pdfPath = folder.appendingPathComponent("ticket.pdf").path
        try Data(try root.exportData(as: .pdf(page: nil))).write(to: URL(fileURLWithPath: pdfPath))
        _ = try runPoppler("pdftoppm", ["-r", "144", "-png", "-singlefile", pdfPath, folder.appendingPathComponent("page").path])
        let page = try Image(contentsOfPNGFile: folder.appendingPathComponent("page.png").path)
        let png = try Image(pngData: try root.exportData(as: .png(scale: 2)))
        try #require(page.width == 400 && page.height == 240 && png.width == 400 && png.height == 240)
        // The header's "Seat 14C" and the text layer's line, in pixels.
        let textBoxes = [(x: 16..<160, y: 16..<60), (x: 16..<276, y: 112..<192)]
        func inText(_ x: Int, _ y: Int) -> Bool { textBoxes.contains { $0.x.contains(x) && $0.y.contains(y) } }
        var differing = 0
        for y in 0..<240 {
            for x in 0..<400 where !inText(x, y) && page.pixel(x: x, y: y).maximumChannelDifference(from: png.pixel(x: x, y: y)) > 40 {
                differing += 1
            }
        }
        #expect(Double(differing) / Double(400 * 240) <= 0.002, "\(differing) pixels differ outside the text")
        for box in textBoxes {
            func ink(_ image: Image) -> Double {
                var total = 0.0
                for y in box.y {
                    for x in box.x { total += 255 - Double(image.pixel(x: x, y: y).green) }
                }
                return total
            }
            let (poppler, cairo) = (ink(page), ink(png))
            #expect(cairo > 0 && abs(poppler - cairo) / cairo <= 0.05, "ink \(poppler) against \(cairo) in \(box)")
        }
        // The stamp's red ring, 4 points wide, at its right-hand side (the ellipse's right edge
        // is at x = 185 points, the stroke 183…187).
        #expect(page.pixel(x: 370, y: 170).red > 180 && page.pixel(x: 370, y: 170).green < 60)
        // The drawn header's lavender, at its top left, above its text.
        #expect(page.pixel(x: 4, y: 4).maximumChannelDifference(from: PremultipliedPixel(red: 230, green: 230, blue: 255, alpha: 255)) <= 1)
    }

    @Test func pathsAndTextStayVectorsAndOnlyBitmapContentsBecomeImages() throws {
        let drawer = TicketDrawer()
        let root = ticket(drawer: drawer)
        let pdf = String(decoding: try root.exportData(as: .pdf(page: nil)), as: UTF8.self)
        let svg = String(decoding: try root.exportData(as: .svg), as: UTF8.self)
        #expect(!pdf.contains("/Subtype /Image"))
        #expect(svg.contains("<path") && !svg.contains("<image"))
        #expect(svg.contains("width=\"200pt\"") && svg.contains("height=\"120pt\""), "\(svg.prefix(400))")
        let photo = makeLayer(20, 20, at: Point(x: 30, y: 90))
        photo.contents = Image(width: 4, height: 4, fill: PremultipliedPixel(red: 0, green: 128, blue: 0, alpha: 255))
        root.addSublayer(photo)
        let withPhoto = String(decoding: try root.exportData(as: .pdf(page: nil)), as: UTF8.self)
        #expect(withPhoto.contains("/Subtype /Image"))
        #expect(String(decoding: try root.exportData(as: .svg), as: UTF8.self).contains("<image"))
    }

    @Test func aPrintedPageFitsTheLayerInsideTheMargins() throws {
        let a4 = try #require(PageLayout.a4.placement(of: Size(width: 400, height: 200)))
        let printable = 210 * 72 / 25.4 - 72
        #expect(isClose(a4.scale, printable / 400))
        #expect(isClose(a4.origin.x, 36) && a4.origin.y == 36)
        #expect(isClose(a4.pageSize.width, 210 * 72 / 25.4) && isClose(a4.pageSize.height, 297 * 72 / 25.4))
        // A tall layer is limited by the height and centred across.
        let tall = try #require(PageLayout.letter.placement(of: Size(width: 100, height: 1440)))
        #expect(isClose(tall.scale, 0.5))
        #expect(isClose(tall.origin.x, 36 + (540 - 50) / 2.0))
        // A receipt roll is as long as the content fitted to its width.
        let receipt = try #require(PageLayout.receipt(widthInMillimetres: 80).placement(of: Size(width: 300, height: 600)))
        let side = 3 * 72 / 25.4, width = 80 * 72 / 25.4
        #expect(isClose(receipt.scale, (width - 2 * side) / 300))
        #expect(isClose(receipt.pageSize.height, 600 * receipt.scale + 2 * side))
        #expect(PageLayout(paperSize: Size(width: 50, height: 50), margins: .init(all: 30)).placement(of: Size(width: 10, height: 10)) == nil)
    }

    @Test func aPDFForPaperHasThePapersSizeAndTheLayerOnIt() throws {
        let drawer = TicketDrawer()
        let root = ticket(drawer: drawer)
        let folder = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("a4.pdf").path
        try Data(try root.exportData(as: .pdf(page: .a4))).write(to: URL(fileURLWithPath: path))
        let info = try runPoppler("pdfinfo", [path])
        #expect(info.split(separator: "\n").contains { $0.split(separator: " ").joined(separator: " ") == "Page size: 595.276 x 841.89 pts (A4)" }, "\(info)")
        #expect(try runPoppler("pdftotext", [path, "-"]).contains("Boarding pass 7F"))
    }

    @Test func exportingNothingIsAClearError() {
        let empty = makeLayer(0, 10)
        #expect(throws: LayerExportError.emptyBounds(Rect(x: 0, y: 0, width: 0, height: 10))) {
            try empty.exportData(as: .png(scale: 1))
        }
        #expect(throws: LayerExportError.invalidScale(0)) { try makeLayer(10, 10).exportData(as: .png(scale: 0)) }
        let narrow = PageLayout(paperSize: Size(width: 50, height: 50), margins: .init(all: 30))
        #expect(throws: LayerExportError.noPrintableArea(narrow)) { try makeLayer(10, 10).exportData(as: .pdf(page: narrow)) }
    }

    /// The export draws the model tree in the layer's bounds space: a layer of bounds origin
    /// (10, 10) exports its (10, 10) at the image's top left, at the scale asked for.
    @Test func aPNGExportIsTheBoundsAtTheScale() throws {
        let root = Layer()
        root.bounds = Rect(x: 10, y: 10, width: 30, height: 20)
        root.backgroundColor = .white
        let red = Layer()
        red.anchorPoint = .zero
        red.frame = Rect(x: 10, y: 10, width: 10, height: 10)
        red.backgroundColor = .red
        root.addSublayer(red)
        let image = try Image(pngData: try root.exportData(as: .png(scale: 3)))
        #expect(image.width == 90 && image.height == 60)
        #expect(image.pixel(x: 15, y: 15) == PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(image.pixel(x: 45, y: 15) == PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255))
    }
}
