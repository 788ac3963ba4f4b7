/// A font weight on the CSS/OpenType scale, 100 (thin) to 1000.
public struct FontWeight: RawRepresentable, Hashable, Sendable, Comparable {
    public var rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public static let thin = FontWeight(rawValue: 100)
    public static let light = FontWeight(rawValue: 300)
    public static let regular = FontWeight(rawValue: 400)
    public static let medium = FontWeight(rawValue: 500)
    public static let semibold = FontWeight(rawValue: 600)
    public static let bold = FontWeight(rawValue: 700)
    public static let heavy = FontWeight(rawValue: 900)

    public static func < (lhs: FontWeight, rhs: FontWeight) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A font by fontconfig family name, size in points and weight. Characters the family lacks are
/// drawn from another installed font that has them (fontconfig's fallback), so one font serves
/// mixed scripts and emoji.
public struct Font: Hashable, Sendable {
    public var family: String
    public var size: Double
    public var weight: FontWeight

    public init(family: String = Font.defaultFamily, size: Double = 12, weight: FontWeight = .regular) {
        self.family = family
        self.size = size
        self.weight = weight
    }

    /// The family that stands in for Core Animation's Helvetica: Debian's fonts-dejavu-core is
    /// always present, and DejaVu Sans covers Latin, Greek, Cyrillic, Arabic and Hebrew.
    public static let defaultFamily = "DejaVu Sans"

    /// The largest size drawn, in points: larger sizes are drawn at this one, as FreeType cannot
    /// scale glyphs far past it at the scales outputs use.
    public static let maximumSize = 4096.0
}

/// What one run of an `AttributedText` overrides; nil leaves the layout's default.
public struct TextAttributes: Hashable, Sendable {
    public var fontFamily: String?
    public var fontSize: Double?
    public var fontWeight: FontWeight?
    public var color: Color?

    public init(fontFamily: String? = nil, fontSize: Double? = nil, fontWeight: FontWeight? = nil, color: Color? = nil) {
        self.fontFamily = fontFamily
        self.fontSize = fontSize
        self.fontWeight = fontWeight
        self.color = color
    }

    var isEmpty: Bool { fontFamily == nil && fontSize == nil && fontWeight == nil && color == nil }
}

/// Text in runs, each with its own attributes (the role of NSAttributedString). A string literal
/// is one run without attributes.
public struct AttributedText: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public struct Run: Hashable, Sendable {
        public var text: String
        public var attributes: TextAttributes

        public init(_ text: String, attributes: TextAttributes = TextAttributes()) {
            self.text = text
            self.attributes = attributes
        }
    }

    public var runs: [Run]

    public init(runs: [Run]) {
        self.runs = runs
    }

    public init(_ string: String, attributes: TextAttributes = TextAttributes()) {
        self.runs = [Run(string, attributes: attributes)]
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The runs' text, joined.
    public var string: String { runs.map(\.text).joined() }

    public var description: String { string }

    public mutating func append(_ text: String, attributes: TextAttributes = TextAttributes()) {
        runs.append(Run(text, attributes: attributes))
    }

    public static func + (lhs: AttributedText, rhs: AttributedText) -> AttributedText {
        AttributedText(runs: lhs.runs + rhs.runs)
    }
}

/// Where the text is cut when a line does not fit the width (`kCATruncation…`).
public enum TextTruncation: String, Hashable, Sendable, CaseIterable {
    /// Not cut: lines that do not fit run past the width (and are clipped by whoever draws them).
    case none
    /// "…" replaces the start of the line.
    case start
    /// "…" replaces the middle.
    case middle
    /// "…" replaces the end.
    case end
}

/// How lines sit across the width (`kCAAlignment…`).
public enum TextAlignment: String, Hashable, Sendable, CaseIterable {
    /// At the start of each paragraph's direction: left for left-to-right text, right for Arabic
    /// and Hebrew.
    case natural
    case left
    case right
    case center
    /// Wrapped lines stretched to the full width; a paragraph's last line sits as with `natural`.
    case justified
}
