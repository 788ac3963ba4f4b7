import LayerKit

/// Shape layers' rasterised shapes, one per layer, kept while the shape and its scale stay the
/// same: an unchanged shape costs no drawing and, since its image is the same object, no upload.
/// Entries of layers that a frame no longer draws are dropped at the end of that frame.
final class ShapeRasterCache {
    private struct Entry {
        var shape: ShapeProperties
        var scale: Double
        var raster: (image: Image, frame: Rect)?
        var used: Bool
    }

    private var entries: [LayerID: Entry] = [:]
    /// How many times a shape has been drawn since the cache was made.
    private(set) var rasterizationCount = 0

    /// The shape of layer `id` drawn at `scale` pixels per point, drawn now only when it differs
    /// from the one kept.
    func raster(for id: LayerID, shape: ShapeProperties, scale: Double) -> (image: Image, frame: Rect)? {
        if var entry = entries[id], entry.shape == shape, entry.scale == scale {
            entry.used = true
            entries[id] = entry
            return entry.raster
        }
        let raster = shape.rasterized(scale: scale)
        rasterizationCount += 1
        entries[id] = Entry(shape: shape, scale: scale, raster: raster, used: true)
        return raster
    }

    /// Drops the entries the frame did not use and starts counting use for the next.
    func endFrame() {
        entries = entries.filter(\.value.used)
        for id in entries.keys { entries[id]?.used = false }
    }
}
