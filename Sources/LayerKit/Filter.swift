import Foundation

/// A filter attached to a layer's `filters`, `backgroundFilters` or `compositingFilter`: its kind,
/// a name and its parameters, as CIFilter(name:) with setValue(_:forKey:) in the seed's Listing 2-6.
///
/// The `name` is what key paths use (`filters.blur.inputRadius`, seed ch. 2 "Filters Add Visual
/// Effects"); it defaults to the kind's raw value, and two filters of one kind in one list need
/// names of their own to be reached separately. Parameters are CIFilter-style keys:
///
/// | kind | parameters (default) | what it does |
/// |---|---|---|
/// | `gaussianBlur` | `inputRadius` (10) | Gaussian blur with σ = inputRadius points (as shadowRadius) |
/// | `colorMatrix` | `inputMatrix` (identity) | 20 numbers, 4 rows × 5 columns: each output component of r, g, b, a is the row's dot product with (r, g, b, a, 1) of the unpremultiplied input, then clamped to 0...1 |
/// | `colorControls` | `inputSaturation` (1), `inputBrightness` (0), `inputContrast` (1) | CIColorControls: saturation about the Rec. 709 luma, then brightness added, then contrast about 0.5 |
/// | `pinchDistortion` | `inputCenter` ((150, 150)), `inputRadius` (300), `inputScale` (0.5, 0…2) | pulls the image inwards within the circle, most at its centre |
/// | `bumpDistortion` | `inputCenter` ((150, 150)), `inputRadius` (300), `inputScale` (0.5, −1…1) | a convex bump (a concave one when negative) within the circle |
/// | `twirlDistortion` | `inputCenter` ((150, 150)), `inputRadius` (300), `inputAngle` (π) | turns the image within the circle, by the angle at its centre |
/// | blend modes | none | `compositingFilter` only: the layer blends with what is behind it |
///
/// The distortions work in the layer's bounds space, in points (y-down), whatever the layer's
/// transform; Core Image documents them only in words, so `sourcePoint(for:)` is Vitrine's
/// definition of each. `Filter(name:)` takes Core Image's names ("CIPinchDistortion").
///
/// Saturation, brightness and contrast are one kind, colorControls, as in Core Image; the
/// `saturation(_:)`, `brightness(_:)` and `contrast(_:)` constructors set one of its parameters.
/// Colour filters work on the sRGB-encoded values the renderer blends. The blend modes are the
/// W3C Compositing and Blending ones (CIMultiplyBlendMode and so on): separable multiply, screen,
/// overlay, darken, lighten, colorDodge, colorBurn, softLight, hardLight, difference, exclusion,
/// and the non-separable hue, saturation, color and luminosity.
public struct Filter: Hashable, Sendable {
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        case gaussianBlur, colorMatrix, colorControls
        case pinchDistortion, bumpDistortion, twirlDistortion
        case multiplyBlendMode, screenBlendMode, overlayBlendMode, darkenBlendMode, lightenBlendMode
        case colorDodgeBlendMode, colorBurnBlendMode, softLightBlendMode, hardLightBlendMode
        case differenceBlendMode, exclusionBlendMode
        case hueBlendMode, saturationBlendMode, colorBlendMode, luminosityBlendMode

        /// Whether this kind is a blend mode, which only `compositingFilter` uses.
        public var isBlendMode: Bool { blendModeIndex != nil }

