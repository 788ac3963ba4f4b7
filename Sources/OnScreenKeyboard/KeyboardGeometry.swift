import Graphics

/// Spacing of the keys, in points.
public struct KeyboardMetrics: Hashable, Sendable {
    /// Between neighbouring keys in a row.
    public var horizontalGap: Double
    /// Between rows.
    public var verticalGap: Double
    /// Around the key area, inside the keyboard's bounds.
    public var padding: Double
    /// The widest a key unit gets: a page that would be wider (a numeric pad, a wide output) is
    /// centred at this width, so its keys stay within a thumb's reach.
    public var maximumUnitWidth: Double

    public init(horizontalGap: Double = 6, verticalGap: Double = 8, padding: Double = 4, maximumUnitWidth: Double = 160) {
        self.horizontalGap = horizontalGap
        self.verticalGap = verticalGap
        self.padding = padding
        self.maximumUnitWidth = maximumUnitWidth
    }
}

/// One key placed on the keyboard.
public struct PlacedKey: Hashable, Sendable {
    public var key: Key
    /// In the keyboard's bounds space, points; every edge on a device pixel.
    public var frame: Rect
    public var row: Int
    /// The key's index in its row.
    public var column: Int
}

/// Where every key of a page goes on a keyboard of a size at an output scale.
///
/// The key area is divided in device pixels: the boundary between key units (and between rows)
/// falls on the pixel nearest its exact place, and each key is the span between its boundaries
/// less the gap, split into whole pixels on either side (the outer keys too, so that they are as
/// wide as the others; the margin is the padding and half a gap). So every key edge is on a pixel
/// at any scale (1, 1.5, 2…), the gaps are all the same number of pixels, and rounding never adds
/// up across a row.
public struct KeyboardGeometry: Hashable, Sendable {
    public let page: KeyboardPage
    public let size: Size
    public let scale: Double
    public let keys: [PlacedKey]
    /// The rows' vertical bands (gap included), top to bottom, for finding the key under a touch.
    private let rowBands: [ClosedRange<Double>]

    public init(page: KeyboardPage, size: Size, scale: Double, metrics: KeyboardMetrics = KeyboardMetrics()) {
        precondition(scale > 0, "KeyboardGeometry: the scale must be positive, not \(scale)")
        self.page = page
        self.size = size
        self.scale = scale
        let px = { (points: Double) in (points * scale).rounded() }
        let width = px(size.width), height = px(size.height), padding = px(metrics.padding)
        let hGap = px(metrics.horizontalGap), vGap = px(metrics.verticalGap)
        let units = page.units
        // The key area, pixels; narrowed and centred where units would be too wide.
        var areaWidth = max(0, width - 2 * padding)
        if units > 0 {
            areaWidth = min(areaWidth, (units * metrics.maximumUnitWidth * scale).rounded())
        }
        let areaX = ((width - areaWidth) / 2).rounded(.down)
        let areaY = padding
        let areaHeight = max(0, height - 2 * padding)
        let rowCount = Double(page.rows.count)
        let unitWidth = units > 0 ? areaWidth / units : 0
        // Gap pixels on the leading and trailing side of each boundary.
        let hLead = (hGap / 2).rounded(.down), hTrail = hGap - hLead
        let vLead = (vGap / 2).rounded(.down), vTrail = vGap - vLead
        func rowEdge(_ r: Int) -> Double { (areaY + Double(r) * areaHeight / rowCount).rounded() }
        var placed: [PlacedKey] = []
        var bands: [ClosedRange<Double>] = []
        for (r, row) in page.rows.enumerated() {
            let top = rowEdge(r) + vTrail
            let bottom = rowEdge(r + 1) - vLead
            bands.append(rowEdge(r) / scale...rowEdge(r + 1) / scale)
            let rowUnits = row.reduce(0) { $0 + $1.width }
            var u = (units - rowUnits) / 2
            func columnEdge(_ u: Double) -> Double { (areaX + u * unitWidth).rounded() }
            for (c, key) in row.enumerated() {
                let left = columnEdge(u) + hTrail
                u += key.width
                let right = columnEdge(u) - hLead
                let frame = Rect(
                    x: left / scale, y: top / scale,
                    width: max(0, right - left) / scale, height: max(0, bottom - top) / scale)
                placed.append(PlacedKey(key: key, frame: frame, row: r, column: c))
            }
        }
        keys = placed
        rowBands = bands
    }

    /// The key for a touch at `point` (bounds space): the nearest key of the row whose band holds
    /// the point, so a touch in a gap or beside a short row still types; nil outside the keyboard.
    public func key(at point: Point) -> PlacedKey? {
        guard point.x >= 0, point.y >= 0, point.x < size.width, point.y < size.height else { return nil }
        let row = rowBands.firstIndex { $0.contains(point.y) } ?? (point.y < (rowBands.first?.lowerBound ?? 0) ? 0 : rowBands.count - 1)
        let candidates = keys.filter { $0.row == row }
        return candidates.min { distance(point.x, $0.frame) < distance(point.x, $1.frame) }
    }

    private func distance(_ x: Double, _ frame: Rect) -> Double {
        x < frame.minX ? frame.minX - x : x > frame.maxX ? x - frame.maxX : 0
    }
}
