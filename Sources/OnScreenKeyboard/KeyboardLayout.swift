/// What a key does when tapped.
public enum KeyAction: Hashable, Sendable {
    /// Types `text`, or `shifted` while shift or caps lock is on.
    case character(String, shifted: String)
    /// One tap shifts the next character; two taps in quick succession lock caps.
    case shift
    /// Deletes backwards, repeating while held.
    case backspace
    case enter
    case space
    /// Switches to another page (letters ⇄ symbols).
    case page(KeyboardPageKind)
    /// Switches to the board's next layout, on a keyboard with more than one.
    case nextLayout
}

/// The page of keys on show.
public enum KeyboardPageKind: Hashable, Sendable {
    case letters
    case symbols
    case numeric(NumericPad)
}

/// The numeric pads: plain digits (digits, PIN), a number with a decimal separator and a minus,
/// and a phone number with + * #.
public enum NumericPad: Hashable, Sendable, CaseIterable {
    case digits, number, phone
}

/// One key of a page: its action, its width in key units (1 is a letter key) and the label it
/// shows when not the action's own text.
public struct Key: Hashable, Sendable {
    public var action: KeyAction
    public var width: Double
    public var label: String?

    public init(_ action: KeyAction, width: Double = 1, label: String? = nil) {
        self.action = action
        self.width = width
        self.label = label
    }

    /// A key typing `text`, and `shifted` (its upper case unless given) with shift on.
    public static func character(_ text: String, shifted: String? = nil, width: Double = 1) -> Key {
        Key(.character(text, shifted: shifted ?? text.uppercased()), width: width)
    }

    /// What the key shows, with shift (or caps lock) on or off.
    public func label(shifted: Bool, capsLocked: Bool = false) -> String {
        if let label { return label }
        switch action {
        case .character(let text, let upper): return shifted ? upper : text
        case .shift: return capsLocked ? "⇪" : "⇧"
        case .backspace: return "⌫"
        case .enter: return "⏎"
        case .space: return ""
        case .page(.letters): return "ABC"
        case .page: return "?123"
        case .nextLayout: return "🌐"
        }
    }

    /// Whether the key has the special colour (everything that does not type a character).
    public var isSpecial: Bool {
        switch action {
        case .character, .space: false
        case .shift, .backspace, .enter, .page, .nextLayout: true
        }
    }
}

/// Keys in rows, top to bottom. Rows narrower than the widest are centred.
public struct KeyboardPage: Hashable, Sendable {
    public var kind: KeyboardPageKind
    public var rows: [[Key]]

    public init(kind: KeyboardPageKind, rows: [[Key]]) {
        self.kind = kind
        self.rows = rows
    }

    /// The width of the widest row, in key units.
    public var units: Double {
        rows.map { $0.reduce(0) { $0 + $1.width } }.max() ?? 0
    }
}

/// A keyboard layout named as xkb names it (the board config's layout): its letter rows, its
/// symbol rows and its decimal separator, as Swift tables. The bottom row (page switch, space,
/// return) and the numeric pads are shared, and built for the field's purpose by `page(_:for:)`.
public struct KeyboardLayout: Hashable, Sendable {
    /// The xkb layout name: "us", "de", "fr", "ru".
    public var name: String
    /// Shown on the space bar, so the user sees which layout is active.
    public var displayName: String
    /// Shown on the layout-switch key of the layout before it: "EN", "RU".
    public var shortName: String
    /// The letter rows above the bottom row, the last one with shift and backspace.
    public var letterRows: [[Key]]
    /// The symbol rows above the bottom row, the last one with backspace.
    public var symbolRows: [[Key]]
    /// The number pad's decimal separator ("." or ",").
    public var decimalSeparator: String

    public init(
        name: String, displayName: String, shortName: String, letterRows: [[Key]], symbolRows: [[Key]], decimalSeparator: String
    ) {
        self.name = name
        self.displayName = displayName
        self.shortName = shortName
        self.letterRows = letterRows
        self.symbolRows = symbolRows
        self.decimalSeparator = decimalSeparator
    }

    /// The built-in layouts.
    public static let all: [KeyboardLayout] = [.us, .de, .fr, .ru]

    /// The layout for an xkb layout name; a variant in parentheses ("de(nodeadkeys)") is ignored,
    /// since the on-screen keys are the same. Nil for a layout not built in.
    public static func named(_ xkbName: String) -> KeyboardLayout? {
        let base = xkbName.split(separator: "(", maxSplits: 1).first.map(String.init) ?? xkbName
        return all.first { $0.name == base.trimmingSpaces() }
    }

    /// The keys of `kind` for a field of `purpose`. With `nextLayout`, the letters page has a key
    /// switching to it, labelled with its short name.
    public func page(_ kind: KeyboardPageKind, for purpose: ContentPurpose = .normal, nextLayout: KeyboardLayout? = nil) -> KeyboardPage {
        switch kind {
        case .letters:
            return KeyboardPage(
                kind: kind, rows: letterRows + [bottomRow(switchingTo: .symbols, purpose: purpose, nextLayout: nextLayout)])
        case .symbols:
            return KeyboardPage(kind: kind, rows: symbolRows + [bottomRow(switchingTo: .letters, purpose: purpose, nextLayout: nil)])
        case .numeric(let pad):
            return KeyboardPage(kind: kind, rows: numericRows(pad))
        }
    }

    /// Page switch, two punctuation keys around the space bar, and return; ten units wide.
    /// Addresses get the keys they are made of beside the space bar. A layout switch takes a unit
    /// of the space bar, so the row stays as wide.
    private func bottomRow(switchingTo other: KeyboardPageKind, purpose: ContentPurpose, nextLayout: KeyboardLayout?) -> [Key] {
        let (left, right): (String, String) = switch purpose {
        case .email: ("@", ".")
        case .url: ("/", ".")
        default: (",", ".")
        }
        let layoutSwitch = nextLayout.map { [Key(.nextLayout, label: $0.shortName)] } ?? []
        return [Key(.page(other), width: 1.5)] + layoutSwitch + [
            .character(left, shifted: left),
            Key(.space, width: nextLayout == nil ? 4.5 : 3.5, label: displayName),
            .character(right, shifted: right),
            Key(.enter, width: 2),
        ]
    }

    private func numericRows(_ pad: NumericPad) -> [[Key]] {
        let digits = ["123", "456", "789"].map { row in row.map { Key.character(String($0)) } }
        switch pad {
        case .digits:
            return digits + [[Key(.backspace), .character("0"), Key(.enter)]]
        case .number:
            return digits + [
                [.character(decimalSeparator), .character("0"), .character("-", shifted: "-")],
                [Key(.backspace, width: 1.5), Key(.enter, width: 1.5)],
            ]
        case .phone:
            return digits + [
                [.character("*"), .character("0"), .character("#")],
                [.character("+"), Key(.backspace), Key(.enter)],
            ]
        }
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
