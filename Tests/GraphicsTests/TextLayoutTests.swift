import Testing
import Graphics

/// Pango's layout through `TextLayout`: widths come from measuring the words themselves, so the
/// tests hold for any version of the fonts while still checking exact line breaks and cuts.
@Suite struct TextLayoutTests {
    let font = Font(size: 20)

    func width(of text: AttributedText) throws -> Double {
        try TextLayout(text, font: font).size.width
    }

    @Test func wrapsWordsAtTheWidthIntoExactLines() throws {
        let twoWords = try width(of: "mmmm mmmm")
        let layout = try TextLayout("mmmm mmmm mmmm mmmm mmmm", font: font, width: twoWords, wraps: true)
        #expect(layout.lines.map(\.text) == ["mmmm mmmm ", "mmmm mmmm ", "mmmm"])
        // The space a line breaks at takes no width; lines stack at the line height.
        #expect(try layout.lines.map(\.frame.width) == [twoWords, twoWords, width(of: "mmmm")])
        let lineHeight = layout.lines[0].frame.height
        #expect(layout.lines.map(\.frame.minY) == [0, lineHeight, 2 * lineHeight])
        #expect(layout.size == Size(width: twoWords, height: 3 * lineHeight))
        #expect(!layout.isTruncated)
    }

    @Test func unwrappedTextKeepsOneLinePerParagraphPastTheWidth() throws {
        let layout = try TextLayout("mmmm mmmm mmmm\nm", font: font, width: 10)
        #expect(layout.lines.map(\.text) == ["mmmm mmmm mmmm", "m"])
        #expect(try layout.lines[0].frame.width == width(of: "mmmm mmmm mmmm"))
    }

    @Test func truncationPutsTheEllipsisAtTheEndStartOrMiddle() throws {
        let end = try TextLayout("abcdefghij", font: font, width: width(of: "abcd…"), truncation: .end)
        #expect(end.lines.map(\.text) == ["abcd…"])
        #expect(end.isTruncated)
        let start = try TextLayout("abcdefghij", font: font, width: width(of: "…ghij"), truncation: .start)
        #expect(start.lines.map(\.text) == ["…ghij"])
        let middle = try TextLayout("abcdefghij", font: font, width: width(of: "ab…ij") + 1, truncation: .middle)
        // Pango grows the cut outwards from the line's middle by width, so the sides need not be
        // even; both ends stay, and what remains fits.
        let kept = try #require(middle.lines.first?.text)
        #expect(kept.count == 5 && kept.first == "a" && kept.last == "j" && kept.dropFirst().dropLast().contains("…"))
        #expect(try middle.lines[0].frame.width <= width(of: "ab…ij") + 1)
    }

    @Test func textThatFitsIsNotTruncated() throws {
        let layout = try TextLayout("abc", font: font, width: 200, truncation: .end)
        #expect(layout.lines.map(\.text) == ["abc"])
        #expect(!layout.isTruncated)
    }

    @Test func wrappedTextIsCutOnTheLastLineThatFitsTheHeight() throws {
        let twoWords = try width(of: "mmmm mmmm")
        let lineHeight = try TextLayout("m", font: font).size.height
        let layout = try TextLayout(
            "mmmm mmmm mmmm mmmm mmmm", font: font, width: twoWords, height: 2.5 * lineHeight, wraps: true,
            truncation: .end)
        #expect(layout.lines.count == 2)
        #expect(layout.lines[0].text == "mmmm mmmm ")
        #expect(layout.lines[1].text.hasSuffix("…"))
        #expect(layout.isTruncated)
    }

    @Test func alignmentPlacesEachLineInTheWidth() throws {
        let w = try width(of: "abc")
        func x(_ alignment: TextAlignment, _ text: AttributedText = "abc") throws -> Double {
            try TextLayout(text, font: font, width: 200, alignment: alignment).lines[0].frame.minX
        }
        #expect(try x(.left) == 0)
        #expect(try x(.right) == 200 - w)
        #expect(try x(.center) == (200 - w) / 2)
        #expect(try x(.natural) == 0)
        // A Hebrew paragraph starts at the right; left and right stay where they say.
        let hebrew: AttributedText = "שלום abc"
        let hebrewWidth = try width(of: hebrew)
        #expect(try x(.natural, hebrew) == 200 - hebrewWidth)
        #expect(try x(.left, hebrew) == 0)
        #expect(try x(.right, hebrew) == 200 - hebrewWidth)
    }

    @Test func justifiedWrappedLinesFillTheWidthButTheLastLine() throws {
        let width = try width(of: "mmmm mmmm") + 30
        let layout = try TextLayout("mmmm mmmm mmmm", font: font, width: width, wraps: true, alignment: .justified)
        #expect(layout.lines.count == 2)
        #expect(abs(layout.lines[0].frame.width - width) < 1.0 / 1024)
        #expect(try layout.lines[1].frame.width == self.width(of: "mmmm"))
    }

    @Test func rightToLeftParagraphsKeepTheirTextInLogicalOrder() throws {
        let layout = try TextLayout("abc\nשלום abc\nمرحبا بالعالم", font: font)
        #expect(layout.lines.map(\.text) == ["abc", "שלום abc", "مرحبا بالعالم"])
        #expect(layout.lines.map(\.isRightToLeft) == [false, true, true])
    }

