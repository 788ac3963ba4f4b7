import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// TextLayer laid out by Pango, rasterised through Graphics and composited by the renderer on lavapipe.
@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct RenderTextLayerTests {
    func textLayer(_ root: Layer, frame: Rect, _ string: AttributedText, fontSize: Double = 24) -> TextLayer {
        let layer = TextLayer()
        layer.frame = frame
        layer.string = string
        layer.fontSize = fontSize
        layer.foregroundColor = .black
        root.addSublayer(layer)
        return layer
    }

    /// Counts the pixels in columns x0..<x1 and rows y0..<y1 that text darkened (or coloured).
    func inked(_ image: Image, x0: Int, x1: Int, y0: Int, y1: Int, where test: ([Int]) -> Bool = { $0[0] < 128 }) -> Int {
        var count = 0
        for y in y0..<y1 {
            for x in x0..<x1 where test(pixel(image, x, y)) { count += 1 }
        }
        return count
    }

    @Test(arguments: SceneRenderer.allCases) func mixedScriptsAreShapedOrderedAndFallBackToFontsThatHaveThem(_ renderer: SceneRenderer) throws {
        let root = makeRoot(320, 190)
        var text = AttributedText("Vitrine ", attributes: TextAttributes(color: Color(red: 0, green: 0.3, blue: 0.8)))
        text.append("Latin", attributes: TextAttributes(fontWeight: .bold))
        text.append("\nمرحبا بالعالم\nשלום עולם\n汉字 かな 한국어\n🦊🎉 emoji")
        let layer = textLayer(root, frame: Rect(x: 10, y: 10, width: 300, height: 170), text)
        let lines = try #require(layer.properties.text?.layout(in: layer.bounds.size)).lines
        #expect(lines.map(\.isRightToLeft) == [false, true, true, false, false])
        let image = try render(root, with: renderer)
        // Lines as the layout placed them (the layer's top left is at 10, 10).
        func rows(_ line: Int) -> (Int, Int) { (10 + Int(lines[line].frame.minY), 10 + Int(lines[line].frame.maxY)) }
        // The Arabic and Hebrew paragraphs start at the right: ink in the right half, none at the left.
        for line in [1, 2] {
            let (y0, y1) = rows(line)
            #expect(inked(image, x0: 10, x1: 150, y0: y0, y1: y1) == 0, "line \(line)")
            #expect(inked(image, x0: 170, x1: 310, y0: y0, y1: y1) > 50, "line \(line)")
        }
        // The CJK line starts at the left.
        let (cjk0, cjk1) = rows(3)
        #expect(inked(image, x0: 10, x1: 60, y0: cjk0, y1: cjk1) > 50)
        // The emoji come from the colour font: orange (the fox) where black text has no colour.
        let (emoji0, emoji1) = rows(4)
        #expect(inked(image, x0: 10, x1: 70, y0: emoji0, y1: emoji1, where: { $0[0] - $0[2] > 100 }) > 50)
        // The first run is blue.
        let (latin0, latin1) = rows(0)
        #expect(inked(image, x0: 10, x1: 90, y0: latin0, y1: latin1, where: { $0[2] - $0[0] > 100 }) > 30)
        try renderer.check(image, named: "text-layer-mixed-scripts", cpu: (2, 0.002))
    }

    @Test(arguments: SceneRenderer.allCases) func textIsRasterisedAtTheContentsScaleAndIsSharperForIt(_ renderer: SceneRenderer) throws {
        let root = makeRoot(120, 40)
        let layer = textLayer(root, frame: Rect(x: 0, y: 0, width: 120, height: 40), "Sharp")
        let tree = try commit(root)
        let atOne = try #require(SceneEncoder(tree: tree, scale: 2, targetSize: (240, 80)).draws.compactMap(\.contents).first)
        #expect((atOne.width, atOne.height) == (120, 40))
        let blurred = try render(root, scale: 2, with: renderer)
        layer.contentsScale = 2
        let tree2 = try commit(root)
        let atTwo = try #require(SceneEncoder(tree: tree2, scale: 2, targetSize: (240, 80)).draws.compactMap(\.contents).first)
        #expect((atTwo.width, atTwo.height) == (240, 80))
        let sharp = try render(root, scale: 2, with: renderer)
        #expect((sharp.width, sharp.height) == (240, 80))
        // Sharper: of the pixels the text touches, more are fully inked and fewer are half-tones.
        func halfTones(_ image: Image) -> Int { inked(image, x0: 0, x1: 240, y0: 0, y1: 80, where: { $0[0] > 40 && $0[0] < 215 }) }
        func solid(_ image: Image) -> Int { inked(image, x0: 0, x1: 240, y0: 0, y1: 80, where: { $0[0] <= 40 }) }
        #expect(halfTones(sharp) < halfTones(blurred))
        #expect(solid(sharp) > solid(blurred))
    }

    @Test func unchangedTextIsNotDrawnAgain() throws {
        let renderer = try validatingRenderer.get()
        let root = makeRoot(100, 50)
        let layer = textLayer(root, frame: Rect(x: 0, y: 0, width: 100, height: 50), "Cached")
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let before = renderer.texts.rasterizationCount
        _ = try renderer.render(try #require(context.renderTree), width: 100, height: 50)
        renderer.invalidatePreviousFrame()
        _ = try renderer.render(try #require(context.renderTree), width: 100, height: 50)
        #expect(renderer.texts.rasterizationCount == before + 1)
        // Moving the layer leaves its text alone; a new string, or new bounds, draw it again.
        Transaction.begin()
        Transaction.disableActions = true
        layer.position = Point(x: 60, y: 30)
        Transaction.commit()
        _ = try renderer.render(try #require(context.renderTree), width: 100, height: 50)
        #expect(renderer.texts.rasterizationCount == before + 1)
        Transaction.begin()
        Transaction.disableActions = true
        layer.string = "Changed"
        Transaction.commit()
        _ = try renderer.render(try #require(context.renderTree), width: 100, height: 50)
        #expect(renderer.texts.rasterizationCount == before + 2)
        Transaction.begin()
        Transaction.disableActions = true
        layer.bounds.size.width = 90
        Transaction.commit()
        _ = try renderer.render(try #require(context.renderTree), width: 100, height: 50)
        #expect(renderer.texts.rasterizationCount == before + 3)
        #expect(renderer.takeValidationMessages() == [])
    }

    @Test(arguments: SceneRenderer.allCases) func foregroundColorAnimatedHalfwayDrawsTheMix(_ renderer: SceneRenderer) throws {
        MediaTime.clock = ManualMediaClock(startingAt: 100)
        let root = makeRoot(60, 60)
        let layer = textLayer(root, frame: Rect(x: 0, y: 0, width: 60, height: 60), "█", fontSize: 40)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let color = BasicAnimation(keyPath: "foregroundColor")
        (color.fromValue, color.toValue, color.duration) = (Color.red, Color.blue, 2)
        layer.add(color, forKey: "color")
        Transaction.flush()
        let renderer = try validatingRenderer.get()
        let image = try renderer.render(try #require(context.renderTree).sampled(atMediaTime: 101), width: 60, height: 60)
        #expect(renderer.takeValidationMessages() == [])
        let block = try #require(layer.properties.text?.layout(in: layer.bounds.size)?.lines.first)
        let middle = pixel(image, Int(block.frame.midX), Int(block.baseline) - 10)
        #expect(isNear(middle, [128, 0, 128, 255], 2))
    }

    @Test(arguments: SceneRenderer.allCases) func textUnderAFlippedSuperlayerStaysUprightAtTheVisualTop(_ renderer: SceneRenderer) throws {
        let plain = makeRoot(100, 50)
        _ = textLayer(plain, frame: Rect(x: 0, y: 0, width: 100, height: 50), "Up")
        let expected = try render(plain, with: renderer)
        let flippedRoot = makeRoot(100, 50)
        let container = sublayer(flippedRoot, frame: Rect(x: 0, y: 0, width: 100, height: 50))
        container.isGeometryFlipped = true
        _ = textLayer(container, frame: Rect(x: 0, y: 0, width: 100, height: 50), "Up")
        let image = try render(flippedRoot, with: renderer)
        #expect(inked(expected, x0: 0, x1: 100, y0: 0, y1: 50) > 50)
        #expect(image.countOfPixelsDiffering(from: expected, byMoreThan: 1) == 0)
    }

    @Test(arguments: SceneRenderer.allCases) func wrappingTruncationAndAlignmentInTheBounds(_ renderer: SceneRenderer) throws {
        let root = makeRoot(240, 200)
        let sentence: AttributedText = "The quick brown fox jumps over the lazy dog"
        let wrapped = textLayer(root, frame: Rect(x: 10, y: 10, width: 110, height: 120), sentence, fontSize: 16)
        wrapped.isWrapped = true
        wrapped.alignmentMode = .justified
        let cut = textLayer(root, frame: Rect(x: 130, y: 10, width: 100, height: 30), sentence, fontSize: 16)
        cut.truncationMode = .middle
        let centred = textLayer(root, frame: Rect(x: 130, y: 50, width: 100, height: 30), "centre", fontSize: 16)
        centred.alignmentMode = .center
        let right = textLayer(root, frame: Rect(x: 130, y: 90, width: 100, height: 30), "right", fontSize: 16)
        right.alignmentMode = .right
        let clipped = textLayer(root, frame: Rect(x: 10, y: 150, width: 120, height: 40), "Unwrapped text runs past the bounds", fontSize: 16)
        clipped.backgroundColor = Color(white: 0.9)
        let image = try render(root, with: renderer)
        let lines = try #require(wrapped.properties.text?.layout(in: wrapped.bounds.size)).lines
        #expect(lines.count > 2)
        // Justified lines reach both sides of the bounds but the last.
        for line in lines.dropLast() { #expect(abs(line.frame.width - 110) < 1.0 / 1024) }
        let cutText = try #require(cut.properties.text?.layout(in: cut.bounds.size)).lines.map(\.text)
        #expect(cutText.count == 1 && cutText[0].hasPrefix("The") && cutText[0].hasSuffix("dog") && cutText[0].contains("…"))
        // The centred word's ink is centred on the layer's middle (x = 180) to within a pixel.
        var minX = Int.max, maxX = Int.min
        for y in 50..<80 {
            for x in 130..<230 where pixel(image, x, y)[0] < 128 {
                minX = min(minX, x)
                maxX = max(maxX, x)
            }
        }
        #expect(abs(Double(minX + maxX + 1) / 2 - 180) <= 1.5)
        // Nothing is drawn past the clipped layer's bounds (it ends at x = 130).
        #expect(inked(image, x0: 131, x1: 240, y0: 150, y1: 190) == 0)
        #expect(inked(image, x0: 10, x1: 130, y0: 150, y1: 190) > 100)
        try renderer.check(image, named: "text-layer-wrap-truncate-align", cpu: (2, 0.002))
    }
}
