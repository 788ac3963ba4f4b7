/// One edge, centre or extent of a layer's frame (CAConstraintAttribute, same raw values).
/// In Vitrine's y-down space `minY` is the visual top edge.
public enum ConstraintAttribute: Int, CaseIterable, Hashable, Sendable {
    case minX = 0, midX, maxX, width, minY, midY, maxY, height

    var isHorizontal: Bool { rawValue < 4 }

    func value(in r: Rect) -> Double {
        switch self {
        case .minX: r.minX
        case .midX: r.midX
        case .maxX: r.maxX
        case .width: r.width
        case .minY: r.minY
        case .midY: r.midY
        case .maxY: r.maxY
        case .height: r.height
        }
    }
}

/// `attribute = source.sourceAttribute · scale + offset` (CAConstraint), where the source is a
/// sibling named `sourceName` or, for the name "superlayer", the superlayer's bounds.
public struct Constraint: Hashable, Sendable {
    public static let superlayerName = "superlayer"

    public var attribute: ConstraintAttribute
    public var sourceName: String
    public var sourceAttribute: ConstraintAttribute
    public var scale: Double
    public var offset: Double

    public init(
        attribute: ConstraintAttribute, relativeTo sourceName: String, attribute sourceAttribute: ConstraintAttribute,
        scale: Double = 1, offset: Double = 0
    ) {
        self.attribute = attribute
        self.sourceName = sourceName
        self.sourceAttribute = sourceAttribute
        self.scale = scale
        self.offset = offset
    }
}

/// Lays out sublayers from their `constraints` (CAConstraintLayoutManager), starting from the
/// superlayer's bounds; siblings a constraint refers to are laid out first.
///
/// Per axis a layer uses at most two of its constraints (the first two by attribute, in the order
/// min, mid, max, size; a later constraint on the same attribute replaces an earlier one). One
/// edge alone keeps the layer's current size, as Core Animation's implicit second constraint does;
/// a size alone keeps the current minimum edge; two edges, or an edge and the size, set both.
/// Sublayers with no constraints are left as they are. Circular references leave the layers
/// in the cycle at their current frames.
public final class ConstraintLayoutManager: LayoutManager {
    public init() {}

    public func layoutSublayers(of layer: Layer) {
        let sublayers = layer.sublayers
        var byName: [String: Layer] = [:]
        for s in sublayers {
            if let name = s.name, byName[name] == nil { byName[name] = s }
        }
        var done = Set<ObjectIdentifier>()
        var inProgress = Set<ObjectIdentifier>()

        func solve(_ s: Layer) {
            let id = ObjectIdentifier(s)
            guard !done.contains(id), !inProgress.contains(id) else { return }
            inProgress.insert(id)
            for c in s.constraints where c.sourceName != Constraint.superlayerName {
                if let source = byName[c.sourceName], source !== s { solve(source) }
            }
            inProgress.remove(id)
            done.insert(id)
            apply(s.constraints, to: s, in: layer, siblings: byName)
        }
        for s in sublayers where !s.constraints.isEmpty { solve(s) }
    }

    private func apply(_ constraints: [Constraint], to sublayer: Layer, in superlayer: Layer, siblings: [String: Layer]) {
        guard !constraints.isEmpty else { return }
        var values: [ConstraintAttribute: Double] = [:]
        for c in constraints {
            let sourceRect: Rect
            if c.sourceName == Constraint.superlayerName {
                sourceRect = superlayer.bounds
            } else if let sibling = siblings[c.sourceName], sibling !== sublayer {
                sourceRect = sibling.frame
            } else {
                continue
            }
            values[c.attribute] = c.sourceAttribute.value(in: sourceRect) * c.scale + c.offset
        }
        let current = sublayer.frame
        let (x, w) = solveAxis(
            min: values[.minX], mid: values[.midX], max: values[.maxX], size: values[.width],
            currentMin: current.minX, currentSize: current.width)
        let (y, h) = solveAxis(
            min: values[.minY], mid: values[.midY], max: values[.maxY], size: values[.height],
            currentMin: current.minY, currentSize: current.height)
        let newFrame = Rect(x: x, y: y, width: w, height: h)
        if newFrame != current { sublayer.frame = newFrame }
    }

    private func solveAxis(
        min lo: Double?, mid: Double?, max hi: Double?, size: Double?, currentMin: Double, currentSize: Double
    ) -> (Double, Double) {
        let given = [lo.map { (0, $0) }, mid.map { (1, $0) }, hi.map { (2, $0) }, size.map { (3, $0) }]
            .compactMap { $0 }.prefix(2)
        guard let first = given.first else { return (currentMin, currentSize) }
        guard given.count == 2 else {
            switch first.0 {
            case 0: return (first.1, currentSize)
            case 1: return (first.1 - currentSize / 2, currentSize)
            case 2: return (first.1 - currentSize, currentSize)
            default: return (currentMin, Swift.max(0, first.1))
            }
        }
        let a = given[given.startIndex], b = given[given.startIndex + 1]
        switch (a.0, b.0) {
        case (0, 1): return (a.1, Swift.max(0, 2 * (b.1 - a.1)))
        case (0, 2): return (a.1, Swift.max(0, b.1 - a.1))
        case (0, 3): return (a.1, Swift.max(0, b.1))
        case (1, 2): return (2 * a.1 - b.1, Swift.max(0, 2 * (b.1 - a.1)))
        case (1, 3): return (a.1 - b.1 / 2, Swift.max(0, b.1))
        default: return (a.1 - b.1, Swift.max(0, b.1))  // (2, 3): max edge and size
        }
    }
}
