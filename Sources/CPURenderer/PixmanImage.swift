import Buffers
internal import CPixman

/// A pixman image, owned: a frame's target, an offscreen group, a coverage mask, or a view of
/// pixels someone else owns (an `Image`, a client's buffer) while a frame draws from them.
final class PixmanImage {
    let handle: OpaquePointer
    let width: Int
    let height: Int

    /// A new image of `width`×`height` pixels, zeroed: transparent, or no coverage.
    init(format: pixman_format_code_t, width: Int, height: Int) {
        handle = pixman_image_create_bits(format, Int32(width), Int32(height), nil, 0)!
        (self.width, self.height) = (width, height)
    }

    /// The pixels at `bits`, `bytesPerRow` apart, which stay valid for as long as the image is used.
    init(format: pixman_format_code_t, width: Int, height: Int, bits: UnsafeMutableRawPointer, bytesPerRow: Int) {
        handle = pixman_image_create_bits(
            format, Int32(width), Int32(height), bits.assumingMemoryBound(to: UInt32.self), Int32(bytesPerRow))!
        (self.width, self.height) = (width, height)
    }

    /// A solid premultiplied colour (red, green, blue, alpha in 0…1).
    init(solid color: (Double, Double, Double, Double)) {
        var c = Self.color16(color)
        handle = pixman_image_create_solid_fill(&c)!
        (width, height) = (1, 1)
    }

    /// An image pixman made that computes its pixels (a gradient), owned from now on.
    init(owning handle: OpaquePointer) {
        self.handle = handle
        (width, height) = (1, 1)
    }

    /// A colour (red, green, blue, alpha in 0…1) in pixman's 16 bits a channel.
    static func color16(_ color: (Double, Double, Double, Double)) -> pixman_color_t {
        func channel(_ v: Double) -> UInt16 { UInt16(max(0, min(1, v)) * 65535 + 0.5) }
        return pixman_color_t(red: channel(color.0), green: channel(color.1), blue: channel(color.2), alpha: channel(color.3))
    }

    deinit { pixman_image_unref(handle) }

    var bits: UnsafeMutableRawPointer { UnsafeMutableRawPointer(pixman_image_get_data(handle)!) }
    var bytesPerRow: Int { Int(pixman_image_get_stride(handle)) }

    /// pixman's format for a buffer's pixels, or nil where pixman cannot read them.
    static func format(of pixelFormat: PixelFormat) -> pixman_format_code_t? {
        switch pixelFormat {
        case .argb8888: PIXMAN_a8r8g8b8
        case .xrgb8888: PIXMAN_x8r8g8b8
        case .abgr8888: PIXMAN_a8b8g8r8
        case .xbgr8888: PIXMAN_x8b8g8r8
        case .rgba8888: PIXMAN_r8g8b8a8
        case .rgbx8888: PIXMAN_r8g8b8x8
        case .bgra8888: PIXMAN_b8g8r8a8
        case .bgrx8888: PIXMAN_b8g8r8x8
        case .rgb888: PIXMAN_r8g8b8
        case .bgr888: PIXMAN_b8g8r8
        case .rgb565: PIXMAN_r5g6b5
        case .bgr565: PIXMAN_b5g6r5
        case .argb2101010: PIXMAN_a2r10g10b10
        case .xrgb2101010: PIXMAN_x2r10g10b10
        case .abgr2101010: PIXMAN_a2b10g10r10
        case .xbgr2101010: PIXMAN_x2b10g10r10
        default: nil
        }
    }

    /// A view of `rows` (read only: pixman writes only to destinations), or nil for a format
    /// pixman cannot read.
    static func viewing(_ rows: PixelRows) -> PixmanImage? {
        guard let format = format(of: rows.format), let base = rows.bytes.baseAddress, rows.width > 0, rows.height > 0 else {
            return nil
        }
        return PixmanImage(
            format: format, width: rows.width, height: rows.height, bits: UnsafeMutableRawPointer(mutating: base),
            bytesPerRow: rows.bytesPerRow)
    }
}

/// pixman's views of the client buffers frames read (`PixmanImage.viewing`), kept while
/// consecutive frames read them, so that a window's frame makes no pixman image for the buffer
/// it shows. A view is found by exactly where the pixels lie and how
/// they are laid out, so it is only used again for the memory a frame reads now, within the read
/// that guards it (`PixelBuffer.withPixels`: libwayland's SIGBUS guard, a lease of a destroyed
/// buffer); between frames it holds no reference and reads nothing. A view goes after three
/// frames in a row that did not use it (a client draws into two or three buffers in turn: each
/// one's view stays).
final class PixmanViews {
    private struct Key: Equatable {
        var base: UnsafeRawPointer
        var width: Int
        var height: Int
        var bytesPerRow: Int
        var format: PixelFormat
    }

    private struct Entry {
        let key: Key
        let image: PixmanImage
        /// Frames ended since one used the view (0: this frame uses it).
        var idleFrames: Int
    }

    /// A view no frame used for this many frames in a row goes.
    static let idleFrameLimit = 3

    /// Few: the buffers one frame draws, looked through in turn.
    private var entries: [Entry] = []

    /// The view of `rows`, made when no frame since the last one read the same memory; nil for a
    /// format pixman cannot read.
    func image(viewing rows: PixelRows) -> PixmanImage? {
        guard let base = rows.bytes.baseAddress else { return nil }
        let key = Key(base: base, width: rows.width, height: rows.height, bytesPerRow: rows.bytesPerRow, format: rows.format)
        if let i = entries.firstIndex(where: { $0.key == key }) {
            entries[i].idleFrames = 0
            return entries[i].image
        }
        guard let image = PixmanImage.viewing(rows) else { return nil }
        entries.append(Entry(key: key, image: image, idleFrames: 0))
        return image
    }

    /// Drops the views that this frame and the `idleFrameLimit` - 1 before it did not use.
    func endFrame() {
        var kept = 0
        for i in entries.indices where entries[i].idleFrames < Self.idleFrameLimit {
            entries[i].idleFrames += 1
            entries.swapAt(kept, i)
            kept += 1
        }
        if kept < entries.count { entries.removeLast(entries.count - kept) }
    }

    /// How many views are kept.
    var count: Int { entries.count }
}
