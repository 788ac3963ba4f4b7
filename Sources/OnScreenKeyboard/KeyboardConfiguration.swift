import Graphics

/// The keyboard's colours.
public struct KeyboardTheme: Hashable, Sendable {
    /// Behind the keys.
    public var background: Color
    /// Character keys and the space bar.
    public var key: Color
    /// Shift, backspace, return and the page keys.
    public var specialKey: Color
    /// Labels.
    public var text: Color
    /// A key while it is held, and the preview bubble above it.
    public var pressed: Color
    /// Shift while caps lock is on.
    public var active: Color

    public init(
        background: Color = Color(red: 0.11, green: 0.12, blue: 0.13),
        key: Color = Color(red: 0.27, green: 0.28, blue: 0.30),
        specialKey: Color = Color(red: 0.19, green: 0.20, blue: 0.22),
        text: Color = .white,
        pressed: Color = Color(red: 0.42, green: 0.44, blue: 0.47),
        active: Color = Color(red: 0.16, green: 0.42, blue: 0.75)
    ) {
        self.background = background
        self.key = key
        self.specialKey = specialKey
        self.text = text
        self.pressed = pressed
        self.active = active
    }
}

/// What a board can set about the keyboard.
public struct OnScreenKeyboardConfiguration: Hashable, Sendable {
    /// The layouts the layout key cycles through, the first shown first; never empty.
    public var layouts: [KeyboardLayout]
    public var theme: KeyboardTheme
    public var metrics: KeyboardMetrics
    /// The keyboard's height as a share of the output's height, on an output wider than tall.
    public var landscapeHeightShare: Double
    /// The same on an output taller than wide, where a smaller share is enough for the same keys.
    public var portraitHeightShare: Double
    /// Seconds before a held backspace repeats, and repeats per second after that.
    public var repeatDelay: Double
    public var repeatRate: Double
    /// Seconds between two shift taps that lock caps.
    public var doubleTapInterval: Double
    /// Seconds of the slide in and out.
    public var slideDuration: Double
    /// Corner radius of the key caps, points.
    public var keyCornerRadius: Double

    public init(
        layouts: [KeyboardLayout] = [.us], theme: KeyboardTheme = KeyboardTheme(), metrics: KeyboardMetrics = KeyboardMetrics(),
        landscapeHeightShare: Double = 0.4, portraitHeightShare: Double = 0.3, repeatDelay: Double = 0.5,
        repeatRate: Double = 20, doubleTapInterval: Double = 0.3, slideDuration: Double = 0.25, keyCornerRadius: Double = 6
    ) {
        precondition(!layouts.isEmpty, "OnScreenKeyboardConfiguration: there must be a layout")
        self.layouts = layouts
        self.theme = theme
        self.metrics = metrics
        self.landscapeHeightShare = landscapeHeightShare
        self.portraitHeightShare = portraitHeightShare
        self.repeatDelay = repeatDelay
        self.repeatRate = repeatRate
        self.doubleTapInterval = doubleTapInterval
        self.slideDuration = slideDuration
        self.keyCornerRadius = keyCornerRadius
    }

    /// The keys of `kind` in the layout at `index`, for a field of `purpose`; the letters page
    /// has a key to the next layout when there is more than one.
    public func page(_ kind: KeyboardPageKind, layoutIndex index: Int, for purpose: ContentPurpose) -> KeyboardPage {
        let next = layouts.count > 1 ? layouts[(index + 1) % layouts.count] : nil
        return layouts[index].page(kind, for: purpose, nextLayout: next)
    }

    /// The keyboard's height on an output of `size` points at `scale`, on a device pixel.
    public func height(forOutput size: Size, scale: Double) -> Double {
        let share = size.width >= size.height ? landscapeHeightShare : portraitHeightShare
        return (size.height * share * scale).rounded() / scale
    }
}
