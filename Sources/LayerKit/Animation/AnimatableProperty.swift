/// Reads and writes one animatable value inside a layer's properties: a property, a component of
/// one (`position.x`), a part of a transform (`transform.rotation.z`) or a custom property.
struct PropertyBinding<Value: Interpolatable>: Sendable {
    let get: @Sendable (LayerProperties) -> Value
    let set: @Sendable (inout LayerProperties, Value) -> Void

    init(get: @escaping @Sendable (LayerProperties) -> Value, set: @escaping @Sendable (inout LayerProperties, Value) -> Void) {
        self.get = get
        self.set = set
    }

    init(_ keyPath: WritableKeyPath<LayerProperties, Value> & Sendable) {
        get = { $0[keyPath: keyPath] }
        set = { $0[keyPath: keyPath] = $1 }
    }

    /// A component of this value, such as `x` of a point.
    func component<Part>(_ part: WritableKeyPath<Value, Part> & Sendable) -> PropertyBinding<Part> {
        let outerGet = get, outerSet = set
        return PropertyBinding<Part>(
            get: { outerGet($0)[keyPath: part] },
            set: { properties, value in
                var whole = outerGet(properties)
                whole[keyPath: part] = value
                outerSet(&properties, whole)
            })
    }
}

/// What the values an animation carries (`any Sendable`, as Core Animation's `id`) must be to
/// animate a binding: the binding's type, or for numbers an Int or Float too (a scalar also
/// stands for a one-element list, as value functions take).
func animationValue<Value>(_ value: (any Sendable)?, as type: Value.Type) -> Value? {
    guard let value else { return nil }
    if let v = value as? Value { return v }
    if Value.self == Double.self {
        switch value {
        case let v as Int: return Double(v) as? Value
        case let v as Float: return Double(v) as? Value
        default: return nil
        }
    }
    if Value.self == [Double].self, let v = animationValue(value, as: Double.self) { return [v] as? Value }
    if Value.self == ContentsValue.self, let image = value as? Image { return ContentsValue(image: image) as? Value }
    return nil
}

/// An animatable key path, resolved once into typed track builders.
struct AnimatableProperty {
    let makeBasicTrack: (BasicAnimation, String?, TrackContext) -> (any RenderAnimation)?
    let makeKeyframeTrack: (KeyframeAnimation, String?, TrackContext) -> (any RenderAnimation)?
    /// Reads the value, and writes one (false when it is not of the binding's type), for
    /// `Layer.value(forKeyPath:)` and `setValue(_:forKeyPath:)`.
    let read: (LayerProperties) -> any Sendable
    let write: (inout LayerProperties, (any Sendable)?) -> Bool

    init<Value: Interpolatable>(_ binding: PropertyBinding<Value>) {
        read = { binding.get($0) }
        write = { properties, value in
            guard let v = animationValue(value, as: Value.self) else { return false }
            binding.set(&properties, v)
            return true
        }
        makeBasicTrack = { animation, key, context in
            PropertyTrack<Value>.basic(animation, binding: binding, key: key, context: context)
        }
        makeKeyframeTrack = { animation, key, context in
            PropertyTrack<Value>.keyframes(animation, binding: binding, key: key, context: context)
        }
    }

