import Foundation
import TOMLKit

extension BoardConfiguration {
    /// Reads and validates the board configuration file at `path`; diagnostics name the file as
    /// `path` is written.
    public static func load(contentsOfFile path: String) -> Result<BoardConfiguration, BoardConfigurationError> {
        func failure(_ message: String, fix: String) -> Result<BoardConfiguration, BoardConfigurationError> {
            .failure(BoardConfigurationError(diagnostics: [
                ConfigurationDiagnostic(file: path, line: nil, message: message, fix: fix)
            ]))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return failure("no such file", fix: "check the path; shipped boards are in board-configs/ and /etc/vitrine/")
        }
        guard !isDirectory.boolValue else {
            return failure("this is a directory, not a file", fix: "name the board's .toml file inside it")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            return failure(
                "cannot read the file: \((underlying ?? error as NSError).localizedDescription)",
                fix: "make the file readable by this user")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return failure("the file is not UTF-8 text", fix: "save it as UTF-8")
        }
        return parse(text, file: path)
    }

    /// Parses and validates a board configuration. `file` names the source in diagnostics, and its
    /// last path component without `.toml` is the board's default name.
    public static func parse(_ text: String, file: String) -> Result<BoardConfiguration, BoardConfigurationError> {
        // toml++ reads a C string, so a NUL byte would silently end the document there.
        if let nul = text.firstIndex(of: "\0") {
            let line = text[..<nul].count(where: { $0 == "\n" }) + 1
            return .failure(BoardConfigurationError(diagnostics: [
                ConfigurationDiagnostic(
                    file: file, line: line, message: "the file contains a NUL byte", fix: "save it as plain UTF-8 text")
            ]))
        }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            return .failure(BoardConfigurationError(diagnostics: [
                ConfigurationDiagnostic(
                    file: file, line: error.source.begin.line, column: error.source.begin.column,
                    message: "invalid TOML: \(error.description)",
                    fix: "correct the syntax here: strings in double quotes, one key = value per line, "
                        + "[table] and [[array of tables]] headers on their own lines")
            ]))
        } catch {
            preconditionFailure("TOMLTable(string:) throws TOMLParseError only, got \(error)")
        }
        var decoder = ConfigurationDecoder(file: file, map: SourceMap(scanning: text))
        let configuration = decoder.decode(root, defaultName: defaultName(forFile: file))
        if decoder.diagnostics.isEmpty {
            return .success(configuration)
        }
        return .failure(BoardConfigurationError(diagnostics: decoder.sortedDiagnostics))
    }

    static func defaultName(forFile file: String) -> String {
        let base = file.split(separator: "/").last.map(String.init) ?? file
        return base.hasSuffix(".toml") ? String(base.dropLast(5)) : base
    }
}

/// A table of the document with where it is and which schema section it follows.
private struct TableReader {
    let table: TOMLTable
    let path: ValuePath
    let section: BoardConfigurationSchema.Section

    func path(of key: String) -> ValuePath { path + [.key(key)] }
}

private typealias Schema = BoardConfigurationSchema

/// Turns a parsed TOML document into a ``BoardConfiguration``, collecting every problem rather
/// than stopping at the first; values found invalid are replaced by their defaults so that the
/// checks after them still run.
private struct ConfigurationDecoder {
    let file: String
    let map: SourceMap
    private(set) var diagnostics: [ConfigurationDiagnostic] = []

    init(file: String, map: SourceMap) {
        self.file = file
        self.map = map
    }

    var sortedDiagnostics: [ConfigurationDiagnostic] {
        // Stable: problems on one line keep the order they were found in.
        diagnostics.enumerated().sorted { a, b in
            let left = (a.element.line ?? 0, a.element.column ?? 0, a.offset)
            let right = (b.element.line ?? 0, b.element.column ?? 0, b.offset)
            return left < right
        }.map(\.element)
    }

    // MARK: Reporting

    mutating func report(_ message: String, fix: String, at location: SourceLocation?) {
        diagnostics.append(
            ConfigurationDiagnostic(
                file: file, line: location?.line, column: location?.column, message: message, fix: fix))
    }

    mutating func report(_ message: String, fix: String, atValue path: ValuePath) {
        report(message, fix: fix, at: map.location(ofValueAt: path))
    }

    mutating func report(_ message: String, fix: String, atKey path: ValuePath) {
        report(message, fix: fix, at: map.location(ofKeyAt: path))
    }

    mutating func reportWrongType(_ key: String, _ value: TOMLValueConvertible, in reader: TableReader) {
        guard let schemaKey = reader.section.key(named: key) else { return }
        var fix = "write it like \(schemaKey.example)"
        if [.number, .integer].contains(schemaKey.kind), let text = value.string, Double(text) != nil {
            fix = "remove the quotes: \(key) = \(text)"
        }
        report(
            "'\(key)' in \(reader.section.header) must be \(schemaKey.kind.phrase), not \(phrase(for: value.type))",
            fix: fix, atValue: reader.path(of: key))
    }

    mutating func reportMissing(_ key: String, in reader: TableReader) {
        let example = reader.section.key(named: key)?.example ?? key
        report("\(reader.section.header) has no '\(key)'", fix: "add \(example)", atKey: reader.path)
    }

    mutating func checkKeys(_ reader: TableReader) {
        for key in reader.table.keys where reader.section.key(named: key) == nil {
            let names = reader.section.keyNames
            let fix =
                closestMatch(to: key, among: names).map { "did you mean '\($0)'?" }
                ?? "remove it; \(reader.section.header) takes \(names.joined(separator: ", "))"
            let place = reader.path.isEmpty ? "at \(reader.section.header)" : "in \(reader.section.header)"
            report("unknown key '\(key)' \(place)", fix: fix, atKey: reader.path(of: key))
        }
    }

    // MARK: Typed values

    /// The key's value converted by `convert`, or nil (reported) when it has another type.
    mutating func read<T>(_ key: String, in reader: TableReader, _ convert: (TOMLValueConvertible) -> T?) -> T? {
        guard let value = reader.table[key] else { return nil }
        guard let converted = convert(value) else {
            reportWrongType(key, value, in: reader)
            return nil
        }
        return converted
    }

    mutating func string(_ key: String, in reader: TableReader) -> String? {
        read(key, in: reader) { $0.string }
    }

    mutating func integer(_ key: String, in reader: TableReader) -> Int? {
        read(key, in: reader) { $0.int }
    }

    mutating func boolean(_ key: String, in reader: TableReader) -> Bool? {
        read(key, in: reader) { $0.bool }
    }

