/// Something a layer runs when one of its properties changes (CAAction); animations are actions
/// that add themselves to the layer. Not `Sendable`: actions, like the layers they run on, stay
/// on the thread that uses the tree.
public protocol Action {
    func run(forKey event: String, object layer: Layer, arguments: [String: any Sendable]?)
}

/// The answer that ends an action search with no action (Core Animation's NSNull): put it in
/// `actions`, a style's actions or return it from a delegate to turn off an implicit animation.
public struct NullAction: Action {
    public init() {}
    public func run(forKey event: String, object layer: Layer, arguments: [String: any Sendable]?) {}
}

/// A delegate that chooses a layer's actions. Returning nil continues the search;
/// returning `NullAction()` ends it with no action.
public protocol LayerActionDelegate: LayerDelegate {
    func action(for layer: Layer, forKey event: String) -> (any Action)?
}

extension Layer {
    /// The keys of CALayer's properties whose changes start Core Animation's built-in implicit
    /// animation when nothing in the search answers: its animatable properties, except
    /// `shadowPath`, which like every path property animates only explicitly (ca-semantics A5).
    static let baseImplicitlyAnimatedKeys: Set<String> = [
        "bounds", "position", "anchorPoint", "anchorPointZ", "zPosition", "transform", "sublayerTransform",
        "opacity", "hidden", "backgroundColor", "borderColor", "borderWidth", "cornerRadius", "contents",
        "contentsRect", "contentsCenter", "contentsScale", "masksToBounds", "doubleSided",
        "shadowColor", "shadowOpacity", "shadowOffset", "shadowRadius",
        "minificationFilterBias", "rasterizationScale",
    ]

    /// Runs the action for a changed property, if actions are on and the layer has been committed
    /// to a context (Core Animation does not animate layers that were never on screen).
    func runActionForChange(ofKey key: String) {
        guard !isPresentation, !Transaction.disableActions, committedContext != nil else { return }
        action(forKey: key)?.run(forKey: key, object: self, arguments: nil)
    }

    /// Core Animation's built-in action: a basic animation from the value on screen to the new
    /// model value over the transaction's duration, or a fade for `hidden`. A filter's number or
    /// point parameter (`filters.<name>.<key>`) animates too: the guide's chapter 2 makes them
    /// animatable through these key paths.
    func builtInAction(forKey key: String) -> (any Action)? {
        guard type(of: self).implicitlyAnimatedKeys.contains(key) || animatesFilterParameter(key) else { return nil }
        let timingFunction = Transaction.animationTimingFunction ?? .default
        if key == "hidden" {
            let fade = Transition()
            fade.type = .fade
            fade.timingFunction = timingFunction
            return fade
        }
        let animation = BasicAnimation(keyPath: key)
        animation.fromValue = presentationValue(forKey: key)
        animation.timingFunction = timingFunction
        return animation
    }

    /// The value of a declared property on screen now: the last committed value with the running
    /// animations applied.
    func presentationValue(forKey key: String) -> (any Sendable)? {
        guard let tree = committedContext?.renderTree else { return value(forKeyPath: key) }
        let shown = tree.presentationProperties(of: id, atMediaTime: MediaTime.now) ?? properties
        if let entry = type(of: self).propertyEntry(forKey: key) { return entry.get(shown) }
        return AnimatableProperty.resolve(key, valueFunction: nil)?.read(shown)
    }

    /// Whether `key` is the path of a filter parameter that animates: a number or a point.
    private func animatesFilterParameter(_ key: String) -> Bool {
        guard Layer.filterList(key.split(separator: ".").map(String.init)) != nil else { return false }
        let value = value(forKeyPath: key)
        return value is Double || value is Point
    }
}
