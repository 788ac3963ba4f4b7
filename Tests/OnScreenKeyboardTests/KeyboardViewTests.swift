import Graphics
import LayerKit
import Testing
import Views
@testable import OnScreenKeyboard

/// A keyboard on an 800 × 600 root at scale 1 (240 points high, at y 360 when shown), with a
/// dispatcher delivering real events to it and a record of what it typed.
@MainActor
final class KeyboardHarness {
    let root = RootView(frame: Rect(x: 0, y: 0, width: 800, height: 600))
    let dispatcher: EventDispatcher
    let keyboard: OnScreenKeyboardView
    var outputs: [KeyboardOutput] = []

    init(configuration: OnScreenKeyboardConfiguration = OnScreenKeyboardConfiguration(), purpose: ContentPurpose = .normal) {
        dispatcher = EventDispatcher(root: root)
        keyboard = OnScreenKeyboardView(configuration: configuration)
        root.addSubview(keyboard)
        keyboard.place(in: root.bounds, scale: 1)
        keyboard.onOutput = { [unowned self] in outputs.append($0) }
        keyboard.show(for: purpose, animated: false)
    }

    /// The centre of the key labelled `label` (unshifted) on the page on show, in root space.
    func centre(of label: String) -> Point {
        let frame = keyboard.geometry.placed(label)!.frame
        return keyboard.convert(Point(x: frame.midX, y: frame.midY), to: root)
    }

    func index(of label: String) -> Int {
        keyboard.geometry.keys.firstIndex { $0.key.label(shifted: false) == label }!
    }

    func tap(_ label: String, id: Int32 = 0, at time: Double) {
        dispatcher.touchDown(id: id, at: centre(of: label), time: time)
        dispatcher.touchUp(id: id, time: time + 0.05)
    }

    /// The typed outputs applied to an empty field.
    var text: String {
        outputs.reduce(into: "") { text, output in
            switch output {
            case .insert(let s): text += s
            case .deleteBackward: if !text.isEmpty { text.removeLast() }
            case .return: text += "\n"
            }
        }
    }
}

@MainActor
@Suite struct OnScreenKeyboardViewTests {
    @Test func theKeyboardTakesItsShareOfTheOutputAtTheBottom() {
        let h = KeyboardHarness()
        #expect(h.keyboard.frame == Rect(x: 0, y: 360, width: 800, height: 240))
        #expect(h.keyboard.geometry.placed("q")?.frame == Rect(x: 7, y: 8, width: 73, height: 50))
        let portrait = OnScreenKeyboardConfiguration().height(forOutput: Size(width: 600, height: 1000), scale: 1.5)
        #expect(portrait == 300)
        #expect(OnScreenKeyboardConfiguration().height(forOutput: Size(width: 1366, height: 767), scale: 1.5) == 460 / 1.5)
    }

    @Test func tapsDeliveredThroughTheDispatcherTypeTheKeysUnderThem() {
        let h = KeyboardHarness()
        #expect(h.root.hitTest(h.centre(of: "h")) === h.keyboard)
        for (i, key) in ["h", "i", "English", "⇧", "y", "o", "⏎"].enumerated() {
            h.tap(key, at: Double(i))
        }
        #expect(h.outputs == [.insert("h"), .insert("i"), .insert(" "), .insert("Y"), .insert("o"), .return])
    }

    @Test func doubleTappingShiftLocksCapsAndShowsUpperCaseLabels() throws {
        let h = KeyboardHarness()
        h.tap("⇧", at: 1)
        h.tap("⇧", at: 1.2)
        #expect(h.keyboard.state.shift == .locked)
        let q = h.index(of: "q")
        let label = try #require(h.keyboard.keyCaps[q].sublayers.first as? TextLayer)
        #expect(label.string?.string == "Q")
        #expect(h.keyboard.keyCaps[h.index(of: "⇧")].backgroundColor == KeyboardTheme().active)
        h.tap("q", at: 2)
        h.tap("w", at: 3)
        h.tap("⇧", at: 4)
        h.tap("e", at: 5)
        #expect(h.text == "QWe")
    }

    @Test func thePageKeysSwitchToSymbolsAndBack() {
        let h = KeyboardHarness()
        h.tap("?123", at: 0)
        #expect(h.keyboard.state.pageKind == .symbols)
        #expect(h.keyboard.keyCaps.count == 10 + 10 + 9 + 5)
        h.tap("4", at: 1)
        h.tap("$", at: 2)
        h.tap("ABC", at: 3)
        h.tap("k", at: 4)
        #expect(h.text == "4$k")
    }

