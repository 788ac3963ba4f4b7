internal import CInput

/// Identifies a device within one `InputContext` for as long as it is present; a device that is
/// removed and comes back (hotplug, `resume()`) gets a new identifier.
public struct InputDeviceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    public static func < (lhs: InputDeviceID, rhs: InputDeviceID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    public var description: String { "#\(rawValue)" }
}

/// What kinds of events a device can send, as libinput classifies it.
public struct InputCapabilities: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let keyboard = InputCapabilities(rawValue: 1 << 0)
    public static let pointer = InputCapabilities(rawValue: 1 << 1)
    public static let touch = InputCapabilities(rawValue: 1 << 2)
    public static let tabletTool = InputCapabilities(rawValue: 1 << 3)
    public static let tabletPad = InputCapabilities(rawValue: 1 << 4)
    public static let gesture = InputCapabilities(rawValue: 1 << 5)
    public static let `switch` = InputCapabilities(rawValue: 1 << 6)

    /// Each capability with its name and libinput's constant, in libinput's order.
    static let all: [(capability: InputCapabilities, name: String, libinput: libinput_device_capability)] = [
        (.keyboard, "keyboard", LIBINPUT_DEVICE_CAP_KEYBOARD),
        (.pointer, "pointer", LIBINPUT_DEVICE_CAP_POINTER),
        (.touch, "touch", LIBINPUT_DEVICE_CAP_TOUCH),
        (.tabletTool, "tablet-tool", LIBINPUT_DEVICE_CAP_TABLET_TOOL),
        (.tabletPad, "tablet-pad", LIBINPUT_DEVICE_CAP_TABLET_PAD),
        (.gesture, "gesture", LIBINPUT_DEVICE_CAP_GESTURE),
        (.switch, "switch", LIBINPUT_DEVICE_CAP_SWITCH),
    ]

    /// The set of capabilities for which `hasCapability` answers true.
    init(hasCapability: (libinput_device_capability) -> Bool) {
        self = Self.all.reduce(into: []) { result, entry in
            if hasCapability(entry.libinput) { result.insert(entry.capability) }
        }
    }

    /// Comma-separated names in libinput's order, or "none".
    public var description: String {
        let names = Self.all.filter { contains($0.capability) }.map(\.name)
        return names.isEmpty ? "none" : names.joined(separator: ", ")
    }
}

/// A device's active area in millimetres, as libinput knows it from the kernel's resolution.
public struct PhysicalSize: Hashable, Sendable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// Something the per-device configuration asked for that the device could not do. The device works;
/// the caller decides whether to warn or refuse.
public enum InputConfigurationIssue: Hashable, Sendable, CustomStringConvertible {
    /// A calibration rule matched, but the device has no calibration matrix (not absolute, or a touchpad).
    case calibrationUnsupported(rule: String)
    /// libinput refused the matrix, the tap or the natural-scrolling setting; `status` is its explanation.
    case calibrationRejected(rule: String, status: String)
    case tapToClickRejected(status: String)
    case naturalScrollingRejected(status: String)

    public var description: String {
        switch self {
        case .calibrationUnsupported(let rule):
            "calibration rule \"\(rule)\" matches, but the device does not support a calibration matrix"
        case .calibrationRejected(let rule, let status):
            "calibration rule \"\(rule)\" was refused: \(status)"
        case .tapToClickRejected(let status):
            "tap-to-click was refused: \(status)"
        case .naturalScrollingRejected(let status):
            "natural scrolling was refused: \(status)"
        }
    }
}

/// One input device as it was when added, with the configuration Vitrine applied to it.
public struct InputDeviceInfo: Hashable, Sendable, CustomStringConvertible {
    public let id: InputDeviceID
    /// The kernel's device name ("QEMU Virtio Keyboard").
    public let name: String
    /// The evdev node's name ("event3").
    public let sysname: String
    /// The device node ("/dev/input/event3"), when udev knows it.
    public let devicePath: String?
    public let vendorID: UInt32
    public let productID: UInt32
    public let capabilities: InputCapabilities
    /// nil when the device does not report its resolution (keyboards, mice, most virtual devices).
    public let size: PhysicalSize?
    public let supportsCalibration: Bool
    /// The matrix set on the device by a calibration rule, if one matched and was accepted.
    public let calibration: CalibrationMatrix?
    public let isTapToClickEnabled: Bool
    /// Whether the device scrolls naturally; nil when libinput offers it no such option (keyboards,
    /// touchscreens, tablets' tools).
    public let naturalScrolling: Bool?
    public let issues: [InputConfigurationIssue]
    /// Whether it is a keyboard to type on (it has the letter keys A and Z), not merely a device
    /// with a few keys, as power buttons, lid switches and many touch panels report themselves.
    public let hasLetterKeys: Bool

    public init(
        id: InputDeviceID, name: String, sysname: String, devicePath: String?, vendorID: UInt32, productID: UInt32,
        capabilities: InputCapabilities, size: PhysicalSize?, supportsCalibration: Bool,
        calibration: CalibrationMatrix?, isTapToClickEnabled: Bool, naturalScrolling: Bool? = nil,
        issues: [InputConfigurationIssue], hasLetterKeys: Bool = false
    ) {
        self.id = id
        self.name = name
        self.sysname = sysname
        self.devicePath = devicePath
        self.vendorID = vendorID
        self.productID = productID
        self.capabilities = capabilities
        self.size = size
        self.supportsCalibration = supportsCalibration
        self.calibration = calibration
        self.isTapToClickEnabled = isTapToClickEnabled
        self.naturalScrolling = naturalScrolling
        self.issues = issues
        self.hasLetterKeys = hasLetterKeys
    }

    /// "natural scrolling on" or "off"; nil for a device without the option.
    public var naturalScrollingDescription: String? {
        naturalScrolling.map { "natural scrolling \($0 ? "on" : "off")" }
    }

    /// One line as `vitrine list-inputs` prints it:
    /// `event4: "QEMU Virtio Tablet" [0627:0003] pointer; size unknown; calibratable; natural scrolling off`.
    public var description: String {
        var parts = ["\(sysname): \"\(name)\" [\(hex4(vendorID)):\(hex4(productID))] \(capabilities)"]
        if let size {
            parts.append("\(millimetres(size.width))×\(millimetres(size.height)) mm")
        } else {
            parts.append("size unknown")
        }
        if supportsCalibration { parts.append("calibratable") }
        if let calibration { parts.append("calibrated \(calibration)") }
        if isTapToClickEnabled { parts.append("tap-to-click") }
        if let naturalScrollingDescription { parts.append(naturalScrollingDescription) }
        parts += issues.map { "warning: \($0)" }
        return parts.joined(separator: "; ")
    }
}

private func hex4(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

/// Whole millimetres where exact, otherwise one decimal: sizes come from integer units per mm.
private func millimetres(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String((value * 10).rounded() / 10)
}
