/// One step on the way from the document's root to a value: a key of a table, or an index into an
/// array (arrays of tables included).
enum PathComponent: Hashable {
    case key(String)
    case index(Int)
}

typealias ValuePath = [PathComponent]

struct SourceLocation: Equatable {
    var line: Int
    var column: Int
}

/// Where each key and value of a TOML document is written. TOMLKit gives values but not their
/// positions, so this scans the text again, after TOMLKit has accepted it: the scanner relies on
/// the document being valid TOML and only follows its structure (headers, keys, strings, arrays,
/// inline tables, comments), resolving `[[array]]` headers to element indices as TOML does.
struct SourceMap {
    /// Where the key (or the table's header) that introduces each path is, first mention first.
    private(set) var keys: [ValuePath: SourceLocation] = [:]
    /// Where each value starts (for a table from a header: the header).
    private(set) var values: [ValuePath: SourceLocation] = [:]

    init(scanning text: String) {
        var scanner = Scanner(text: text)
        scanner.scanDocument()
        keys = scanner.keys
        values = scanner.values
    }

    /// The value's place, else its key's, else the nearest enclosing table's.
    func location(ofValueAt path: ValuePath) -> SourceLocation? {
        values[path] ?? location(ofKeyAt: path)
    }

    /// The key's place, else the nearest enclosing table's.
    func location(ofKeyAt path: ValuePath) -> SourceLocation? {
        var path = path
        while !path.isEmpty {
            if let location = keys[path] { return location }
            path.removeLast()
        }
        return nil
    }
}

private struct Scanner {
    let scalars: [Unicode.Scalar]
    var offset = 0
    var line = 1
    var column = 1
    var table: ValuePath = []
    var arrayTableCounts: [ValuePath: Int] = [:]
    var keys: [ValuePath: SourceLocation] = [:]
    var values: [ValuePath: SourceLocation] = [:]

    init(text: String) {
        scalars = Array(text.unicodeScalars)
    }

    var peek: Unicode.Scalar? { offset < scalars.count ? scalars[offset] : nil }
    var location: SourceLocation { SourceLocation(line: line, column: column) }

    func peek(ahead distance: Int) -> Unicode.Scalar? {
        offset + distance < scalars.count ? scalars[offset + distance] : nil
    }

    mutating func advance() {
        guard let scalar = peek else { return }
        if scalar == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
        offset += 1
    }

    mutating func scanDocument() {
        while let scalar = peek {
            switch scalar {
            case " ", "\t", "\r", "\n": advance()
            case "#": skipComment()
            case "[": scanHeader()
            default: scanKeyValue(in: table)
            }
        }
    }

    mutating func skipComment() {
        while let scalar = peek, scalar != "\n" { advance() }
    }

    mutating func skipBlanks() {
        while peek == " " || peek == "\t" { advance() }
    }

    mutating func skipBlanksCommentsAndNewlines() {
        while let scalar = peek {
            switch scalar {
            case " ", "\t", "\r", "\n": advance()
            case "#": skipComment()
            default: return
            }
        }
    }

    mutating func record(key path: ValuePath, at location: SourceLocation) {
        if keys[path] == nil { keys[path] = location }
    }

    /// `[a.b]` or `[[a.b]]`: every array of tables on the way stands for its latest element.
    mutating func scanHeader() {
        let start = location
        advance()
        let isArrayOfTables = peek == "["
        if isArrayOfTables { advance() }
        skipBlanks()
        let names = scanDottedKey()
        skipBlanks()
        advance()
        if isArrayOfTables { advance() }

        var resolved: ValuePath = []
        for (position, name) in names.enumerated() {
            resolved.append(.key(name))
            record(key: resolved, at: start)
            if isArrayOfTables && position == names.count - 1 {
                let index = arrayTableCounts[resolved, default: 0]
                arrayTableCounts[resolved] = index + 1
                if values[resolved] == nil { values[resolved] = start }
                resolved.append(.index(index))
                record(key: resolved, at: start)
            } else if let count = arrayTableCounts[resolved] {
                resolved.append(.index(count - 1))
            }
        }
        keys[resolved] = start
        values[resolved] = start
        table = resolved
    }

    mutating func scanKeyValue(in base: ValuePath) {
        let start = location
        let names = scanDottedKey()
        skipBlanks()
        if peek == "=" { advance() }
        skipBlanks()
        var path = base
        for name in names {
            path.append(.key(name))
            record(key: path, at: start)
        }
        scanValue(at: path)
    }

