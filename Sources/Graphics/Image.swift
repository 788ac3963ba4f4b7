import Buffers
import SystemCalls
internal import CCairo
import Foundation

/// The pixel formats an image has: `.argb8888` (colour premultiplied by alpha) and `.xrgb8888`
/// (opaque; the top byte is ignored and alpha reads as 255).
///
/// Both use 32 bits per pixel, stored as one native-endian `UInt32` `0xAARRGGBB`; on a
/// little-endian machine the bytes in memory are B, G, R, A. This is cairo's `CAIRO_FORMAT_ARGB32`
/// and `CAIRO_FORMAT_RGB24`, and Wayland's and DRM's ARGB8888 and XRGB8888, so pixels pass between
/// them without conversion. Components are sRGB-encoded.
extension PixelFormat {
    var cairoFormat: cairo_format_t {
        self == .xrgb8888 ? CAIRO_FORMAT_RGB24 : CAIRO_FORMAT_ARGB32
    }

    init?(cairoFormat: cairo_format_t) {
        switch cairoFormat {
        case CAIRO_FORMAT_ARGB32: self = .argb8888
        case CAIRO_FORMAT_RGB24: self = .xrgb8888
        default: return nil
        }
    }
}

/// One pixel as 8-bit sRGB components premultiplied by alpha (each colour component ≤ `alpha`
/// for a well-formed pixel).
public struct PremultipliedPixel: Hashable, Sendable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// `color` converted to sRGB, premultiplied, and rounded to the nearest 8-bit values.
    public init(_ color: Color) {
        let c = color.converted(to: .sRGB)
        let alpha = min(max(c.alpha, 0), 1)
        func byte(_ v: Double) -> UInt8 { UInt8((min(max(v, 0), 1) * 255).rounded()) }
        self.init(red: byte(c.red * alpha), green: byte(c.green * alpha), blue: byte(c.blue * alpha), alpha: byte(alpha))
    }

    public static let clear = PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 0)

    init(packed: UInt32, format: PixelFormat) {
        self.init(
            red: UInt8(truncatingIfNeeded: packed >> 16), green: UInt8(truncatingIfNeeded: packed >> 8),
            blue: UInt8(truncatingIfNeeded: packed),
            alpha: format == .xrgb8888 ? 255 : UInt8(truncatingIfNeeded: packed >> 24))
    }

    var packed: UInt32 {
        UInt32(alpha) << 24 | UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
    }

    public func maximumChannelDifference(from other: PremultipliedPixel) -> Int {
        max(
            abs(Int(red) - Int(other.red)), abs(Int(green) - Int(other.green)),
            abs(Int(blue) - Int(other.blue)), abs(Int(alpha) - Int(other.alpha)))
    }

    public var description: String { "(\(red), \(green), \(blue), \(alpha))" }
}