    @Test func tappingTheLayoutKeySwitchesTheKeysAndWhatTheyType() throws {
        let h = KeyboardHarness(configuration: OnScreenKeyboardConfiguration(layouts: [.ru, .us]))
        #expect(h.root.hitTest(h.centre(of: "EN")) === h.keyboard)
        h.tap("⇧", at: 0)
        h.tap("р", at: 1)
        h.tap("⇧", at: 2)
        h.tap("EN", at: 3)
        // Shift went off with the switch; the page is English letters with a key back to Russian.
        #expect(h.keyboard.state.layoutIndex == 1 && h.keyboard.state.shift == .off)
        #expect(h.keyboard.geometry.labels(ofRow: 3) == ["?123", "RU", ",", "English", ".", "⏎"])
        let q = try #require(h.keyboard.keyCaps[h.index(of: "q")].sublayers.first as? TextLayer)
        #expect(q.string?.string == "q")
        h.tap("h", at: 4)
        h.tap("RU", at: 5)
        h.tap("д", at: 6)
        #expect(h.text == "Рhд")
        #expect(h.keyboard.keyCaps.count == 11 + 11 + 11 + 6)
    }

    @Test func aFingerSlidingToAnotherKeyTypesTheKeyItLiftsFrom() {
        let h = KeyboardHarness()
        h.dispatcher.touchDown(id: 4, at: h.centre(of: "q"), time: 0)
        #expect(h.keyboard.previewText == "q")
        #expect(h.keyboard.keyCaps[h.index(of: "q")].backgroundColor == KeyboardTheme().pressed)
        h.dispatcher.touchMotion(id: 4, to: h.centre(of: "w"), time: 0.1)
        #expect(h.keyboard.previewText == "w")
        #expect(h.keyboard.keyCaps[h.index(of: "q")].backgroundColor == KeyboardTheme().key)
        #expect(h.outputs.isEmpty)
        h.dispatcher.touchUp(id: 4, time: 0.2)
        #expect(h.outputs == [.insert("w")])
        #expect(h.keyboard.previewText == nil)
    }

    @Test func aPasswordFieldShowsNoPreviewButStillShowsThePressedKey() {
        let h = KeyboardHarness(purpose: .password)
        h.dispatcher.touchDown(id: 0, at: h.centre(of: "a"), time: 0)
        #expect(h.keyboard.previewText == nil)
        #expect(h.keyboard.preview.isHidden)
        #expect(h.keyboard.keyCaps[h.index(of: "a")].backgroundColor == KeyboardTheme().pressed)
        h.dispatcher.touchUp(id: 0, time: 0.1)
        #expect(h.outputs == [.insert("a")])
    }

    @Test func aHiddenTextHintTurnsThePreviewOffForAnyPurpose() {
        let h = KeyboardHarness()
        h.keyboard.show(for: .normal, hidesText: true)
        h.dispatcher.touchDown(id: 0, at: h.centre(of: "a"), time: 0)
        #expect(h.keyboard.previewText == nil)
        h.dispatcher.touchUp(id: 0, time: 0.1)
        h.keyboard.show(for: .normal)
        h.dispatcher.touchDown(id: 0, at: h.centre(of: "a"), time: 1)
        #expect(h.keyboard.previewText == "a")
    }

    @Test func overlappingTouchesTypeInReleaseOrderAndThePreviewFollowsTheNewest() {
        let h = KeyboardHarness()
        h.dispatcher.touchDown(id: 0, at: h.centre(of: "s"), time: 0)
        h.dispatcher.touchDown(id: 1, at: h.centre(of: "a"), time: 0.05)
        #expect(h.keyboard.previewText == "a")
        h.dispatcher.touchUp(id: 0, time: 0.1)
        #expect(h.keyboard.previewText == "a")
        h.dispatcher.touchDown(id: 0, at: h.centre(of: "d"), time: 0.12)
        #expect(h.keyboard.previewText == "d")
        h.dispatcher.touchUp(id: 1, time: 0.15)
        h.dispatcher.touchUp(id: 0, time: 0.2)
        #expect(h.text == "sad")
        #expect(h.keyboard.previewText == nil)
    }

    @Test func keysHeldWhenThePageChangesAreLetGoWithoutTyping() {
        let h = KeyboardHarness()
        h.dispatcher.touchDown(id: 0, at: h.centre(of: "⌫"), time: 0)
        h.dispatcher.touchDown(id: 1, at: h.centre(of: "p"), time: 0.1)
        h.tap("?123", id: 2, at: 0.2)
        h.keyboard.tick(now: 2)
        h.dispatcher.touchUp(id: 0, time: 2.1)
        h.dispatcher.touchUp(id: 1, time: 2.2)
        #expect(h.outputs == [.deleteBackward])
        #expect(h.keyboard.previewText == nil)
        #expect(h.keyboard.keyCaps.allSatisfy { $0.backgroundColor != KeyboardTheme().pressed })
    }

