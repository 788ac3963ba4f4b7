// The built-in layouts, as a phone keyboard arranges each xkb layout's letters: the letter keys
// in xkb's order, accented and rarer letters (é, ъ, ё) left to the symbols page or out, as on
// most touch keyboards.

/// Letter keys for each character of `letters`, upper case through `uppercased()` unless `shifted` says.
private func letters(_ letters: String, shifted: [Character: String] = [:]) -> [Key] {
    letters.map { Key.character(String($0), shifted: shifted[$0]) }
}

/// Keys typing themselves with shift on or off.
private func symbols(_ symbols: String) -> [Key] {
    symbols.map { Key.character(String($0), shifted: String($0)) }
}

/// Digits, common punctuation with the layout's currency, and a third row ending in backspace.
private func symbolPage(currency: String, third: [Key]) -> [[Key]] {
    [
        symbols("1234567890"),
        symbols("@#\(currency)%&-+()/"),
        third + [Key(.backspace, width: 2)],
    ]
}

extension KeyboardLayout {
    /// English (US), QWERTY.
    public static let us = KeyboardLayout(
        name: "us", displayName: "English", shortName: "EN",
        letterRows: [
            letters("qwertyuiop"),
            letters("asdfghjkl"),
            [Key(.shift, width: 1.5)] + letters("zxcvbnm") + [Key(.backspace, width: 1.5)],
        ],
        symbolRows: symbolPage(currency: "$", third: symbols("*\"':;!?_")),
        decimalSeparator: ".")

    /// German, QWERTZ with the umlauts and ß (upper case ẞ).
    public static let de = KeyboardLayout(
        name: "de", displayName: "Deutsch", shortName: "DE",
        letterRows: [
            letters("qwertzuiopü"),
            letters("asdfghjklöä"),
            [Key(.shift, width: 1.5)] + letters("yxcvbnmß", shifted: ["ß": "ẞ"]) + [Key(.backspace, width: 1.5)],
        ],
        symbolRows: symbolPage(currency: "€", third: symbols("*\"':;!?§")),
        decimalSeparator: ",")

    /// French, AZERTY; the accented letters are on the symbols page.
    public static let fr = KeyboardLayout(
        name: "fr", displayName: "Français", shortName: "FR",
        letterRows: [
            letters("azertyuiop"),
            letters("qsdfghjklm"),
            [Key(.shift, width: 1.5)] + letters("wxcvbn") + symbols("'") + [Key(.backspace, width: 1.5)],
        ],
        symbolRows: symbolPage(currency: "€", third: letters("éèàçù") + symbols("'!?")),
        decimalSeparator: ",")

    /// Russian, ЙЦУКЕН; shift and backspace as wide as a letter, as the rows are eleven letters.
    public static let ru = KeyboardLayout(
        name: "ru", displayName: "Русский", shortName: "RU",
        letterRows: [
            letters("йцукенгшщзх"),
            letters("фывапролджэ"),
            [Key(.shift)] + letters("ячсмитьбю") + [Key(.backspace)],
        ],
        symbolRows: symbolPage(currency: "₽", third: symbols("*\"':;!?") + letters("ё")),
        decimalSeparator: ",")
}
