/// Core Animation's key names for the declared layer properties, for `value(forKey:)`,
/// `setValue(_:forKey:)` and `defaultValue(forKey:)` (and the animation key paths built on them).
enum LayerKeyTable {
    /// Sendable, so that the one table serves every thread.
    struct Entry: Sendable {
        let typeName: String
        let get: @Sendable (LayerProperties) -> (any Sendable)?
        let set: @Sendable (Layer, (any Sendable)?) -> Bool
    }

    static func entry<T: Sendable>(
        _ model: KeyPath<LayerProperties, T> & Sendable, _ layer: ReferenceWritableKeyPath<Layer, T> & Sendable
    ) -> Entry {
        Entry(
            typeName: "\(T.self)",
            get: { $0[keyPath: model] },
            set: { target, value in
                guard let v = value as? T else { return false }
                target[keyPath: layer] = v
                return true
            })
    }

    /// For optional properties: nil reads back as nil and may be set.
    static func entry<T: Sendable>(
        _ model: KeyPath<LayerProperties, T?> & Sendable, _ layer: ReferenceWritableKeyPath<Layer, T?> & Sendable
    ) -> Entry {
        optionalEntry({ $0[keyPath: model] }, layer)
    }

    /// A property of the layer subclass `L`, kept in its part of the values (`get` answers nil
    /// when the values are not of that class).
    static func entry<L: Layer, T: Sendable>(
        _ get: @escaping @Sendable (LayerProperties) -> T?, _ layer: ReferenceWritableKeyPath<L, T> & Sendable
    ) -> Entry {
        Entry(
            typeName: "\(T.self)",
            get: { get($0) },
            set: { target, value in
                guard let target = target as? L, let v = value as? T else { return false }
                target[keyPath: layer] = v
                return true
            })
    }

    /// The same for an optional property of `L`: nil reads back as nil and may be set.
    static func optionalEntry<L: Layer, T: Sendable>(
        _ get: @escaping @Sendable (LayerProperties) -> T?, _ layer: ReferenceWritableKeyPath<L, T?> & Sendable
    ) -> Entry {
        Entry(
            typeName: "\(T.self)?",
            get: { get($0) },
            set: { target, value in
                guard let target = target as? L else { return false }
                if value == nil {
                    target[keyPath: layer] = nil
                    return true
                }
                guard let v = value as? T else { return false }
                target[keyPath: layer] = v
                return true
            })
    }

    static let entries: [String: Entry] = [
        "bounds": entry(\.bounds, \.bounds),
        "position": entry(\.position, \.position),
        "anchorPoint": entry(\.anchorPoint, \.anchorPoint),
        "anchorPointZ": entry(\.anchorPointZ, \.anchorPointZ),
        "zPosition": entry(\.zPosition, \.zPosition),
        "transform": entry(\.transform, \.transform),
        "sublayerTransform": entry(\.sublayerTransform, \.sublayerTransform),
        "geometryFlipped": entry(\.isGeometryFlipped, \.isGeometryFlipped),
        "doubleSided": entry(\.isDoubleSided, \.isDoubleSided),
        "hidden": entry(\.isHidden, \.isHidden),
        "opacity": entry(\.opacity, \.opacity),
        "allowsGroupOpacity": entry(\.allowsGroupOpacity, \.allowsGroupOpacity),
        "opaque": entry(\.isOpaque, \.isOpaque),
        "shouldRasterize": entry(\.shouldRasterize, \.shouldRasterize),
        "rasterizationScale": entry(\.rasterizationScale, \.rasterizationScale),
        "allowsEdgeAntialiasing": entry(\.allowsEdgeAntialiasing, \.allowsEdgeAntialiasing),
        "edgeAntialiasingMask": entry(\.edgeAntialiasingMask, \.edgeAntialiasingMask),
        "contents": entry(\.contents, \.contents),
        "contentsGravity": entry(\.contentsGravity, \.contentsGravity),
        "contentsScale": entry(\.contentsScale, \.contentsScale),
        "contentsRect": entry(\.contentsRect, \.contentsRect),
        "contentsCenter": entry(\.contentsCenter, \.contentsCenter),
        "minificationFilter": entry(\.minificationFilter, \.minificationFilter),
        "magnificationFilter": entry(\.magnificationFilter, \.magnificationFilter),
        "minificationFilterBias": entry(\.minificationFilterBias, \.minificationFilterBias),
        "backgroundColor": entry(\.backgroundColor, \.backgroundColor),
        "borderColor": entry(\.borderColor, \.borderColor),
        "borderWidth": entry(\.borderWidth, \.borderWidth),
        "cornerRadius": entry(\.cornerRadius, \.cornerRadius),
        "maskedCorners": entry(\.maskedCorners, \.maskedCorners),
        "cornerCurve": entry(\.cornerCurve, \.cornerCurve),
        "masksToBounds": entry(\.masksToBounds, \.masksToBounds),
        "shadowColor": entry(\.shadowColor, \.shadowColor),
        "shadowOpacity": entry(\.shadowOpacity, \.shadowOpacity),
        "shadowOffset": entry(\.shadowOffset, \.shadowOffset),
        "shadowRadius": entry(\.shadowRadius, \.shadowRadius),
        "shadowPath": entry(\.shadowPath, \.shadowPath),
        "filters": entry(\.filters, \.filters),
        "backgroundFilters": entry(\.backgroundFilters, \.backgroundFilters),
        "compositingFilter": entry(\.compositingFilter, \.compositingFilter),
        "beginTime": entry(\.beginTime, \.beginTime),
        "duration": entry(\.duration, \.duration),
        "speed": entry(\.speed, \.speed),
        "timeOffset": entry(\.timeOffset, \.timeOffset),
        "repeatCount": entry(\.repeatCount, \.repeatCount),
        "repeatDuration": entry(\.repeatDuration, \.repeatDuration),
        "autoreverses": entry(\.autoreverses, \.autoreverses),
        "fillMode": entry(\.fillMode, \.fillMode),
        "name": entry(\.name, \.name),
    ]
}
