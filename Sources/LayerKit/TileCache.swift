import Dispatch
import Synchronization

/// A tile ready to be shown, as `TileCache.tiles(visibleRect:pixelsPerPoint:grid:fadeDuration:atTime:)`
/// hands it to the renderer.
public struct ShownTile: Sendable {
    public let key: TileKey
    public let image: Image
    /// Where the image lies in the layer's bounds space.
    public let frame: Rect
    /// How far its fade-in has come at the time asked (1 once done, or with no fade).
    public let opacity: Double
}

/// The tiles of one `TiledLayer`, drawn on demand on a background queue and kept within a budget.
///
/// The renderer asks each frame for the tiles of the visible rectangle at the level of detail the
/// output's scale needs (`tiles(visibleRect:…)`); the answer holds the tiles that are ready (with
/// coarser tiles standing in for missing ones), and the missing tiles become the queue's work,
/// nearest the centre first. Each request replaces the previous work, so tiles scrolled past before
/// their turn are never drawn. A finished tile shows from the next frame on, fading in over
/// `fadeDuration` from the sample time of the first frame that shows it, so frames at given
/// sample times are deterministic.
///
/// At most `maximumBytes` of tiles are held: over it, the tiles farthest from the last visible
/// rectangle go first, and a visible rectangle needing more tiles than fit gets its central ones.
///
/// Safe to use from any thread: it is the one shared, mutable part of a render tree, behind a lock.
public final class TileCache: Sendable {
    /// Draws one tile into a context already scaled to the tile's level, translated to the
    /// tile's place in the bounds space and clipped to it. Runs on the cache's queue.
    public typealias Drawer = @Sendable (GraphicsContext) -> Void

    /// 64 MiB: 256 tiles of 256 × 256, a 4K output at scale 2 and a coarser level behind it.
    public static let defaultMaximumBytes = 64 << 20

    public let maximumBytes: Int
    private let drawer: Drawer
    private let queue = DispatchQueue(label: "vitrine.tiled-layer", qos: .userInitiated)
    private let state = Mutex(State())

    fileprivate struct Tile {
        var image: Image
        var frame: Rect
        /// The sample time of the first frame that showed it; -∞ when that frame was not a sample.
        var firstShown: Double?
        var bytes: Int { image.bytesPerRow * image.height }
    }

    fileprivate struct State {
        var grid: TileGrid?
        var tiles: [TileKey: Tile] = [:]
        var bytes = 0
        /// Missing tiles of the last request, in drawing order.
        var wanted: [TileKey] = []
        /// The last request's tiles and the centre of its rectangle: kept before others.
        var needed: Set<TileKey> = []
        /// The coarser tiles standing in for missing ones in the last request.
        var protected: Set<TileKey> = []
        var centre = Point.zero
        var workerRunning = false
        /// The tile being drawn, and whether an invalidation since means its image is stale.
        var drawing: TileKey?
        var drawingIsStale = false
        var revision: UInt64 = 0
        /// The revision and sample time of the last request.
        var requestedRevision: UInt64 = 0
        var requestTime = -Double.infinity
        var fadeEnd = -Double.infinity
        var drawCount = 0
        var peakBytes = 0
    }

    public init(maximumBytes: Int = TileCache.defaultMaximumBytes, drawer: @escaping Drawer) {
        self.maximumBytes = maximumBytes
        self.drawer = drawer
    }

    // MARK: - What the renderer asks

