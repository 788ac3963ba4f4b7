/// The keys a board configuration file may contain, table by table: what the parser accepts,
/// what unknown-key suggestions draw from, and what FORMAT.md must document.
public enum BoardConfigurationSchema {
    /// The kind of value a key takes.
    public enum ValueKind: Sendable, Equatable {
        case string, integer, number, boolean
        case stringArray, numberArray, integerPair
        case stringTable
        /// An integer (degrees) or a string (flipped variants).
        case rotation
        case table, arrayOfTables

        /// The kind as a message names it: "must be …".
        var phrase: String {
            switch self {
            case .string: "a string"
            case .integer: "an integer"
            case .number: "a number"
            case .boolean: "true or false"
            case .stringArray: "an array of strings"
            case .numberArray: "an array of numbers"
            case .integerPair: "an array of two integers"
            case .stringTable: "a table of strings"
            case .rotation: "an integer or a string"
            case .table: "a table"
            case .arrayOfTables: "an array of tables"
            }
        }
    }

    public struct Key: Sendable, Equatable {
        public let name: String
        public let kind: ValueKind
        /// A valid assignment, shown in fixes for a value of the wrong type.
        public let example: String
    }

    public struct Section: Sendable, Equatable {
        /// How the file writes the table's header (`[[output]]`, `[input.keyboard]`), or
        /// "the top level".
        public let header: String
        public let keys: [Key]

        public var keyNames: [String] { keys.map(\.name) }

        public func key(named name: String) -> Key? { keys.first { $0.name == name } }
    }

    public static let topLevel = Section(
        header: "the top level",
        keys: [
            Key(name: "board", kind: .table, example: "[board]"),
            Key(name: "output", kind: .arrayOfTables, example: "[[output]]"),
            Key(name: "input", kind: .table, example: "[input.keyboard]"),
            Key(name: "app", kind: .table, example: "[app]"),
            Key(name: "idle", kind: .table, example: "[idle]"),
            Key(name: "cursor", kind: .table, example: "[cursor]"),
            Key(name: "splash", kind: .table, example: "[splash]"),
            Key(name: "printer", kind: .table, example: "[printer]"),
            Key(name: "on-screen-keyboard", kind: .table, example: "[on-screen-keyboard]"),
            Key(name: "privilege", kind: .arrayOfTables, example: "[[privilege]]"),
            Key(name: "compatibility", kind: .arrayOfTables, example: "[[compatibility]]"),
        ])

