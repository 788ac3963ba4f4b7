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
/// | blend modes | none | `compositingFilter` only: the layer blends with what is behind it |
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
    }

    public var kind: Kind
    public var name: String
    public private(set) var parameters: [String: Value]

    public init(_ kind: Kind, name: String? = nil, parameters: [String: Value] = [:]) {
        self.kind = kind
        self.name = name ?? kind.rawValue
        self.parameters = parameters
    }

    public mutating func setValue(_ value: Value?, forKey key: String) {
        parameters[key] = value
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
    ]

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