    /// The tiles to show for `visibleRect` (bounds space) seen at `pixelsPerPoint` output pixels
    /// per point: coarser stand-ins first, then the tiles of the chosen level, each with its fade
    /// at sample time `time` (nil: no fade). Queues the missing tiles for drawing.
    public func tiles(
        visibleRect: Rect, pixelsPerPoint: Double, grid: TileGrid, fadeDuration: Double, atTime time: Double?
    ) -> [ShownTile] {
        let level = grid.level(forPixelsPerPoint: pixelsPerPoint)
        let centre = Point(x: visibleRect.midX, y: visibleRect.midY)
        let tileBytes = Int(grid.tileSize.width * grid.tileSize.height) * 4
        let capacity = max(1, maximumBytes / tileBytes)
        var keys = grid.keys(covering: visibleRect, level: level)
        keys.sort { distance(grid.frame(of: $0), centre) < distance(grid.frame(of: $1), centre) }
        if keys.count > capacity { keys.removeLast(keys.count - capacity) }
        let (shown, startWorker) = state.withLock { s -> ([ShownTile], Bool) in
            if s.grid != grid { s.reset(to: grid) }
            s.needed = Set(keys)
            s.centre = centre
            s.wanted = keys.filter { s.tiles[$0] == nil }
            var order: [TileKey] = []
            var standIns = Set<TileKey>()
            for key in s.wanted {
                var parent = key.parent
                while parent.level <= grid.levels.upperBound {
                    if s.tiles[parent] != nil {
                        if standIns.insert(parent).inserted { order.append(parent) }
                        break
                    }
                    parent = parent.parent
                }
            }
            // Coarsest stand-ins at the back, the chosen level's tiles in front.
            order.sort { $0.level > $1.level }
            order += keys.filter { s.tiles[$0] != nil }
            var shown: [ShownTile] = []
            shown.reserveCapacity(order.count)
            for key in order {
                guard var tile = s.tiles[key] else { continue }
                let start = tile.firstShown ?? time ?? -.infinity
                tile.firstShown = start
                s.tiles[key] = tile
                s.fadeEnd = max(s.fadeEnd, start + fadeDuration)
                let opacity = time.map { fadeDuration > 0 ? ($0 - start) / fadeDuration : 1 } ?? 1
                shown.append(ShownTile(key: key, image: tile.image, frame: tile.frame, opacity: min(1, max(0, opacity))))
            }
            s.protected = standIns
            (s.requestedRevision, s.requestTime) = (s.revision, time ?? .infinity)
            s.evict(over: maximumBytes, grid: grid)
            let start = !s.wanted.isEmpty && !s.workerRunning
            if start { s.workerRunning = true }
            return (shown, start)
        }
        if startWorker { queue.async { self.drainWanted() } }
        return shown
    }

    /// Counts changes of what the cache can show (a tile drawn, tiles invalidated): a consumer that
    /// saw another revision must redraw the layer.
    public var revision: UInt64 { state.withLock { $0.revision } }

    /// Whether a tile shown at or before `time` is still fading in after `since` (the sample time
    /// of the frame before): frames between them differ.
    public func isFading(after since: Double) -> Bool {
        state.withLock { since < $0.fadeEnd }
    }

    /// Whether frames after the last request can differ from it: tiles are being drawn, were
    /// drawn or dropped since, or were still fading in at its sample time. A frame loop keeps
    /// drawing while this holds (`RenderTree.hasVisibleAnimations`).
    public var needsFrames: Bool {
        state.withLock { s in
            s.workerRunning || s.revision != s.requestedRevision || s.requestTime < s.fadeEnd
        }
    }

    // MARK: - What the layer asks

    /// Drops the tiles `rect` touches (all for nil); ones being drawn are drawn again. Dropped
    /// tiles fade in again when redrawn, as Core Animation's do.
    public func invalidate(_ rect: Rect?) {
        state.withLock { s in
            guard let grid = s.grid else { return }
            let stale = s.tiles.keys.filter { rect == nil || grid.frame(of: $0).intersects(rect!) }
            for key in stale { s.remove(key) }
            if let drawing = s.drawing, rect == nil || grid.frame(of: drawing).intersects(rect!) { s.drawingIsStale = true }
            if !stale.isEmpty { s.revision &+= 1 }
        }
    }

    /// Waits until the queue has drawn every tile asked for so far.
    public func waitUntilIdle() {
        queue.sync {}
    }

