/// An integer rectangle in surface-local or buffer coordinates.
public struct IntRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int32
    public var y: Int32
    public var width: Int32
    public var height: Int32

    public init(x: Int32, y: Int32, width: Int32, height: Int32) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var maxX: Int64 { Int64(x) + Int64(width) }
    public var maxY: Int64 { Int64(y) + Int64(height) }
    public var area: Int64 { isEmpty ? 0 : Int64(width) * Int64(height) }

    public func contains(x px: Double, y py: Double) -> Bool {
        !isEmpty && px >= Double(x) && py >= Double(y) && px < Double(maxX) && py < Double(maxY)
    }

    public func intersection(_ other: IntRect) -> IntRect {
        let left = max(Int64(x), Int64(other.x)), top = max(Int64(y), Int64(other.y))
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        guard right > left, bottom > top else { return IntRect(x: 0, y: 0, width: 0, height: 0) }
        return IntRect(x: Int32(left), y: Int32(top), width: Int32(right - left), height: Int32(bottom - top))
    }

    /// The parts of `self` outside `other`: at most four disjoint rectangles.
    func subtracting(_ other: IntRect) -> [IntRect] {
        let overlap = intersection(other)
        guard !overlap.isEmpty else { return isEmpty ? [] : [self] }
        var pieces: [IntRect] = []
        if overlap.y > y { pieces.append(IntRect(x: x, y: y, width: width, height: overlap.y - y)) }
        if overlap.maxY < maxY {
            pieces.append(IntRect(x: x, y: Int32(overlap.maxY), width: width, height: Int32(maxY - overlap.maxY)))
        }
        if overlap.x > x { pieces.append(IntRect(x: x, y: overlap.y, width: overlap.x - x, height: overlap.height)) }
        if overlap.maxX < maxX {
            pieces.append(IntRect(x: Int32(overlap.maxX), y: overlap.y, width: Int32(maxX - overlap.maxX), height: overlap.height))
        }
        return pieces
    }

    public var description: String { "(\(x), \(y), \(width)×\(height))" }
}

/// A set of integer points (wl_region's value): disjoint rectangles, kept exact under add and subtract.
public struct Region: Hashable, Sendable {
    public private(set) var rectangles: [IntRect] = []

    public init() {}

    public init(_ rectangle: IntRect) {
        add(rectangle)
    }

    /// A region with every point (an unset input region).
    public static let infinite = Region(IntRect(x: Int32.min / 2, y: Int32.min / 2, width: Int32.max, height: Int32.max))

    public var isEmpty: Bool { rectangles.isEmpty }

    public mutating func add(_ rectangle: IntRect) {
        guard !rectangle.isEmpty else { return }
        var pieces = [rectangle]
        for existing in rectangles {
            pieces = pieces.flatMap { $0.subtracting(existing) }
            if pieces.isEmpty { return }
        }
        rectangles += pieces
    }

    public mutating func subtract(_ rectangle: IntRect) {
        guard !rectangle.isEmpty else { return }
        rectangles = rectangles.flatMap { $0.subtracting(rectangle) }
    }

    public func contains(x: Double, y: Double) -> Bool {
        rectangles.contains { $0.contains(x: x, y: y) }
    }

    /// Whether every point of `rectangle` is in the region.
    public func covers(_ rectangle: IntRect) -> Bool {
        guard !rectangle.isEmpty else { return true }
        let covered = rectangles.reduce(Int64(0)) { $0 + $1.intersection(rectangle).area }
        return covered == rectangle.area
    }

    /// The region clipped to `rectangle`.
    public func intersection(_ rectangle: IntRect) -> Region {
        var result = Region()
        result.rectangles = rectangles.map { $0.intersection(rectangle) }.filter { !$0.isEmpty }
        return result
    }
}
