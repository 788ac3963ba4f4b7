import Testing
@testable import OnScreenKeyboard

@Suite struct KeyboardLayoutTests {
    func letterLabels(_ layout: KeyboardLayout) -> [String] {
        layout.letterRows.map { row in row.compactMap { key in
            if case .character(let text, _) = key.action { text } else { nil }
        }.joined() }
    }

    @Test func eachLayoutHasItsXkbLetterOrder() {
        #expect(letterLabels(.us) == ["qwertyuiop", "asdfghjkl", "zxcvbnm"])
        #expect(letterLabels(.de) == ["qwertzuiopü", "asdfghjklöä", "yxcvbnmß"])
        #expect(letterLabels(.fr) == ["azertyuiop", "qsdfghjklm", "wxcvbn'"])
        #expect(letterLabels(.ru) == ["йцукенгшщзх", "фывапролджэ", "ячсмитьбю"])
    }

    @Test func shiftedLettersAreUpperCaseWithTheCapitalSharpS() {
        let sharpS = KeyboardLayout.de.letterRows[2].first { $0.label(shifted: false) == "ß" }
        #expect(sharpS?.label(shifted: true) == "ẞ")
        #expect(KeyboardLayout.ru.letterRows[0][0].label(shifted: true) == "Й")
        #expect(KeyboardLayout.fr.letterRows[2][7].label(shifted: true) == "'")
    }

    @Test func layoutsAreFoundByXkbNameIgnoringTheVariant() {
        #expect(KeyboardLayout.named("us")?.name == "us")
        #expect(KeyboardLayout.named("de(nodeadkeys)")?.name == "de")
        #expect(KeyboardLayout.named(" fr ")?.name == "fr")
        #expect(KeyboardLayout.named("ru")?.displayName == "Русский")
        #expect(KeyboardLayout.named("jp") == nil)
    }

    @Test func everyLetterAndSymbolPageIsTenUnitsWideOrElevenForTheLongAlphabets() {
        for layout in KeyboardLayout.all {
            let expected: Double = layout.name == "de" || layout.name == "ru" ? 11 : 10
            #expect(layout.page(.letters).units == expected, "\(layout.name)")
            #expect(layout.page(.symbols).units == 10, "\(layout.name)")
        }
    }

    @Test func theSymbolsPageHasDigitsAndTheLayoutsCurrency() {
        #expect(KeyboardLayout.us.page(.symbols).rows[0].map { $0.label(shifted: false) }.joined() == "1234567890")
        #expect(KeyboardLayout.us.symbolRows[1].contains { $0.label(shifted: false) == "$" })
        #expect(KeyboardLayout.de.symbolRows[1].contains { $0.label(shifted: false) == "€" })
        #expect(KeyboardLayout.ru.symbolRows[1].contains { $0.label(shifted: false) == "₽" })
        #expect(KeyboardLayout.fr.symbolRows[2].prefix(5).map { $0.label(shifted: false) }.joined() == "éèàçù")
    }

    @Test func theBottomRowSwitchesPagesAndOffersAddressKeysForEmailAndURLs() {
        let labels = { (kind: KeyboardPageKind, purpose: ContentPurpose) in
            KeyboardLayout.us.page(kind, for: purpose).rows.last!.map { $0.label(shifted: false) }
        }
        #expect(labels(.letters, .normal) == ["?123", ",", "English", ".", "⏎"])
        #expect(labels(.letters, .email) == ["?123", "@", "English", ".", "⏎"])
        #expect(labels(.letters, .url) == ["?123", "/", "English", ".", "⏎"])
        #expect(labels(.symbols, .normal) == ["ABC", ",", "English", ".", "⏎"])
        #expect(KeyboardLayout.us.page(.letters).rows.last!.map(\.width) == [1.5, 1, 4.5, 1, 2])
    }

    @Test func withSeveralLayoutsTheLettersPageHasAKeyNamingTheNextLayout() {
        let configuration = OnScreenKeyboardConfiguration(layouts: [.ru, .us, .de])
        let bottom = { (kind: KeyboardPageKind, index: Int) in
            configuration.page(kind, layoutIndex: index, for: .normal).rows.last!.map { $0.label(shifted: false) }
        }
        #expect(bottom(.letters, 0) == ["?123", "EN", ",", "Русский", ".", "⏎"])
        #expect(bottom(.letters, 1) == ["?123", "DE", ",", "English", ".", "⏎"])
        #expect(bottom(.letters, 2) == ["?123", "RU", ",", "Deutsch", ".", "⏎"])
        #expect(configuration.page(.letters, layoutIndex: 0, for: .normal).rows.last!.map(\.width) == [1.5, 1, 1, 3.5, 1, 2])
        #expect(configuration.page(.letters, layoutIndex: 0, for: .normal).rows.last![1].action == .nextLayout)
        // Only the letters page switches layouts; one layout has no switch.
        #expect(bottom(.symbols, 0) == ["ABC", ",", "Русский", ".", "⏎"])
        #expect(
            OnScreenKeyboardConfiguration(layouts: [.fr]).page(.letters, layoutIndex: 0, for: .normal).rows.last!
                .map { $0.label(shifted: false) } == ["?123", ",", "Français", ".", "⏎"])
    }

    @Test func numericPadsHaveDigitsAndTheirPurposesExtraKeys() {
        let labels = { (layout: KeyboardLayout, pad: NumericPad) in
            layout.page(.numeric(pad)).rows.map { $0.map { $0.label(shifted: false) }.joined(separator: " ") }
        }
        #expect(labels(.us, .digits) == ["1 2 3", "4 5 6", "7 8 9", "⌫ 0 ⏎"])
        #expect(labels(.us, .number) == ["1 2 3", "4 5 6", "7 8 9", ". 0 -", "⌫ ⏎"])
        #expect(labels(.de, .number) == ["1 2 3", "4 5 6", "7 8 9", ", 0 -", "⌫ ⏎"])
        #expect(labels(.us, .phone) == ["1 2 3", "4 5 6", "7 8 9", "* 0 #", "+ ⌫ ⏎"])
    }

    @Test func contentPurposePicksThePageAndThePreview() {
        let pages: [ContentPurpose: KeyboardPageKind] = [
            .normal: .letters, .alpha: .letters, .digits: .numeric(.digits), .number: .numeric(.number),
            .phone: .numeric(.phone), .url: .letters, .email: .letters, .name: .letters, .password: .letters,
            .pin: .numeric(.digits), .date: .symbols, .time: .symbols, .dateTime: .symbols, .terminal: .letters,
        ]
        for purpose in ContentPurpose.allCases {
            #expect(purpose.initialPage == pages[purpose], "\(purpose)")
        }
        #expect(ContentPurpose.allCases.filter { !$0.showsKeyPreview } == [.password, .pin])
    }
}