        /// The blend mode's number in Shaders/layer.frag (`blend`), nil for other kinds.
        public var blendModeIndex: Int? {
            let modes: [Kind] = [
                .multiplyBlendMode, .screenBlendMode, .overlayBlendMode, .darkenBlendMode, .lightenBlendMode,
                .colorDodgeBlendMode, .colorBurnBlendMode, .softLightBlendMode, .hardLightBlendMode,
                .differenceBlendMode, .exclusionBlendMode, .hueBlendMode, .saturationBlendMode, .colorBlendMode,
                .luminosityBlendMode,
            ]
            return modes.firstIndex(of: self)
        }
    }

    public enum Value: Hashable, Sendable {
        case number(Double)
        case point(Point)
        case color(Color)
        case vector([Double])

        /// A parameter value from a number (Double, Int or Float), Point, Color or [Double]; nil
        /// for anything else.
        public init?(_ value: any Sendable) {
            switch value {
            case let v as Value: self = v
            case let v as Double: self = .number(v)
            case let v as Int: self = .number(Double(v))
            case let v as Float: self = .number(Double(v))
            case let v as Point: self = .point(v)
            case let v as Color: self = .color(v)
            case let v as [Double]: self = .vector(v)
            default: return nil
            }
        }

        /// The value as the Swift type it came from: Double, Point, Color or [Double].
        public var unwrapped: any Sendable {
            switch self {
            case let .number(v): v
            case let .point(v): v
            case let .color(v): v
            case let .vector(v): v
            }
        }
    }

    public var kind: Kind
    public var name: String
    public private(set) var parameters: [String: Value]

    public init(_ kind: Kind, name: String? = nil, parameters: [String: Value] = [:]) {
        self.kind = kind
        self.name = name ?? kind.rawValue
        self.parameters = parameters
    }

    /// Core Image's `CIFilter(name:)`: "CI" and the kind's name capitalised ("CIGaussianBlur",
    /// "CIPinchDistortion", "CIMultiplyBlendMode"); nil for a filter Vitrine does not have.
    public init?(name: String) {
        guard name.hasPrefix("CI"), let first = name.dropFirst(2).first,
            let kind = Kind(rawValue: first.lowercased() + name.dropFirst(3))
        else { return nil }
        self.init(kind)
    }

    public mutating func setValue(_ value: Value?, forKey key: String) {
        parameters[key] = value
    }

    /// As Core Image's setValue(_:forKey:) takes an NSNumber or a CIVector: a number, Point,
    /// Color or [Double] (see `Value.init(_:)`); nil removes the parameter.
    public mutating func setValue(_ value: (any Sendable)?, forKey key: String) {
        guard let value else { return parameters[key] = nil }
        guard let parameter = Value(value) else {
            preconditionFailure("Filter.setValue(_:forKey:): \(key) takes a number, Point, Color or [Double]")
        }
        parameters[key] = parameter
    }

    /// The parameter's value, or its default when it is not set.
    public func value(forKey key: String) -> Value? { parameters[key] ?? Filter.defaults[kind]?[key] }

    /// A number parameter (or its default); nil when the parameter is not a number.
    public func number(forKey key: String) -> Double? {
        if case let .number(v) = value(forKey: key) { return v }
        return nil
    }

    static let identityMatrix: [Double] = [1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0]

    static let defaults: [Kind: [String: Value]] = [
        .gaussianBlur: ["inputRadius": .number(10)],
        .colorMatrix: ["inputMatrix": .vector(identityMatrix)],
        .colorControls: ["inputSaturation": .number(1), "inputBrightness": .number(0), "inputContrast": .number(1)],
        .pinchDistortion: ["inputCenter": .point(Point(x: 150, y: 150)), "inputRadius": .number(300), "inputScale": .number(0.5)],
        .bumpDistortion: ["inputCenter": .point(Point(x: 150, y: 150)), "inputRadius": .number(300), "inputScale": .number(0.5)],
        .twirlDistortion: ["inputCenter": .point(Point(x: 150, y: 150)), "inputRadius": .number(300), "inputAngle": .number(.pi)],
    ]

    /// The parameters whose values are points (the others animate as numbers).
    static let pointParameterKeys: Set<String> = Set(
        defaults.values.flatMap { $0.compactMap { key, value in if case .point = value { key } else { nil } } })

    public static func gaussianBlur(radius: Double, name: String? = nil) -> Filter {
        Filter(.gaussianBlur, name: name, parameters: ["inputRadius": .number(radius)])
    }

    /// `matrix`: 4 rows × 5 columns, row-major (see the table above).
    public static func colorMatrix(_ matrix: [Double], name: String? = nil) -> Filter {
        Filter(.colorMatrix, name: name, parameters: ["inputMatrix": .vector(matrix)])
    }

    public static func colorControls(
        saturation: Double = 1, brightness: Double = 0, contrast: Double = 1, name: String? = nil
    ) -> Filter {
        Filter(
            .colorControls, name: name,
            parameters: [
                "inputSaturation": .number(saturation), "inputBrightness": .number(brightness),
                "inputContrast": .number(contrast),
            ])
    }

    public static func saturation(_ amount: Double, name: String? = nil) -> Filter {
        colorControls(saturation: amount, name: name)
    }

    public static func brightness(_ amount: Double, name: String? = nil) -> Filter {
        colorControls(brightness: amount, name: name)
    }

    public static func contrast(_ amount: Double, name: String? = nil) -> Filter {
        colorControls(contrast: amount, name: name)
    }

    public static func pinchDistortion(center: Point, radius: Double, scale: Double, name: String? = nil) -> Filter {
        Filter(.pinchDistortion, name: name, parameters: [
            "inputCenter": .point(center), "inputRadius": .number(radius), "inputScale": .number(scale),
        ])
    }

    public static func bumpDistortion(center: Point, radius: Double, scale: Double, name: String? = nil) -> Filter {
        Filter(.bumpDistortion, name: name, parameters: [
            "inputCenter": .point(center), "inputRadius": .number(radius), "inputScale": .number(scale),
        ])
    }

    public static func twirlDistortion(center: Point, radius: Double, angle: Double, name: String? = nil) -> Filter {
        Filter(.twirlDistortion, name: name, parameters: [
            "inputCenter": .point(center), "inputRadius": .number(radius), "inputAngle": .number(angle),
        ])
    }

    public static func blendMode(_ kind: Kind) -> Filter {
        precondition(kind.isBlendMode, "\(kind) is not a blend mode")
        return Filter(kind)
    }

    /// The Gaussian's σ in points, nil when this filter does not blur. A negative radius is 0.
    public var blurSigma: Double? {
        kind == .gaussianBlur ? max(0, number(forKey: "inputRadius") ?? 0) : nil
    }

    /// The colour filter as one 4×5 matrix over unpremultiplied (r, g, b, a, 1); nil for other
    /// kinds, and for a colorMatrix whose inputMatrix is not 20 numbers.
    public var colorMatrix: [Double]? {
        switch kind {
        case .colorMatrix:
            guard case let .vector(m)? = value(forKey: "inputMatrix"), m.count == 20 else { return nil }
            return m
        case .colorControls:
            let s = number(forKey: "inputSaturation") ?? 1
            let b = number(forKey: "inputBrightness") ?? 0
            let c = number(forKey: "inputContrast") ?? 1
            // Rec. 709 luma, as CIColorControls uses.
            let luma = [0.2126, 0.7152, 0.0722]
            var m = [Double](repeating: 0, count: 20)
            for row in 0..<3 {
                for column in 0..<3 {
                    let saturated = luma[column] * (1 - s) + (row == column ? s : 0)
                    m[row * 5 + column] = saturated * c
                }
                // ((x + b) - 0.5) × c + 0.5
                m[row * 5 + 4] = (b - 0.5) * c + 0.5
            }
            m[18] = 1
            return m
        default:
            return nil
        }
    }
}

