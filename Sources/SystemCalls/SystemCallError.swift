import Glibc
public import SystemPackage

/// A failed system call (or a C library call that reports through errno): what was attempted, on
/// what, and swift-system's `Errno`. Every module reports system failures with this one type, and
/// errno is read in one place, `current(_:path:)`.
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    public let operation: String
    /// The file or socket the call was about, when there is one worth naming.
    public let path: String?
    public let errno: Errno

    public init(_ operation: String, path: String? = nil, errno: Errno) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// The error of a call that has just failed and set errno.
    public static func current(_ operation: String, path: String? = nil) -> SystemCallError {
        SystemCallError(operation, path: path, errno: Errno(rawValue: Glibc.errno))
    }

    /// Throws the error of a call that returned -1 and set errno; returns any other result.
    @discardableResult
    public static func check<Result: FixedWidthInteger & SignedInteger>(
        _ result: Result, _ operation: @autoclosure () -> String, path: String? = nil
    ) throws(SystemCallError) -> Result {
        guard result == -1 else { return result }
        throw current(operation(), path: path)
    }

    /// Throws for a call that reports failure as a negative errno (libdrm, libseat, libinput's
    /// open callbacks), or as -1 with errno set.
    public static func checkNegativeErrno(_ result: Int32, _ operation: @autoclosure () -> String, path: String? = nil) throws(SystemCallError) {
        guard result < 0 else { return }
        if result == -1 { throw current(operation(), path: path) }
        throw SystemCallError(operation(), path: path, errno: Errno(rawValue: -result))
    }

    /// Runs swift-system calls (which throw `Errno`), naming what failed.
    public static func attempt<Result>(
        _ operation: String, path: String? = nil, _ body: () throws -> Result
    ) throws(SystemCallError) -> Result {
        do {
            return try body()
        } catch {
            // swift-system throws nothing but Errno.
            throw SystemCallError(operation, path: path, errno: error as? Errno ?? .ioError)
        }
    }

    public var description: String {
        let subject = path.map { "\(operation) \($0)" } ?? operation
        return "\(subject) failed: \(errno) (errno \(errno.rawValue))"
    }
}
