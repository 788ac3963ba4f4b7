import Foundation
import Graphics
import LayerKit
import Testing
import Views
@testable import OnScreenKeyboard

/// Golden images of every layout, drawn on the CPU through `Layer.render(in:)` (the path the
/// Vulkan renderer's text and shapes are checked against in RendererTests), which needs no GPU
/// device in this test target.
@MainActor
@Suite struct KeyboardGoldenTests {
    /// The keyboard shown for `purpose`, 800 points wide and 300 high, drawn at `scale`.
    func render(_ layout: KeyboardLayout, then others: [KeyboardLayout] = [], purpose: ContentPurpose = .normal, scale: Double = 1,
                before draw: (KeyboardHarness) -> Void = { _ in }) throws -> Image {
        let h = KeyboardHarness(configuration: OnScreenKeyboardConfiguration(layouts: [layout] + others), purpose: purpose)
        h.keyboard.place(in: Rect(x: 0, y: 0, width: 800, height: 750), scale: scale)
        draw(h)
        let size = h.keyboard.bounds.size
        let context = try GraphicsContext(width: Int(size.width * scale), height: Int(size.height * scale))
        context.scaleBy(x: scale, y: scale)
        h.keyboard.layer.render(in: context)
        return context.makeImage()
    }

    @Test func usLetters() throws {
        try golden.check(render(.us), named: "us-letters")
    }

    @Test func usLettersAtScaleTwo() throws {
        try golden.check(render(.us, scale: 2), named: "us-letters@2x")
    }

    @Test func usLettersWithCapsLockAndAHeldKeysPreview() throws {
        let image = try render(.us) { h in
            h.tap("⇧", at: 0)
            h.tap("⇧", at: 0.1)
            h.dispatcher.touchDown(id: 1, at: h.centre(of: "g"), time: 1)
        }
        try golden.check(image, named: "us-letters-caps-preview")
    }

    @Test func usSymbols() throws {
        try golden.check(render(.us, purpose: .date), named: "us-symbols")
    }

    @Test func usEmailLetters() throws {
        try golden.check(render(.us, purpose: .email), named: "us-letters-email")
    }

    @Test func germanLetters() throws {
        try golden.check(render(.de), named: "de-letters")
    }

    @Test func frenchAzertyLettersAndSymbols() throws {
        try golden.check(render(.fr), named: "fr-letters")
        try golden.check(render(.fr, purpose: .time), named: "fr-symbols")
    }

    @Test func russianLetters() throws {
        try golden.check(render(.ru), named: "ru-letters")
    }

    @Test func russianLettersWithASwitchKeyToEnglish() throws {
        try golden.check(render(.ru, then: [.us]), named: "ru-letters-switch-us")
    }

    @Test func numericPads() throws {
        try golden.check(render(.us, purpose: .pin), named: "pad-digits")
        try golden.check(render(.de, purpose: .number), named: "pad-number-de")
        try golden.check(render(.us, purpose: .phone), named: "pad-phone")
    }
}