/// A distortion filter's geometry, in the layer's bounds space.
public struct Distortion: Equatable, Sendable {
    public enum Kind: Int, Sendable {
        case pinch, bump, twirl
    }

    public var kind: Kind
    public var center: Point
    public var radius: Double
    /// inputScale for pinch (clamped to 0…2) and bump (−1…1), inputAngle for twirl.
    public var amount: Double

    /// The square around the circle outside which nothing moves.
    public var bounds: Rect {
        Rect(x: center.x - radius, y: center.y - radius, width: 2 * radius, height: 2 * radius)
    }

    /// Where the image shown at `p` comes from. Within the circle, at distance r from the centre
    /// and u = r / radius: pinch reads from r × (1 + scale)^((1 − u²)³), farther out, so the image
    /// draws in (shrunk 1 + scale times at the centre, unchanged at the edge); bump reads from
    /// r × (1 − scale × (1 − u²)²), nearer, so the image swells (1 / (1 − scale) times at the
    /// centre); twirl reads from the point turned back by angle × (1 − u)², so the image turns
    /// by the angle at the centre (the way a positive rotation about z turns a layer) and not at
    /// the edge. Each is smooth at the edge and keeps the order of distances within its range.
    /// Outside the circle, and for a radius of 0 or less, the image stays.
    public func sourcePoint(for p: Point) -> Point {
        let dx = p.x - center.x, dy = p.y - center.y
        let r = (dx * dx + dy * dy).squareRoot()
        guard radius > 0, r < radius else { return p }
        let u = r / radius, k = 1 - u * u
        switch kind {
        case .pinch:
            let factor = pow(1 + amount, k * k * k)
            return Point(x: center.x + dx * factor, y: center.y + dy * factor)
        case .bump:
            let factor = 1 - amount * k * k
            return Point(x: center.x + dx * factor, y: center.y + dy * factor)
        case .twirl:
            let angle = -amount * (1 - u) * (1 - u)
            let (c, s) = (cos(angle), sin(angle))
            return Point(x: center.x + c * dx - s * dy, y: center.y + s * dx + c * dy)
        }
    }
}

extension Filter {
    /// The distortion this filter makes, nil when it is not a distortion.
    public var distortion: Distortion? {
        let kind: Distortion.Kind
        let amount: Double
        switch self.kind {
        case .pinchDistortion: (kind, amount) = (.pinch, min(2, max(0, number(forKey: "inputScale") ?? 0)))
        case .bumpDistortion: (kind, amount) = (.bump, min(1, max(-1, number(forKey: "inputScale") ?? 0)))
        case .twirlDistortion: (kind, amount) = (.twirl, number(forKey: "inputAngle") ?? 0)
        default: return nil
        }
        guard case let .point(center)? = value(forKey: "inputCenter") else { return nil }
        return Distortion(kind: kind, center: center, radius: number(forKey: "inputRadius") ?? 0, amount: amount)
    }
}
