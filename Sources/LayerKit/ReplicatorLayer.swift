/// `ReplicatorLayer`'s values, carried in `LayerProperties.replicator` to the render tree, where
/// the renderer draws the sublayers once per instance.
public struct ReplicatorProperties: Sendable, Hashable {
    /// How many times the sublayers are drawn; 0 or less draws none of them.
    public var instanceCount = 1
    /// Applied once more for each instance: instance k gets this transform k times (then the
    /// replicator's sublayerTransform), pivoting about the replicator's anchor point in its bounds
    /// as sublayerTransform does.
    public var instanceTransform = Transform3D.identity
    /// Instance k shows its sublayers' animations k × this many seconds (of the replicator's
    /// local time) earlier.
    public var instanceDelay = 0.0
    /// Multiplies every instance's colour; default opaque white.
    public var instanceColor = Color.white
    /// Added to the colour's components once more for each instance (instance k gets k times
    /// them), before clamping to 0…1.
    public var instanceRedOffset = 0.0
    public var instanceGreenOffset = 0.0
    public var instanceBlueOffset = 0.0
    public var instanceAlphaOffset = 0.0
    /// Whether the instances keep their depth as a TransformLayer's sublayers do: when set, the
    /// planes of all instances (transform layers among the sublayers opened up) are drawn back to
    /// front by their depth in the replicator's space (`RenderTree.depthSortedInstances(of:)`);
    /// otherwise instance by instance, each flattened into the replicator's plane.
    public var preservesDepth = false

    public init() {}

    /// `instanceTransform` applied `k` times (the identity for instance 0).
    public func transform(ofInstance k: Int) -> Transform3D {
        var result = Transform3D.identity
        for _ in 0..<max(0, k) { result = result.concatenating(instanceTransform) }
        return result
    }

    /// The colour that multiplies instance `k`: `instanceColor` (in sRGB) plus k times the
    /// offsets, each component clamped to 0…1.
    public func color(ofInstance k: Int) -> Color {
        let c = instanceColor.converted(to: .sRGB)
        let n = Double(k)
        func clamped(_ v: Double) -> Double { min(1, max(0, v)) }
        return Color(
            red: clamped(c.red + n * instanceRedOffset), green: clamped(c.green + n * instanceGreenOffset),
            blue: clamped(c.blue + n * instanceBlueOffset), alpha: clamped(c.alpha + n * instanceAlphaOffset))
    }
}

extension LayerProperties {
    /// The space that instance `transform` of a replicator's sublayers is drawn in: the instance
    /// transform applied first, then sublayerTransform, both about the anchor point.
    public func sublayerSpace(instanceTransform transform: Transform3D) -> SublayerSpace {
        var space = sublayerSpace
        space.sublayerTransform = transform.concatenating(sublayerTransform)
        return space
    }

    /// The spaces of every instance of the sublayers: one per replicator instance, or the one
    /// sublayer space of other layers.
    public var instanceSublayerSpaces: [SublayerSpace] {
        guard let replicator else { return [sublayerSpace] }
        var spaces: [SublayerSpace] = []
        var transform = Transform3D.identity
        for _ in 0..<max(0, replicator.instanceCount) {
            spaces.append(sublayerSpace(instanceTransform: transform))
            transform = transform.concatenating(replicator.instanceTransform)
        }
        return spaces
    }
}

/// A layer that draws its sublayers several times, each instance transformed, recoloured and
/// delayed a step further than the one before (CAReplicatorLayer). The renderer draws the instances
/// from the one subtree in the render tree; no layers are copied.
open class ReplicatorLayer: Layer {
    public override init() {
        super.init()
        properties.replicator = ReplicatorProperties()
    }

    public required init(layer: Layer) {
        super.init(layer: layer)
    }