    /// The property an animation's key path names, or nil for paths that are not animatable.
    /// Custom properties are typed by the animation's own values (see `resolveCustom`).
    static func resolve(_ keyPath: String?, valueFunction: ValueFunction?) -> AnimatableProperty? {
        guard let keyPath, !keyPath.isEmpty else { return nil }
        if let valueFunction {
            let target: WritableKeyPath<LayerProperties, Transform3D> & Sendable
            switch keyPath {
            case "transform": target = \.transform
            case "sublayerTransform": target = \.sublayerTransform
            default: return nil
            }
            return AnimatableProperty(PropertyBinding<[Double]>(
                get: { _ in [] },
                set: { $0[keyPath: target] = valueFunction.transform(for: $1) }))
        }
        let parts = keyPath.split(separator: ".").map(String.init)
        switch parts[0] {
        case "transform": return transformProperty(\.transform, parts.dropFirst())
        case "sublayerTransform": return transformProperty(\.sublayerTransform, parts.dropFirst())
        default: break
        }
        if let list = Layer.filterList(parts) { return filterParameter(list, name: parts[1], key: parts[2]) }
        if let property = subclassProperty(parts) { return property }
        if let property = scalarProperties[parts[0]], parts.count == 1 { return AnimatableProperty(property) }
        if let property = pointProperties[parts[0]] { return pointProperty(property, parts.dropFirst()) }
        if let property = sizeProperties[parts[0]] { return sizeProperty(property, parts.dropFirst()) }
        if let property = rectProperties[parts[0]] { return rectProperty(property, parts.dropFirst()) }
        guard parts.count == 1 else { return nil }
        switch parts[0] {
        case "backgroundColor": return AnimatableProperty(colorBinding(\.backgroundColor, whenNil: .clear))
        case "borderColor": return AnimatableProperty(colorBinding(\.borderColor, whenNil: .clear))
        case "shadowColor": return AnimatableProperty(colorBinding(\.shadowColor, whenNil: .clear))
        case "shadowPath":
            return AnimatableProperty(PropertyBinding<Path>(get: { $0.shadowPath ?? Path() }, set: { $0.shadowPath = $1 }))
        case "hidden": return AnimatableProperty(PropertyBinding<Bool>(\.isHidden))
        case "masksToBounds": return AnimatableProperty(PropertyBinding<Bool>(\.masksToBounds))
        case "doubleSided": return AnimatableProperty(PropertyBinding<Bool>(\.isDoubleSided))
        case "contents":
            return AnimatableProperty(PropertyBinding<ContentsValue>(
                get: { ContentsValue(image: $0.contents) },
                set: { properties, value in value.apply(to: &properties) }))
        default:
            return nil
        }
    }

    /// A custom property (one the layer does not declare), typed by the animation's values.
    static func resolveCustom(_ key: String, sample: (any Sendable)?) -> AnimatableProperty? {
        func custom<Value: Interpolatable>(_ type: Value.Type, default fallback: Value) -> AnimatableProperty {
            AnimatableProperty(PropertyBinding<Value>(
                get: { animationValue($0.customValues[key], as: Value.self) ?? fallback },
                set: { $0.customValues[key] = $1 }))
        }
        switch sample {
        case is Double, is Int, is Float: return custom(Double.self, default: 0)
        case is Point: return custom(Point.self, default: .zero)
        case is Size: return custom(Size.self, default: .zero)
        case is Rect: return custom(Rect.self, default: .zero)
        case is Color: return custom(Color.self, default: .clear)
        case is Transform3D: return custom(Transform3D.self, default: .identity)
        case is [Double]: return custom([Double].self, default: [])
        case is [Color]: return custom([Color].self, default: [])
        default: return nil
        }
    }