    @Test func runsSetTheirOwnFontSize() throws {
        var text = AttributedText("small ")
        text.append("big", attributes: TextAttributes(fontSize: 40))
        let mixed = try TextLayout(text, font: font)
        let small = try TextLayout("small big", font: font)
        #expect(mixed.lines.count == 1)
        #expect(mixed.size.height > small.size.height)
        #expect(try mixed.size.width == width(of: "small ") + TextLayout("big", font: Font(size: 40)).size.width)
    }

    @Test func runsDrawInTheirOwnColourAndTheRestInTheDefault() throws {
        var text = AttributedText("██", attributes: TextAttributes(color: .red))
        text.append("██")
        let layout = try TextLayout(text, font: font, color: .blue)
        let context = try GraphicsContext(width: Int(layout.size.width.rounded(.up)), height: Int(layout.size.height.rounded(.up)))
        layout.draw(in: context, at: .zero)
        let image = context.makeImage()
        let y = Int(layout.lines[0].baseline) - 4
        let quarter = Int(layout.size.width / 4)
        #expect(image.pixel(x: quarter, y: y) == image.pixel(x: quarter - 1, y: y))
        let left = image.pixel(x: quarter, y: y), right = image.pixel(x: 3 * quarter, y: y)
        #expect([left.red, left.green, left.blue, left.alpha] == [255, 0, 0, 255])
        #expect([right.red, right.green, right.blue, right.alpha] == [0, 0, 255, 255])
    }

    @Test func emojiFallBackToTheColourEmojiFont() throws {
        let layout = try TextLayout("🦊", font: Font(size: 40), color: .black)
        let context = try GraphicsContext(width: Int(layout.size.width.rounded(.up)), height: Int(layout.size.height.rounded(.up)))
        layout.draw(in: context, at: .zero)
        let image = context.makeImage()
        // Drawn in black, a glyph of DejaVu's would have no colour; Noto Color Emoji's fox is orange.
        var orange = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                if p.alpha == 255 && Int(p.red) - Int(p.blue) > 100 { orange += 1 }
            }
        }
        #expect(orange > 100)
    }

    @Test func layoutMeasuresTheSameAtEveryScaleAndDrawsSharperAtTwice() throws {
        let layout = try TextLayout("Sharp", font: font)
        func draw(scale: Double) throws -> Image {
            let context = try GraphicsContext(
                width: Int((layout.size.width * scale).rounded(.up)), height: Int((layout.size.height * scale).rounded(.up)))
            context.scaleBy(x: scale, y: scale)
            layout.draw(in: context, at: .zero)
            return context.makeImage()
        }
        let one = try draw(scale: 1), two = try draw(scale: 2)
        #expect(two.width == Int((layout.size.width * 2).rounded(.up)))
        #expect(two.height == Int((layout.size.height * 2).rounded(.up)))
        // Edges: at 2× a larger share of the covered pixels is fully covered.
        func solidShare(_ image: Image) -> Double {
            var covered = 0, solid = 0
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let a = image.pixel(x: x, y: y).alpha
                    if a > 0 { covered += 1 }
                    if a == 255 { solid += 1 }
                }
            }
            return Double(solid) / Double(covered)
        }
        #expect(solidShare(two) > solidShare(one))
    }

    @Test func unusableSizesAndWidthsLayOutWithoutTrapping() throws {
        for size in [0, -3, Double.nan] {
            let layout = try TextLayout("abc", font: Font(size: size), width: .nan, height: -1, wraps: true, truncation: .end)
            #expect(layout.size == Size(width: 0, height: 0))
            #expect(layout.lines.map(\.text) == ["abc"])
        }
        // Sizes past the largest FreeType can scale are drawn at the largest.
        let huge = try TextLayout("█", font: Font(size: .infinity))
        #expect(try huge.size == TextLayout("█", font: Font(size: Font.maximumSize)).size)
        // Inside the block, 1,000 points above the baseline.
        let context = try GraphicsContext(width: 10, height: 10)
        huge.draw(in: context, at: Point(x: 5 - huge.lines[0].frame.midX, y: 5 - huge.lines[0].baseline + 1000))
        #expect(context.makeImage().pixel(x: 5, y: 5).alpha == 255)
    }
}

extension TextLayoutTests {
    @Test func theContextsAlphaFadesRunsWithTheirOwnColourTooAndThePathSurvives() throws {
        let text = AttributedText("██", attributes: TextAttributes(color: .red))
        let layout = try TextLayout(text, font: font, color: .blue)
        let context = try GraphicsContext(width: Int(layout.size.width.rounded(.up)), height: Int(layout.size.height.rounded(.up)))
        context.setAlpha(0.5)
        context.move(to: .zero)
        context.addLine(to: Point(x: 10, y: 0))
        layout.draw(in: context, at: .zero)
        let p = context.makeImage().pixel(x: Int(layout.size.width / 2), y: Int(layout.lines[0].baseline) - 4)
        #expect([p.red, p.green, p.blue, p.alpha] == [128, 0, 0, 128])
        // The path begun before the text is still there to stroke.
        context.setAlpha(1)
        context.setLineWidth(2)
        context.strokePath()
        #expect(context.makeImage().pixel(x: 5, y: 0).alpha == 255)
    }
}
