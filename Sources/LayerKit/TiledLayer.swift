/// `TiledLayer`'s values as committed: its grid settings and the cache its tiles live in.
///
/// The cache is a reference shared by every snapshot of the layer: it is how tiles drawn after a
/// commit reach the renderer without another commit (see `TileCache`). Two values are equal when
/// their settings are and they share the cache.
public struct TiledProperties: Sendable, Hashable {
    /// In pixels (CATiledLayer's tileSize): a tile of full resolution covers tileSize / contentsScale points.
    public var tileSize = Size(width: 256, height: 256)
    public var levelsOfDetail = 1
    public var levelsOfDetailBias = 0
    /// The class's `fadeDuration`, carried so the renderer fades tiles without the layer.
    public var fadeDuration: Double
    public let cache: TileCache

    public init(fadeDuration: Double, cache: TileCache) {
        self.fadeDuration = fadeDuration
        self.cache = cache
    }

    /// The grid at `contentsScale` pixels per point of full resolution.
    public func grid(contentsScale: Double) -> TileGrid {
        TileGrid(
            tileSize: tileSize, contentsScale: contentsScale, levelsOfDetail: levelsOfDetail,
            levelsOfDetailBias: levelsOfDetailBias)
    }

    public static func == (a: TiledProperties, b: TiledProperties) -> Bool {
        a.tileSize == b.tileSize && a.levelsOfDetail == b.levelsOfDetail && a.levelsOfDetailBias == b.levelsOfDetailBias
            && a.fadeDuration == b.fadeDuration && a.cache === b.cache
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(tileSize)
        hasher.combine(levelsOfDetail)
        hasher.combine(levelsOfDetailBias)
        hasher.combine(ObjectIdentifier(cache))
    }
}

/// A layer whose contents are drawn in tiles, on demand, for what the output shows of it
/// (CATiledLayer): a picture far larger than any texture or memory budget, 20,000 points square
/// say, is browsed by drawing only the tiles in view, at the level of detail the view's scale needs.
///
/// Its contents come from `draw(in:)` (a subclass's) or the delegate's `draw(_:in:)`, called once
/// per tile on a background queue, so drawing must be thread-safe, as CATiledLayer requires. The
/// context's CTM is scaled for the tile's level of detail and its clip is the tile: the clip's
/// bounding box (`GraphicsContext.clipBoundingBox`) is the part of the bounds space to draw.
///
/// The data path: the layer's values carry a `TileCache` into every render tree. Only the renderer
/// knows what shows of the layer (its transform to the output's pixels through every ancestor, the
/// clips above it and the output's scale), so while it encodes a frame it asks the cache for the
/// tiles of that visible rectangle at that scale; the cache answers with the tiles already drawn
/// and queues the others. A drawn tile shows from the next frame, fading in over `fadeDuration`
/// of sample time; `TileCache.revision` tells the renderer's damage tracking that a frame changed.
///
/// `setNeedsDisplay()` redraws every tile, `setNeedsDisplay(in:)` those the rectangle touches,
/// once the transaction commits. `contents` and `display()`'s backing store are not used;
/// `render(in:)` (printing, export) has the layer draw itself in one piece, clipped to its bounds.
open class TiledLayer: Layer {
    /// How long a newly drawn tile takes to fade in, in seconds (CATiledLayer's class property);
    /// a subclass overrides it to change it.
    open class var fadeDuration: Double { 0.25 }

    public override init() {
        let target = DrawingTarget()
        super.init()
        target.layer = self
        properties.tiled = TiledProperties(
            fadeDuration: type(of: self).fadeDuration, cache: TileCache { context in target.layer?.draw(in: context) })
    }

    public required init(layer: Layer) {
        super.init(layer: layer)
    }

    override class var defaultProperties: LayerProperties {
        var p = LayerProperties()
        p.tiled = TiledProperties(fadeDuration: fadeDuration, cache: TileCache { _ in })
        return p
    }

    override class func propertyEntry(forKey key: String) -> LayerKeyTable.Entry? {
        tiledEntries[key] ?? super.propertyEntry(forKey: key)
    }

    private static let tiledEntries: [String: LayerKeyTable.Entry] = [
        "tileSize": LayerKeyTable.entry({ $0.tiled?.tileSize }, \TiledLayer.tileSize),
        "levelsOfDetail": LayerKeyTable.entry({ $0.tiled?.levelsOfDetail }, \TiledLayer.levelsOfDetail),
        "levelsOfDetailBias": LayerKeyTable.entry({ $0.tiled?.levelsOfDetailBias }, \TiledLayer.levelsOfDetailBias),
    ]

    /// The tiles' cache, for the renderer and for tests that count what was drawn.
    public var tileCache: TileCache { properties.tiled!.cache }

    /// The largest size of a tile, in pixels; 256 × 256 by default.
    public var tileSize: Size {
        get { properties.tiled!.tileSize }
        set { setProperty(\.tiled!.tileSize, newValue, key: "tileSize") }
    }

    /// How many levels of detail are kept, each half the resolution of the one before; 1 by default.
    public var levelsOfDetail: Int {
        get { properties.tiled!.levelsOfDetail }
        set { setProperty(\.tiled!.levelsOfDetail, newValue, key: "levelsOfDetail") }
    }

    /// How many of the levels are magnified (2×, 4×, … full resolution); 0 by default.
    public var levelsOfDetailBias: Int {
        get { properties.tiled!.levelsOfDetailBias }
        set { setProperty(\.tiled!.levelsOfDetailBias, newValue, key: "levelsOfDetailBias") }
    }

    /// Drops the tiles marked since the last display, to be drawn again when next shown: all of
    /// them after `setNeedsDisplay()` (or a direct call), those `setNeedsDisplay(in:)` touched
    /// otherwise. The layer joins the commit, so a frame follows.
    open override func display() {
        let rect = needsDisplayRect
        tileCache.invalidate(rect.isNull || rect == .infinite ? nil : rect)
        markChanged()
    }
}

/// The layer a tile cache draws: weak, so the queue keeps no layer alive, and handed to the
/// queue as CATiledLayer hands itself to its drawing threads (drawing must be thread-safe).
private final class DrawingTarget: @unchecked Sendable {
    weak var layer: Layer?
}