/// An immutable bitmap, the role of `CGImage`.
///
/// Images are shared, never copied, so equality and hashing are by identity. The pixel storage is
/// written only during initialization and never afterwards (cairo reads it only as a source), which
/// is why sharing an `Image` across threads is safe despite the raw pointer it holds.
public final class Image: @unchecked Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// The stride between rows; always `width * 4`, which is what cairo requires for these formats.
    public let bytesPerRow: Int
    public let pixelFormat: PixelFormat
    /// 16-byte aligned so that vectorized pixel loops (pixman, compositors) take their fast paths.
    private let storage: UnsafeMutableRawPointer
    /// The image this one was made from by `init(updating:in:write:)`, held weakly: it is
    /// provenance, not ownership, and a chain of updates must not keep every earlier image alive.
    private weak var base: Image?
    /// The pixels that differ from `base` (at most).
    private let changedRectFromBase: ImageRect?

    public var size: Size { Size(width: Double(width), height: Double(height)) }

    /// The largest width or height of an image or context: cairo's limit for image surfaces.
    public static let maximumDimension = 32767

    /// The one place where storage is allocated and written; `initialize` gets it with its stride.
    private init(
        validWidth width: Int, height: Int, pixelFormat: PixelFormat, base: Image? = nil, changedRect: ImageRect? = nil,
        initialize: (UnsafeMutableRawPointer, _ bytesPerRow: Int) -> Void
    ) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.base = base
        changedRectFromBase = changedRect
        bytesPerRow = width * 4
        storage = .allocate(byteCount: bytesPerRow * height, alignment: 16)
        initialize(storage, bytesPerRow)
    }

    deinit {
        storage.deallocate()
    }

    /// Copies `height` rows of `bytesPerRow` stride from `bytes`; the last row need only hold its pixels.
    public convenience init(
        width: Int, height: Int, pixelFormat: PixelFormat, bytesPerRow: Int, bytes: UnsafeRawBufferPointer
    ) throws {
        try checkImageSize(width: width, height: height)
        guard pixelFormat.isNativeWord else { throw GraphicsError.unsupportedPixelFormat(pixelFormat) }
        let rowLength = width * 4
        guard bytesPerRow >= rowLength else {
            throw GraphicsError.invalidBytesPerRow(bytesPerRow, minimum: rowLength)
        }
        let (leadingRows, overflow1) = bytesPerRow.multipliedReportingOverflow(by: height - 1)
        let (required, overflow2) = leadingRows.addingReportingOverflow(rowLength)
        guard !overflow1, !overflow2, let source = bytes.baseAddress, bytes.count >= required else {
            throw GraphicsError.bufferTooSmall(byteCount: bytes.count, required: overflow1 || overflow2 ? .max : required)
        }
        self.init(validWidth: width, height: height, pixelFormat: pixelFormat) { destination, destinationStride in
            for row in 0..<height {
                (destination + row * destinationStride).copyMemory(from: source + row * bytesPerRow, byteCount: rowLength)
            }
        }
    }

    /// A copy of `base` whose pixels in `rect` are then written by `write`, which gets the address
    /// of the rectangle's top-left pixel and the stride between rows (the role of an IOSurface
    /// update: consumers holding `base`'s pixels, such as a GPU texture, can update only `rect`;
    /// see `changedRect(since:)`).
    public convenience init(
        updating base: Image, in rect: ImageRect, write: (_ origin: UnsafeMutableRawPointer, _ bytesPerRow: Int) -> Void
    ) throws {
        guard rect.width > 0, rect.height > 0, rect.x >= 0, rect.y >= 0,
            rect.x + rect.width <= base.width, rect.y + rect.height <= base.height
        else { throw GraphicsError.rectOutsideImage(rect, width: base.width, height: base.height) }
        self.init(
            validWidth: base.width, height: base.height, pixelFormat: base.pixelFormat, base: base, changedRect: rect
        ) { destination, stride in
            destination.copyMemory(from: base.storage, byteCount: stride * base.height)
            write(destination + rect.y * stride + rect.x * 4, stride)
        }
    }

    /// The image this one was made from by `init(updating:in:write:)`, while it exists.
    public var predecessor: Image? { base }

    /// The rectangle holding every pixel that may differ from `ancestor`, when this image was made
    /// from it by at most `maximumSteps` updates (`init(updating:in:write:)`) whose intermediate
    /// images still exist; nil otherwise (the images are unrelated as far as anyone can tell).
    public func changedRect(since ancestor: Image, maximumSteps: Int = 8) -> ImageRect? {
        var image = self
        var changed: ImageRect?
        for _ in 0..<maximumSteps {
            guard let rect = image.changedRectFromBase, let base = image.base else { return nil }
            changed = changed.map { $0.union(rect) } ?? rect
            if base === ancestor { return changed }
            image = base
        }
        return nil
    }

    /// An image with every pixel set to `fill`. The size must be valid (see `GraphicsError.invalidSize`);
    /// an invalid one is a programming error, as a negative count is for `Array(repeating:count:)`.
    public convenience init(width: Int, height: Int, pixelFormat: PixelFormat = .argb8888, fill: PremultipliedPixel) {
        do {
            try checkImageSize(width: width, height: height)
        } catch {
            preconditionFailure("\(error)")
        }
        var pixel = fill
        if pixelFormat == .xrgb8888 { pixel.alpha = 255 }
        let packed = pixel.packed
        self.init(validWidth: width, height: height, pixelFormat: pixelFormat) { destination, stride in
            for row in 0..<height {
                (destination + row * stride).initializeMemory(as: UInt32.self, repeating: packed, count: width)
            }
        }
    }

    /// Decodes a PNG file. Images with an alpha channel (or transparency chunk) become
    /// `.argb8888`, the others `.xrgb8888`.
    public convenience init(contentsOfPNGFile path: String) throws {
        let bytes = try readFile(atPath: path)
        let decoded = try bytes.withUnsafeBytes { try CairoSurface(decodingPNG: $0, path: path) }
        try self.init(converting: decoded)
    }

    /// Decodes PNG bytes; see `init(contentsOfPNGFile:)` for the resulting pixel format.
    public convenience init(pngData: [UInt8]) throws {
        let decoded = try pngData.withUnsafeBytes { try CairoSurface(decodingPNG: $0, path: nil) }
        try self.init(converting: decoded)
    }

    /// Copies any cairo image surface, painting formats other than ARGB32 and RGB24 (which newer
    /// cairo versions produce for 16-bit PNGs) onto an ARGB32 surface first.
    convenience init(converting surface: CairoSurface) throws {
        let isDirectlyCopyable = surface.withHandle { PixelFormat(cairoFormat: cairo_image_surface_get_format($0)) != nil }
        if isDirectlyCopyable {
            self.init(copyingPixelsOf: surface)
        } else {
            let (width, height) = surface.withHandle {
                (Int(cairo_image_surface_get_width($0)), Int(cairo_image_surface_get_height($0)))
            }
            let context = try GraphicsContext(width: width, height: height)
            context.replaceContents(with: surface)
            self.init(copyingPixelsOf: context.targetSurface)
        }
    }

    /// Copies an ARGB32 or RGB24 cairo image surface.
    convenience init(copyingPixelsOf surface: CairoSurface) {
        let (width, height, cairoFormat) = surface.withHandle { handle in
            cairo_surface_flush(handle)
            return (
                Int(cairo_image_surface_get_width(handle)), Int(cairo_image_surface_get_height(handle)),
                cairo_image_surface_get_format(handle))
        }
        guard let pixelFormat = PixelFormat(cairoFormat: cairoFormat) else {
            preconditionFailure("cairo format \(cairoFormat.rawValue) has no PixelFormat")
        }
        self.init(validWidth: width, height: height, pixelFormat: pixelFormat) { destination, destinationStride in
            surface.withHandle { handle in
                let source = UnsafeRawPointer(cairo_image_surface_get_data(handle)!)
                let sourceStride = Int(cairo_image_surface_get_stride(handle))
                for row in 0..<height {
                    (destination + row * destinationStride)
                        .copyMemory(from: source + row * sourceStride, byteCount: destinationStride)
                }
            }
        }
    }

    /// The pixel at column `x`, row `y` (both must be in bounds).
    public func pixel(x: Int, y: Int) -> PremultipliedPixel {
        precondition((0..<width).contains(x) && (0..<height).contains(y), "pixel (\(x), \(y)) outside \(width)×\(height)")
        let packed = storage.load(fromByteOffset: y * bytesPerRow + x * 4, as: UInt32.self)
        return PremultipliedPixel(packed: packed, format: pixelFormat)
    }

    /// The raw pixels, `bytesPerRow * height` bytes in `pixelFormat`'s layout.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage, count: bytesPerRow * height))
    }

    /// The largest difference of any channel of any pixel (alpha of `.xrgb8888` reading 255), or nil
    /// when the sizes differ. Meant for golden-image tests.
    public func maximumChannelDifference(from other: Image) -> Int? {
        guard width == other.width, height == other.height else { return nil }
        var maximum = 0
        for y in 0..<height {
            for x in 0..<width {
                maximum = max(maximum, pixel(x: x, y: y).maximumChannelDifference(from: other.pixel(x: x, y: y)))
            }
        }
        return maximum
    }

    /// How many pixels have some channel differing by more than `tolerance`, or nil when the sizes differ.
    public func countOfPixelsDiffering(from other: Image, byMoreThan tolerance: Int) -> Int? {
        guard width == other.width, height == other.height else { return nil }
        var count = 0
        for y in 0..<height {
            for x in 0..<width
            where pixel(x: x, y: y).maximumChannelDifference(from: other.pixel(x: x, y: y)) > tolerance {
                count += 1
            }
        }
        return count
    }

    /// Encodes the image as PNG: RGBA when it has any transparency, RGB otherwise.
    public func pngData() throws -> [UInt8] {
        let surface = try makeCairoSurface()
        var output: [UInt8] = []
        let status = surface.withHandle { handle in
            withUnsafeMutablePointer(to: &output) { output in
                // The output array travels as the closure pointer, so the C callback needs no global.
                cairo_surface_write_to_png_stream(
                    handle,
                    { closure, data, length in
                        guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
                        closure.assumingMemoryBound(to: [UInt8].self).pointee
                            .append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                        return CAIRO_STATUS_SUCCESS
                    }, output)
            }
        }
        try check(status)
        return output
    }

    /// Writes `pngData()` to `path`, replacing any file there.
    public func writePNG(to path: String) throws {
        try writeFile(atPath: path, bytes: pngData())
    }

    /// A cairo surface over this image's pixels, keeping the image alive for as long as it exists.
    /// cairo never writes to it: it only serves as a source or for encoding.
    func makeCairoSurface() throws -> CairoSurface {
        try CairoSurface(
            taking: cairo_image_surface_create_for_data(
                storage.assumingMemoryBound(to: UInt8.self), pixelFormat.cairoFormat,
                Int32(width), Int32(height), Int32(bytesPerRow)),
            pixelOwner: self)
    }

    public static func == (lhs: Image, rhs: Image) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