    /// The animatable properties of the layer subclasses. They write into the subclass's part of
    /// the values and leave the values of a layer of another class unchanged.
    private static func subclassProperty(_ parts: [String]) -> AnimatableProperty? {
        switch parts[0] {
        case "startPoint":
            return pointProperty(
                PropertyBinding(get: { $0.gradient?.startPoint ?? .zero }, set: { $0.gradient?.startPoint = $1 }),
                parts.dropFirst())
        case "endPoint":
            return pointProperty(
                PropertyBinding(get: { $0.gradient?.endPoint ?? .zero }, set: { $0.gradient?.endPoint = $1 }),
                parts.dropFirst())
        case "emitterPosition":
            return pointProperty(
                PropertyBinding(get: { $0.emitter?.emitterPosition ?? .zero }, set: { $0.emitter?.emitterPosition = $1 }),
                parts.dropFirst())
        case "emitterSize":
            return sizeProperty(
                PropertyBinding(get: { $0.emitter?.emitterSize ?? .zero }, set: { $0.emitter?.emitterSize = $1 }),
                parts.dropFirst())
        case "birthRate" where parts.count == 1: return AnimatableProperty(emitterScalar(\.birthRate))
        case "emitterCells" where parts.count == 3 && parts[2] == "birthRate":
            return AnimatableProperty(EmitterCell.birthRateBinding(named: parts[1]))
        case "lifetime" where parts.count == 1: return AnimatableProperty(emitterScalar(\.lifetime))
        case "velocity" where parts.count == 1: return AnimatableProperty(emitterScalar(\.velocity))
        case "scale" where parts.count == 1: return AnimatableProperty(emitterScalar(\.scale))
        case "spin" where parts.count == 1: return AnimatableProperty(emitterScalar(\.spin))
        default: break
        }
        guard parts.count == 1 else { return nil }
        switch parts[0] {
        case "colors":
            return AnimatableProperty(PropertyBinding<[Color]>(
                get: { $0.gradient?.colors ?? [] }, set: { $0.gradient?.colors = $1 }))
        case "path":
            return AnimatableProperty(PropertyBinding<Path>(
                get: { $0.shape?.path ?? Path() }, set: { $0.shape?.path = $1 }))
        case "fillColor":
            return AnimatableProperty(PropertyBinding<Color>(
                get: { $0.shape?.fillColor ?? .clear }, set: { $0.shape?.fillColor = $1 }))
        case "strokeColor":
            return AnimatableProperty(PropertyBinding<Color>(
                get: { $0.shape?.strokeColor ?? .clear }, set: { $0.shape?.strokeColor = $1 }))
        case "lineDashPattern":
            return AnimatableProperty(PropertyBinding<[Double]>(
                get: { $0.shape?.lineDashPattern ?? [] }, set: { $0.shape?.lineDashPattern = $1 }))
        case "lineWidth": return AnimatableProperty(shapeScalar(\.lineWidth))
        case "miterLimit": return AnimatableProperty(shapeScalar(\.miterLimit))
        case "lineDashPhase": return AnimatableProperty(shapeScalar(\.lineDashPhase))
        case "strokeStart": return AnimatableProperty(shapeScalar(\.strokeStart))
        case "strokeEnd": return AnimatableProperty(shapeScalar(\.strokeEnd))
        case "fontSize":
            return AnimatableProperty(PropertyBinding<Double>(
                get: { $0.text?.fontSize ?? 36 }, set: { $0.text?.fontSize = $1 }))
        case "foregroundColor":
            return AnimatableProperty(PropertyBinding<Color>(
                get: { $0.text?.foregroundColor ?? .clear }, set: { $0.text?.foregroundColor = $1 }))
        case "instanceTransform":
            return AnimatableProperty(PropertyBinding<Transform3D>(
                get: { $0.replicator?.instanceTransform ?? .identity }, set: { $0.replicator?.instanceTransform = $1 }))
        case "instanceColor":
            return AnimatableProperty(PropertyBinding<Color>(
                get: { $0.replicator?.instanceColor ?? .white }, set: { $0.replicator?.instanceColor = $1 }))
        case "instanceDelay": return AnimatableProperty(replicatorScalar(\.instanceDelay))
        case "instanceRedOffset": return AnimatableProperty(replicatorScalar(\.instanceRedOffset))
        case "instanceGreenOffset": return AnimatableProperty(replicatorScalar(\.instanceGreenOffset))
        case "instanceBlueOffset": return AnimatableProperty(replicatorScalar(\.instanceBlueOffset))
        case "instanceAlphaOffset": return AnimatableProperty(replicatorScalar(\.instanceAlphaOffset))
        case "locations":
            return AnimatableProperty(PropertyBinding<[Double]>(
                get: { $0.gradient?.stops.map(\.location) ?? [] }, set: { $0.gradient?.locations = $1 }))
        default:
            return nil
        }
    }