    mutating func scanValue(at path: ValuePath) {
        if values[path] == nil { values[path] = location }
        switch peek {
        case "\"": _ = scanString(quote: "\"")
        case "'": _ = scanString(quote: "'")
        case "[": scanArray(at: path)
        case "{": scanInlineTable(at: path)
        default: scanScalar()
        }
    }

    /// Numbers, booleans, dates and times: up to the next delimiter. A local date-time may have a
    /// space between date and time (`1979-05-27 07:32:00`).
    mutating func scanScalar() {
        var token = ""
        while let scalar = peek {
            if scalar == " ", token.count == 10, token.contains("-"), let next = peek(ahead: 1),
                ("0"..."9").contains(next)
            {
                token.unicodeScalars.append(scalar)
                advance()
                continue
            }
            if [" ", "\t", "\r", "\n", ",", "]", "}", "#"].contains(scalar) { return }
            token.unicodeScalars.append(scalar)
            advance()
        }
    }

    mutating func scanArray(at path: ValuePath) {
        advance()
        var index = 0
        while peek != nil {
            skipBlanksCommentsAndNewlines()
            if peek == "]" {
                advance()
                return
            }
            let before = offset
            scanValue(at: path + [.index(index)])
            skipBlanksCommentsAndNewlines()
            if peek == "," {
                advance()
                index += 1
            } else if offset == before {
                advance()
            }
        }
    }

    mutating func scanInlineTable(at path: ValuePath) {
        advance()
        while peek != nil {
            skipBlanksCommentsAndNewlines()
            if peek == "}" {
                advance()
                return
            }
            let before = offset
            scanKeyValue(in: path)
            skipBlanksCommentsAndNewlines()
            if peek == "," {
                advance()
            } else if offset == before {
                advance()
            }
        }
    }

    /// `a.b."c d".'e'`, with blanks allowed around the dots.
    mutating func scanDottedKey() -> [String] {
        var names: [String] = []
        while true {
            skipBlanks()
            switch peek {
            case "\"": names.append(scanString(quote: "\""))
            case "'": names.append(scanString(quote: "'"))
            default:
                var name = ""
                while let scalar = peek, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || scalar == "_" || scalar == "-"
                {
                    name.unicodeScalars.append(scalar)
                    advance()
                }
                names.append(name)
            }
            skipBlanks()
            guard peek == "." else { return names }
            advance()
        }
    }

    /// A basic ("…", """…""") or literal ('…', '''…''') string; returns its value, escapes decoded
    /// (needed exactly only for quoted keys).
    mutating func scanString(quote: Unicode.Scalar) -> String {
        let isMultiline = peek(ahead: 1) == quote && peek(ahead: 2) == quote
        for _ in 0..<(isMultiline ? 3 : 1) { advance() }
        var value = ""
        while let scalar = peek {
            if scalar == quote {
                if !isMultiline {
                    advance()
                    return value
                }
                if peek(ahead: 1) == quote && peek(ahead: 2) == quote {
                    // Up to two more quotes right before the closing three belong to the string.
                    var run = 0
                    while peek(ahead: run) == quote { run += 1 }
                    for _ in 0..<min(run - 3, 2) { value.unicodeScalars.append(quote) }
                    for _ in 0..<run { advance() }
                    return value
                }
            }
            if scalar == "\\" && quote == "\"" {
                advance()
                value += scanEscape()
                continue
            }
            value.unicodeScalars.append(scalar)
            advance()
        }
        return value
    }

    mutating func scanEscape() -> String {
        guard let scalar = peek else { return "" }
        advance()
        switch scalar {
        case "b": return "\u{8}"
        case "t": return "\t"
        case "n": return "\n"
        case "f": return "\u{C}"
        case "r": return "\r"
        case "e": return "\u{1B}"
        case "u", "U":
            var digits = ""
            for _ in 0..<(scalar == "u" ? 4 : 8) {
                guard let digit = peek else { break }
                digits.unicodeScalars.append(digit)
                advance()
            }
            return UInt32(digits, radix: 16).flatMap(Unicode.Scalar.init).map { String($0) } ?? ""
        case " ", "\t", "\r", "\n":
            // A line-ending backslash (multi-line strings only): the line break and the blanks
            // around it vanish.
            while let next = peek, [" ", "\t", "\r", "\n"].contains(next) { advance() }
            return ""
        default: return String(scalar)
        }
    }
}