/// Owns one reference to a cairo surface and releases it in `deinit`.
final class CairoSurface {
    private let handle: OpaquePointer
    /// Whatever owns the pixel memory of a surface made with `cairo_image_surface_create_for_data`.
    private let pixelOwner: AnyObject?

    /// Takes over the reference `handle` carries. cairo's constructors return an inert surface in an
    /// error state rather than NULL; that state is thrown here.
    init(taking handle: OpaquePointer, pixelOwner: AnyObject? = nil) throws {
        let status = cairo_surface_status(handle)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(handle)
            throw GraphicsError(cairoStatus: status)
        }
        self.handle = handle
        self.pixelOwner = pixelOwner
    }

    /// A transparent ARGB32 surface over pixels of its own, mapped anonymously rather than taken
    /// from malloc (as `cairo_image_surface_create` does): the kernel hands out zeroed pages only
    /// where something is drawn, so a backing store that stays empty (a view that turns out to
    /// draw nothing) costs neither memory nor the clearing of it, and the pages go back to the
    /// system when cairo lets go of the surface instead of staying in a grown heap.
    convenience init(mappedWidth width: Int, height: Int) throws {
        guard let pixels = HostMemoryBuffer(width: width, height: height, format: .argb8888) else {
            throw GraphicsError.io(.current("mmap of a \(width)×\(height) bitmap"))
        }
        let handle = cairo_image_surface_create_for_data(
            pixels.mapping.baseAddress!.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
            Int32(width), Int32(height), Int32(pixels.bytesPerRow))!
        try self.init(taking: handle)
        // The pixels live exactly as long as the cairo surface, whoever holds it last.
        let owner = Unmanaged.passRetained(pixels).toOpaque()
        let status = cairo_surface_set_user_data(handle, CairoSurface.pixelsKey, owner) { owner in
            owner.map { Unmanaged<HostMemoryBuffer>.fromOpaque($0).release() }
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            Unmanaged<HostMemoryBuffer>.fromOpaque(owner).release()
            throw GraphicsError(cairoStatus: status)
        }
    }

    /// The user-data key under which a mapped surface keeps its pixels (cairo compares addresses).
    private nonisolated(unsafe) static let pixelsKey = UnsafeMutablePointer<cairo_user_data_key_t>.allocate(capacity: 1)

    /// Adds a reference to a surface owned elsewhere.
    init(retaining handle: OpaquePointer) {
        self.handle = cairo_surface_reference(handle)
        pixelOwner = nil
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Decodes PNG bytes through cairo's stream API.
    convenience init(decodingPNG bytes: UnsafeRawBufferPointer, path: String?) throws {
        guard bytes.starts(with: CairoSurface.pngSignature) else {
            throw GraphicsError.invalidPNG(path: path, reason: "the data does not start with the PNG signature")
        }
        var unread = bytes[...]
        let handle = withUnsafeMutablePointer(to: &unread) { unread in
            // The read cursor travels as the closure pointer, so the C callback needs no global.
            cairo_image_surface_create_from_png_stream(
                { closure, data, length in
                    guard let unread = closure?.assumingMemoryBound(to: Slice<UnsafeRawBufferPointer>.self) else {
                        return CAIRO_STATUS_READ_ERROR
                    }
                    let count = Int(length)
                    guard unread.pointee.count >= count else { return CAIRO_STATUS_READ_ERROR }
                    UnsafeMutableRawBufferPointer(start: data, count: count)
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: unread.pointee.prefix(count)))
                    unread.pointee.removeFirst(count)
                    return CAIRO_STATUS_SUCCESS
                }, unread)
        }!
        let reason: String
        switch cairo_surface_status(handle) {
        case CAIRO_STATUS_READ_ERROR: reason = "the data ends before the image does"
        // cairo 1.16 turns every libpng error into NO_MEMORY; a corrupt file is far likelier than a
        // genuine allocation failure, so that status counts as corrupt data too.
        case CAIRO_STATUS_PNG_ERROR, CAIRO_STATUS_NO_MEMORY: reason = "libpng rejected the data as corrupt"
        default:
            try self.init(taking: handle)
            return
        }
        cairo_surface_destroy(handle)
        throw GraphicsError.invalidPNG(path: path, reason: reason)
    }

    deinit {
        cairo_surface_destroy(handle)
    }

    /// Runs `body` with the handle while guaranteeing the surface outlives the call: reading `handle`
    /// alone would let ARC release `self` before the C function that receives it returns.
    func withHandle<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(handle) }
    }
}