    /// Tiles held now, and their bytes.
    public var cachedTileCount: Int { state.withLock { $0.tiles.count } }
    public var cachedBytes: Int { state.withLock { $0.bytes } }
    /// The most bytes held at once since the cache was made.
    public var peakBytes: Int { state.withLock { $0.peakBytes } }
    /// How many tiles have been drawn.
    public var drawCount: Int { state.withLock { $0.drawCount } }
    /// The keys of the tiles held, for tests and diagnostics.
    public var cachedKeys: Set<TileKey> { state.withLock { Set($0.tiles.keys) } }

    // MARK: - The queue

    /// Draws wanted tiles one at a time until none is left; runs on `queue`.
    private func drainWanted() {
        while true {
            let next = state.withLock { s -> (TileKey, TileGrid)? in
                while let key = s.wanted.first {
                    s.wanted.removeFirst()
                    if s.tiles[key] == nil, let grid = s.grid {
                        (s.drawing, s.drawingIsStale) = (key, false)
                        return (key, grid)
                    }
                }
                s.workerRunning = false
                return nil
            }
            guard let (key, grid) = next else { return }
            let image = draw(key, grid)
            state.withLock { s in
                s.drawing = nil
                guard let image, !s.drawingIsStale, s.grid == grid else { return }
                let tile = Tile(image: image, frame: grid.frame(of: key))
                // Room first, so that the budget holds at every moment.
                s.evict(over: maximumBytes - tile.bytes, grid: grid)
                s.insert(tile, for: key)
                s.drawCount += 1
                s.revision &+= 1
            }
        }
    }

    /// One tile's image: the context's CTM maps the tile's points onto its pixels, and its clip is
    /// the tile, so `clipBoundingBox` tells the drawer which tile and scale are wanted.
    private func draw(_ key: TileKey, _ grid: TileGrid) -> Image? {
        guard let context = try? GraphicsContext(width: Int(grid.tileSize.width), height: Int(grid.tileSize.height)) else {
            return nil
        }
        let frame = grid.frame(of: key)
        let scale = grid.pixelsPerPoint(ofLevel: key.level)
        context.scaleBy(x: scale, y: scale)
        context.translateBy(x: -frame.minX, y: -frame.minY)
        context.clip(to: frame)
        drawer(context)
        return context.makeImage()
    }
}

private func distance(_ frame: Rect, _ point: Point) -> Double {
    let dx = frame.midX - point.x, dy = frame.midY - point.y
    return (dx * dx + dy * dy).squareRoot()
}

extension TileCache.State {
    /// Forgets every tile: the grid (tile size, scale or levels) changed.
    fileprivate mutating func reset(to grid: TileGrid) {
        if !tiles.isEmpty { revision &+= 1 }
        (tiles, bytes, wanted, needed) = ([:], 0, [], [])
        if drawing != nil { drawingIsStale = true }
        self.grid = grid
    }

    fileprivate mutating func insert(_ tile: TileCache.Tile, for key: TileKey) {
        remove(key)
        tiles[key] = tile
        bytes += tile.bytes
        peakBytes = max(peakBytes, bytes)
    }

    fileprivate mutating func remove(_ key: TileKey) {
        if let old = tiles.removeValue(forKey: key) { bytes -= old.bytes }
    }

    /// Drops tiles until at most `maximumBytes` are held: first those the last request did not
    /// show, farthest from its centre first, then its stand-ins, never its own tiles.
    fileprivate mutating func evict(over maximumBytes: Int, grid: TileGrid) {
        guard bytes > maximumBytes else { return }
        let centre = self.centre
        let candidates = tiles.keys.filter { !needed.contains($0) }.sorted { a, b in
            let (pa, pb) = (protected.contains(a), protected.contains(b))
            if pa != pb { return !pa }
            return distance(grid.frame(of: a), centre) > distance(grid.frame(of: b), centre)
        }
        for key in candidates {
            guard bytes > maximumBytes else { return }
            remove(key)
        }
    }
}