    @Test func aPinFieldGetsTheNumericPadWithoutPreview() {
        let h = KeyboardHarness(purpose: .pin)
        #expect(h.keyboard.state.pageKind == .numeric(.digits))
        h.dispatcher.touchDown(id: 0, at: h.centre(of: "7"), time: 0)
        #expect(h.keyboard.previewText == nil)
        h.dispatcher.touchUp(id: 0, time: 0.1)
        h.tap("0", at: 1)
        h.tap("⌫", at: 2)
        h.tap("5", at: 3)
        #expect(h.text == "75")
    }

    @Test func aHeldBackspaceRepeatsOnTicksAndStopsWhenLifted() {
        let h = KeyboardHarness()
        h.dispatcher.touchDown(id: 0, at: h.centre(of: "⌫"), time: 0)
        #expect(h.outputs.count == 1)
        h.keyboard.tick(now: 0.4)
        #expect(h.outputs.count == 1)
        h.keyboard.tick(now: 0.5)
        #expect(h.outputs.count == 2)
        h.keyboard.tick(now: 0.75)  // 0.55 … 0.75
        #expect(h.outputs.count == 7)
        h.dispatcher.touchUp(id: 0, time: 0.8)  // and the one due at 0.8
        #expect(h.outputs.count == 8)
        h.keyboard.tick(now: 3)
        #expect(h.outputs == Array(repeating: .deleteBackward, count: 8))
    }

    @Test func aBackspaceLeftBySlidingStopsRepeating() {
        let h = KeyboardHarness()
        h.dispatcher.touchDown(id: 0, at: h.centre(of: "⌫"), time: 0)
        h.dispatcher.touchMotion(id: 0, to: h.centre(of: "m"), time: 0.2)
        h.keyboard.tick(now: 2)
        h.dispatcher.touchUp(id: 0, time: 2.1)
        #expect(h.outputs == [.deleteBackward, .insert("m")])
    }

    @Test func pointerClicksTypeLikeTaps() {
        let h = KeyboardHarness()
        h.dispatcher.movePointer(to: h.centre(of: "z"), at: 0)
        h.dispatcher.pressButton(PointerEvent.leftButton, at: 0.1)
        h.dispatcher.releaseButton(PointerEvent.leftButton, at: 0.2)
        #expect(h.outputs == [.insert("z")])
    }

    @Test func showingSlidesUpAndHidingSlidesDownAndStopsTakingInput() throws {
        let h = KeyboardHarness()
        // Layers animate only once on screen: commit the tree to a context first.
        let context = RenderContext(rootLayer: h.root.layer)
        defer { context.invalidate() }
        Transaction.flush()
        h.keyboard.hide(animated: false)
        #expect(h.keyboard.frame.minY == 600 && h.keyboard.isHidden)
        #expect(h.keyboard.layer.animationKeys().isEmpty)
        #expect(!h.keyboard.isShown)
        h.keyboard.show(for: .email, animated: true)
        #expect(h.keyboard.isShown && h.keyboard.frame.minY == 360 && !h.keyboard.isHidden)
        let slide = try #require(h.keyboard.layer.animation(forKey: "position") as? BasicAnimation)
        #expect(slide.timingFunction == .easeOut)
        #expect(h.keyboard.geometry.keys.last { $0.row == 3 && $0.column == 1 }?.key.label(shifted: false) == "@")
        Transaction.flush()
        h.keyboard.hide()
        #expect(h.keyboard.frame.minY == 600)
        #expect(h.keyboard.layer.animationKeys() == ["position"])
        // While it slides out it is still on screen, but takes no input.
        Transaction.flush()
        h.dispatcher.touchDown(id: 0, at: Point(x: 400, y: 590), time: 0)
        h.dispatcher.touchUp(id: 0, time: 0.1)
        #expect(h.outputs.isEmpty)
        #expect(h.root.hitTest(Point(x: 400, y: 590)) === h.root)
    }

    @Test func theLayerIsHiddenOnlyOnceTheSlideOutHasEnded() {
        let clock = ManualMediaClock(startingAt: 50)
        let oldClock = MediaTime.clock
        MediaTime.clock = clock
        defer { MediaTime.clock = oldClock }
        let h = KeyboardHarness()
        let context = RenderContext(rootLayer: h.root.layer)
        defer { context.invalidate() }
        Transaction.flush()
        h.keyboard.hide()
        Transaction.flush()
        clock.advance(by: 0.2)
        Transaction.flush()
        #expect(!h.keyboard.isHidden)
        clock.advance(by: 0.1)
        Transaction.flush()
        #expect(h.keyboard.isHidden)
        // Shown again while sliding out, it stays visible when the slide out ends.
        h.keyboard.show(for: .normal)
        Transaction.flush()
        h.keyboard.hide()
        Transaction.flush()
        h.keyboard.show(for: .normal)
        Transaction.flush()
        clock.advance(by: 1)
        Transaction.flush()
        #expect(!h.keyboard.isHidden && h.keyboard.isShown)
    }
}
