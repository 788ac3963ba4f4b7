extension Layer {
    /// Writes the value at a key path: a key, a part of an animatable property (`position.x`,
    /// `transform.rotation.z`), or a filter's parameter by the filter's name
    /// (`filters.blur.inputRadius`, `backgroundFilters.frost.inputRadius`; seed ch. 2, "Filters
    /// Add Visual Effects"). The property the path starts with changes as a whole, with its actions.
    public func setValue(_ value: (any Sendable)?, forKeyPath keyPath: String) {
        let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return setValue(value, forKey: keyPath) }
        if parts.count == 3, parts[0] == "filters" || parts[0] == "backgroundFilters" {
            var list = parts[0] == "filters" ? filters : backgroundFilters
            guard let index = list.firstIndex(where: { $0.name == parts[1] }) else {
                preconditionFailure("setValue(_:forKeyPath:): no filter named \(parts[1]) in \(parts[0])")
            }
            guard let parameter = Layer.filterValue(value) else {
                preconditionFailure("setValue(_:forKeyPath:): \(keyPath) takes a number, Point, Color or [Double]")
            }
            list[index].setValue(parameter, forKey: parts[2])
            if parts[0] == "filters" { filters = list } else { backgroundFilters = list }
            return
        }
        guard let property = AnimatableProperty.resolve(keyPath, valueFunction: nil),
            let entry = type(of: self).propertyEntry(forKey: parts[0])
        else { preconditionFailure("setValue(_:forKeyPath:): \(keyPath) is not a key path of \(type(of: self))") }
        var changed = properties
        precondition(property.write(&changed, value), "setValue(_:forKeyPath:): wrong type of value for \(keyPath)")
        setValue(entry.get(changed), forKey: parts[0])
    }

    /// Reads the value at a key path (see `setValue(_:forKeyPath:)`); a filter parameter reads
    /// as a Double, Point, Color or [Double], nil when there is no such filter or parameter.
    public func value(forKeyPath keyPath: String) -> (any Sendable)? {
        let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return value(forKey: keyPath) }
        if parts.count == 3, parts[0] == "filters" || parts[0] == "backgroundFilters" {
            let list = parts[0] == "filters" ? filters : backgroundFilters
            switch list.first(where: { $0.name == parts[1] })?.value(forKey: parts[2]) {
            case let .number(v)?: return v
            case let .point(v)?: return v
            case let .color(v)?: return v
            case let .vector(v)?: return v
            case nil: return nil
            }
        }
        return AnimatableProperty.resolve(keyPath, valueFunction: nil)?.read(properties)
    }

    private static func filterValue(_ value: (any Sendable)?) -> Filter.Value? {
        switch value {
        case let v as Filter.Value: return v
        case let v as Double: return .number(v)
        case let v as Int: return .number(Double(v))
        case let v as Float: return .number(Double(v))
        case let v as Point: return .point(v)
        case let v as Color: return .color(v)
        case let v as [Double]: return .vector(v)
        default: return nil
        }
    }
}
