/// What a text field holds, as zwp_text_input_v3's content_purpose says, mirrored here so the
/// keyboard needs no Wayland module. It picks the page shown first and whether key previews show.
public enum ContentPurpose: String, Hashable, Sendable, CaseIterable {
    case normal, alpha, digits, number, phone, url, email, name, password, pin, date, time, dateTime, terminal

    /// The page the keyboard opens on for a field of this purpose.
    public var initialPage: KeyboardPageKind {
        switch self {
        case .digits, .pin: .numeric(.digits)
        case .number: .numeric(.number)
        case .phone: .numeric(.phone)
        // Dates and times are typed with digits and their separators, which the symbols page has.
        case .date, .time, .dateTime: .symbols
        case .normal, .alpha, .url, .email, .name, .password, .terminal: .letters
        }
    }

    /// Whether a pressed key shows its enlarged preview: not for hidden text, where the bubble
    /// would show the secret to anyone looking at the screen.
    public var showsKeyPreview: Bool {
        self != .password && self != .pin
    }
}
