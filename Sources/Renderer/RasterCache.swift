import LayerKit

/// Images the CPU draws for layers (shape layers' shapes, text layers' text), one per layer, kept
/// while what they are drawn from and their scale stay the same: an unchanged layer costs no
/// drawing and, since its image is the same object, no upload. Entries of layers that a frame no
/// longer draws are dropped at the end of that frame.
final class RasterCache<Source: Equatable> {
    typealias Raster = (image: Image, frame: Rect)

    private struct Entry {
        var source: Source
        var scale: Double
        var raster: Raster?
        var used: Bool
    }

    private var entries: [LayerID: Entry] = [:]
    /// How many images have been drawn since the cache was made.
    private(set) var rasterizationCount = 0

    /// The image of layer `id` drawn from `source` at `scale` pixels per point; `draw` runs only
    /// when the source or scale differ from the kept image's.
    func raster(for id: LayerID, source: Source, scale: Double, draw: (Source, Double) -> Raster?) -> Raster? {
        if var entry = entries[id], entry.source == source, entry.scale == scale {
            entry.used = true
            entries[id] = entry
            return entry.raster
        }
        let raster = draw(source, scale)
        rasterizationCount += 1
        entries[id] = Entry(source: source, scale: scale, raster: raster, used: true)
        return raster
    }

    /// Drops the entries the frame did not use and starts counting use for the next.
    func endFrame() {
        entries = entries.filter(\.value.used)
        for id in entries.keys { entries[id]?.used = false }
    }
}

/// What a text layer's image is drawn from: its text values and the bounds they are laid out in.
struct TextRasterSource: Equatable {
    var text: TextProperties
    var bounds: Rect
}
