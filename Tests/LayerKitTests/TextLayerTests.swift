import Testing
@testable import LayerKit

@MainActor
@Suite struct TextLayerTests {
    @Test func defaultsAreCoreAnimations() {
        let layer = TextLayer()
        #expect(layer.string == nil)
        // Helvetica 36 in Core Animation; DejaVu Sans stands in for Helvetica.
        #expect(layer.font.family == "DejaVu Sans")
        #expect(layer.fontSize == 36)
        #expect(layer.foregroundColor == .white)
        #expect(layer.isWrapped == false)
        #expect(layer.truncationMode == .none)
        #expect(layer.alignmentMode == .natural)
        #expect(TextLayer.defaultValue(forKey: "fontSize") as? Double == 36)
    }

    @Test func propertiesAreReachableByKeyAndTheStringTakesPlainText() {
        let layer = TextLayer()
        layer.setValue("plain", forKey: "string")
        #expect(layer.string == AttributedText("plain"))
        let attributed = AttributedText("bold", attributes: TextAttributes(fontWeight: .bold))
        layer.setValue(attributed, forKey: "string")
        #expect(layer.string == attributed)
        layer.setValue(true, forKey: "wrapped")
        layer.setValue(TextTruncation.middle, forKey: "truncationMode")
        layer.setValue(TextAlignment.center, forKey: "alignmentMode")
        layer.setValue(nil, forKey: "foregroundColor")
        #expect(layer.isWrapped && layer.truncationMode == .middle && layer.alignmentMode == .center)
        #expect(layer.foregroundColor == nil)
        #expect(layer.value(forKey: "string") as? AttributedText == attributed)
        layer.setValue("DejaVu Serif", forKey: "font")
        #expect(layer.font.family == "DejaVu Serif" && layer.font.weight == .regular)
        layer.setValue(Font(family: "DejaVu Sans", weight: .bold), forKey: "font")
        #expect(layer.font == Font(family: "DejaVu Sans", weight: .bold))
    }

    @Test func theLayerLaysOutInItsBoundsWithItsModes() throws {
        let layer = TextLayer()
        layer.string = "mmmm mmmm mmmm mmmm mmmm"
        layer.fontSize = 20
        let twoWords = try TextLayout("mmmm mmmm", font: Font(size: 20)).size.width
        layer.bounds = Rect(x: 0, y: 0, width: twoWords, height: 200)
        #expect(try #require(layer.properties.text?.layout(in: layer.bounds.size)).lines.count == 1)
        layer.isWrapped = true
        let wrapped = try #require(layer.properties.text?.layout(in: layer.bounds.size))
        #expect(wrapped.lines.map(\.text) == ["mmmm mmmm ", "mmmm mmmm ", "mmmm"])
        layer.isWrapped = false
        layer.truncationMode = .end
        let cut = try #require(layer.properties.text?.layout(in: layer.bounds.size))
        #expect(cut.lines.count == 1 && cut.lines[0].text.hasSuffix("…") && cut.lines[0].text.hasPrefix("mmmm m"))
    }

    @Test func preferredFrameSizeIsTheTextsSize() throws {
        let layer = TextLayer()
        layer.string = "Hello"
        layer.fontSize = 24
        #expect(try layer.preferredFrameSize() == TextLayout("Hello", font: Font(size: 24)).size)
    }

    @Test func rasterisingCoversTheBoundsAtTheScale() throws {
        var text = TextProperties()
        text.string = "Hi"
        let bounds = Rect(x: 0, y: 0, width: 50.25, height: 40)
        let one = try #require(text.rasterized(in: bounds, scale: 1))
        let two = try #require(text.rasterized(in: bounds, scale: 2))
        #expect((one.image.width, one.image.height) == (51, 40))
        #expect((two.image.width, two.image.height) == (101, 80))
        #expect(one.frame == Rect(x: 0, y: 0, width: 51, height: 40))
        #expect(two.frame == Rect(x: 0, y: 0, width: 50.5, height: 40))
        text.string = nil
        #expect(text.rasterized(in: bounds, scale: 1) == nil)
    }

    @Test func fontSizeAndForegroundColorAnimate() {
        let clock = ManualMediaClock(startingAt: 100)
        MediaTime.clock = clock
        let root = makeLayer(200, 200)
        let layer = TextLayer()
        layer.string = "A"
        root.addSublayer(layer)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let size = BasicAnimation(keyPath: "fontSize")
        (size.fromValue, size.toValue, size.duration) = (10.0, 30.0, 2)
        let color = BasicAnimation(keyPath: "foregroundColor")
        (color.fromValue, color.toValue, color.duration) = (Color.red, Color.blue, 2)
        layer.add(size, forKey: "size")
        layer.add(color, forKey: "color")
        Transaction.flush()
        let shown = context.renderTree!.presentationProperties(of: layer.id, atMediaTime: 101)!.text!
        #expect(shown.fontSize == 20)
        #expect(shown.foregroundColor == Color(red: 0.5, green: 0, blue: 0.5))
        #expect(layer.fontSize == 36)
    }

    @Test func fontSizeAndColourChangesAnimateImplicitlyButTheStringDoesNot() {
        let layer = TextLayer()
        #expect(layer.action(forKey: "fontSize") is BasicAnimation)
        #expect(layer.action(forKey: "foregroundColor") is BasicAnimation)
        #expect(layer.action(forKey: "string") == nil)
        #expect(Layer().action(forKey: "fontSize") == nil)
    }
}
