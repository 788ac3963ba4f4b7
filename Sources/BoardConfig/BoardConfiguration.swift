/// Everything a board needs to boot into its kiosk app: the displays, the input devices, the app
/// itself, and how the screen behaves when no one uses it. Read from one TOML file per board
/// (see board-configs/FORMAT.md) by ``BoardConfiguration/parse(_:file:)``.
public struct BoardConfiguration: Sendable, Equatable {
    /// The board's name, by default the file's name without `.toml` (the systemd instance name).
    public var name: String
    /// A line for people: which board and display this file is for.
    public var summary: String?
    /// Which renderer draws the frames.
    public var renderer: RendererSelection
    /// In the order the file lists them; the first one is the primary output.
    public var outputs: [OutputConfiguration]
    public var input: InputConfiguration
    public var app: AppConfiguration
    public var idle: IdleConfiguration
    public var cursor: CursorConfiguration
    public var splash: SplashConfiguration
    /// The CUPS queue the kiosk prints to; nil when the board has no printer.
    public var printer: PrinterConfiguration?
    public var onScreenKeyboard: OnScreenKeyboardSettings
    /// The clients that may use privileged protocols (`[[privilege]]`), in the file's order; no
    /// client has any privilege otherwise, the app included.
    public var privileges: [PrivilegeGrant]
    /// Clients that need an older protocol version than Vitrine offers (`[[compatibility]]`).
    public var compatibility: [ClientCompatibility]

    public init(
        name: String, summary: String? = nil, renderer: RendererSelection = .auto, outputs: [OutputConfiguration],
        input: InputConfiguration = .init(),
        app: AppConfiguration, idle: IdleConfiguration = .init(), cursor: CursorConfiguration = .init(),
        splash: SplashConfiguration = .init(), printer: PrinterConfiguration? = nil,
        onScreenKeyboard: OnScreenKeyboardSettings = .init(), privileges: [PrivilegeGrant] = [],
        compatibility: [ClientCompatibility] = []
    ) {
        self.name = name
        self.summary = summary
        self.renderer = renderer
        self.outputs = outputs
        self.input = input
        self.app = app
        self.idle = idle
        self.cursor = cursor
        self.splash = splash
        self.printer = printer
        self.onScreenKeyboard = onScreenKeyboard
        self.privileges = privileges
        self.compatibility = compatibility
    }
}

/// A client that binds whatever xdg_wm_base version is offered but is aborted by libwayland on
/// version 5's wm_capabilities event (built against older xdg-shell headers, or without a handler
/// for it, as mpv 0.35): it is offered xdg_wm_base 4 (`[[compatibility]]`, `xdg-shell = 4`).
public struct ClientCompatibility: Sendable, Equatable {
    public var subject: PrivilegeGrant.Subject

    public init(_ subject: PrivilegeGrant.Subject) {
        self.subject = subject
    }
}

// MARK: - Privileges

/// A protocol family beyond a client's own windows, by the name the file gives it.
public enum GrantedPrivilege: String, Sendable, Equatable, CaseIterable {
    /// Screen capture (grim, wayvnc).
    case capture
    /// Virtual pointers and keyboards (wayvnc, wvkbd, squeekboard).
    case virtualInput = "virtual-input"
    /// The layer shell (wvkbd, mako, panels).
    case layerShell = "layer-shell"
    /// Input methods.
    case inputMethod = "input-method"
}

/// The privileges given to the clients of one executable or one user (`[[privilege]]`).
public struct PrivilegeGrant: Sendable, Equatable {
    public enum Subject: Sendable, Hashable, CustomStringConvertible {
        /// Processes running this file (an absolute path; symbolic links are resolved when a
        /// client connects).
        case executable(String)
        /// Processes of this user, by name (looked up when Vitrine starts).
        case user(String)

        public var description: String {
            switch self {
            case .executable(let path): "executable \(path)"
            case .user(let name): "user \(name)"
            }
        }
    }

    public var subject: Subject
    /// In the file's order, each once.
    public var privileges: [GrantedPrivilege]

    public init(_ subject: Subject, privileges: [GrantedPrivilege]) {
        self.subject = subject
        self.privileges = privileges
    }
}

/// Which renderer draws the frames (`renderer` in `[board]`, `--renderer` on `vitrine run`).
public enum RendererSelection: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// Vulkan when the machine has a hardware Vulkan device, the CPU renderer otherwise; decided
    /// without loading a software Vulkan driver.
    case auto
    /// Vulkan, on the first device (lavapipe where there is no other).
    case vulkan
    /// The CPU renderer (pixman), without Vulkan.
    case cpu

    public var description: String { rawValue }
}

