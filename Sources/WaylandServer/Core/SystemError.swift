import Glibc

/// An errno-carrying failure of a system or libwayland call: the one place errno is translated.
public struct SystemError: Error, CustomStringConvertible, Equatable {
    public let operation: String
    public let code: Int32

    public init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    /// Captures errno right after a failed call.
    static func current(operation: String) -> SystemError {
        SystemError(operation: operation, code: errno)
    }

    public var description: String {
        "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}