    /// `filters.<name>.<key>`: a number parameter of the filter with that name, or a point one
    /// (`inputCenter`): its default when unset, zero when the filter is missing; writing to a
    /// missing filter changes nothing.
    private static func filterParameter(
        _ list: WritableKeyPath<LayerProperties, [Filter]> & Sendable, name: String, key: String
    ) -> AnimatableProperty {
        func binding<Value: Interpolatable>(
            read: @escaping @Sendable (Filter.Value?) -> Value?, write: @escaping @Sendable (Value) -> Filter.Value, zero: Value
        ) -> AnimatableProperty {
            AnimatableProperty(PropertyBinding<Value>(
                get: { read($0[keyPath: list].first { $0.name == name }?.value(forKey: key)) ?? zero },
                set: { properties, value in
                    guard let index = properties[keyPath: list].firstIndex(where: { $0.name == name }) else { return }
                    properties[keyPath: list][index].setValue(write(value), forKey: key)
                }))
        }
        if Filter.pointParameterKeys.contains(key) {
            return binding(read: { if case let .point(p)? = $0 { p } else { nil } }, write: { .point($0) }, zero: Point.zero)
        }
        return binding(read: { if case let .number(v)? = $0 { v } else { nil } }, write: { .number($0) }, zero: 0.0)
    }

    private static func shapeScalar(_ keyPath: WritableKeyPath<ShapeProperties, Double> & Sendable) -> PropertyBinding<Double> {
        PropertyBinding(
            get: { $0.shape?[keyPath: keyPath] ?? ShapeProperties()[keyPath: keyPath] },
            set: { $0.shape?[keyPath: keyPath] = $1 })
    }

    private static func emitterScalar(_ keyPath: WritableKeyPath<EmitterProperties, Double> & Sendable) -> PropertyBinding<Double> {
        PropertyBinding(
            get: { $0.emitter?[keyPath: keyPath] ?? EmitterProperties()[keyPath: keyPath] },
            set: { $0.emitter?[keyPath: keyPath] = $1 })
    }

    private static func replicatorScalar(
        _ keyPath: WritableKeyPath<ReplicatorProperties, Double> & Sendable
    ) -> PropertyBinding<Double> {
        PropertyBinding(
            get: { $0.replicator?[keyPath: keyPath] ?? ReplicatorProperties()[keyPath: keyPath] },
            set: { $0.replicator?[keyPath: keyPath] = $1 })
    }

    private static let scalarProperties: [String: PropertyBinding<Double>] = [
        "anchorPointZ": PropertyBinding(\.anchorPointZ), "zPosition": PropertyBinding(\.zPosition),
        "opacity": PropertyBinding(\.opacity), "contentsScale": PropertyBinding(\.contentsScale),
        "minificationFilterBias": PropertyBinding(\.minificationFilterBias),
        "borderWidth": PropertyBinding(\.borderWidth), "cornerRadius": PropertyBinding(\.cornerRadius),
        "shadowOpacity": PropertyBinding(\.shadowOpacity), "shadowRadius": PropertyBinding(\.shadowRadius),
        "rasterizationScale": PropertyBinding(\.rasterizationScale),
    ]
    private static let pointProperties: [String: PropertyBinding<Point>] = [
        "position": PropertyBinding(\.position), "anchorPoint": PropertyBinding(\.anchorPoint),
    ]
    private static let sizeProperties: [String: PropertyBinding<Size>] = [
        "shadowOffset": PropertyBinding(\.shadowOffset),
    ]
    private static let rectProperties: [String: PropertyBinding<Rect>] = [
        "bounds": PropertyBinding(\.bounds), "contentsRect": PropertyBinding(\.contentsRect),
        "contentsCenter": PropertyBinding(\.contentsCenter),
    ]

    private static func colorBinding(
        _ keyPath: WritableKeyPath<LayerProperties, Color?> & Sendable, whenNil fallback: Color
    ) -> PropertyBinding<Color> {
        PropertyBinding(get: { $0[keyPath: keyPath] ?? fallback }, set: { $0[keyPath: keyPath] = $1 })
    }

    private static func pointProperty(_ b: PropertyBinding<Point>, _ rest: ArraySlice<String>) -> AnimatableProperty? {
        switch Array(rest) {
        case []: AnimatableProperty(b)
        case ["x"]: AnimatableProperty(b.component(\.x))
        case ["y"]: AnimatableProperty(b.component(\.y))
        default: nil
        }
    }