private func readFile(atPath path: String) throws -> [UInt8] {
    let file: FileDescriptor
    do {
        file = try SystemCallError.attempt("open", path: path) { try FileDescriptor.open(path, .readOnly, options: .closeOnExec) }
    } catch where error.errno == .noSuchFileOrDirectory {
        throw GraphicsError.fileNotFound(path: path)
    } catch {
        throw GraphicsError.io(error)
    }
    defer { try? file.close() }
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count: Int
        do {
            count = try SystemCallError.attempt("read", path: path) { try chunk.withUnsafeMutableBytes { try file.read(into: $0) } }
        } catch {
            throw GraphicsError.io(error)
        }
        guard count > 0 else { return contents }
        contents.append(contentsOf: chunk[..<count])
    }
}

private func writeFile(atPath path: String, bytes: [UInt8]) throws {
    do {
        let file = try SystemCallError.attempt("open", path: path) {
            try FileDescriptor.open(
                path, .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        }
        // closeAfter reports close's deferred write errors (NFS, quotas) too.
        _ = try SystemCallError.attempt("write", path: path) { try file.closeAfter { try file.writeAll(bytes) } }
    } catch {
        throw GraphicsError.io(error)
    }
}

/// A rectangle of whole pixels of an image: columns `x..<x + width`, rows `y..<y + height`.
public struct ImageRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The smallest rectangle holding both.
    public func union(_ other: ImageRect) -> ImageRect {
        let x0 = min(x, other.x), y0 = min(y, other.y)
        let x1 = max(x + width, other.x + other.width), y1 = max(y + height, other.y + other.height)
        return ImageRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public var description: String { "(\(x), \(y), \(width)×\(height))" }
}

extension Image {
    /// A copy of a buffer's pixels (a capture of what an output shows, a cursor plane's image): rows
    /// in ARGB8888 or XRGB8888 as they are, those of other readable formats converted (to
    /// XRGB8888 where the format has no alpha).
    public convenience init(copying rows: PixelRows) throws {
        if rows.format.isNativeWord || rows.format.bytesPerPixel == nil {
            try self.init(width: rows.width, height: rows.height, pixelFormat: rows.format, bytesPerRow: rows.bytesPerRow, bytes: rows.bytes)
            return
        }
        try checkImageSize(width: rows.width, height: rows.height)
        guard let source = rows.bytes.baseAddress else { throw GraphicsError.bufferTooSmall(byteCount: 0, required: 1) }
        self.init(validWidth: rows.width, height: rows.height, pixelFormat: rows.format.hasAlpha ? .argb8888 : .xrgb8888) {
            destination, bytesPerRow in
            rows.format.convert(
                width: rows.width, height: rows.height, stride: rows.bytesPerRow, from: source,
                into: destination.assumingMemoryBound(to: UInt32.self), destinationStride: bytesPerRow / 4)
        }
    }

    /// Calls `body` with the image's pixels as rows (valid only during the call).
    public func withRows<Result>(_ body: (PixelRows) throws -> Result) rethrows -> Result {
        try withUnsafeBytes { bytes in
            try body(PixelRows(bytes: bytes, width: width, height: height, bytesPerRow: bytesPerRow, format: pixelFormat))
        }
    }
}