    /// An integer or a float; TOML's inf and nan are rejected.
    mutating func number(_ key: String, in reader: TableReader) -> Double? {
        guard let value = read(key, in: reader, { $0.double ?? $0.int.map(Double.init) }) else { return nil }
        guard value.isFinite else {
            report(
                "'\(key)' in \(reader.section.header) must be a finite number",
                fix: "write it like \(reader.section.key(named: key)?.example ?? key)", atValue: reader.path(of: key))
            return nil
        }
        return value
    }

    /// An array whose every item `convert` accepts; an item of another type is reported at the item.
    mutating func array<T>(
        _ key: String, in reader: TableReader, itemKind: String, _ convert: (TOMLValueConvertible) -> T?
    ) -> [T]? {
        guard let array = read(key, in: reader, { $0.array }) else { return nil }
        var items: [T] = []
        var isValid = true
        for (index, item) in array.enumerated() {
            if let converted = convert(item) {
                items.append(converted)
            } else {
                isValid = false
                report(
                    "item \(index + 1) of '\(key)' in \(reader.section.header) must be \(itemKind), not \(phrase(for: item.type))",
                    fix: "write it like \(reader.section.key(named: key)?.example ?? key)",
                    atValue: reader.path(of: key) + [.index(index)])
            }
        }
        return isValid ? items : nil
    }

    /// A table named `key` (or, with `asArray`, an array of tables), checked against its section's keys.
    mutating func subtables(
        _ key: String, in reader: TableReader, section: Schema.Section, asArray: Bool
    ) -> [TableReader] {
        guard let value = reader.table[key] else { return [] }
        let path = reader.path(of: key)
        let header = section.header
        if asArray {
            guard let array = value.array, array.allSatisfy({ $0.table != nil }) else {
                report(
                    "'\(key)' must be an array of tables, not \(phrase(for: value.type))",
                    fix: "write \(header) (double brackets) above each entry's keys", atValue: path)
                return []
            }
            return array.enumerated().map { index, item in
                TableReader(table: item.table!, path: path + [.index(index)], section: section)
            }
        }
        guard let table = value.table else {
            report(
                "'\(key)' must be a table, not \(phrase(for: value.type))",
                fix: "write \(header) on its own line and its keys below it", atValue: path)
            return []
        }
        return [TableReader(table: table, path: path, section: section)]
    }

    // MARK: The document

    mutating func decode(_ root: TOMLTable, defaultName: String) -> BoardConfiguration {
        let top = TableReader(table: root, path: [], section: Schema.topLevel)
        checkKeys(top)

        var name = defaultName
        var summary: String?
        var renderer = RendererSelection.auto
        if let board = subtables("board", in: top, section: Schema.board, asArray: false).first {
            checkKeys(board)
            if let value = string("name", in: board) {
                if value.isEmpty || value.contains("/") {
                    report(
                        "board name '\(value)' is empty or contains '/'",
                        fix: "use the file's name without .toml, e.g. name = \"\(defaultName)\"",
                        atValue: board.path(of: "name"))
                } else {
                    name = value
                }
            }
            summary = string("description", in: board)
            if let value = string("renderer", in: board) {
                if let selection = RendererSelection(rawValue: value) {
                    renderer = selection
                } else {
                    report(
                        "renderer '\(value)' is not one of \(RendererSelection.allCases.map { "'\($0)'" }.joined(separator: ", "))",
                        fix: "use renderer = \"auto\" (Vulkan on a hardware GPU, the CPU renderer otherwise), \"vulkan\" or \"cpu\"",
                        atValue: board.path(of: "renderer"))
                }
            }
        }

        let outputs = decodeOutputs(in: top)
        let connectors = outputs.map(\.connector.description)
        let input = decodeInput(in: top, connectors: connectors)

        var app = AppConfiguration(command: [])
        if let reader = subtables("app", in: top, section: Schema.app, asArray: false).first {
            app = decodeApp(reader)
        } else {
            report(
                "no [app] table: the kiosk has no app to run",
                fix: "add [app] with command = [\"/usr/bin/cog\", \"https://example.com\"]", at: nil)
        }

        var idle = IdleConfiguration()
        if let reader = subtables("idle", in: top, section: Schema.idle, asArray: false).first {
            checkKeys(reader)
            if let seconds = integer("blank-after", in: reader) {
                if (0...604_800).contains(seconds) {
                    idle.blankAfter = seconds == 0 ? nil : .seconds(seconds)
                } else {
                    report(
                        "blank-after \(seconds) is outside 0…604800 seconds",
                        fix: "give the idle time in seconds, e.g. 300 (0 never blanks)",
                        atValue: reader.path(of: "blank-after"))
                }
            }
            idle.wakesOnTouch = boolean("wake-on-touch", in: reader) ?? idle.wakesOnTouch
        }

        var cursor = CursorConfiguration()
        if let reader = subtables("cursor", in: top, section: Schema.cursor, asArray: false).first {
            checkKeys(reader)
            cursor.isVisible = boolean("visible", in: reader) ?? cursor.isVisible
        }

        var splash = SplashConfiguration()
        if let reader = subtables("splash", in: top, section: Schema.splash, asArray: false).first {
            splash = decodeSplash(reader)
        }

        var printer: PrinterConfiguration?
        if let reader = subtables("printer", in: top, section: Schema.printer, asArray: false).first {
            printer = decodePrinter(reader)
        }

        let boardLayouts = onScreenLayouts(of: input.keyboard.layout)
        var keyboard = OnScreenKeyboardSettings(layouts: boardLayouts.isEmpty ? ["us"] : boardLayouts)
        let keyboardReader = subtables("on-screen-keyboard", in: top, section: Schema.onScreenKeyboard, asArray: false).first
        if let keyboardReader {
            keyboard = decodeOnScreenKeyboard(keyboardReader, boardLayout: input.keyboard.layout)
        }
        let privileges = decodePrivileges(in: top)
        if let keyboardReader { checkExternalKeyboardPrivileges(keyboard, privileges, reader: keyboardReader) }

        return BoardConfiguration(
            name: name, summary: summary, renderer: renderer, outputs: outputs, input: input, app: app, idle: idle, cursor: cursor,
            splash: splash, printer: printer, onScreenKeyboard: keyboard, privileges: privileges,
            compatibility: decodeCompatibility(in: top))
    }

    // MARK: Outputs

