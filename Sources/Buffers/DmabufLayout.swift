/// One plane of a dma-buf, as a device reads it: a client's buffer that the renderer imports and
/// a display may scan out, or a buffer object the compositor allocated. Linear unless `modifier`
/// says otherwise.
public struct DmabufLayout: Hashable, Sendable {
    /// The owner's descriptor: whoever imports the buffer keeps a duplicate or nothing of it.
    public var fileDescriptor: Int32
    public var width: Int
    public var height: Int
    public var format: PixelFormat
    public var modifier: UInt64
    /// Where the first row starts, in bytes.
    public var offset: Int
    /// Bytes from one row to the next.
    public var stride: Int

    public init(
        fileDescriptor: Int32, width: Int, height: Int, format: PixelFormat, modifier: UInt64, offset: Int, stride: Int
    ) {
        self.fileDescriptor = fileDescriptor
        self.width = width
        self.height = height
        self.format = format
        self.modifier = modifier
        self.offset = offset
        self.stride = stride
    }
}

/// A pixel format with a layout modifier: what a device imports or a plane scans out, and what
/// zwp_linux_dmabuf_v1 offers clients.
public struct DmabufFormat: Hashable, Sendable, CustomStringConvertible {
    public var format: PixelFormat
    /// `FormatModifier.linear`, `FormatModifier.invalid` (implicit), or a vendor's tiling code.
    public var modifier: UInt64

    public init(_ format: PixelFormat, modifier: UInt64) {
        self.format = format
        self.modifier = modifier
    }

    public var description: String { "\(format.fourcc) (0x\(String(format.rawValue, radix: 16))) modifier 0x\(String(modifier, radix: 16))" }
}
