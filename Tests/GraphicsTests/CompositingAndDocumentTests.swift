import Foundation
import Testing

import Graphics

@Suite struct DocumentContextTests {
    @Test func aPDFContextWritesOnePagePerBeginNextPageAtThePageSize() throws {
        let context = try GraphicsContext(format: .pdf, pageSize: Size(width: 300, height: 200))
        #expect(context.width == 300 && context.height == 200 && !context.isDrawingToScreen)
        context.fill(Rect(x: 10, y: 10, width: 50, height: 50))
        context.beginNextPage()
        context.fill(Rect(x: 20, y: 20, width: 50, height: 50))
        let bytes = try context.finishDocument()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("%PDF-1."))
        #expect(text.contains("/Type /Pages") && text.contains("/Count 2"))
        #expect(text.contains("/MediaBox [ 0 0 300 200 ]"))
    }

    @Test func anSVGContextWritesPointsAndPaths() throws {
        let context = try GraphicsContext(format: .svg, pageSize: Size(width: 120.5, height: 80))
        context.setFillColor(.red)
        context.fillEllipse(in: Rect(x: 10, y: 10, width: 60, height: 40))
        let svg = String(decoding: try context.finishDocument(), as: UTF8.self)
        #expect(svg.contains("width=\"120.5pt\"") && svg.contains("height=\"80pt\""))
        #expect(svg.contains("<path") && svg.contains("rgb(100%,0%,0%)"))
    }

    @Test func badPageSizesAndFinishingABitmapAreClearErrors() throws {
        #expect(throws: GraphicsError.invalidPageSize(Size(width: 0, height: 10))) {
            try GraphicsContext(format: .pdf, pageSize: Size(width: 0, height: 10))
        }
        #expect(throws: GraphicsError.invalidPageSize(Size(width: .infinity, height: 10))) {
            try GraphicsContext(format: .svg, pageSize: Size(width: .infinity, height: 10))
        }
        #expect(throws: GraphicsError.notADocument) { try GraphicsContext(width: 4, height: 4).finishDocument() }
        #expect(try GraphicsContext(width: 4, height: 4).isDrawingToScreen)
    }
}

@Suite struct CompositingTests {
    @Test func aTransparencyLayerIsDrawnAsOneImageAtTheOuterAlpha() throws {
        let image = try render { context in
            context.setAlpha(0.5)
            context.beginTransparencyLayer()
            #expect(context.alpha == 1)
            context.setFillColor(.red)
            context.fill(Rect(x: 0, y: 0, width: 12, height: 20))
            context.setFillColor(.blue)
            context.fill(Rect(x: 8, y: 0, width: 12, height: 20))
            context.endTransparencyLayer()
            #expect(context.alpha == 0.5)
        }
        // Where they overlap, blue replaced red inside the group: half blue, no red showing through.
        expectPixel(image.pixel(x: 10, y: 10), PremultipliedPixel(red: 0, green: 0, blue: 128, alpha: 128), tolerance: 1)
        expectPixel(image.pixel(x: 2, y: 10), PremultipliedPixel(red: 128, green: 0, blue: 0, alpha: 128), tolerance: 1)
    }

    @Test func drawMaskedKeepsTheContentWhereTheMaskHasAlpha() throws {
        let image = try render { context in
            context.drawMasked(
                content: {
                    context.setFillColor(.red)
                    context.fill(Rect(x: 0, y: 0, width: 20, height: 20))
                },
                mask: {
                    context.setFillColor(Color(white: 0, alpha: 0.5))
                    context.fill(Rect(x: 10, y: 0, width: 10, height: 20))
                })
        }
        expectPixel(image.pixel(x: 5, y: 5), .clear)
        expectPixel(image.pixel(x: 15, y: 5), PremultipliedPixel(red: 128, green: 0, blue: 0, alpha: 128), tolerance: 1)
    }

    @Test func aLinearGradientInterpolatesPremultipliedAndExtendsItsEnds() throws {
        let image = try render(width: 40, height: 4) { context in
            context.drawLinearGradient(
                [GradientStop(location: 0, color: .red), GradientStop(location: 1, color: Color(red: 0, green: 0, blue: 1, alpha: 0))],
                start: Point(x: 10, y: 0), end: Point(x: 30, y: 0))
        }
        expectPixel(image.pixel(x: 2, y: 1), opaqueRed)
        expectPixel(image.pixel(x: 37, y: 1), .clear)
        // Halfway: half-transparent red, with none of the transparent end's blue.
        expectPixel(image.pixel(x: 20, y: 1), PremultipliedPixel(red: 121, green: 0, blue: 0, alpha: 121), tolerance: 3)
    }

    @Test func aConicGradientTurnsClockwiseFromItsStartAngle() throws {
        let image = try render(width: 40, height: 40) { context in
            context.drawConicGradient(
                [GradientStop(location: 0, color: .red), GradientStop(location: 0.5, color: .blue), GradientStop(location: 1, color: .red)],
                center: Point(x: 20, y: 20), startAngle: 0, radius: 30)
        }
        expectPixel(image.pixel(x: 35, y: 21), opaqueRed, tolerance: 12)    // just past the start, to the right
        expectPixel(image.pixel(x: 5, y: 20), opaqueBlue, tolerance: 12)    // half a turn on, to the left
        // A quarter turn clockwise on screen (downwards): halfway from red to blue.
        expectPixel(image.pixel(x: 20, y: 36), PremultipliedPixel(red: 128, green: 0, blue: 127, alpha: 255), tolerance: 12)
    }

