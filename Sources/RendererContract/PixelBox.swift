import LayerKit

/// A rectangle of whole pixels by its edges, for the arithmetic of pass boxes (may be empty).
public struct PixelBox: Equatable, Sendable {
    public var minX: Int, minY: Int, maxX: Int, maxY: Int

    public static let empty = PixelBox(minX: 0, minY: 0, maxX: 0, maxY: 0)

    public init(minX: Int, minY: Int, maxX: Int, maxY: Int) {
        (self.minX, self.minY, self.maxX, self.maxY) = (minX, minY, maxX, maxY)
    }

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.init(minX: x, minY: y, maxX: x + width, maxY: y + height)
    }

    public init(_ r: PixelRect) {
        self.init(x: Int(r.x), y: Int(r.y), width: Int(r.width), height: Int(r.height))
    }

    /// The whole pixels `r` touches, within ±2²⁴ so that far-off geometry stays representable.
    public init(covering r: Rect) {
        func whole(_ v: Double, _ rule: FloatingPointRoundingRule) -> Int {
            guard v.isFinite else { return v > 0 ? 1 << 24 : -(1 << 24) }
            return Int(max(-16_777_216, min(16_777_216, v.rounded(rule))))
        }
        self.init(minX: whole(r.minX, .down), minY: whole(r.minY, .down), maxX: whole(r.maxX, .up), maxY: whole(r.maxY, .up))
    }

    public var isEmpty: Bool { maxX <= minX || maxY <= minY }
    public var width: Int { max(0, maxX - minX) }
    public var height: Int { max(0, maxY - minY) }
    public var rect: Rect { Rect(x: Double(minX), y: Double(minY), width: Double(width), height: Double(height)) }
    public var pixelRect: PixelRect { PixelRect(x: Int32(minX), y: Int32(minY), width: UInt32(width), height: UInt32(height)) }

    public func union(_ b: PixelBox) -> PixelBox {
        if isEmpty { return b }
        if b.isEmpty { return self }
        return PixelBox(minX: min(minX, b.minX), minY: min(minY, b.minY), maxX: max(maxX, b.maxX), maxY: max(maxY, b.maxY))
    }

    public func intersection(_ b: PixelBox) -> PixelBox {
        PixelBox(minX: max(minX, b.minX), minY: max(minY, b.minY), maxX: min(maxX, b.maxX), maxY: min(maxY, b.maxY))
    }

    public func insetBy(dx: Int, dy: Int) -> PixelBox {
        PixelBox(minX: minX + dx, minY: minY + dy, maxX: maxX - dx, maxY: maxY - dy)
    }

    public func offsetBy(dx: Int, dy: Int) -> PixelBox {
        PixelBox(minX: minX + dx, minY: minY + dy, maxX: maxX + dx, maxY: maxY + dy)
    }
}
