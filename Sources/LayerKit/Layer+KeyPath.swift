extension Layer {
    /// Writes the value at a key path: a key, a part of an animatable property (`position.x`,
    /// `transform.rotation.z`), or a filter's parameter by the filter's name
    /// (`filters.blur.inputRadius`, `backgroundFilters.frost.inputRadius`; seed ch. 2, "Filters
    /// Add Visual Effects"). The property the path starts with changes as a whole, with its
    /// actions; a filter parameter's change runs the action for its own key path, whose built-in
    /// animation (for a number or point parameter) goes from the value on screen to the new one.
    public func setValue(_ value: (any Sendable)?, forKeyPath keyPath: String) {
        let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return setValue(value, forKey: keyPath) }
        if let list = Layer.filterList(parts) {
            var filters = properties[keyPath: list]
            guard let index = filters.firstIndex(where: { $0.name == parts[1] }) else {
                preconditionFailure("setValue(_:forKeyPath:): no filter named \(parts[1]) in \(parts[0])")
            }
            guard let parameter = value.flatMap(Filter.Value.init) else {
                preconditionFailure("setValue(_:forKeyPath:): \(keyPath) takes a number, Point, Color or [Double]")
            }
            filters[index].setValue(parameter, forKey: parts[2])
            return setProperty(list, filters, key: keyPath)
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
        if let list = Layer.filterList(parts) {
            return properties[keyPath: list].first { $0.name == parts[1] }?.value(forKey: parts[2])?.unwrapped
        }
        return AnimatableProperty.resolve(keyPath, valueFunction: nil)?.read(properties)
    }

    /// The filter list a `filters.<name>.<key>` or `backgroundFilters.<name>.<key>` path names.
    static func filterList(_ parts: [String]) -> (WritableKeyPath<LayerProperties, [Filter]> & Sendable)? {
        guard parts.count == 3 else { return nil }
        switch parts[0] {
        case "filters": return \LayerProperties.filters
        case "backgroundFilters": return \LayerProperties.backgroundFilters
        default: return nil
        }
    }
}
