import Testing

import Graphics

/// Draws into a fresh transparent context and returns the result.
func render(width: Int = 20, height: Int = 20, _ draw: (GraphicsContext) throws -> Void) throws -> Image {
    let context = try GraphicsContext(width: width, height: height)
    try draw(context)
    return context.makeImage()
}

/// The pixel coordinates where `predicate` holds, in row-major order.
func pixels(of image: Image, where predicate: (PremultipliedPixel) -> Bool) -> [(x: Int, y: Int)] {
    var result: [(x: Int, y: Int)] = []
    for y in 0..<image.height {
        for x in 0..<image.width where predicate(image.pixel(x: x, y: y)) {
            result.append((x, y))
        }
    }
    return result
}

func isOpaque(_ p: PremultipliedPixel) -> Bool { p.alpha == 255 }
func isTransparent(_ p: PremultipliedPixel) -> Bool { p == .clear }

func expectPixel(
    _ actual: PremultipliedPixel, _ expected: PremultipliedPixel, tolerance: Int = 0,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let difference = max(
        abs(Int(actual.red) - Int(expected.red)), abs(Int(actual.green) - Int(expected.green)),
        abs(Int(actual.blue) - Int(expected.blue)), abs(Int(actual.alpha) - Int(expected.alpha)))
    #expect(
        difference <= tolerance,
        "\(actual) differs from \(expected) by more than \(tolerance)", sourceLocation: sourceLocation)
}

let opaqueRed = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
let opaqueBlue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
let opaqueBlack = PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)
let opaqueWhite = PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255)

@Suite struct GraphicsContextTests {
    @Test func newContextIsTransparentAndHasTheRequestedSize() throws {
        let image = try render(width: 7, height: 3) { _ in }
        #expect(image.width == 7 && image.height == 3)
        #expect(image.pixelFormat == .argb8888)
        #expect(pixels(of: image, where: isTransparent).count == 21)
    }