// MARK: - Outputs

/// Which DRM connector an output configuration applies to.
public enum ConnectorSelection: Sendable, Equatable, CustomStringConvertible {
    /// A connector by its kernel name, `TYPE-N` (`HDMI-A-1`, `eDP-1`, `DSI-1`, `Virtual-1`).
    case named(String)
    /// Whichever connector is found connected first, for boards whose wiring is not known.
    case firstConnected

    public var description: String {
        switch self {
        case .named(let name): name
        case .firstConnected: "first-connected"
        }
    }
}

/// The mode to set on an output.
public enum ModeSelection: Sendable, Equatable {
    /// The mode the display marks as preferred in its EDID (or the driver's default).
    case preferred
    /// A mode of exactly this size in pixels; the refresh rate in hertz picks among modes of that size
    /// (the closest one), and nil takes the highest.
    case exact(width: Int, height: Int, refreshRate: Double?)
}

/// How an output's content is turned before scan-out, as `wl_output.transform` names it: a rotation
/// counter-clockwise in degrees, optionally after a flip around the vertical axis.
public enum OutputTransform: String, Sendable, Equatable, CaseIterable {
    case normal = "0"
    case rotated90 = "90"
    case rotated180 = "180"
    case rotated270 = "270"
    case flipped = "flipped"
    case flipped90 = "flipped-90"
    case flipped180 = "flipped-180"
    case flipped270 = "flipped-270"

    /// The rotation part in degrees (0, 90, 180 or 270).
    public var degrees: Int {
        switch self {
        case .normal, .flipped: 0
        case .rotated90, .flipped90: 90
        case .rotated180, .flipped180: 180
        case .rotated270, .flipped270: 270
        }
    }

    public var isFlipped: Bool {
        switch self {
        case .flipped, .flipped90, .flipped180, .flipped270: true
        default: false
        }
    }
}

/// Where an output sits in the compositor's global space (logical pixels, after scale and transform).
public enum OutputPlacement: Sendable, Equatable {
    /// Extend the desktop: right of the previous output, top-aligned (the first output at 0,0).
    case automatic
    /// Top-left corner at this position.
    case position(x: Int, y: Int)
    /// Show the same content as the output on this connector, scaled to fit.
    case mirror(of: String)
}

public struct OutputConfiguration: Sendable, Equatable {
    public var connector: ConnectorSelection
    public var mode: ModeSelection
    /// Pixels per logical pixel, 0.5…4: `wl_output.scale` (rounded up), the fractional scale
    /// clients are told, and the shell's layers' `contentsScale`.
    public var scale: Double
    public var transform: OutputTransform
    public var placement: OutputPlacement

    public init(
        connector: ConnectorSelection, mode: ModeSelection = .preferred, scale: Double = 1,
        transform: OutputTransform = .normal, placement: OutputPlacement = .automatic
    ) {
        self.connector = connector
        self.mode = mode
        self.scale = scale
        self.transform = transform
        self.placement = placement
    }
}

// MARK: - Input

public struct InputConfiguration: Sendable, Equatable {
    public var keyboard: KeyboardConfiguration
    /// Natural scrolling on or off for every mouse, touchpad and wheel that libinput offers it on;
    /// nil leaves each device at libinput's default.
    public var naturalScrolling: Bool?
    /// Touchscreens whose touches land on one output (by device name); an unmapped touchscreen
    /// covers the primary output.
    public var touchscreens: [TouchscreenMapping]

    public init(keyboard: KeyboardConfiguration = .init(), naturalScrolling: Bool? = nil, touchscreens: [TouchscreenMapping] = []) {
        self.keyboard = keyboard
        self.naturalScrolling = naturalScrolling
        self.touchscreens = touchscreens
    }
}

/// An xkb keymap by its rule names, and key repeat.
public struct KeyboardConfiguration: Sendable, Equatable {
    /// xkb layouts, comma-separated (`us`, `de,us`).
    public var layout: String
    /// xkb variants, one per layout, comma-separated; empty for the layouts' defaults.
    public var variant: String
    /// xkb options (`ctrl:nocaps`, `grp:alt_shift_toggle`).
    public var options: [String]
    /// Repeated key presses per second while a key is held; 0 turns repeat off.
    public var repeatRate: Int
    /// How long a key is held before it repeats.
    public var repeatDelay: Duration