    mutating func decodeOutputs(in top: TableReader) -> [OutputConfiguration] {
        let readers = subtables("output", in: top, section: Schema.output, asArray: true)
        if readers.isEmpty && top.table["output"] == nil {
            report(
                "no [[output]] table: the kiosk has no display to show the app on",
                fix: "add [[output]] with connector = \"first-connected\" to use the first connected display",
                at: nil)
        }
        var outputs: [OutputConfiguration] = []
        for reader in readers {
            outputs.append(decodeOutput(reader))
        }
        checkOutputRelations(outputs, readers: readers)
        return outputs
    }

    mutating func decodeOutput(_ reader: TableReader) -> OutputConfiguration {
        checkKeys(reader)
        var output = OutputConfiguration(connector: .firstConnected)
        if let connector = string("connector", in: reader) {
            output.connector = decodeConnector(connector, at: reader.path(of: "connector"))
        } else if reader.table["connector"] == nil {
            reportMissing("connector", in: reader)
        }

        let refresh = number("refresh", in: reader)
        if let refresh, !(1...1000).contains(refresh) {
            report(
                "refresh \(formatNumber(refresh)) Hz is outside 1…1000",
                fix: "give the refresh rate in hertz, e.g. 60 or 74.99", atValue: reader.path(of: "refresh"))
        }
        if let mode = string("mode", in: reader) {
            if mode == "preferred" {
                if refresh != nil {
                    report(
                        "refresh needs an explicit mode, but mode is \"preferred\"",
                        fix: "set mode = \"WIDTHxHEIGHT\" as well, or remove refresh",
                        atValue: reader.path(of: "refresh"))
                }
            } else if let size = decodeMode(mode, at: reader.path(of: "mode")) {
                output.mode = .exact(width: size.width, height: size.height, refreshRate: refresh)
            }
        } else if reader.table["mode"] == nil, refresh != nil {
            report(
                "refresh needs an explicit mode",
                fix: "set mode = \"WIDTHxHEIGHT\" as well, or remove refresh", atValue: reader.path(of: "refresh"))
        }

        if let scale = number("scale", in: reader) {
            if (0.5...4).contains(scale) {
                output.scale = scale
            } else {
                report(
                    "scale \(formatNumber(scale)) is outside 0.5…4",
                    fix: "use a scale between 0.5 and 4, such as 1, 1.5 or 2", atValue: reader.path(of: "scale"))
            }
        }

        if let transform = decodeRotation(in: reader) {
            output.transform = transform
        }

        let position = array("position", in: reader, itemKind: "an integer") { $0.int }
        if let position {
            if position.count != 2 {
                report(
                    "position has \(position.count) numbers, not the two of [x, y]",
                    fix: "write it like position = [1920, 0]", atValue: reader.path(of: "position"))
            } else if !position.allSatisfy({ (-32768...32767).contains($0) }) {
                report(
                    "position [\(position[0]), \(position[1])] is outside -32768…32767",
                    fix: "place outputs next to each other, e.g. position = [1920, 0]",
                    atValue: reader.path(of: "position"))
            } else {
                output.placement = .position(x: position[0], y: position[1])
            }
        }
        if let mirror = string("mirror", in: reader) {
            if reader.table["position"] != nil {
                report(
                    "an output cannot both mirror '\(mirror)' and have a position",
                    fix: "remove position (a mirror shows where its source is), or remove mirror to extend the desktop",
                    atKey: reader.path(of: "mirror"))
            } else {
                output.placement = .mirror(of: mirror)
            }
        }
        return output
    }

    static let connectorTypes = [
        "Unknown", "VGA", "DVI-I", "DVI-D", "DVI-A", "Composite", "SVIDEO", "LVDS", "Component", "DIN", "DP",
        "HDMI-A", "HDMI-B", "TV", "eDP", "Virtual", "DSI", "DPI", "Writeback", "SPI", "USB",
    ]

    /// Kernel connector names are `TYPE-N` with a type from drm_connector_enum_list.
    mutating func decodeConnector(_ name: String, at path: ValuePath) -> ConnectorSelection {
        if name == "first-connected" { return .firstConnected }
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        let type = parts.dropLast().joined(separator: "-")
        let index = parts.last.map(String.init) ?? ""
        let hasValidIndex = !index.isEmpty && index.allSatisfy(isDigit) && Int(index).map { $0 >= 1 } == true
        if hasValidIndex && Self.connectorTypes.contains(type) { return .named(name) }

        var suggestion: String?
        if hasValidIndex {
            if type.uppercased() == "HDMI" {
                suggestion = "HDMI-A-\(index)"
            } else if let match = Self.connectorTypes.first(where: { $0.lowercased() == type.lowercased() }) {
                suggestion = "\(match)-\(index)"
            } else if let match = closestMatch(to: type, among: Self.connectorTypes) {
                suggestion = "\(match)-\(index)"
            }
        }
        let convention =
            "the kernel names connectors TYPE-N, such as HDMI-A-1, DP-1, eDP-1, DSI-1 or Virtual-1 "
            + "(ls /sys/class/drm lists them), or use \"first-connected\""
        report(
            "unknown connector '\(name)'",
            fix: suggestion.map { "did you mean '\($0)'? \(convention)" } ?? convention, atValue: path)
        return .named(name)
    }