    private static func sizeProperty(_ b: PropertyBinding<Size>, _ rest: ArraySlice<String>) -> AnimatableProperty? {
        switch Array(rest) {
        case []: AnimatableProperty(b)
        case ["width"]: AnimatableProperty(b.component(\.width))
        case ["height"]: AnimatableProperty(b.component(\.height))
        default: nil
        }
    }

    private static func rectProperty(_ b: PropertyBinding<Rect>, _ rest: ArraySlice<String>) -> AnimatableProperty? {
        guard let first = rest.first else { return AnimatableProperty(b) }
        switch first {
        case "origin": return pointProperty(b.component(\.origin), rest.dropFirst())
        case "size": return sizeProperty(b.component(\.size), rest.dropFirst())
        default: return nil
        }
    }

    /// `transform.rotation[.x|.y|.z]`, `transform.scale[.x|.y|.z]` and
    /// `transform.translation[.x|.y|.z]`: the named part of the decomposed transform is replaced
    /// by the animated value and the transform recomposed (`rotation` alone means about z, and
    /// `translation` alone is a Size of x and y). A transform that cannot be decomposed is
    /// treated as the identity.
    private static func transformProperty(
        _ keyPath: WritableKeyPath<LayerProperties, Transform3D> & Sendable, _ rest: ArraySlice<String>
    ) -> AnimatableProperty? {
        let whole = PropertyBinding<Transform3D>(keyPath)
        let parts = Array(rest)
        guard let field = parts.first else { return AnimatableProperty(whole) }
        let axis = parts.count > 1 ? parts[1] : nil
        guard parts.count <= 2 else { return nil }
        switch (field, axis) {
        case ("rotation", nil), ("rotation", "z"): return AnimatableProperty(rotationBinding(keyPath, axis: 2))
        case ("rotation", "x"): return AnimatableProperty(rotationBinding(keyPath, axis: 0))
        case ("rotation", "y"): return AnimatableProperty(rotationBinding(keyPath, axis: 1))
        case ("scale", nil): return AnimatableProperty(scaleBinding(keyPath, axes: [0, 1, 2]))
        case ("scale", "x"): return AnimatableProperty(scaleBinding(keyPath, axes: [0]))
        case ("scale", "y"): return AnimatableProperty(scaleBinding(keyPath, axes: [1]))
        case ("scale", "z"): return AnimatableProperty(scaleBinding(keyPath, axes: [2]))
        case ("translation", nil):
            return AnimatableProperty(PropertyBinding<Size>(
                get: { Size(width: $0[keyPath: keyPath].m41, height: $0[keyPath: keyPath].m42) },
                set: { properties, v in
                    properties[keyPath: keyPath].m41 = v.width
                    properties[keyPath: keyPath].m42 = v.height
                }))
        case ("translation", "x"): return AnimatableProperty(whole.component(\.m41))
        case ("translation", "y"): return AnimatableProperty(whole.component(\.m42))
        case ("translation", "z"): return AnimatableProperty(whole.component(\.m43))
        default: return nil
        }
    }

    private static func rotationBinding(
        _ keyPath: WritableKeyPath<LayerProperties, Transform3D> & Sendable, axis: Int
    ) -> PropertyBinding<Double> {
        PropertyBinding<Double>(
            get: { TransformParts($0[keyPath: keyPath]).rotation[axis] },
            set: { properties, angle in
                var parts = TransformParts(properties[keyPath: keyPath])
                parts.rotation[axis] = angle
                properties[keyPath: keyPath] = parts.transform
            })
    }

    private static func scaleBinding(
        _ keyPath: WritableKeyPath<LayerProperties, Transform3D> & Sendable, axes: [Int]
    ) -> PropertyBinding<Double> {
        PropertyBinding<Double>(
            get: { TransformParts($0[keyPath: keyPath]).scale[axes[0]] },
            set: { properties, s in
                var parts = TransformParts(properties[keyPath: keyPath])
                for axis in axes { parts.scale[axis] = s }
                properties[keyPath: keyPath] = parts.transform
            })
    }
}
