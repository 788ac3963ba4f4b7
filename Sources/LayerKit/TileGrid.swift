import Foundation

/// One tile of a `TiledLayer`: a level of detail and a place in that level's grid.
public struct TileKey: Hashable, Sendable, CustomStringConvertible {
    /// 0 is full resolution (contentsScale pixels per point); n > 0 has 1/2ⁿ of it, n < 0 is
    /// magnified 2⁻ⁿ times (`levelsOfDetailBias`).
    public var level: Int
    public var column: Int
    public var row: Int

    public init(level: Int, column: Int, row: Int) {
        (self.level, self.column, self.row) = (level, column, row)
    }

    /// The tile of the next coarser level that covers this one.
    public var parent: TileKey {
        TileKey(level: level + 1, column: column >> 1, row: row >> 1)
    }

    public var description: String { "L\(level)(\(column),\(row))" }
}

/// The tile grid of a `TiledLayer` (CATiledLayer's geometry): every level's tiles are `tileSize`
/// pixels, so a tile of level n covers tileSize × 2ⁿ / contentsScale points. The grid starts at
/// the origin of the layer's bounds space, so moving `bounds.origin` (scrolling) keeps the tiles.
///
/// There are `levelsOfDetail` levels, `levelsOfDetailBias` of them magnified: levels
/// −bias … levelsOfDetail − 1 − bias (at least the one level −bias).
public struct TileGrid: Hashable, Sendable {
    /// Pixels; each side at least one.
    public var tileSize: Size
    public var contentsScale: Double
    public var levelsOfDetail: Int
    public var levelsOfDetailBias: Int

    public init(tileSize: Size, contentsScale: Double = 1, levelsOfDetail: Int = 1, levelsOfDetailBias: Int = 0) {
        self.tileSize = Size(width: max(1, tileSize.width.rounded()), height: max(1, tileSize.height.rounded()))
        self.contentsScale = contentsScale > 0 && contentsScale.isFinite ? contentsScale : 1
        self.levelsOfDetail = max(1, levelsOfDetail)
        self.levelsOfDetailBias = max(0, levelsOfDetailBias)
    }

    /// The levels kept, finest first.
    public var levels: ClosedRange<Int> {
        let finest = -levelsOfDetailBias
        return finest...max(finest, levelsOfDetail - 1 - levelsOfDetailBias)
    }

    /// The pixels per point of a tile of `level`.
    public func pixelsPerPoint(ofLevel level: Int) -> Double {
        contentsScale * pow(2, Double(-level))
    }

    /// The coarsest level whose resolution is at least `pixelsPerPoint` (what the output shows of
    /// one point), so tiles are never magnified unless no finer level is kept; clamped to `levels`.
    public func level(forPixelsPerPoint pixelsPerPoint: Double) -> Int {
        guard pixelsPerPoint > 0, pixelsPerPoint.isFinite else { return levels.upperBound }
        // A hair of slack, so that exact powers of two (0.5 of full resolution) pick their level.
        let exact = (log2(contentsScale / pixelsPerPoint) + 1e-9).rounded(.down)
        return min(max(Int(exact), levels.lowerBound), levels.upperBound)
    }

    /// The tile's rectangle in the bounds space, in points.
    public func frame(of key: TileKey) -> Rect {
        let scale = pixelsPerPoint(ofLevel: key.level)
        let (w, h) = (tileSize.width / scale, tileSize.height / scale)
        return Rect(x: Double(key.column) * w, y: Double(key.row) * h, width: w, height: h)
    }

    /// The tiles of `level` that `rect` (in the bounds space) touches, row by row; none for an
    /// empty rectangle.
    public func keys(covering rect: Rect, level: Int) -> [TileKey] {
        guard !rect.isEmpty, rect.width.isFinite, rect.height.isFinite else { return [] }
        let scale = pixelsPerPoint(ofLevel: level)
        let (w, h) = (tileSize.width / scale, tileSize.height / scale)
        let c0 = Int((rect.minX / w).rounded(.down)), c1 = Int((rect.maxX / w).rounded(.up)) - 1
        let r0 = Int((rect.minY / h).rounded(.down)), r1 = Int((rect.maxY / h).rounded(.up)) - 1
        guard c1 >= c0, r1 >= r0 else { return [] }
        var keys: [TileKey] = []
        keys.reserveCapacity((c1 - c0 + 1) * (r1 - r0 + 1))
        for row in r0...r1 {
            for column in c0...c1 { keys.append(TileKey(level: level, column: column, row: row)) }
        }
        return keys
    }
}
