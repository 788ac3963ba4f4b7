/// One problem found in a board configuration file, with where it is and how to fix it.
public struct ConfigurationDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based; nil when the problem is the file as a whole (unreadable, or a required table missing).
    public var line: Int?
    /// 1-based, in characters; nil when not known.
    public var column: Int?
    public var message: String
    /// What to change, phrased as an instruction.
    public var fix: String

    public init(file: String, line: Int?, column: Int? = nil, message: String, fix: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.fix = fix
    }

    /// `FILE:LINE:COLUMN: error: MESSAGE (fix: FIX)`, the form compilers use, so that editors and
    /// terminals link it to the place.
    public var description: String {
        var place = file
        if let line {
            place += ":\(line)"
            if let column { place += ":\(column)" }
        }
        return "\(place): error: \(message) (fix: \(fix))"
    }
}

/// The reason a board configuration was rejected: every problem found, in file order.
public struct BoardConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var diagnostics: [ConfigurationDiagnostic]

    public init(diagnostics: [ConfigurationDiagnostic]) {
        self.diagnostics = diagnostics
    }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