    @Test func invalidContextSizesThrow() {
        #expect(throws: GraphicsError.invalidSize(width: 0, height: 10)) { try GraphicsContext(width: 0, height: 10) }
        #expect(throws: GraphicsError.invalidSize(width: 10, height: -1)) { try GraphicsContext(width: 10, height: -1) }
        #expect(throws: GraphicsError.invalidSize(width: 40_000, height: 1)) {
            try GraphicsContext(width: 40_000, height: 1)
        }
    }

    @Test func rectFillGivesExactPremultipliedPixelsInsideAndTransparentOutside() throws {
        let image = try render(width: 10, height: 10) { context in
            context.setFillColor(Color(red: 0.2, green: 0.4, blue: 1))
            context.fill(Rect(x: 2, y: 3, width: 5, height: 4))
        }
        let inside = Rect(x: 2, y: 3, width: 5, height: 4)
        for y in 0..<10 {
            for x in 0..<10 {
                let expected =
                    inside.contains(Point(x: Double(x), y: Double(y)))
                    ? PremultipliedPixel(red: 51, green: 102, blue: 255, alpha: 255) : .clear
                #expect(image.pixel(x: x, y: y) == expected, "pixel (\(x), \(y))")
            }
        }
    }

    @Test func defaultFillColorIsOpaqueBlack() throws {
        let image = try render(width: 2, height: 2) { $0.fill(Rect(x: 0, y: 0, width: 2, height: 2)) }
        #expect(image.pixel(x: 1, y: 1) == opaqueBlack)
    }

    @Test func halfTransparentFillGivesPremultipliedValues() throws {
        let viaColor = try render(width: 4, height: 4) { context in
            context.setFillColor(Color.red.withAlphaComponent(0.5))
            context.fill(Rect(x: 0, y: 0, width: 4, height: 4))
        }
        let viaGlobalAlpha = try render(width: 4, height: 4) { context in
            context.setFillColor(.red)
            context.setAlpha(0.5)
            context.fill(Rect(x: 0, y: 0, width: 4, height: 4))
        }
        let expected = PremultipliedPixel(red: 128, green: 0, blue: 0, alpha: 128)
        expectPixel(viaColor.pixel(x: 2, y: 2), expected, tolerance: 1)
        expectPixel(viaGlobalAlpha.pixel(x: 2, y: 2), expected, tolerance: 1)
    }

    @Test func linearColorsAreConvertedToSRGB() throws {
        let image = try render(width: 2, height: 2) { context in
            context.setFillColor(Color(red: 0.5, green: 0, blue: 0, colorSpace: .linearSRGB))
            context.fill(Rect(x: 0, y: 0, width: 2, height: 2))
        }
        // The sRGB encoding of linear 0.5 is 0.7354, i.e. 188 of 255.
        expectPixel(image.pixel(x: 0, y: 0), PremultipliedPixel(red: 188, green: 0, blue: 0, alpha: 255), tolerance: 1)
    }

    @Test func evenOddLeavesAHoleWhereWindingFillsNestedSameDirectionRects() throws {
        var path = Path(rect: Rect(x: 0, y: 0, width: 20, height: 20))
        path.addRect(Rect(x: 5, y: 5, width: 10, height: 10))
        let winding = try render { context in
            context.addPath(path)
            context.fillPath(using: .winding)
        }
        let evenOdd = try render { context in
            context.addPath(path)
            context.fillPath(using: .evenOdd)
        }
        #expect(winding.pixel(x: 10, y: 10) == opaqueBlack)
        #expect(evenOdd.pixel(x: 10, y: 10) == .clear)
        #expect(winding.pixel(x: 2, y: 2) == opaqueBlack)
        #expect(evenOdd.pixel(x: 2, y: 2) == opaqueBlack)
        #expect(pixels(of: evenOdd, where: isOpaque).count == 400 - 100)
    }

    @Test func fillPathConsumesTheCurrentPath() throws {
        let image = try render { context in
            context.addPath(Path(rect: Rect(x: 0, y: 0, width: 10, height: 10)))
            context.fillPath()
            context.setStrokeColor(.red)
            context.setLineWidth(4)
            context.strokePath()
        }
        #expect(pixels(of: image, where: { $0 == opaqueRed }).isEmpty)
        #expect(pixels(of: image, where: isOpaque).count == 100)
    }

    @Test func defaultStrokeIsOnePixelWide() throws {
        let image = try render(width: 10, height: 10) { context in
            context.move(to: Point(x: 0, y: 5.5))
            context.addLine(to: Point(x: 10, y: 5.5))
            context.strokePath()
        }
        #expect(pixels(of: image, where: { !isTransparent($0) }).map(\.y) == Array(repeating: 5, count: 10))
        #expect(pixels(of: image, where: isOpaque).count == 10)
    }

    @Test func buttCapsEndAtTheEndPointsAndSquareCapsExtendByHalfTheWidth() throws {
        func strokeLine(cap: LineCap?) throws -> Image {
            try render(width: 40, height: 20) { context in
                context.setLineWidth(4)
                if let cap { context.setLineCap(cap) }
                context.move(to: Point(x: 10, y: 10))
                context.addLine(to: Point(x: 30, y: 10))
                context.strokePath()
            }
        }
        let butt = try strokeLine(cap: .butt)
        let square = try strokeLine(cap: .square)
        #expect(try strokeLine(cap: nil).maximumChannelDifference(from: butt) == 0)
        // Every touched pixel is fully covered: the edges fall on pixel boundaries.
        #expect(pixels(of: butt, where: { !isTransparent($0) }).count == 20 * 4)
        #expect(pixels(of: butt, where: isOpaque).count == 20 * 4)
        #expect(pixels(of: square, where: isOpaque).count == 24 * 4)
        #expect(pixels(of: square, where: { !isTransparent($0) }).count == 24 * 4)

        let buttColumns = Set(pixels(of: butt, where: isOpaque).map(\.x))
        let squareColumns = Set(pixels(of: square, where: isOpaque).map(\.x))
        let rows = Set(pixels(of: butt, where: isOpaque).map(\.y))
        #expect(buttColumns == Set(10..<30))
        #expect(squareColumns == Set(8..<32))
        #expect(rows == Set(8..<12))
    }

    @Test func joinsAndMiterLimitShapeTheOuterCorner() throws {
        func cornerAlpha(join: LineJoin?, miterLimit: Double? = nil) throws -> UInt8 {
            let image = try render { context in
                context.setLineWidth(4)
                if let join { context.setLineJoin(join) }
                if let miterLimit { context.setMiterLimit(miterLimit) }
                context.move(to: Point(x: 2, y: 10))
                context.addLine(to: Point(x: 10, y: 10))
                context.addLine(to: Point(x: 10, y: 2))
                context.strokePath()
            }
            // The pixel [10, 11] × [11, 12] lies in the outer corner square [10, 12]², which a miter fills.
            return image.pixel(x: 10, y: 11).alpha
        }
        #expect(try cornerAlpha(join: .miter) == 255)
        // The defaults, miter joins limited at 10, keep the miter.
        #expect(try cornerAlpha(join: nil) == 255)
        // A bevel cuts the corner square along the line x + y = 22, the pixel's diagonal.
        #expect(try abs(Int(cornerAlpha(join: .bevel)) - 128) <= 2)
        // A radius-2 arc about (10, 10) covers ∫₀¹ √(4 − x²) dx − 1 ≈ 91.3% of the pixel (233); cairo
        // draws the arc as chords within 0.1 of it, which cover slightly less.
        let round = try cornerAlpha(join: .round)
        #expect((225...235).contains(round), "round join coverage \(round)")
        // A right angle's miter is √2 times the width: a lower limit turns it into a bevel.
        #expect(try abs(Int(cornerAlpha(join: .miter, miterLimit: 1.4)) - 128) <= 2)
    }

    @Test func dashPatternLeavesGapsAtTheExpectedPositions() throws {
        func dashedRow(phase: Double) throws -> [Bool] {
            let image = try render(width: 40, height: 20) { context in
                context.setLineWidth(2)
                context.setLineDash(phase: phase, lengths: [5, 5])
                context.move(to: Point(x: 0, y: 10))
                context.addLine(to: Point(x: 40, y: 10))
                context.strokePath()
            }
            return (0..<40).map { image.pixel(x: $0, y: 9) == opaqueBlack }
        }
        let onAtStart = (0..<40).map { ($0 / 5) % 2 == 0 }
        #expect(try dashedRow(phase: 0) == onAtStart)
        #expect(try dashedRow(phase: 5) == onAtStart.map { !$0 })
    }

    @Test func emptyOrUnusableDashPatternsStrokeSolidLines() throws {
        for lengths in [[], [0, 0], [4, -1], [Double.nan]] {
            let image = try render(width: 10, height: 4) { context in
                context.setLineWidth(2)
                context.setLineDash(phase: 0, lengths: lengths)
                context.move(to: Point(x: 0, y: 2))
                context.addLine(to: Point(x: 10, y: 2))
                context.strokePath()
            }
            #expect(pixels(of: image, where: isOpaque).count == 20, "lengths \(lengths)")
        }
    }

    @Test func clipRestrictsDrawingAndRestoreGStateLiftsIt() throws {
        let image = try render { context in
            context.saveGState()
            context.clip(to: Rect(x: 0, y: 0, width: 10, height: 10))
            context.setFillColor(.red)
            context.fill(Rect(x: 0, y: 0, width: 20, height: 20))
            context.restoreGState()
            context.setFillColor(.blue)
            context.fill(Rect(x: 10, y: 10, width: 10, height: 10))
        }
        #expect(pixels(of: image, where: { $0 == opaqueRed }).count == 100)
        #expect(image.pixel(x: 9, y: 9) == opaqueRed)
        #expect(image.pixel(x: 15, y: 5) == .clear)
        #expect(image.pixel(x: 15, y: 15) == opaqueBlue)
    }

    @Test func clipToCurrentPathUsesTheFillRuleAndConsumesThePath() throws {
        let image = try render { context in
            var ring = Path(rect: Rect(x: 0, y: 0, width: 20, height: 20))
            ring.addRect(Rect(x: 5, y: 5, width: 10, height: 10))
            context.addPath(ring)
            context.clip(using: .evenOdd)
            context.strokePath()
            context.fill(Rect(x: 0, y: 0, width: 20, height: 20))
        }
        #expect(image.pixel(x: 10, y: 10) == .clear)
        #expect(image.pixel(x: 2, y: 2) == opaqueBlack)
        #expect(pixels(of: image, where: isOpaque).count == 300)
    }

    @Test func clipToRectKeepsTheCurrentPath() throws {
        let image = try render { context in
            context.addPath(Path(rect: Rect(x: 0, y: 0, width: 20, height: 20)))
            context.clip(to: Rect(x: 0, y: 0, width: 5, height: 5))
            context.fillPath()
        }
        #expect(pixels(of: image, where: isOpaque).count == 25)
    }

    @Test func unbalancedRestoreGStateIsIgnored() throws {
        let image = try render(width: 4, height: 4) { context in
            context.restoreGState()
            context.fill(Rect(x: 0, y: 0, width: 4, height: 4))
        }
        #expect(pixels(of: image, where: isOpaque).count == 16)
    }

    @Test func restoreGStateRestoresColorsAlphaAndLineWidth() throws {
        let image = try render(width: 20, height: 10) { context in
            context.saveGState()
            context.setFillColor(.red)
            context.setAlpha(0.25)
            context.setLineWidth(8)
            context.restoreGState()
            context.fill(Rect(x: 0, y: 0, width: 10, height: 10))
            context.move(to: Point(x: 10, y: 5.5))
            context.addLine(to: Point(x: 20, y: 5.5))
            context.strokePath()
        }
        #expect(image.pixel(x: 5, y: 5) == opaqueBlack)
        #expect(Set(pixels(of: image, where: { !isTransparent($0) }).filter { $0.x >= 10 }.map(\.y)) == [5])
    }

    @Test func ctmScaleDoublesTheDrawnSize() throws {
        let context = try GraphicsContext(width: 20, height: 20)
        context.scaleBy(x: 2, y: 2)
        #expect(context.ctm == AffineTransform2D(scaleX: 2, y: 2))
        context.fill(Rect(x: 1, y: 1, width: 3, height: 3))
        let image = context.makeImage()
        #expect(pixels(of: image, where: isOpaque).count == 36)
        #expect(Set(pixels(of: image, where: { !isTransparent($0) }).map(\.x)) == Set(2..<8))
    }

    @Test func transformsApplyToUserCoordinatesBeforeTheCurrentCTM() throws {
        let context = try GraphicsContext(width: 20, height: 20)
        context.translateBy(x: 10, y: 0)
        context.scaleBy(x: 2, y: 2)
        #expect(Point(x: 1, y: 0).applying(context.ctm) == Point(x: 12, y: 0))
        context.rotate(by: .pi / 2)
        let rotated = Point(x: 1, y: 0).applying(context.ctm)
        #expect(abs(rotated.x - 10) < 1e-12 && abs(rotated.y - 2) < 1e-12)
        context.concatenate(AffineTransform2D(translationX: 0, y: 1))
        let moved = Point.zero.applying(context.ctm)
        #expect(abs(moved.x - 8) < 1e-12 && abs(moved.y) < 1e-12)
    }

    @Test func singularCTMSuppressesDrawingUntilRestore() throws {
        let context = try GraphicsContext(width: 10, height: 10)
        context.saveGState()
        context.scaleBy(x: 0, y: 1)
        #expect(context.ctm == AffineTransform2D(scaleX: 0, y: 1))
        context.translateBy(x: 3, y: 4)
        #expect(context.ctm == AffineTransform2D(a: 0, b: 0, c: 0, d: 1, tx: 0, ty: 4))
        context.fill(Rect(x: 0, y: 0, width: 10, height: 10))
        #expect(pixels(of: context.makeImage(), where: isTransparent).count == 100)
        context.restoreGState()
        #expect(context.ctm == .identity)
        context.fill(Rect(x: 0, y: 0, width: 10, height: 10))
        #expect(pixels(of: context.makeImage(), where: isOpaque).count == 100)
    }

    @Test func hostileValuesNeverBreakTheContext() throws {
        let image = try render(width: 4, height: 4) { context in
            context.saveGState()
            context.translateBy(x: .nan, y: 0)
            context.scaleBy(x: .infinity, y: 1)
            context.fill(Rect(x: 0, y: 0, width: 4, height: 4))
            context.restoreGState()
            context.setLineDash(phase: .infinity, lengths: [1, 1])
            context.setLineWidth(.nan)
            context.setAlpha(.nan)
            context.setFillColor(Color(red: .nan, green: 2, blue: -1))
            context.fill(Rect(x: 0, y: 0, width: 1, height: 1))
            context.setAlpha(1)
            let dot = Image(width: 1, height: 1, fill: opaqueRed)
            context.draw(dot, in: Rect(x: 0, y: 0, width: 1e-200, height: 1e-200))
            context.draw(dot, in: Rect(x: 0, y: 0, width: .infinity, height: 1))
            context.draw(dot, in: .null)
            context.setFillColor(.blue)
            context.fill(Rect(x: 0, y: 0, width: 4, height: 4))
        }
        #expect(pixels(of: image, where: { $0 == opaqueBlue }).count == 16)
    }

    @Test func clearMakesARectTransparentWithinTheClip() throws {
        let image = try render(width: 10, height: 10) { context in
            context.fill(Rect(x: 0, y: 0, width: 10, height: 10))
            context.clip(to: Rect(x: 0, y: 0, width: 10, height: 5))
            context.clear(Rect(x: 2, y: 2, width: 4, height: 4))
        }
        #expect(pixels(of: image, where: isTransparent).count == 4 * 3)
        #expect(image.pixel(x: 3, y: 3) == .clear)
        #expect(image.pixel(x: 3, y: 5) == opaqueBlack)
    }

    @Test func fillEllipseCoversTheInscribedDisc() throws {
        let image = try render { $0.fillEllipse(in: Rect(x: 0, y: 0, width: 20, height: 20)) }
        #expect(image.pixel(x: 10, y: 10) == opaqueBlack)
        #expect(image.pixel(x: 0, y: 0) == .clear)
        // A disc of radius 10 covers π·100 ≈ 314 pixels' worth of alpha, here within 1%.
        var coverage = 0.0
        for y in 0..<20 { for x in 0..<20 { coverage += Double(image.pixel(x: x, y: y).alpha) / 255 } }
        #expect(abs(coverage - Double.pi * 100) < Double.pi)
    }

    @Test func strokeRectOutlinesTheRect() throws {
        let image = try render(width: 10, height: 10) { context in
            context.setLineWidth(2)
            context.stroke(Rect(x: 1, y: 1, width: 8, height: 8))
        }
        // A 2-wide band centred on the edges: outer 10×10 minus inner 6×6.
        #expect(pixels(of: image, where: isOpaque).count == 100 - 36)
        #expect(image.pixel(x: 5, y: 5) == .clear)
    }

    @Test func drawImageScalesA2x2ImageInto4x4() throws {
        let source = try makeImage(width: 2, height: 2, [opaqueWhite, opaqueBlack, opaqueRed, .clear])
        let image = try render(width: 6, height: 6) { $0.draw(source, in: Rect(x: 0, y: 0, width: 4, height: 4)) }
        #expect(image.pixel(x: 0, y: 0) == opaqueWhite)
        #expect(image.pixel(x: 3, y: 0) == opaqueBlack)
        #expect(image.pixel(x: 0, y: 3) == opaqueRed)
        #expect(image.pixel(x: 3, y: 3) == .clear)
        // Bilinear: the second column samples ¾ of the first source column and ¼ of the second.
        expectPixel(image.pixel(x: 1, y: 0), PremultipliedPixel(red: 191, green: 191, blue: 191, alpha: 255), tolerance: 1)
        expectPixel(image.pixel(x: 1, y: 1), PremultipliedPixel(red: 191, green: 143, blue: 143, alpha: 239), tolerance: 1)
        #expect(pixels(of: image, where: { !isTransparent($0) }).allSatisfy { $0.x < 4 && $0.y < 4 })
    }

    @Test func drawImageRespectsTheCTMAndGlobalAlpha() throws {
        let source = Image(width: 1, height: 1, fill: opaqueRed)
        let image = try render(width: 10, height: 10) { context in
            context.translateBy(x: 4, y: 2)
            context.setAlpha(0.5)
            context.draw(source, in: Rect(x: 0, y: 0, width: 3, height: 5))
        }
        let touched = pixels(of: image, where: { !isTransparent($0) })
        #expect(touched.count == 15)
        #expect(Set(touched.map(\.x)) == Set(4..<7) && Set(touched.map(\.y)) == Set(2..<7))
        expectPixel(image.pixel(x: 5, y: 4), PremultipliedPixel(red: 128, green: 0, blue: 0, alpha: 128), tolerance: 1)
    }

    @Test func drawImageTreatsXRGBAsOpaque() throws {
        let words: [UInt32] = [0x0000_FF00]
        let source = try words.withUnsafeBytes {
            try Image(width: 1, height: 1, pixelFormat: .xrgb8888, bytesPerRow: 4, bytes: $0)
        }
        let image = try render(width: 2, height: 2) { $0.draw(source, in: Rect(x: 0, y: 0, width: 2, height: 2)) }
        #expect(pixels(of: image, where: { $0 == PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255) }).count == 4)
    }

    @Test func drawImageKeepsTheCurrentPath() throws {
        let image = try render(width: 10, height: 10) { context in
            context.addPath(Path(rect: Rect(x: 0, y: 0, width: 10, height: 10)))
            context.draw(Image(width: 1, height: 1, fill: opaqueRed), in: Rect(x: 0, y: 0, width: 1, height: 1))
            context.fillPath()
        }
        #expect(pixels(of: image, where: { $0 == opaqueBlack }).count == 100)
    }

    @Test func makeImageIsASnapshotAndTheContextStaysUsable() throws {
        let context = try GraphicsContext(width: 4, height: 4)
        context.fill(Rect(x: 0, y: 0, width: 2, height: 4))
        let first = context.makeImage()
        context.fill(Rect(x: 2, y: 0, width: 2, height: 4))
        let second = context.makeImage()
        #expect(pixels(of: first, where: isOpaque).count == 8)
        #expect(pixels(of: second, where: isOpaque).count == 16)
    }
}

/// An image from row-major pixels.
func makeImage(width: Int, height: Int, _ pixels: [PremultipliedPixel]) throws -> Image {
    let packed = pixels.map { UInt32($0.alpha) << 24 | UInt32($0.red) << 16 | UInt32($0.green) << 8 | UInt32($0.blue) }
    return try packed.withUnsafeBytes {
        try Image(width: width, height: height, pixelFormat: .argb8888, bytesPerRow: width * 4, bytes: $0)
    }
}