    public init(
        layout: String = "us", variant: String = "", options: [String] = [], repeatRate: Int = 25,
        repeatDelay: Duration = .milliseconds(600)
    ) {
        self.layout = layout
        self.variant = variant
        self.options = options
        self.repeatRate = repeatRate
        self.repeatDelay = repeatDelay
    }
}

public struct TouchscreenMapping: Sendable, Equatable {
    /// The device's name as libinput reports it (`libinput list-devices`).
    public var deviceName: String
    /// The connector name of the output its touches land on.
    public var output: String
    public var calibration: CalibrationMatrix

    public init(deviceName: String, output: String, calibration: CalibrationMatrix = .identity) {
        self.deviceName = deviceName
        self.output = output
        self.calibration = calibration
    }
}

/// libinput's calibration matrix: the first two rows of a 3×3 affine matrix, row-major, applied to
/// normalized touch coordinates (0…1): `x' = a·x + b·y + c`, `y' = d·x + e·y + f`.
public struct CalibrationMatrix: Sendable, Equatable {
    /// `[a, b, c, d, e, f]`.
    public let coefficients: [Double]

    public static let identity = CalibrationMatrix(a: 1, b: 0, c: 0, d: 0, e: 1, f: 0)

    public init(a: Double, b: Double, c: Double, d: Double, e: Double, f: Double) {
        coefficients = [a, b, c, d, e, f]
    }
}

// MARK: - The app, idle, cursor, splash

public struct AppConfiguration: Sendable, Equatable {
    /// The program and its arguments; the program is looked up in `PATH` unless it has a slash.
    public var command: [String]
    /// Added to the environment Vitrine gives the app (which already has `WAYLAND_DISPLAY`,
    /// `XDG_RUNTIME_DIR` and the locale).
    public var environment: [String: String]
    /// An absolute path; nil keeps Vitrine's own working directory.
    public var workingDirectory: String?
    /// The user the app runs as; nil runs it as Vitrine's own user.
    public var user: String?
    /// The app is killed and restarted when it leaves an `xdg_wm_base` ping (or an X window's
    /// `_NET_WM_PING`) unanswered this long.
    public var unresponsiveTimeout: Duration
    /// The app is killed and restarted when it presents no frame this long; nil never (most apps
    /// stop drawing when nothing changes).
    public var frameTimeout: Duration?
    /// Whether X11 apps run (`DISPLAY` given to the app, Xwayland started when an X client
    /// connects).
    public var x11: Bool
    /// How a window whose size does not match the output is shown.
    public var fit: WindowFit

    public init(
        command: [String], environment: [String: String] = [:], workingDirectory: String? = nil,
        user: String? = nil, unresponsiveTimeout: Duration = .seconds(10), frameTimeout: Duration? = nil, x11: Bool = true,
        fit: WindowFit = .center
    ) {
        self.command = command
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.user = user
        self.unresponsiveTimeout = unresponsiveTimeout
        self.frameTimeout = frameTimeout
        self.x11 = x11
        self.fit = fit
    }
}

/// How the kiosk shows an app window whose size does not match the output (`fit` in `[app]`,
/// `--fit` on `vitrine run`): one whose minimum size is larger than the output, or one that draws
/// smaller than it was configured to. Dialogs, popups and menus follow their window.
public enum WindowFit: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// At its own size, centred: cut off on every side when larger, black around it when smaller.
    case center
    /// Scaled down or up until it fits the output, keeping its aspect ratio, centred: black bars
    /// on two sides where the ratios differ.
    case scale
    /// Scaled until it covers the output, keeping its aspect ratio, centred: cropped on two sides
    /// where the ratios differ.
    case fill

    public var description: String { rawValue }
}

public struct IdleConfiguration: Sendable, Equatable {
    /// The outputs are blanked (DPMS off) after this long without input; nil never.
    public var blankAfter: Duration?
    /// Whether a touch wakes blanked outputs (keys and the pointer always do); the waking touch is
    /// not passed to the app.
    public var wakesOnTouch: Bool

    public init(blankAfter: Duration? = nil, wakesOnTouch: Bool = true) {
        self.blankAfter = blankAfter
        self.wakesOnTouch = wakesOnTouch
    }
}

public struct CursorConfiguration: Sendable, Equatable {
    /// False hides the pointer cursor everywhere (touch-only kiosks).
    public var isVisible: Bool

    public init(isVisible: Bool = true) {
        self.isVisible = isVisible
    }
}

/// What the screen shows from the first frame until the app's first frame (and behind the
/// "restarting" overlay).
public struct SplashConfiguration: Sendable, Equatable {
    /// An absolute path to a PNG image, centred on each output; nil shows the colour only.
    public var imagePath: String?
    public var backgroundColor: RGBColor
    public var animation: Animation

