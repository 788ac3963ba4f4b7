import LayerKit

/// Images the CPU draws for layers (shape layers' shapes, text layers' text, blurred shadow
/// paths), one per layer, kept while what they are drawn from and their scale stay the same: an
/// unchanged layer costs no drawing and, since its image is the same object, no upload. Entries of
/// layers that a frame no longer draws are dropped at the end of that frame, and so are the
/// largest entries while the kept images exceed `budgetBytes`.
public final class RasterCache<Source: Equatable> {
    public typealias Raster = (image: Image, frame: Rect)

    private struct Entry {
        var source: Source
        var scale: Double
        var raster: Raster?
        /// The frame that last drew it.
        var frame: UInt64

        var bytes: Int { raster.map { $0.image.height * $0.image.bytesPerRow } ?? 0 }
    }

    private var entries: [LayerID: Entry] = [:]
    /// Whether `entries` holds any: asked every frame without touching the generic dictionary
    /// (whose type this generic class looks up at run time).
    private var hasEntries = false
    /// Counts frames: an entry drawn in the current one is in use.
    private var frame: UInt64 = 0
    /// The snapshot a partial frame last kept unused entries for: the next one looks only at the
    /// layers changed since (a removed layer is a change), not at every entry.
    private var keptFor: (contextID: UInt64, generation: UInt64)?
    /// The most bytes of images kept from one frame to the next.
    public let budgetBytes: Int
    /// How many images have been drawn since the cache was made (the misses).
    public private(set) var rasterizationCount = 0
    /// How many times a kept image served a draw since the cache was made.
    public private(set) var hitCount = 0
    /// The bytes of the images kept now.
    public private(set) var keptBytes = 0

    public init(budgetBytes: Int = .max) {
        self.budgetBytes = budgetBytes
    }

    /// The image of layer `id` drawn from `source` at `scale` pixels per point; `draw` runs only
    /// when the source or scale differ from the kept image's.
    public func raster(for id: LayerID, source: Source, scale: Double, draw: (Source, Double) -> Raster?) -> Raster? {
        if let entry = entries[id], entry.source == source, entry.scale == scale {
            entries[id]?.frame = frame
            hitCount += 1
            return entry.raster
        }
        let raster = draw(source, scale)
        rasterizationCount += 1
        set(Entry(source: source, scale: scale, raster: raster, frame: frame), for: id)
        return raster
    }

    /// Drops every kept image.
    public func removeAll() {
        entries = [:]
        hasEntries = false
        keptBytes = 0
        keptFor = nil
    }

    /// Drops the entries the frame did not use, then the largest ones while over budget, and
    /// starts the next frame. A frame of `tree` that skipped subtrees outside what it redrew
    /// (`walkedWhole` false) keeps unused entries while their layer is in the tree, and looks only
    /// at the entries of layers changed since the tree it last kept them for. The tree is borrowed,
    /// not copied (a copy retains each of its parts).
    public func endFrame(of tree: RenderTree, walkedWhole: Bool) {
        // Most frames of a kiosk keep no images at all: nothing to look at.
        if hasEntries {
            dropUnused(of: tree, walkedWhole: walkedWhole)
        } else {
            keptFor = walkedWhole ? nil : (tree.contextID, tree.generation)
        }
        frame += 1
    }

    /// `endFrame`'s work where there are entries. Apart, and never inlined, because this generic
    /// code looks up the types it uses at run time on entry: an empty cache's frame pays nothing.
    @inline(never)
    private func dropUnused(of tree: RenderTree, walkedWhole: Bool) {
        if walkedWhole {
            for (id, entry) in entries where entry.frame != frame { set(nil, for: id) }
            keptFor = nil
        } else {
            let changed = keptFor.flatMap { $0.contextID == tree.contextID ? tree.changedLayerIDs(since: $0.generation) : nil }
            for id in changed ?? Set(entries.keys) where tree[id] == nil && entries[id].map({ $0.frame != frame }) == true {
                set(nil, for: id)
            }
            keptFor = (tree.contextID, tree.generation)
        }
        if keptBytes > budgetBytes {
            // Dropping the largest first keeps the most layers cached for the memory.
            for id in entries.sorted(by: { $0.value.bytes > $1.value.bytes }).map(\.key) where keptBytes > budgetBytes {
                set(nil, for: id)
            }
        }
    }

    private func set(_ entry: Entry?, for id: LayerID) {
        keptBytes += (entry?.bytes ?? 0) - (entries[id]?.bytes ?? 0)
        entries[id] = entry
        hasEntries = !entries.isEmpty
    }
}

/// What a text layer's image is drawn from: its text values and the bounds they are laid out in.
public struct TextRasterSource: Equatable {
    public var text: TextProperties
    public var bounds: Rect

    public init(text: TextProperties, bounds: Rect) {
        (self.text, self.bounds) = (text, bounds)
    }
}

/// What a shadow path's blurred mask is drawn from (with the scale, in mask pixels per layer
/// unit): the path and the blur's σ in layer units (shadowRadius).
public struct ShadowMaskSource: Equatable {
    public var path: Path
    public var radius: Double

    public init(path: Path, radius: Double) {
        (self.path, self.radius) = (path, radius)
    }
}
