import Buffers
public import SystemCalls
internal import CCairo
import Foundation

/// The errors that `Graphics` throws. Every cairo status is translated here, so that no cairo type
/// reaches callers.
public enum GraphicsError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// cairo reported a failure; `message` is cairo's own text for `status`.
    case cairo(status: Int32, message: String)
    /// A pixel size outside 1…`Image.maximumDimension` in either direction.
    case invalidSize(width: Int, height: Int)
    /// A row stride shorter than one row of pixels.
    case invalidBytesPerRow(Int, minimum: Int)
    /// A pixel format images do not have (they are ARGB8888 or XRGB8888).
    case unsupportedPixelFormat(PixelFormat)
    /// A pixel buffer too short for the stated size and stride.
    case bufferTooSmall(byteCount: Int, required: Int)
    /// No file exists at `path`.
    case fileNotFound(path: String)
    /// The bytes are not a PNG that libpng can decode; `path` is nil for in-memory data.
    case invalidPNG(path: String?, reason: String)
    /// Reading or writing a file failed.
    case io(SystemCallError)
    /// A rectangle that is empty or not inside a `width`×`height` image.
    case rectOutsideImage(ImageRect, width: Int, height: Int)
    /// A document page size that is not positive and finite, or exceeds `Image.maximumDimension`.
    case invalidPageSize(Size)
    /// `finishDocument()` on a bitmap context.
    case notADocument
    /// Pango could not be loaded (`reason`, the dynamic loader's words): text is not laid out.
    case textUnavailable(reason: String)

    public var description: String {
        switch self {
        case .cairo(let status, let message):
            return "cairo error \(status): \(message)"
        case .invalidSize(let width, let height):
            return "invalid image size \(width)×\(height): each side must be in 1…\(Image.maximumDimension)"
        case .invalidBytesPerRow(let bytesPerRow, let minimum):
            return "invalid bytesPerRow \(bytesPerRow): a row needs at least \(minimum) bytes"
        case .unsupportedPixelFormat(let format):
            return "images are ARGB8888 or XRGB8888, not \(format)"
        case .bufferTooSmall(let byteCount, let required):
            return "pixel buffer holds \(byteCount) bytes but \(required) are required"
        case .fileNotFound(let path):
            return "no such file: \(path)"
        case .invalidPNG(let path, let reason):
            return "invalid PNG\(path.map { " in \($0)" } ?? ""): \(reason)"
        case .io(let error):
            return error.description
        case .rectOutsideImage(let rect, let width, let height):
            return "pixel rectangle \(rect) is empty or outside the \(width)×\(height) image"
        case .invalidPageSize(let size):
            return "invalid page size \(size): each side must be more than 0 and at most \(Image.maximumDimension) points"
        case .notADocument:
            return "the context draws into a bitmap, not a document: take its image with makeImage()"
        case .textUnavailable(let reason):
            return "text cannot be laid out, so none is drawn: Pango did not load (\(reason))"
        }
    }

    public var errorDescription: String? { description }

    init(cairoStatus status: cairo_status_t) {
        self = .cairo(status: Int32(bitPattern: status.rawValue), message: String(cString: cairo_status_to_string(status)))
    }
}

/// Throws the translation of any status other than success.
func check(_ status: cairo_status_t) throws {
    guard status != CAIRO_STATUS_SUCCESS else { return }
    throw GraphicsError(cairoStatus: status)
}

/// Validates an image size against cairo's limits before any allocation is attempted.
func checkImageSize(width: Int, height: Int) throws {
    let valid = 1...Image.maximumDimension
    guard valid.contains(width), valid.contains(height) else {
        throw GraphicsError.invalidSize(width: width, height: height)
    }
}
