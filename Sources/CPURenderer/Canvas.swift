internal import CPixman
import LayerKit
import RendererContract

/// Where layers are drawn: an a8r8g8b8 image (the target's memory, or an offscreen group's)
/// whose pixel (0, 0) is target pixel `origin`, changed only within `box` (target pixels).
struct Canvas {
    let image: PixmanImage
    let origin: (x: Int, y: Int)
    let box: PixelBox
    /// The whole target's pixels, whatever the frame redraws: what a tiled layer's visible part
    /// is measured against, as on the Vulkan renderer.
    let target: PixelBox

    /// `target` defaults to `box` (a coverage stamp, whose layers never ask what the target shows).
    init(image: PixmanImage, origin: (x: Int, y: Int), box: PixelBox, target: PixelBox? = nil) {
        (self.image, self.origin, self.box, self.target) = (image, origin, box, target ?? box)
    }

    /// Composites `source` through `mask` (nil: full coverage) over the canvas within `box`.
    /// The source's pixel (0, 0) is target pixel `sourceOrigin`; without one, the source is
    /// addressed in canvas pixels (a solid colour, or an image whose transform maps canvas pixels
    /// to its own).
    func composite(
        _ source: PixmanImage, at sourceOrigin: (x: Int, y: Int)? = nil, mask: Coverage?, box: PixelBox,
        operation: pixman_op_t = PIXMAN_OP_OVER
    ) {
        let (x, y) = (Int32(box.minX - origin.x), Int32(box.minY - origin.y))
        let (sourceX, sourceY) = sourceOrigin.map { (Int32(box.minX - $0.x), Int32(box.minY - $0.y)) } ?? (x, y)
        pixman_image_composite32(
            operation, source.handle, mask?.image.handle, image.handle, sourceX, sourceY, Int32(box.minX - (mask?.box.minX ?? 0)),
            Int32(box.minY - (mask?.box.minY ?? 0)), x, y, Int32(box.width), Int32(box.height))
    }
}

/// A pixman region: a frame's redrawn pixels, a target's pixels still to bring up to date.
final class PixmanRegion {
    let region = UnsafeMutablePointer<pixman_region32_t>.allocate(capacity: 1)

    init() { pixman_region32_init(region) }

    deinit {
        pixman_region32_fini(region)
        region.deallocate()
    }

    func add(_ box: PixelBox) {
        guard !box.isEmpty else { return }
        pixman_region32_union_rect(region, region, Int32(box.minX), Int32(box.minY), UInt32(box.width), UInt32(box.height))
    }

    func removeAll() { pixman_region32_clear(region) }

    var isEmpty: Bool { pixman_region32_not_empty(region) == 0 }

    var extents: PixelBox {
        let e = pixman_region32_extents(region)!.pointee
        return PixelBox(minX: Int(e.x1), minY: Int(e.y1), maxX: Int(e.x2), maxY: Int(e.y2))
    }
}
