internal import CPixman

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

    public var description: String { "(\(x), \(y), \(width)×\(height))" }
}

/// A set of integer points (wl_region's value), kept by pixman as disjoint y-x banded rectangles:
/// an add or subtract costs time linear in the region's rectangles, as in weston and wlroots.
///
/// A value type: copies share pixman's storage until one of them changes.
public struct Region: Hashable, Sendable {
    /// Coordinates are clamped to ±2³⁰, so that no width or height pixman computes overflows 32
    /// bits whatever a client sends (a rectangle at x = 2³¹ − 1 of width 2³¹ − 1, say).
    static let limit: Int64 = 1 << 30

    private var storage: Storage

    public init() {
        storage = Storage()
    }

    public init(_ rectangle: IntRect) {
        self.init()
        add(rectangle)
    }

    /// A region with every point (an unset input region).
    public static let infinite = Region(box: pixman_box32_t(
        x1: Int32(-limit), y1: Int32(-limit), x2: Int32(limit), y2: Int32(limit)))

    private init(box: pixman_box32_t) {
        storage = Storage()
        var box = box
        pixman_region32_fini(storage.region)
        pixman_region32_init_with_extents(storage.region, &box)
    }

    public var isEmpty: Bool { pixman_region32_not_empty(storage.region) == 0 }

    /// How many disjoint rectangles make the region.
    public var rectangleCount: Int { Int(pixman_region32_n_rects(storage.region)) }

    /// The region's disjoint rectangles, top to bottom and left to right within a band.
    public var rectangles: [IntRect] {
        var count: Int32 = 0
        guard let boxes = pixman_region32_rectangles(storage.region, &count) else { return [] }
        return UnsafeBufferPointer(start: boxes, count: Int(count)).map {
            IntRect(x: $0.x1, y: $0.y1, width: $0.x2 - $0.x1, height: $0.y2 - $0.y1)
        }
    }

    public mutating func add(_ rectangle: IntRect) {
        guard let box = Self.box(rectangle) else { return }
        combine(box, with: pixman_region32_union)
    }

    public mutating func subtract(_ rectangle: IntRect) {
        guard let box = Self.box(rectangle) else { return }
        combine(box, with: pixman_region32_subtract)
    }

    public func contains(x: Double, y: Double) -> Bool {
        // Whole pixels: the point lies in the pixel its coordinates round down to.
        let limit = Double(Self.limit)
        guard x >= -limit, x < limit, y >= -limit, y < limit else { return false }
        return pixman_region32_contains_point(storage.region, Int32(x.rounded(.down)), Int32(y.rounded(.down)), nil) != 0
    }

    /// Whether every point of `rectangle` is in the region.
    public func covers(_ rectangle: IntRect) -> Bool {
        guard !rectangle.isEmpty else { return true }
        guard var box = Self.box(rectangle), box.x1 == rectangle.x, box.y1 == rectangle.y,
            Int64(box.x2) == rectangle.maxX, Int64(box.y2) == rectangle.maxY
        else { return false }
        return pixman_region32_contains_rectangle(storage.region, &box) == PIXMAN_REGION_IN
    }

    /// The region clipped to `rectangle`.
    public func intersection(_ rectangle: IntRect) -> Region {
        var result = self
        guard let box = Self.box(rectangle) else { return Region() }
        result.combine(box, with: pixman_region32_intersect)
        return result
    }

    public static func == (lhs: Region, rhs: Region) -> Bool {
        lhs.storage === rhs.storage || pixman_region32_equal(lhs.storage.region, rhs.storage.region) != 0
    }

    public func hash(into hasher: inout Hasher) {
        // Equal regions have the same banded rectangles, so the same extents and count.
        let extents = pixman_region32_extents(storage.region)!.pointee
        hasher.combine(extents.x1)
        hasher.combine(extents.y1)
        hasher.combine(extents.x2)
        hasher.combine(extents.y2)
        hasher.combine(rectangleCount)
    }

    /// `self = operation(self, box)`, on storage of this value's own.
    private mutating func combine(
        _ box: pixman_box32_t,
        with operation: (UnsafeMutablePointer<pixman_region32_t>, UnsafePointer<pixman_region32_t>,
                         UnsafePointer<pixman_region32_t>) -> pixman_bool_t
    ) {
        var box = box
        var other = pixman_region32_t()
        pixman_region32_init_with_extents(&other, &box)
        defer { pixman_region32_fini(&other) }
        let result = Storage()
        // pixman leaves the region empty and marked broken when it cannot allocate.
        _ = operation(result.region, storage.region, &other)
        storage = result
    }

    /// The rectangle as a pixman box inside ±`limit`, or nil when nothing of it is left.
    private static func box(_ rectangle: IntRect) -> pixman_box32_t? {
        guard !rectangle.isEmpty else { return nil }
        func clamp(_ value: Int64) -> Int32 { Int32(Swift.min(Swift.max(value, -limit), limit)) }
        let box = pixman_box32_t(x1: clamp(Int64(rectangle.x)), y1: clamp(Int64(rectangle.y)),
                                 x2: clamp(rectangle.maxX), y2: clamp(rectangle.maxY))
        return box.x1 < box.x2 && box.y1 < box.y2 ? box : nil
    }

    /// pixman's region, freed with its owner; never changed once a Region shares it.
    private final class Storage: @unchecked Sendable {
        let region = UnsafeMutablePointer<pixman_region32_t>.allocate(capacity: 1)

        init() {
            pixman_region32_init(region)
        }

        deinit {
            pixman_region32_fini(region)
            region.deallocate()
        }
    }
}