    public var instanceCount: Int {
        get { properties.replicator?.instanceCount ?? 1 }
        set { setProperty(\.replicator!.instanceCount, newValue, key: "instanceCount") }
    }
    /// Animatable.
    public var instanceTransform: Transform3D {
        get { properties.replicator?.instanceTransform ?? .identity }
        set { setProperty(\.replicator!.instanceTransform, newValue, key: "instanceTransform") }
    }
    /// Animatable.
    public var instanceDelay: Double {
        get { properties.replicator?.instanceDelay ?? 0 }
        set { setProperty(\.replicator!.instanceDelay, newValue, key: "instanceDelay") }
    }
    /// Animatable.
    public var instanceColor: Color {
        get { properties.replicator?.instanceColor ?? .white }
        set { setProperty(\.replicator!.instanceColor, newValue, key: "instanceColor") }
    }
    /// Animatable.
    public var instanceRedOffset: Double {
        get { properties.replicator?.instanceRedOffset ?? 0 }
        set { setProperty(\.replicator!.instanceRedOffset, newValue, key: "instanceRedOffset") }
    }
    /// Animatable.
    public var instanceGreenOffset: Double {
        get { properties.replicator?.instanceGreenOffset ?? 0 }
        set { setProperty(\.replicator!.instanceGreenOffset, newValue, key: "instanceGreenOffset") }
    }
    /// Animatable.
    public var instanceBlueOffset: Double {
        get { properties.replicator?.instanceBlueOffset ?? 0 }
        set { setProperty(\.replicator!.instanceBlueOffset, newValue, key: "instanceBlueOffset") }
    }
    /// Animatable.
    public var instanceAlphaOffset: Double {
        get { properties.replicator?.instanceAlphaOffset ?? 0 }
        set { setProperty(\.replicator!.instanceAlphaOffset, newValue, key: "instanceAlphaOffset") }
    }
    public var preservesDepth: Bool {
        get { properties.replicator?.preservesDepth ?? false }
        set { setProperty(\.replicator!.preservesDepth, newValue, key: "preservesDepth") }
    }

    override class func propertyEntry(forKey key: String) -> LayerKeyTable.Entry? {
        replicatorEntries[key] ?? super.propertyEntry(forKey: key)
    }

    override class var defaultProperties: LayerProperties {
        var p = LayerProperties()
        p.replicator = ReplicatorProperties()
        return p
    }

    override class var implicitlyAnimatedKeys: Set<String> { replicatorAnimatedKeys }

    private static let replicatorAnimatedKeys = Layer.baseImplicitlyAnimatedKeys.union([
        "instanceTransform", "instanceDelay", "instanceColor", "instanceRedOffset", "instanceGreenOffset",
        "instanceBlueOffset", "instanceAlphaOffset",
    ])

    private static let replicatorEntries: [String: LayerKeyTable.Entry] = [
        "instanceCount": LayerKeyTable.entry({ $0.replicator?.instanceCount }, \ReplicatorLayer.instanceCount),
        "instanceTransform": LayerKeyTable.entry({ $0.replicator?.instanceTransform }, \ReplicatorLayer.instanceTransform),
        "instanceDelay": LayerKeyTable.entry({ $0.replicator?.instanceDelay }, \ReplicatorLayer.instanceDelay),
        "instanceColor": LayerKeyTable.entry({ $0.replicator?.instanceColor }, \ReplicatorLayer.instanceColor),
        "instanceRedOffset": LayerKeyTable.entry({ $0.replicator?.instanceRedOffset }, \ReplicatorLayer.instanceRedOffset),
        "instanceGreenOffset": LayerKeyTable.entry(
            { $0.replicator?.instanceGreenOffset }, \ReplicatorLayer.instanceGreenOffset),
        "instanceBlueOffset": LayerKeyTable.entry({ $0.replicator?.instanceBlueOffset }, \ReplicatorLayer.instanceBlueOffset),
        "instanceAlphaOffset": LayerKeyTable.entry(
            { $0.replicator?.instanceAlphaOffset }, \ReplicatorLayer.instanceAlphaOffset),
        "preservesDepth": LayerKeyTable.entry({ $0.replicator?.preservesDepth }, \ReplicatorLayer.preservesDepth),
    ]
}
