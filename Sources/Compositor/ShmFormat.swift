import Graphics

/// The wl_shm pixel formats Vitrine accepts, and how their pixels become the renderer's.
///
/// Codes are DRM fourccs (wl_shm's own 0 and 1 for ARGB8888 and XRGB8888); names give the
/// components from the most significant bit of a little-endian word down, as drm_fourcc.h does.
/// Alpha is premultiplied, as Wayland requires. ARGB8888 and XRGB8888 are the renderer's own
/// layout and are copied as they are; the others are converted to it row by row while copying
/// (10-bit components keep their 8 most significant bits).
enum ShmFormat: UInt32, CaseIterable {
    case argb8888 = 0
    case xrgb8888 = 1
    case abgr8888 = 0x3432_4241  // AB24
    case xbgr8888 = 0x3432_4258  // XB24
    case rgba8888 = 0x3432_4152  // RA24
    case rgbx8888 = 0x3432_5852  // RX24
    case bgra8888 = 0x3432_4142  // BA24
    case bgrx8888 = 0x3432_5842  // BX24
    case rgb888 = 0x3432_4752  // RG24
    case bgr888 = 0x3432_4742  // BG24
    case rgb565 = 0x3631_4752  // RG16
    case bgr565 = 0x3631_4742  // BG16
    case argb2101010 = 0x3033_5241  // AR30
    case xrgb2101010 = 0x3033_5258  // XR30
    case abgr2101010 = 0x3033_4241  // AB30
    case xbgr2101010 = 0x3033_4258  // XB30

    /// The formats wl_shm advertises besides the two it always has, with their bytes per pixel.
    static var additional: [UInt32: Int] {
        Dictionary(uniqueKeysWithValues: allCases.filter { $0 != .argb8888 && $0 != .xrgb8888 }.map { ($0.rawValue, $0.bytesPerPixel) })
    }

    var bytesPerPixel: Int {
        switch self {
        case .rgb888, .bgr888: 3
        case .rgb565, .bgr565: 2
        default: 4
        }
    }

    /// Whether the format has no alpha: its pixels are opaque whatever the padding holds.
    var isOpaque: Bool {
        switch self {
        case .argb8888, .abgr8888, .rgba8888, .bgra8888, .argb2101010, .abgr2101010: false
        default: true
        }
    }

    /// The renderer's pixel format for the converted image.
    var pixelFormat: PixelFormat { isOpaque ? .xrgb8888 : .argb8888Premultiplied }

    /// One pixel at `p` as 0xAARRGGBB.
    @inline(__always)
    func argb(at p: UnsafeRawPointer) -> UInt32 {
        func pack(_ a: UInt32, _ r: UInt32, _ g: UInt32, _ b: UInt32) -> UInt32 { a << 24 | r << 16 | g << 8 | b }
        switch self {
        case .argb8888, .xrgb8888:
            return p.loadUnaligned(as: UInt32.self).littleEndian
        case .abgr8888, .xbgr8888:
            let v = p.loadUnaligned(as: UInt32.self).littleEndian
            return pack(v >> 24, v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF)
        case .rgba8888, .rgbx8888:
            let v = p.loadUnaligned(as: UInt32.self).littleEndian
            return pack(v & 0xFF, v >> 24, (v >> 16) & 0xFF, (v >> 8) & 0xFF)
        case .bgra8888, .bgrx8888:
            let v = p.loadUnaligned(as: UInt32.self).littleEndian
            return pack(v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF, v >> 24)
        case .rgb888:
            // Bytes in memory: B, G, R.
            let b = p.load(fromByteOffset: 0, as: UInt8.self), g = p.load(fromByteOffset: 1, as: UInt8.self)
            let r = p.load(fromByteOffset: 2, as: UInt8.self)
            return pack(0xFF, UInt32(r), UInt32(g), UInt32(b))
        case .bgr888:
            let r = p.load(fromByteOffset: 0, as: UInt8.self), g = p.load(fromByteOffset: 1, as: UInt8.self)
            let b = p.load(fromByteOffset: 2, as: UInt8.self)
            return pack(0xFF, UInt32(r), UInt32(g), UInt32(b))
        case .rgb565, .bgr565:
            let v = UInt32(p.loadUnaligned(as: UInt16.self).littleEndian)
            // Widen by repeating the top bits, so that full scale stays full scale.
            let high = (v >> 11) & 0x1F, green = (v >> 5) & 0x3F, low = v & 0x1F
            let h8 = high << 3 | high >> 2, g8 = green << 2 | green >> 4, l8 = low << 3 | low >> 2
            return self == .rgb565 ? pack(0xFF, h8, g8, l8) : pack(0xFF, l8, g8, h8)
        case .argb2101010, .xrgb2101010, .abgr2101010, .xbgr2101010:
            let v = p.loadUnaligned(as: UInt32.self).littleEndian
            func eight(_ ten: UInt32) -> UInt32 { (ten * 255 + 511) / 1023 }
            let high = eight((v >> 20) & 0x3FF), middle = eight((v >> 10) & 0x3FF), low = eight(v & 0x3FF)
            let redFirst = self == .argb2101010 || self == .xrgb2101010
            return pack((v >> 30) * 0x55, redFirst ? high : low, middle, redFirst ? low : high)
        }
    }

    /// Converts `height` rows of `width` pixels from `source` (rows `stride` bytes apart) into
    /// 0xAARRGGBB words, rows `destinationStride` words apart (by default packed).
    func convert(
        width: Int, height: Int, stride: Int, from source: UnsafeRawPointer, into destination: UnsafeMutablePointer<UInt32>,
        destinationStride: Int? = nil
    ) {
        let step = bytesPerPixel
        // Formats without alpha read as opaque whatever their padding bits hold.
        let opaque: UInt32 = isOpaque ? 0xFF00_0000 : 0
        for row in 0..<height {
            let line = source + row * stride
            let out = destination + row * (destinationStride ?? width)
            for x in 0..<width { out[x] = argb(at: line + x * step) | opaque }
        }
    }
}
