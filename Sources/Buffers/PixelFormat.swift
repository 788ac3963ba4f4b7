/// A pixel format as DRM names it: a fourcc code from drm_fourcc.h, the one currency for pixel
/// formats across Vitrine (wl_shm, linux-dmabuf, the renderer, KMS planes and framebuffers, images).
///
/// A format's name gives its components from the most significant bit of a little-endian word
/// down, as drm_fourcc.h does: ARGB8888 is the bytes B, G, R, A in memory. Colour is
/// premultiplied by alpha wherever the format has alpha, as Wayland and KMS take it. Codes a
/// client sends that Vitrine does not know stay representable (`bytesPerPixel` is nil for them).
public struct PixelFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The fourcc code, four ASCII characters packed little-endian ("XR24" is 0x34325258).
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    // Literal codes ("AR24" is 0x34325241), so that each format is a constant, not a global made
    // at its first use.
    public static let argb8888 = PixelFormat(rawValue: 0x3432_5241)  // "AR24"
    public static let xrgb8888 = PixelFormat(rawValue: 0x3432_5258)  // "XR24"
    public static let abgr8888 = PixelFormat(rawValue: 0x3432_4241)  // "AB24"
    public static let xbgr8888 = PixelFormat(rawValue: 0x3432_4258)  // "XB24"
    public static let rgba8888 = PixelFormat(rawValue: 0x3432_4152)  // "RA24"
    public static let rgbx8888 = PixelFormat(rawValue: 0x3432_5852)  // "RX24"
    public static let bgra8888 = PixelFormat(rawValue: 0x3432_4142)  // "BA24"
    public static let bgrx8888 = PixelFormat(rawValue: 0x3432_5842)  // "BX24"
    public static let rgb888 = PixelFormat(rawValue: 0x3432_4752)  // "RG24"
    public static let bgr888 = PixelFormat(rawValue: 0x3432_4742)  // "BG24"
    public static let rgb565 = PixelFormat(rawValue: 0x3631_4752)  // "RG16"
    public static let bgr565 = PixelFormat(rawValue: 0x3631_4742)  // "BG16"
    public static let argb2101010 = PixelFormat(rawValue: 0x3033_5241)  // "AR30"
    public static let xrgb2101010 = PixelFormat(rawValue: 0x3033_5258)  // "XR30"
    public static let abgr2101010 = PixelFormat(rawValue: 0x3033_4241)  // "AB30"
    public static let xbgr2101010 = PixelFormat(rawValue: 0x3033_4258)  // "XB30"

    /// What Vitrine knows of the format, nil for one it does not read: its name and bytes per
    /// pixel. A switch, not a table: no hashing, no string to retain.
    private var known: (name: StaticString, bytesPerPixel: Int)? {
        switch self {
        case .argb8888: ("ARGB8888", 4)
        case .xrgb8888: ("XRGB8888", 4)
        case .abgr8888: ("ABGR8888", 4)
        case .xbgr8888: ("XBGR8888", 4)
        case .rgba8888: ("RGBA8888", 4)
        case .rgbx8888: ("RGBX8888", 4)
        case .bgra8888: ("BGRA8888", 4)
        case .bgrx8888: ("BGRX8888", 4)
        case .rgb888: ("RGB888", 3)
        case .bgr888: ("BGR888", 3)
        case .rgb565: ("RGB565", 2)
        case .bgr565: ("BGR565", 2)
        case .argb2101010: ("ARGB2101010", 4)
        case .xrgb2101010: ("XRGB2101010", 4)
        case .abgr2101010: ("ABGR2101010", 4)
        case .xbgr2101010: ("XBGR2101010", 4)
        default: nil
        }
    }

    /// Every format Vitrine reads pixels of.
    public static let readable: [PixelFormat] = [
        .argb8888, .xrgb8888, .abgr8888, .xbgr8888, .rgba8888, .rgbx8888, .bgra8888, .bgrx8888,
        .rgb888, .bgr888, .rgb565, .bgr565, .argb2101010, .xrgb2101010, .abgr2101010, .xbgr2101010,
    ]

    /// Bytes per pixel; nil for a format Vitrine does not read.
    public var bytesPerPixel: Int? { known?.bytesPerPixel }

    /// Whether the format carries alpha; a format without it is opaque whatever its padding holds.
    public var hasAlpha: Bool { opaqueEquivalent != nil }

    /// The same bytes with the alpha bits read as padding (XRGB8888 for ARGB8888): what a plane is
    /// told to scan a buffer out as when its surface says it is opaque. Nil for formats without
    /// alpha. A switch of its own: every frame asks (direct scanout), and the six formats with
    /// alpha are told apart without going through `known`'s sixteen.
    public var opaqueEquivalent: PixelFormat? {
        switch self {
        case .argb8888: .xrgb8888
        case .abgr8888: .xbgr8888
        case .rgba8888: .rgbx8888
        case .bgra8888: .bgrx8888
        case .argb2101010: .xrgb2101010
        case .abgr2101010: .xbgr2101010
        default: nil
        }
    }

    /// The format with its alpha bits read as padding: the opaque twin, or the format itself where
    /// it has no alpha.
    public var withoutAlpha: PixelFormat { opaqueEquivalent ?? self }

    /// The four characters of the code ("XR24").
    public var fourcc: String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> ($0 * 8)) }, as: UTF8.self)
    }

    /// drm_fourcc.h's name without its prefix ("XRGB8888"), or the code's characters for a format
    /// Vitrine does not know.
    public var name: String { known.map { "\($0.name)" } ?? fourcc }

    public var description: String { "\(name) (0x\(String(rawValue, radix: 16)))" }

    /// The format of a wl_shm format code: wl_shm numbers its two mandatory formats 0 (ARGB8888)
    /// and 1 (XRGB8888), every other one by its fourcc.
    public init(shmCode: UInt32) {
        switch shmCode {
        case 0: self = .argb8888
        case 1: self = .xrgb8888
        default: self.init(rawValue: shmCode)
        }
    }

    /// The wl_shm code of the format.
    public var shmCode: UInt32 {
        switch self {
        case .argb8888: 0
        case .xrgb8888: 1
        default: rawValue
        }
    }
}

/// DRM format modifiers (drm_fourcc.h): how a buffer's pixels are laid out in memory.
public enum FormatModifier {
    /// DRM_FORMAT_MOD_LINEAR: rows of pixels, one after the other.
    public static let linear: UInt64 = 0
    /// DRM_FORMAT_MOD_INVALID: no explicit modifier, the layout is whatever the driver implies.
    public static let invalid: UInt64 = 0x00ff_ffff_ffff_ffff
}