    mutating func decodeMode(_ text: String, at path: ValuePath) -> (width: Int, height: Int)? {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        if parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isDigit) }),
            let width = Int(parts[0]), let height = Int(parts[1])
        {
            if (1...16384).contains(width) && (1...16384).contains(height) { return (width, height) }
            report(
                "mode '\(text)' is outside 1…16384 pixels per side",
                fix: "use a mode the display lists, e.g. mode = \"1920x1080\"", atValue: path)
            return nil
        }
        if let at = text.firstIndex(of: "@") {
            report(
                "mode '\(text)' is not WIDTHxHEIGHT or \"preferred\"",
                fix: "give the refresh rate its own key: mode = \"\(text[..<at])\" and refresh = \(text[text.index(after: at)...])",
                atValue: path)
        } else {
            report(
                "mode '\(text)' is not WIDTHxHEIGHT or \"preferred\"",
                fix: "write it like mode = \"1920x1080\", or mode = \"preferred\" for the display's own choice",
                atValue: path)
        }
        return nil
    }

    mutating func decodeRotation(in reader: TableReader) -> OutputTransform? {
        guard let value = reader.table["rotation"] else { return nil }
        let fix =
            "use 0, 90, 180 or 270 (degrees counter-clockwise), or \"flipped\", \"flipped-90\", "
            + "\"flipped-180\" or \"flipped-270\""
        if let degrees = value.int {
            if let transform = OutputTransform(rawValue: String(degrees)) { return transform }
            report("unknown rotation \(degrees)", fix: fix, atValue: reader.path(of: "rotation"))
        } else if let name = value.string {
            if let transform = OutputTransform(rawValue: name) { return transform }
            report("unknown rotation '\(name)'", fix: fix, atValue: reader.path(of: "rotation"))
        } else {
            reportWrongType("rotation", value, in: reader)
        }
        return nil
    }

    /// Checks that need all outputs: duplicates, "first-connected" alone, and mirror sources.
    mutating func checkOutputRelations(_ outputs: [OutputConfiguration], readers: [TableReader]) {
        var firstLine: [String: Int] = [:]
        for (output, reader) in zip(outputs, readers) {
            guard reader.table["connector"]?.string != nil else { continue }
            let path = reader.path(of: "connector")
            let name = output.connector.description
            if let line = firstLine[name] {
                report(
                    "connector '\(name)' is configured twice (first at line \(line))",
                    fix: "merge the two [[output]] tables, or change this connector", atValue: path)
            } else {
                firstLine[name] = map.location(ofValueAt: path)?.line ?? 0
            }
            if output.connector == .firstConnected && outputs.count > 1 {
                report(
                    "\"first-connected\" must be the only [[output]]",
                    fix: "name each connector (HDMI-A-1, DSI-1…) when the board has more than one output",
                    atValue: path)
            }
        }
        for (output, reader) in zip(outputs, readers) {
            guard case .mirror(let source) = output.placement else { continue }
            let path = reader.path(of: "mirror")
            let own = output.connector.description
            if source == own {
                report("output '\(own)' cannot mirror itself", fix: "remove mirror", atValue: path)
            } else if let sourceOutput = outputs.first(where: { $0.connector.description == source }) {
                if case .mirror(let sourceOfSource) = sourceOutput.placement {
                    report(
                        "mirror '\(source)' is itself a mirror of '\(sourceOfSource)'",
                        fix: "mirror '\(sourceOfSource)' directly", atValue: path)
                }
            } else {
                let others = outputs.map(\.connector.description).filter { $0 != own }
                let choice = others.isEmpty ? "" : "mirror one of \(others.joined(separator: ", ")), or "
                report(
                    "mirror '\(source)' names no output in this file",
                    fix: "\(choice)add an [[output]] with connector = \"\(source)\"", atValue: path)
            }
        }
        checkOverlaps(outputs, readers: readers)
    }

    /// Outputs placed side by side must not cover each other; the usual mistake is a position in
    /// pixels where logical pixels (the mode divided by the scale) are meant.
    mutating func checkOverlaps(_ outputs: [OutputConfiguration], readers: [TableReader]) {
        let frames = outputs.map(logicalFrame)
        for later in frames.indices {
            guard let frame = frames[later] else { continue }
            for earlier in frames.indices.prefix(later) {
                guard let other = frames[earlier],
                    frame.minX < other.maxX && other.minX < frame.maxX && frame.minY < other.maxY
                        && other.minY < frame.maxY
                else { continue }
                let freeX = frames.indices.filter { $0 != later }.compactMap { frames[$0]?.maxX }.max() ?? 0
                let name = outputs[later].connector.description
                let otherName = outputs[earlier].connector.description
                report(
                    "output '\(name)' at [\(formatNumber(frame.minX)), \(formatNumber(frame.minY))] overlaps "
                        + "'\(otherName)', which covers [\(formatNumber(other.minX)), \(formatNumber(other.minY))] to "
                        + "[\(formatNumber(other.maxX)), \(formatNumber(other.maxY))]",
                    fix: "move it beside the others, e.g. position = [\(formatNumber(freeX.rounded(.up))), 0]: positions are "
                        + "in logical pixels, the mode divided by the scale",
                    atValue: readers[later].path(of: "position"))
                break
            }
        }
    }

    // MARK: Input

    mutating func decodeInput(in top: TableReader, connectors: [String]) -> InputConfiguration {
        var input = InputConfiguration()
        guard let reader = subtables("input", in: top, section: Schema.input, asArray: false).first else {
            return input
        }
        checkKeys(reader)
        if let keyboard = subtables("keyboard", in: reader, section: Schema.keyboard, asArray: false).first {
            input.keyboard = decodeKeyboard(keyboard)
        }
        if let pointer = subtables("pointer", in: reader, section: Schema.pointer, asArray: false).first {
            checkKeys(pointer)
            input.naturalScrolling = boolean("natural-scrolling", in: pointer)
        }
        var firstLine: [String: Int] = [:]
        for touchscreen in subtables("touchscreen", in: reader, section: Schema.touchscreen, asArray: true) {
            guard let mapping = decodeTouchscreen(touchscreen, connectors: connectors) else { continue }
            let path = touchscreen.path(of: "device")
            if let line = firstLine[mapping.deviceName] {
                report(
                    "touchscreen '\(mapping.deviceName)' is mapped twice (first at line \(line))",
                    fix: "keep one [[input.touchscreen]] for this device", atValue: path)
            } else {
                firstLine[mapping.deviceName] = map.location(ofValueAt: path)?.line ?? 0
                input.touchscreens.append(mapping)
            }
        }
        return input
    }

    mutating func decodeKeyboard(_ reader: TableReader) -> KeyboardConfiguration {
        checkKeys(reader)
        var keyboard = KeyboardConfiguration()
        var layoutCount = 1
        if let layout = string("layout", in: reader) {
            let layouts = layout.split(separator: ",", omittingEmptySubsequences: false)
            let isWellFormed = layouts.allSatisfy { name in
                !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
            }
            if !isWellFormed {
                report(
                    "layout '\(layout)' is not a comma-separated list of xkb layout names",
                    fix: "write it like layout = \"us\" or layout = \"de,us\" (names from /usr/share/X11/xkb/rules/evdev.lst)",
                    atValue: reader.path(of: "layout"))
            } else if layouts.count > 4 {
                report(
                    "layout '\(layout)' has \(layouts.count) layouts, but xkb switches among 4 at most",
                    fix: "keep at most 4 comma-separated layouts", atValue: reader.path(of: "layout"))
            } else {
                keyboard.layout = layout
                layoutCount = layouts.count
            }
        }
        if let variant = string("variant", in: reader) {
            let count = variant.split(separator: ",", omittingEmptySubsequences: false).count
            if count > layoutCount {
                report(
                    "variant '\(variant)' has \(count) entries for \(layoutCount) layout\(layoutCount == 1 ? "" : "s")",
                    fix: "give one variant per layout, empty for the layout's default, e.g. variant = \",nodeadkeys\"",
                    atValue: reader.path(of: "variant"))
            } else {
                keyboard.variant = variant
            }
        }
        if let options = array("options", in: reader, itemKind: "a string", { $0.string }) {
            var isValid = true
            for (index, option) in options.enumerated() {
                let parts = option.split(separator: ":", omittingEmptySubsequences: false)
                if parts.count != 2 || parts.contains(where: \.isEmpty) || option.contains(" ") {
                    isValid = false
                    report(
                        "xkb option '\(option)' is not GROUP:NAME",
                        fix: "write it as /usr/share/X11/xkb/rules/evdev.lst lists it, e.g. \"ctrl:nocaps\"",
                        atValue: reader.path(of: "options") + [.index(index)])
                }
            }
            if isValid { keyboard.options = options }
        }
        if let rate = integer("repeat-rate", in: reader) {
            if (0...100).contains(rate) {
                keyboard.repeatRate = rate
            } else {
                report(
                    "repeat-rate \(rate) is outside 0…100",
                    fix: "give key repeats per second, e.g. 25 (0 turns repeat off)",
                    atValue: reader.path(of: "repeat-rate"))
            }
        }
        if let delay = integer("repeat-delay", in: reader) {
            if (1...10_000).contains(delay) {
                keyboard.repeatDelay = .milliseconds(delay)
            } else {
                report(
                    "repeat-delay \(delay) is outside 1…10000 milliseconds",
                    fix: "give the delay before repeating in milliseconds, e.g. 600",
                    atValue: reader.path(of: "repeat-delay"))
            }
        }
        return keyboard
    }

    mutating func decodeTouchscreen(_ reader: TableReader, connectors: [String]) -> TouchscreenMapping? {
        checkKeys(reader)
        let device = string("device", in: reader)
        if reader.table["device"] == nil { reportMissing("device", in: reader) }
        if device == "" {
            report(
                "touchscreen device name is empty",
                fix: "use the name libinput list-devices shows, e.g. device = \"raspberrypi-ts\"",
                atValue: reader.path(of: "device"))
        }
        let output = string("output", in: reader)
        if reader.table["output"] == nil { reportMissing("output", in: reader) }
        if let output, !connectors.contains(output) {
            report(
                "touchscreen output '\(output)' names no output in this file",
                fix: connectors.isEmpty
                    ? "add an [[output]] with connector = \"\(output)\""
                    : "map it to one of \(connectors.joined(separator: ", "))",
                atValue: reader.path(of: "output"))
        }
        var calibration = CalibrationMatrix.identity
        if let numbers = array("calibration", in: reader, itemKind: "a number", { $0.double ?? $0.int.map(Double.init) }) {
            calibration = decodeCalibration(numbers, at: reader.path(of: "calibration")) ?? calibration
        }
        guard let device, !device.isEmpty, let output else { return nil }
        return TouchscreenMapping(deviceName: device, output: output, calibration: calibration)
    }

    /// Six numbers (the first two rows), or nine whose last row is 0, 0, 1: libinput takes affine
    /// matrices only.
    mutating func decodeCalibration(_ numbers: [Double], at path: ValuePath) -> CalibrationMatrix? {
        guard numbers.count == 6 || numbers.count == 9 else {
            report(
                "calibration has \(numbers.count) numbers, not 6 (3×2) or 9 (3×3)",
                fix: "write the first two rows, e.g. calibration = [1, 0, 0, 0, 1, 0] for no change",
                atValue: path)
            return nil
        }
        guard numbers.allSatisfy(\.isFinite) else {
            report(
                "calibration holds inf or nan", fix: "use finite numbers, e.g. [1, 0, 0, 0, 1, 0]", atValue: path)
            return nil
        }
        if numbers.count == 9 && Array(numbers[6...]) != [0, 0, 1] {
            report(
                "calibration's last row is [\(numbers[6...].map(formatNumber).joined(separator: ", "))], not [0, 0, 1]",
                fix: "libinput applies affine matrices only: make the last row 0, 0, 1 or give just the first two rows",
                atValue: path)
            return nil
        }
        return CalibrationMatrix(a: numbers[0], b: numbers[1], c: numbers[2], d: numbers[3], e: numbers[4], f: numbers[5])
    }

    // MARK: Privileges

    mutating func decodePrivileges(in top: TableReader) -> [PrivilegeGrant] {
        var grants: [PrivilegeGrant] = []
        var firstLine: [PrivilegeGrant.Subject: Int] = [:]
        for reader in subtables("privilege", in: top, section: Schema.privilege, asArray: true) {
            checkKeys(reader)
            let subject = decodeClientSubject(reader, table: "[[privilege]]")
            let privileges = decodeGrant(reader)
            guard let subject, let privileges else { continue }
            if let line = firstLine[subject] {
                report(
                    "\(subject) has a [[privilege]] already (line \(line))",
                    fix: "merge the two tables' grant lists into one", atKey: reader.path)
            } else {
                firstLine[subject] = map.location(ofKeyAt: reader.path)?.line ?? 0
                grants.append(PrivilegeGrant(subject, privileges: privileges))
            }
        }
        return grants
    }

    /// The clients with older protocol versions: one table per executable or user, each with
    /// `xdg-shell = 4`, the only older version offered.
    mutating func decodeCompatibility(in top: TableReader) -> [ClientCompatibility] {
        var entries: [ClientCompatibility] = []
        for reader in subtables("compatibility", in: top, section: Schema.compatibility, asArray: true) {
            checkKeys(reader)
            let subject = decodeClientSubject(reader, table: "[[compatibility]]")
            guard reader.table["xdg-shell"] != nil else {
                reportMissing("xdg-shell", in: reader)
                continue
            }
            guard let version = integer("xdg-shell", in: reader) else { continue }
            guard version == 4 else {
                report(
                    "xdg-shell = \(version) is not offered",
                    fix: "use 4, the newest version without wm_capabilities (every other client gets 6)",
                    atValue: reader.path(of: "xdg-shell"))
                continue
            }
            guard let subject else { continue }
            if entries.contains(where: { $0.subject == subject }) {
                report("\(subject) has a [[compatibility]] already", fix: "remove one of the two tables", atKey: reader.path)
            } else {
                entries.append(ClientCompatibility(subject))
            }
        }
        return entries
    }

    /// The executable or the user a `[[privilege]]` or `[[compatibility]]` names: one of them.
    mutating func decodeClientSubject(_ reader: TableReader, table: String) -> PrivilegeGrant.Subject? {
        let executable = string("executable", in: reader)
        let user = string("user", in: reader)
        switch (reader.table["executable"] != nil, reader.table["user"] != nil) {
        case (false, false):
            report(
                "\(table) names neither an executable nor a user",
                fix: "add executable = \"/usr/bin/wayvnc\" or user = \"remote\"", atKey: reader.path)
            return nil
        case (true, true):
            report(
                "\(table) names both an executable and a user",
                fix: "split it into two \(table) tables, one for each", atKey: reader.path(of: "user"))
            return nil
        default:
            break
        }
        if let executable {
            guard executable.hasPrefix("/"), !executable.hasSuffix("/"), !executable.contains("\0") else {
                report(
                    "executable '\(executable)' is not an absolute path to a file",
                    fix: "give the program's full path, e.g. executable = \"/usr/bin/wayvnc\" (symbolic links are followed)",
                    atValue: reader.path(of: "executable"))
                return nil
            }
            return .executable(executable)
        }
        if let user {
            guard isValidUserName(user) else {
                report(
                    "user '\(user)' is not a valid user name",
                    fix: "use a system user such as \"remote\": lower-case letters, digits, '_' and '-'",
                    atValue: reader.path(of: "user"))
                return nil
            }
            return .user(user)
        }
        return nil
    }

    /// The privileges a `[[privilege]]` grants: known names, each once, at least one.
    mutating func decodeGrant(_ reader: TableReader) -> [GrantedPrivilege]? {
        guard reader.table["grant"] != nil else {
            reportMissing("grant", in: reader)
            return nil
        }
        guard let names = array("grant", in: reader, itemKind: "a string", { $0.string }) else { return nil }
        let known = GrantedPrivilege.allCases.map(\.rawValue)
        guard !names.isEmpty else {
            report(
                "grant is empty: the [[privilege]] grants nothing",
                fix: "list what it may use, among \(known.map { "\"\($0)\"" }.joined(separator: ", "))",
                atValue: reader.path(of: "grant"))
            return nil
        }
        var privileges: [GrantedPrivilege] = []
        var isValid = true
        for (index, name) in names.enumerated() {
            let path = reader.path(of: "grant") + [.index(index)]
            guard let privilege = GrantedPrivilege(rawValue: name) else {
                isValid = false
                report(
                    "'\(name)' is not a privilege",
                    fix: closestMatch(to: name, among: known).map { "did you mean '\($0)'?" }
                        ?? "use one of \(known.map { "'\($0)'" }.joined(separator: ", "))",
                    atValue: path)
                continue
            }
            if privileges.contains(privilege) {
                isValid = false
                report("'\(name)' is granted twice", fix: "list it once", atValue: path)
            } else {
                privileges.append(privilege)
            }
        }
        return isValid ? privileges : nil
    }

    // MARK: App and splash

    static let variablesVitrineSets = ["WAYLAND_DISPLAY", "WAYLAND_SOCKET", "XDG_RUNTIME_DIR", "DISPLAY", "NOTIFY_SOCKET"]

    mutating func decodeApp(_ reader: TableReader) -> AppConfiguration {
        checkKeys(reader)
        var app = AppConfiguration(command: [])
        if let command = array("command", in: reader, itemKind: "a string", { $0.string }) {
            if command.first?.isEmpty ?? true {
                report(
                    command.isEmpty ? "command is empty" : "command's program is empty",
                    fix: "write the program and its arguments, e.g. command = [\"/usr/bin/cog\", \"https://example.com\"]",
                    atValue: reader.path(of: "command"))
            } else {
                app.command = command
            }
        } else if reader.table["command"] == nil {
            reportMissing("command", in: reader)
        }

        if let value = reader.table["environment"] {
            let path = reader.path(of: "environment")
            if let table = value.table {
                for name in table.keys {
                    let variablePath = path + [.key(name)]
                    let isValidName =
                        name.first.map { $0.isASCII && ($0.isLetter || $0 == "_") } == true
                        && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                    if !isValidName {
                        report(
                            "environment variable name '\(name)' is not valid",
                            fix: "use letters, digits and underscores, not starting with a digit",
                            atKey: variablePath)
                    } else if Self.variablesVitrineSets.contains(name) {
                        report(
                            "environment sets \(name), which Vitrine sets for the app",
                            fix: "remove it: Vitrine gives the app its own Wayland socket, runtime directory and X display",
                            atKey: variablePath)
                    } else if let text = table[name]?.string {
                        app.environment[name] = text
                    } else {
                        let type = table[name].map { phrase(for: $0.type) } ?? "nothing"
                        report(
                            "environment variable \(name) must be a string, not \(type)",
                            fix: "quote the value, e.g. \(name) = \"value\"", atValue: variablePath)
                    }
                }
            } else {
                reportWrongType("environment", value, in: reader)
            }
        }

        if let directory = string("working-directory", in: reader) {
            if directory.hasPrefix("/") {
                app.workingDirectory = directory
            } else {
                report(
                    "working-directory '\(directory)' is not an absolute path",
                    fix: "write the full path, e.g. working-directory = \"/var/lib/vitrine\"",
                    atValue: reader.path(of: "working-directory"))
            }
        }

        if let user = string("user", in: reader) {
            if isValidUserName(user) {
                app.user = user
            } else {
                report(
                    "user '\(user)' is not a valid user name",
                    fix: "use a system user such as \"kiosk\": lower-case letters, digits, '_' and '-'",
                    atValue: reader.path(of: "user"))
            }
        }

        if let seconds = integer("unresponsive-after", in: reader) {
            if (1...3600).contains(seconds) {
                app.unresponsiveTimeout = .seconds(seconds)
            } else {
                report(
                    "unresponsive-after \(seconds) is outside 1…3600 seconds",
                    fix: "give the seconds an app may leave a ping unanswered, e.g. 10",
                    atValue: reader.path(of: "unresponsive-after"))
            }
        }
        if let seconds = integer("no-frame-after", in: reader) {
            if (0...86_400).contains(seconds) {
                app.frameTimeout = seconds == 0 ? nil : .seconds(seconds)
            } else {
                report(
                    "no-frame-after \(seconds) is outside 0…86400 seconds",
                    fix: "give the seconds an app may go without a new frame, or 0 to never restart it for that",
                    atValue: reader.path(of: "no-frame-after"))
            }
        }
        app.x11 = boolean("x11", in: reader) ?? app.x11
        if let fit = string("fit", in: reader) {
            if let value = WindowFit(rawValue: fit) {
                app.fit = value
            } else {
                report(
                    "fit '\(fit)' is not a way Vitrine fits windows to the output",
                    fix: "use one of " + WindowFit.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                        + ": centred at the window's size, scaled to fit, or scaled to fill and cropped",
                    atValue: reader.path(of: "fit"))
            }
        }
        return app
    }

    mutating func decodePrinter(_ reader: TableReader) -> PrinterConfiguration? {
        checkKeys(reader)
        var printer = PrinterConfiguration(queue: "")
        if let queue = string("queue", in: reader) {
            // CUPS names are printable, without spaces, slashes or '#' (lpadmin's rule).
            if queue.isEmpty || queue.count > 127 || queue.contains(where: { $0 == " " || $0 == "/" || $0 == "#" || $0.isNewline }) {
                report(
                    "printer queue '\(queue)' is not a CUPS destination name",
                    fix: "use the name lpstat -p shows, e.g. queue = \"ticket\" (no spaces, '/' or '#')",
                    atValue: reader.path(of: "queue"))
            } else {
                printer.queue = queue
            }
        } else if reader.table["queue"] == nil {
            reportMissing("queue", in: reader)
        }
        if let server = string("server", in: reader) {
            if server.isEmpty {
                report("printer server is empty", fix: "remove server to use CUPS's default, or name its socket or host", atValue: reader.path(of: "server"))
            } else {
                printer.server = server
            }
        }
        if let paper = string("paper", in: reader) {
            if let value = PrinterConfiguration.Paper(rawValue: paper) {
                printer.paper = value
            } else {
                report(
                    "paper '\(paper)' is not one Vitrine lays pages out for",
                    fix: "use one of " + PrinterConfiguration.Paper.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "),
                    atValue: reader.path(of: "paper"))
            }
        }
        return printer.queue.isEmpty ? nil : printer
    }

    mutating func decodeSplash(_ reader: TableReader) -> SplashConfiguration {
        checkKeys(reader)
        var splash = SplashConfiguration()
        if let image = string("image", in: reader) {
            if !image.hasPrefix("/") {
                report(
                    "splash image '\(image)' is not an absolute path",
                    fix: "write the full path, e.g. image = \"/usr/share/vitrine/splash.png\"",
                    atValue: reader.path(of: "image"))
            } else if !image.lowercased().hasSuffix(".png") {
                report(
                    "splash image '\(image)' is not a .png file",
                    fix: "convert it to PNG: Vitrine draws PNG images", atValue: reader.path(of: "image"))
            } else {
                splash.imagePath = image
            }
        }
        if let background = string("background", in: reader) {
            if let color = RGBColor(hex: background) {
                splash.backgroundColor = color
            } else {
                report(
                    "background '\(background)' is not a #RRGGBB colour",
                    fix: "write it like background = \"#1D3557\"", atValue: reader.path(of: "background"))
            }
        }
        if let animation = string("animation", in: reader) {
            if let value = SplashConfiguration.Animation(rawValue: animation) {
                splash.animation = value
            } else {
                report(
                    "splash animation '\(animation)' is not one Vitrine draws",
                    fix: "use one of " + SplashConfiguration.Animation.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "),
                    atValue: reader.path(of: "animation"))
            }
        }
        return splash
    }

    /// The layouts default to those of the board's [input.keyboard] layouts that the keyboard
    /// draws, in their order, so the keys on screen match the physical keyboard's.
    mutating func decodeOnScreenKeyboard(_ reader: TableReader, boardLayout: String) -> OnScreenKeyboardSettings {
        checkKeys(reader)
        let boardLayouts = onScreenLayouts(of: boardLayout)
        var keyboard = OnScreenKeyboardSettings(layouts: boardLayouts.isEmpty ? ["us"] : boardLayouts)
        keyboard.isEnabled = boolean("enabled", in: reader) ?? keyboard.isEnabled
        decodeKeyboardChoice(reader, into: &keyboard)
        guard keyboard.keyboard == .builtIn else { return keyboard }
        let supported = OnScreenKeyboardSettings.layouts.map { "\"\($0)\"" }.joined(separator: ", ")
        if let layouts = array("layouts", in: reader, itemKind: "a string", { $0.string }) {
            var isValid = true
            for (index, layout) in layouts.enumerated() {
                let problem: (String, String)? =
                    if !OnScreenKeyboardSettings.layouts.contains(layout) {
                        ("the on-screen keyboard has no layout '\(layout)'", "use one of \(supported)")
                    } else if layouts[..<index].contains(layout) {
                        ("layout '\(layout)' is listed twice", "list each layout once")
                    } else { nil }
                if let (message, fix) = problem {
                    isValid = false
                    report(message, fix: fix, atValue: reader.path(of: "layouts") + [.index(index)])
                }
            }
            if layouts.isEmpty {
                report(
                    "layouts is empty", fix: "list at least one layout, e.g. layouts = [\"us\"]", atValue: reader.path(of: "layouts"))
            } else if isValid {
                keyboard.layouts = layouts
            }
        } else if keyboard.isEnabled, boardLayouts.isEmpty {
            report(
                "the on-screen keyboard has none of the [input.keyboard] layouts '\(boardLayout)' it defaults to",
                fix: "set layouts to some of \(supported) in [on-screen-keyboard]", atKey: reader.path)
        }
        if let share = number("height-share", in: reader) {
            if (0.1...0.7).contains(share) {
                keyboard.heightShare = share
            } else {
                report(
                    "height-share \(share) is outside 0.1…0.7", fix: "give the share of the output's height, e.g. height-share = 0.4",
                    atValue: reader.path(of: "height-share"))
            }
        }
        keyboard.hidesWhenKeyboardAttached = boolean("hide-when-keyboard-attached", in: reader) ?? keyboard.hidesWhenKeyboardAttached
        let colors: [(String, WritableKeyPath<OnScreenKeyboardSettings, RGBColor?>)] = [
            ("background", \.background), ("key-color", \.keyColor), ("special-key-color", \.specialKeyColor),
            ("text-color", \.textColor), ("pressed-color", \.pressedColor),
        ]
        for (key, path) in colors {
            guard let text = string(key, in: reader) else { continue }
            if let color = RGBColor(hex: text) {
                keyboard[keyPath: path] = color
            } else {
                report(
                    "\(key) '\(text)' is not a #RRGGBB colour",
                    fix: "write it like \(key) = \"#45474D\"", atValue: reader.path(of: key))
            }
        }
        return keyboard
    }
}

