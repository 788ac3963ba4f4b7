import Foundation

/// The colour spaces a `Color` can be stated in.
public enum ColorSpace: String, Hashable, Sendable {
    /// sRGB-encoded components (IEC 61966-2-1), the space of Wayland buffers and of KMS scanout.
    case sRGB
    /// The same primaries with linear (not gamma-encoded) components.
    case linearSRGB
}

/// An RGBA colour with unpremultiplied components in 0…1, in a stated colour space (sRGB by default).
public struct Color: Hashable, Sendable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double
    public var colorSpace: ColorSpace

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1, colorSpace: ColorSpace = .sRGB) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
        self.colorSpace = colorSpace
    }

    public init(white: Double, alpha: Double = 1) {
        self.init(red: white, green: white, blue: white, alpha: alpha)
    }

    public static let black = Color(white: 0)
    public static let white = Color(white: 1)
    public static let clear = Color(white: 0, alpha: 0)
    public static let red = Color(red: 1, green: 0, blue: 0)
    public static let green = Color(red: 0, green: 1, blue: 0)
    public static let blue = Color(red: 0, green: 0, blue: 1)

    public func withAlphaComponent(_ alpha: Double) -> Color {
        Color(red: red, green: green, blue: blue, alpha: alpha, colorSpace: colorSpace)
    }

    /// The same colour in `space`, converting the components with the sRGB transfer function.
    public func converted(to space: ColorSpace) -> Color {
        guard space != colorSpace else { return self }
        let toLinear = space == .linearSRGB
        func f(_ c: Double) -> Double { toLinear ? Color.srgbToLinear(c) : Color.linearToSRGB(c) }
        return Color(red: f(red), green: f(green), blue: f(blue), alpha: alpha, colorSpace: space)
    }

    static func srgbToLinear(_ c: Double) -> Double {
        c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    static func linearToSRGB(_ c: Double) -> Double {
        c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1 / 2.4) - 0.055
    }

    public var description: String {
        "rgba(\(formatNumber(red)), \(formatNumber(green)), \(formatNumber(blue)), \(formatNumber(alpha))\(colorSpace == .sRGB ? "" : " " + colorSpace.rawValue))"
    }
}
