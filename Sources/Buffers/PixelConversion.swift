extension PixelFormat {
    /// Whether pixels of this format are already 0xAARRGGBB words (ARGB8888, XRGB8888), the
    /// layout of Vitrine's images and scanout buffers, and need no conversion.
    public var isNativeWord: Bool { self == .argb8888 || self == .xrgb8888 }

    /// One pixel at `p` as 0xAARRGGBB (10-bit components keep their 8 most significant bits);
    /// the alpha of a format without one is whatever its padding holds.
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
        default:
            preconditionFailure("\(self) is not a format Vitrine reads")
        }
    }

    /// Converts `height` rows of `width` pixels from `source` (rows `stride` bytes apart) into
    /// 0xAARRGGBB words, rows `destinationStride` words apart (by default packed). Formats without
    /// alpha read as opaque whatever their padding bits hold. The format must be `readable`.
    public func convert(
        width: Int, height: Int, stride: Int, from source: UnsafeRawPointer, into destination: UnsafeMutablePointer<UInt32>,
        destinationStride: Int? = nil
    ) {
        guard let step = bytesPerPixel else { preconditionFailure("\(self) is not a format Vitrine reads") }
        let opaque: UInt32 = hasAlpha ? 0 : 0xFF00_0000
        for row in 0..<height {
            let line = source + row * stride
            let out = destination + row * (destinationStride ?? width)
            for x in 0..<width { out[x] = argb(at: line + x * step) | opaque }
        }
    }
}