extension ConfigurationDecoder {
    /// The keys that only Vitrine's own keyboard reads.
    static let builtInKeyboardKeys = [
        "layouts", "height-share", "hide-when-keyboard-attached", "background", "key-color", "special-key-color", "text-color",
        "pressed-color",
    ]
    /// What an external keyboard needs granted: the layer shell to show itself, and virtual input
    /// to type (squeekboard and wvkbd both exit without a virtual keyboard manager).
    static let externalKeyboardGrants: [GrantedPrivilege] = [.layerShell, .virtualInput]

    /// `keyboard` ("built-in" or "external") and, for an external one, its `command`: a program
    /// given by absolute path (Vitrine grants privileges by it), and none of the built-in
    /// keyboard's keys; a built-in one takes no command.
    mutating func decodeKeyboardChoice(_ reader: TableReader, into settings: inout OnScreenKeyboardSettings) {
        let choices = OnScreenKeyboardSettings.Keyboard.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
        if let name = string("keyboard", in: reader) {
            if let keyboard = OnScreenKeyboardSettings.Keyboard(rawValue: name) {
                settings.keyboard = keyboard
            } else {
                report("keyboard '\(name)' is neither of \(choices)", fix: "use \(choices)", atValue: reader.path(of: "keyboard"))
            }
        }
        let command = array("command", in: reader, itemKind: "a string", { $0.string })
        guard settings.keyboard == .external else {
            if reader.table["command"] != nil {
                report(
                    "command is for an external keyboard; the built-in one is Vitrine's own",
                    fix: "remove command, or set keyboard = \"external\"", atKey: reader.path(of: "command"))
            }
            return
        }
        for key in Self.builtInKeyboardKeys where reader.table[key] != nil {
            report(
                "\(key) is for the built-in keyboard; the external one ignores it",
                fix: "remove \(key), or configure it in the external keyboard's own settings", atKey: reader.path(of: key))
        }
        if let command {
            if let program = command.first, program.hasPrefix("/") {
                settings.externalCommand = command
            } else {
                report(
                    command.isEmpty ? "command is empty" : "the external keyboard's program '\(command[0])' is not an absolute path",
                    fix: "write the program's absolute path and its arguments, e.g. command = [\"/usr/bin/squeekboard\"]",
                    atValue: reader.path(of: "command"))
            }
        } else if reader.table["command"] == nil {
            report(
                "an external keyboard needs a command, which Vitrine starts beside the app",
                fix: "add command = [\"/usr/bin/squeekboard\"] (or wvkbd's, or another keyboard's)", atKey: reader.path)
        }
    }

