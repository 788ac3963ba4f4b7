/// One plane of a client's dma-buf, described as KMS takes a framebuffer: what an output scans out
/// directly, without composing.
public struct ScanoutDmabuf: Hashable, Sendable {
    /// The client's descriptor; the output imports the buffer and keeps no descriptor.
    public var fileDescriptor: Int32
    public var width: Int
    public var height: Int
    /// The DRM fourcc code.
    public var fourcc: UInt32
    public var modifier: UInt64
    public var offset: Int
    public var stride: Int

    public init(fileDescriptor: Int32, width: Int, height: Int, fourcc: UInt32, modifier: UInt64, offset: Int, stride: Int) {
        self.fileDescriptor = fileDescriptor
        self.width = width
        self.height = height
        self.fourcc = fourcc
        self.modifier = modifier
        self.offset = offset
        self.stride = stride
    }
}

/// An output that can show a client's buffer on its primary plane as the frame (direct scanout).
public protocol DirectScanoutOutput: BackendOutput {
    /// Shows `buffer` as the frame for `request` when the device takes it on the primary plane as
    /// it is (a TEST_ONLY commit decides), and returns true; `onPresented` follows, with the
    /// zero-copy flag. False when the device refuses it: nothing was committed, and the frame is
    /// to be composed. `released` is called once the buffer is no longer scanned out (a later
    /// frame replaced it, or the output stopped showing it); until then the client must not
    /// write into it.
    func scanOut(_ buffer: ScanoutDmabuf, for request: FrameRequest, released: @escaping () -> Void) throws -> Bool
}
