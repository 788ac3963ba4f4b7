import Glibc

/// libinput's calibration matrix (the udev property LIBINPUT_CALIBRATION_MATRIX): six values
/// `a b c d e f` applied to normalized device coordinates as
/// `x' = a·x + b·y + c`, `y' = d·x + e·y + f`.
public struct CalibrationMatrix: Hashable, Sendable, CustomStringConvertible {
    public let values: [Float]

    public static let identity = CalibrationMatrix(checked: [1, 0, 0, 0, 1, 0])

    public init(_ values: [Float]) throws(InputError) {
        guard values.count == 6 else { throw .invalidCalibrationMatrix(valueCount: values.count) }
        self.values = values
    }

    private init(checked values: [Float]) {
        self.values = values
    }

    /// The matrix that turns touches on a panel mounted `quarterTurns` × 90° clockwise, the
    /// examples in libinput's calibration documentation.
    public static func rotation(clockwiseQuarterTurns quarterTurns: Int) -> CalibrationMatrix {
        switch ((quarterTurns % 4) + 4) % 4 {
        case 1: CalibrationMatrix(checked: [0, -1, 1, 1, 0, 0])
        case 2: CalibrationMatrix(checked: [-1, 0, 1, 0, -1, 1])
        case 3: CalibrationMatrix(checked: [0, 1, 0, -1, 0, 1])
        default: .identity
        }
    }

    /// The matrix that applies `self` first and then `other`.
    public func concatenating(_ other: CalibrationMatrix) -> CalibrationMatrix {
        let m = values, n = other.values
        return CalibrationMatrix(checked: [
            n[0] * m[0] + n[1] * m[3], n[0] * m[1] + n[1] * m[4], n[0] * m[2] + n[1] * m[5] + n[2],
            n[3] * m[0] + n[4] * m[3], n[3] * m[1] + n[4] * m[4], n[3] * m[2] + n[4] * m[5] + n[5],
        ])
    }

    /// Where libinput reports a normalized device point after this matrix.
    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        let v = values.map(Double.init)
        return (v[0] * x + v[1] * y + v[2], v[3] * x + v[4] * y + v[5])
    }

    public var description: String {
        values.map { $0 == $0.rounded() ? String(Int($0)) : String($0) }.joined(separator: " ")
    }
}

/// Gives devices whose kernel name or sysname matches `pattern` a calibration matrix. The pattern
/// is a shell glob (`fnmatch(3)`: `*`, `?`, `[…]`), so an exact name matches itself.
public struct CalibrationRule: Hashable, Sendable {
    public var pattern: String
    public var matrix: CalibrationMatrix

    public init(pattern: String, matrix: CalibrationMatrix) {
        self.pattern = pattern
        self.matrix = matrix
    }

    public func matches(name: String, sysname: String) -> Bool {
        fnmatch(pattern, name, 0) == 0 || fnmatch(pattern, sysname, 0) == 0
    }
}

/// What Vitrine sets on each device when it is added.
public struct InputConfiguration: Hashable, Sendable {
    /// Checked in order; the first rule that matches a device applies.
    public var calibrationRules: [CalibrationRule]
    /// Turns tap-to-click on for touchpads (libinput leaves it off by default).
    public var enablesTapToClick: Bool
    /// Natural scrolling (the content follows the fingers or the wheel) on or off for every device
    /// that offers it (mice, touchpads, wheels); nil keeps libinput's default for each device.
    public var naturalScrolling: Bool?

    public init(calibrationRules: [CalibrationRule] = [], enablesTapToClick: Bool = true, naturalScrolling: Bool? = nil) {
        self.calibrationRules = calibrationRules
        self.enablesTapToClick = enablesTapToClick
        self.naturalScrolling = naturalScrolling
    }

    public func calibrationRule(name: String, sysname: String) -> CalibrationRule? {
        calibrationRules.first { $0.matches(name: name, sysname: sysname) }
    }
}
