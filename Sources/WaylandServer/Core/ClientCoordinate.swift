/// The range surface-space values from clients are kept in: ±2²⁴, far beyond any output, so that
/// the sums and negations made of a few of them downstream (window origins, popup placement,
/// accumulated offsets) cannot overflow 32 bits. A rectangle at x = −2³¹ is not one a client means.
enum ClientCoordinate {
    static let limit: Int64 = 1 << 24

    static func clamp(_ value: Int64) -> Int32 {
        Int32(min(max(value, -limit), limit))
    }

    /// A surface-space coordinate or length a request carries (a position, offset, size or hotspot).
    static func clamp(_ value: Int32) -> Int32 {
        clamp(Int64(value))
    }

    /// A request's x, y, width and height, each a coordinate.
    static func rectangle(x: Int32, y: Int32, width: Int32, height: Int32) -> IntRect {
        IntRect(x: clamp(x), y: clamp(y), width: clamp(width), height: clamp(height))
    }

    /// `a + b`, for values that accumulate (wl_surface.offset).
    static func sum(_ a: Int32, _ b: Int32) -> Int32 {
        clamp(Int64(a) + Int64(b))
    }
}