    public static let board = Section(
        header: "[board]",
        keys: [
            Key(name: "name", kind: .string, example: #"name = "rpi5-dsi""#),
            Key(name: "description", kind: .string, example: #"description = "Raspberry Pi 5 with the 7-inch DSI display""#),
            Key(name: "renderer", kind: .string, example: #"renderer = "auto""#),
        ])

    public static let output = Section(
        header: "[[output]]",
        keys: [
            Key(name: "connector", kind: .string, example: #"connector = "HDMI-A-1""#),
            Key(name: "mode", kind: .string, example: #"mode = "1920x1080""#),
            Key(name: "refresh", kind: .number, example: "refresh = 60"),
            Key(name: "scale", kind: .number, example: "scale = 1.5"),
            Key(name: "rotation", kind: .rotation, example: "rotation = 90"),
            Key(name: "position", kind: .integerPair, example: "position = [1920, 0]"),
            Key(name: "mirror", kind: .string, example: #"mirror = "HDMI-A-1""#),
        ])

    public static let input = Section(
        header: "[input]",
        keys: [
            Key(name: "keyboard", kind: .table, example: "[input.keyboard]"),
            Key(name: "pointer", kind: .table, example: "[input.pointer]"),
            Key(name: "touchscreen", kind: .arrayOfTables, example: "[[input.touchscreen]]"),
        ])

    public static let pointer = Section(
        header: "[input.pointer]",
        keys: [
            Key(name: "natural-scrolling", kind: .boolean, example: "natural-scrolling = true"),
        ])

    public static let keyboard = Section(
        header: "[input.keyboard]",
        keys: [
            Key(name: "layout", kind: .string, example: #"layout = "us""#),
            Key(name: "variant", kind: .string, example: #"variant = "nodeadkeys""#),
            Key(name: "options", kind: .stringArray, example: #"options = ["ctrl:nocaps"]"#),
            Key(name: "repeat-rate", kind: .integer, example: "repeat-rate = 25"),
            Key(name: "repeat-delay", kind: .integer, example: "repeat-delay = 600"),
        ])

    public static let touchscreen = Section(
        header: "[[input.touchscreen]]",
        keys: [
            Key(name: "device", kind: .string, example: #"device = "raspberrypi-ts""#),
            Key(name: "output", kind: .string, example: #"output = "DSI-1""#),
            Key(name: "calibration", kind: .numberArray, example: "calibration = [1, 0, 0, 0, 1, 0]"),
        ])

    public static let app = Section(
        header: "[app]",
        keys: [
            Key(name: "command", kind: .stringArray, example: #"command = ["/usr/bin/cog", "https://example.com"]"#),
            Key(name: "environment", kind: .stringTable, example: #"environment = { LANG = "de_DE.UTF-8" }"#),
            Key(name: "working-directory", kind: .string, example: #"working-directory = "/var/lib/vitrine""#),
            Key(name: "user", kind: .string, example: #"user = "kiosk""#),
            Key(name: "unresponsive-after", kind: .integer, example: "unresponsive-after = 10"),
            Key(name: "no-frame-after", kind: .integer, example: "no-frame-after = 0"),
            Key(name: "x11", kind: .boolean, example: "x11 = false"),
            Key(name: "fit", kind: .string, example: #"fit = "scale""#),
        ])

    public static let idle = Section(
        header: "[idle]",
        keys: [
            Key(name: "blank-after", kind: .integer, example: "blank-after = 300"),
            Key(name: "wake-on-touch", kind: .boolean, example: "wake-on-touch = true"),
        ])

    public static let cursor = Section(
        header: "[cursor]",
        keys: [
            Key(name: "visible", kind: .boolean, example: "visible = false"),
        ])

    public static let splash = Section(
        header: "[splash]",
        keys: [
            Key(name: "image", kind: .string, example: #"image = "/usr/share/vitrine/splash.png""#),
            Key(name: "background", kind: .string, example: ##"background = "#1D3557""##),
            Key(name: "animation", kind: .string, example: #"animation = "pattern""#),
        ])

    public static let printer = Section(
        header: "[printer]",
        keys: [
            Key(name: "queue", kind: .string, example: #"queue = "ticket""#),
            Key(name: "server", kind: .string, example: #"server = "/run/cups/cups.sock""#),
            Key(name: "paper", kind: .string, example: #"paper = "receipt-80mm""#),
        ])

    public static let onScreenKeyboard = Section(
        header: "[on-screen-keyboard]",
        keys: [
            Key(name: "enabled", kind: .boolean, example: "enabled = true"),
            Key(name: "keyboard", kind: .string, example: #"keyboard = "external""#),
            Key(name: "command", kind: .stringArray, example: #"command = ["/usr/bin/squeekboard"]"#),
            Key(name: "layouts", kind: .stringArray, example: #"layouts = ["ru", "us"]"#),
            Key(name: "height-share", kind: .number, example: "height-share = 0.4"),
            Key(name: "hide-when-keyboard-attached", kind: .boolean, example: "hide-when-keyboard-attached = true"),
            Key(name: "background", kind: .string, example: ##"background = "#1C1E21""##),
            Key(name: "key-color", kind: .string, example: ##"key-color = "#45474D""##),
            Key(name: "special-key-color", kind: .string, example: ##"special-key-color = "#303338""##),
            Key(name: "text-color", kind: .string, example: ##"text-color = "#FFFFFF""##),
            Key(name: "pressed-color", kind: .string, example: ##"pressed-color = "#6B7078""##),
        ])

    public static let privilege = Section(
        header: "[[privilege]]",
        keys: [
            Key(name: "executable", kind: .string, example: #"executable = "/usr/bin/wayvnc""#),
            Key(name: "user", kind: .string, example: #"user = "remote""#),
            Key(name: "grant", kind: .stringArray, example: #"grant = ["capture", "virtual-input"]"#),
        ])

    public static let compatibility = Section(
        header: "[[compatibility]]",
        keys: [
            Key(name: "executable", kind: .string, example: #"executable = "/usr/bin/mpv""#),
            Key(name: "user", kind: .string, example: #"user = "player""#),
            Key(name: "xdg-shell", kind: .integer, example: "xdg-shell = 4"),
        ])

    public static let sections: [Section] = [
        topLevel, board, output, input, keyboard, pointer, touchscreen, app, idle, cursor, splash, printer, onScreenKeyboard, privilege,
        compatibility,
    ]
}
