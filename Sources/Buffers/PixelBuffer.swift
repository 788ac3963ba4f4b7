/// A buffer of pixels that the compositor shows, samples or draws into, whoever made it: a
/// client's shm or dma-buf buffer, a GBM buffer object, a KMS dumb buffer, host memory. Devices
/// reach it as a dma-buf where it is one, the CPU through a mapping where it can have one.
public protocol PixelBuffer: AnyObject {
    var width: Int { get }
    var height: Int { get }
    var format: PixelFormat { get }
    var kind: BufferKind { get }
    /// The buffer as a dma-buf that a device imports or a plane scans out; nil where it is not one.
    var dmabuf: DmabufLayout? { get }
    /// Calls `body` with the pixels as the CPU reads them, valid only during the call; nil where
    /// they cannot be mapped.
    func withPixels<Result>(_ body: (PixelRows) throws -> Result) rethrows -> Result?
}

/// A buffer the compositor owns and keeps mapped for the CPU, which a frame is written into in
/// place (a dumb buffer, host memory): `mapping` holds `height` rows `bytesPerRow` apart, valid
/// while the buffer lives.
public protocol MappedPixelBuffer: PixelBuffer {
    var mapping: UnsafeMutableRawBufferPointer { get }
    var bytesPerRow: Int { get }
}

extension MappedPixelBuffer {
    public func withPixels<Result>(_ body: (PixelRows) throws -> Result) rethrows -> Result? {
        try body(PixelRows(
            bytes: UnsafeRawBufferPointer(mapping), width: width, height: height, bytesPerRow: bytesPerRow, format: format))
    }
}

/// Where a buffer comes from: what the log and `vitrine list-outputs` name.
public enum BufferKind: String, Sendable, CustomStringConvertible {
    case clientShm = "client shm buffer"
    case clientDmabuf = "client dma-buf"
    case gbm = "GBM buffer object"
    case dumb = "dumb buffer"
    case hostMemory = "host memory"

    public var description: String { rawValue }
}

/// A buffer's pixels as the CPU reads them: `height` rows of `width` pixels in `format`,
/// `bytesPerRow` apart from the start of `bytes`.
public struct PixelRows {
    public let bytes: UnsafeRawBufferPointer
    public let width: Int
    public let height: Int
    public let bytesPerRow: Int
    public let format: PixelFormat

    public init(bytes: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, format: PixelFormat) {
        self.bytes = bytes
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.format = format
    }
}
