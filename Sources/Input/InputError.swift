public import SystemCalls

/// Why an input context or device could not be set up or read.
public enum InputError: Error, Equatable, CustomStringConvertible {
    /// A system call failed (on the node named in the error, if any).
    case system(SystemCallError)
    /// The path exists but is not an evdev node (`/dev/input/eventN`); `reason` says what it is.
    case notAnInputDevice(path: String, reason: String)
    /// libinput opened the node but would not take it as a device; `reason` is its own message.
    case deviceRejected(path: String, reason: String)
    /// libinput could not create a context or attach to the seat.
    case contextUnavailable(reason: String)
    /// Adding and removing devices by path works only on a context made with `init(devicePaths:)`.
    case requiresPathMode(operation: String)
    /// No device with this identifier is present (it was removed, or belongs to another context).
    case unknownDevice(InputDeviceID)
    /// A calibration matrix needs exactly six values.
    case invalidCalibrationMatrix(valueCount: Int)

    static func current(_ operation: String, path: String? = nil) -> InputError {
        .system(.current(operation, path: path))
    }

    public var description: String {
        switch self {
        case .system(let error):
            return error.description
        case .notAnInputDevice(let path, let reason):
            return "\(path) is not an evdev input device: \(reason)"
        case .deviceRejected(let path, let reason):
            return "libinput would not add \(path): \(reason)"
        case .contextUnavailable(let reason):
            return "libinput is unavailable: \(reason)"
        case .requiresPathMode(let operation):
            return "\(operation) needs a context made from device paths, not a seat"
        case .unknownDevice(let id):
            return "no input device \(id)"
        case .invalidCalibrationMatrix(let count):
            return "a calibration matrix has 6 values (a b c d e f), got \(count)"
        }
    }
}