    @Test func aShadowIsTheShapesAlphaBlurredAndOffset() throws {
        let image = try render(width: 60, height: 60) { context in
            context.drawShadow(color: .black, offset: Size(width: 10, height: 0), blur: 2, bounds: Rect(x: 10, y: 10, width: 20, height: 40)) { shadow in
                shadow.fill(Rect(x: 10, y: 10, width: 20, height: 40))
            }
        }
        expectPixel(image.pixel(x: 30, y: 30), opaqueBlack, tolerance: 1)  // inside the moved rectangle
        // On the moved edge (x = 40) the Gaussian gives half coverage, on both sides symmetric.
        #expect(abs(Int(image.pixel(x: 39, y: 30).alpha) + Int(image.pixel(x: 40, y: 30).alpha) - 255) <= 3)
        #expect(image.pixel(x: 47, y: 30).alpha == 0)                    // past 3σ: nothing
        expectPixel(image.pixel(x: 12, y: 30), .clear)                   // the shape itself is not drawn
    }

    @Test func aPartOfAnImageIsDrawnWithoutItsNeighbours() throws {
        let quadrants = try render(width: 4, height: 4) { context in
            context.setFillColor(.red)
            context.fill(Rect(x: 0, y: 0, width: 2, height: 4))
            context.setFillColor(.blue)
            context.fill(Rect(x: 2, y: 0, width: 2, height: 4))
        }
        let image = try render(width: 20, height: 20) { context in
            context.draw(quadrants, from: Rect(x: 0, y: 0, width: 2, height: 4), in: Rect(x: 0, y: 0, width: 20, height: 20))
        }
        // Scaled ten times with bilinear filtering, the right edge still samples only red.
        expectPixel(image.pixel(x: 19, y: 10), opaqueRed)
    }

    /// Placed 2²⁴ device pixels off the target or further (a window at a client's extreme
    /// position, captured at scale 2), or magnified as far, an image once left the target in
    /// cairo's out-of-memory state and taking the bitmap trapped. Far off it draws nothing; a
    /// part of a wide image stretched from far off over the target shows as if drawn near; a
    /// pixel stretched over 2²⁵ device pixels covers the target with its colour.
    @Test func imagesPlacedOrMagnifiedPast2To24DevicePixelsDrawWhatLandsOnTheTarget() throws {
        let far = Double(1 << 24)
        let halves = try render(width: 4096, height: 1) { context in
            context.setFillColor(.red)
            context.fill(Rect(x: 0, y: 0, width: 2048, height: 1))
            context.setFillColor(.blue)
            context.fill(Rect(x: 2048, y: 0, width: 2048, height: 1))
        }
        let image = try render(width: 20, height: 20) { context in
            context.scaleBy(x: 2, y: 2)
            context.draw(Image(width: 1, height: 1, fill: opaqueRed), in: Rect(x: far, y: 0, width: 10, height: 10))
            // 8192 device pixels a pixel: x = 0 is the middle of the first blue one.
            context.draw(halves, in: Rect(x: -far - 2048, y: 0, width: 2 * far, height: 5))
            context.draw(Image(width: 1, height: 1, fill: opaqueBlue), in: Rect(x: -far, y: 5, width: 2 * far, height: 5))
        }
        #expect(image.pixel(x: 10, y: 5) == opaqueBlue)
        #expect(image.pixel(x: 10, y: 15) == opaqueBlue)
        #expect(image.pixel(x: 10, y: 2) == opaqueBlue)
    }

    @Test func resamplingThroughAMapAveragesItsSamples() throws {
        let source = Image(width: 2, height: 1, fill: opaqueRed)
        let identity = source.resampled(width: 2, height: 1) { ($0, $1) }
        #expect(identity.pixel(x: 0, y: 0) == opaqueRed && identity.pixel(x: 1, y: 0) == opaqueRed)
        // A map that leaves the image for half the samples gives half coverage.
        let half = source.resampled(width: 1, height: 1, samples: 2) { x, y in x < 0.5 ? (1, 0.5) : nil }
        expectPixel(half.pixel(x: 0, y: 0), PremultipliedPixel(red: 128, green: 0, blue: 0, alpha: 128), tolerance: 1)
    }

    @Test func multiplyingColoursTintsRedGreenAndBlueButNotAlpha() throws {
        let tinted = Image(width: 1, height: 1, fill: PremultipliedPixel(red: 200, green: 100, blue: 50, alpha: 200))
            .multiplyingColors(by: (red: 0.5, green: 1, blue: 0))
        #expect(tinted.pixel(x: 0, y: 0) == PremultipliedPixel(red: 100, green: 100, blue: 0, alpha: 200))
    }
}