    /// An enabled external keyboard must be granted what it needs by the `[[privilege]]` table
    /// of its program or by a user table (which may be its user's; Vitrine cannot tell before it runs).
    mutating func checkExternalKeyboardPrivileges(
        _ settings: OnScreenKeyboardSettings, _ grants: [PrivilegeGrant], reader: TableReader
    ) {
        guard settings.isEnabled, settings.keyboard == .external, let program = settings.externalCommand.first else { return }
        var granted: Set<GrantedPrivilege> = []
        for grant in grants {
            switch grant.subject {
            case .executable(let path) where path == program: granted.formUnion(grant.privileges)
            case .user: granted.formUnion(grant.privileges)
            default: break
            }
        }
        let missing = Self.externalKeyboardGrants.filter { !granted.contains($0) }
        guard !missing.isEmpty else { return }
        let names = missing.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        let all = (Self.externalKeyboardGrants + [.inputMethod]).map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        report(
            "the external keyboard \(program) is not granted \(names): it could not show itself or type",
            fix: "add a [[privilege]] with executable = \"\(program)\" and grant = [\(all)]", atValue: reader.path(of: "command"))
    }
}

// MARK: - Helpers

/// Those of the comma-separated xkb layouts that the on-screen keyboard draws, in order.
/// useradd's rule on Debian (NAME_REGEX), less the rarely used trailing '$'.
private func isValidUserName(_ name: String) -> Bool {
    (1...32).contains(name.count)
        && name.first.map { $0.isASCII && ($0.isLowercase || $0 == "_") } == true
        && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_" || $0 == "-") }
}

