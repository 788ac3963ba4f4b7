/// One plane of a dma-buf, as a device reads it: a client's buffer that the renderer imports and
/// a display backend may scan out. Linear unless `modifier` says otherwise.
public struct DmabufLayout: Hashable, Sendable {
    /// The owner's descriptor: whoever imports the buffer keeps a duplicate or nothing of it.
    public var fileDescriptor: Int32
    public var width: Int
    public var height: Int
    /// The DRM fourcc code.
    public var fourcc: UInt32
    public var modifier: UInt64
    /// Where the first row starts, in bytes.
    public var offset: Int
    /// Bytes from one row to the next.
    public var stride: Int

    public init(
        fileDescriptor: Int32, width: Int, height: Int, fourcc: UInt32, modifier: UInt64, offset: Int, stride: Int
    ) {
        self.fileDescriptor = fileDescriptor
        self.width = width
        self.height = height
        self.fourcc = fourcc
        self.modifier = modifier
        self.offset = offset
        self.stride = stride
    }
}