    /// What moves behind the image while the splash shows.
    public enum Animation: String, Sendable, CaseIterable {
        /// The colour alone.
        case none
        /// Vitrine's animated pattern (a colour cycling with time under a turning triangle),
        /// rendered on the GPU every frame.
        case pattern
    }

    public init(
        imagePath: String? = nil, backgroundColor: RGBColor = RGBColor(red: 0, green: 0, blue: 0),
        animation: Animation = .none
    ) {
        self.imagePath = imagePath
        self.backgroundColor = backgroundColor
        self.animation = animation
    }
}

/// The printer a kiosk sends PDFs to through CUPS (`lp`): tickets, receipts, badges.
public struct PrinterConfiguration: Sendable, Equatable {
    /// The CUPS destination, as `lpstat -p` names it.
    public var queue: String
    /// The CUPS server (a socket path or host[:port]); nil uses CUPS's own default.
    public var server: String?
    public var paper: Paper

    /// The paper the page is laid out for.
    public enum Paper: String, Sendable, CaseIterable {
        case a4
        case letter
        /// Receipt rolls: the page is as long as what is printed.
        case receipt80mm = "receipt-80mm"
        case receipt58mm = "receipt-58mm"
    }

    public init(queue: String, server: String? = nil, paper: Paper = .a4) {
        self.queue = queue
        self.server = server
        self.paper = paper
    }
}

/// The compositor's own on-screen keyboard, shown while the focused app edits text
/// (zwp_text_input_v3). Colours left nil keep the keyboard's own theme.
public struct OnScreenKeyboardSettings: Sendable, Equatable {
    /// The layouts the keyboard draws, by their xkb names.
    public static let layouts = ["us", "de", "fr", "ru"]

    /// Which keyboard types into the app's text fields.
    public enum Keyboard: String, Sendable, Equatable, CaseIterable {
        /// Vitrine's own, drawn by the compositor.
        case builtIn = "built-in"
        /// A client program that Vitrine starts beside the app and restarts when it exits: an
        /// input method (squeekboard) or a keyboard typing through a virtual keyboard (wvkbd),
        /// shown on the layer shell. The built-in keyboard never shows.
        case external
    }

    public var isEnabled: Bool
    public var keyboard: Keyboard
    /// The external keyboard's program (an absolute path) and its arguments; empty for the
    /// built-in keyboard.
    public var externalCommand: [String]
    /// The layouts shown, by xkb names of `Self.layouts`, the first shown first; with more than
    /// one, a key on the letters page switches to the next. Never empty.
    public var layouts: [String]
    /// The keyboard's height as a share of the output's height; nil keeps the keyboard's defaults
    /// (a larger share on a landscape output than on a portrait one).
    public var heightShare: Double?
    /// Whether the keyboard stays hidden while a physical keyboard is plugged in.
    public var hidesWhenKeyboardAttached: Bool
    public var background: RGBColor?
    public var keyColor: RGBColor?
    public var specialKeyColor: RGBColor?
    public var textColor: RGBColor?
    public var pressedColor: RGBColor?

    public init(
        isEnabled: Bool = false, keyboard: Keyboard = .builtIn, externalCommand: [String] = [], layouts: [String] = ["us"],
        heightShare: Double? = nil, hidesWhenKeyboardAttached: Bool = true,
        background: RGBColor? = nil, keyColor: RGBColor? = nil, specialKeyColor: RGBColor? = nil, textColor: RGBColor? = nil,
        pressedColor: RGBColor? = nil
    ) {
        self.isEnabled = isEnabled
        self.keyboard = keyboard
        self.externalCommand = externalCommand
        self.layouts = layouts
        self.heightShare = heightShare
        self.hidesWhenKeyboardAttached = hidesWhenKeyboardAttached
        self.background = background
        self.keyColor = keyColor
        self.specialKeyColor = specialKeyColor
        self.textColor = textColor
        self.pressedColor = pressedColor
    }
}

/// An opaque sRGB colour, 8 bits per channel, as written `#RRGGBB`.
public struct RGBColor: Sendable, Equatable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Parses `#RRGGBB` (either case).
    public init?(hex text: String) {
        let digits = Array(text.utf8)
        // Checked digit by digit: UInt32(_:radix:) would also take a sign.
        guard digits.count == 7, digits[0] == UInt8(ascii: "#"),
            digits[1...].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
            let value = UInt32(String(decoding: digits[1...], as: UTF8.self), radix: 16)
        else { return nil }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    public var description: String {
        "#" + [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
    }
}