private func onScreenLayouts(of xkbLayouts: String) -> [String] {
    xkbLayouts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { OnScreenKeyboardSettings.layouts.contains($0) }
}

/// Where an output lies in the global space when the file alone decides it (an exact mode at an
/// explicit position): the mode turned by the rotation and divided by the scale.
private func logicalFrame(of output: OutputConfiguration) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
    guard case .position(let x, let y) = output.placement, case .exact(let width, let height, _) = output.mode
    else { return nil }
    let isSideways = output.transform.degrees % 180 == 90
    let logicalWidth = Double(isSideways ? height : width) / output.scale
    let logicalHeight = Double(isSideways ? width : height) / output.scale
    return (Double(x), Double(y), Double(x) + logicalWidth, Double(y) + logicalHeight)
}

private func phrase(for type: TOMLType) -> String {
    switch type {
    case .string: "a string"
    case .int: "an integer"
    case .double: "a floating-point number"
    case .bool: "a boolean"
    case .array: "an array"
    case .table: "a table"
    case .date: "a date"
    case .time: "a time"
    case .dateTime: "a date-time"
    }
}

private func isDigit(_ character: Character) -> Bool {
    character.isASCII && character.isNumber
}


/// The candidate a misspelling most likely meant: one that starts with it or it starts with (at
/// least three letters), or the nearest by edit distance within a budget that grows with length.
func closestMatch(to word: String, among candidates: [String]) -> String? {
    let lowered = word.lowercased()
    if lowered.count >= 3,
        let prefixed = candidates.first(where: {
            let candidate = $0.lowercased()
            return candidate.count >= 3 && (lowered.hasPrefix(candidate) || candidate.hasPrefix(lowered))
        })
    {
        return prefixed
    }
    let budget = lowered.count <= 4 ? 1 : lowered.count <= 8 ? 3 : 4
    let scored = candidates.map { ($0, editDistance(lowered, $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= budget else { return nil }
    return best.0
}

/// Levenshtein distance.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    var previous = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...max(b.count, 1) where !b.isEmpty {
            current[j] = min(
                previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
