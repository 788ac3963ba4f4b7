import Glibc
public import SystemCalls

/// One plane of a dma-buf, as a device reads it: a client's buffer that the renderer imports and
/// a display may scan out, or a buffer object the compositor allocated. Linear unless `modifier`
/// says otherwise.
///
/// The layout borrows its owner's descriptor (a wl_buffer's, a buffer object's): it is valid only
/// while that owner lives, and a client may destroy its buffer at any time. Whoever reads the
/// buffer later than the call it was handed in keeps a `RetainedDmabuf` instead, or imports it
/// (a Vulkan import holds a duplicate of its own).
public struct DmabufLayout: Hashable, Sendable {
    /// The owner's descriptor, borrowed.
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

/// A dma-buf plane with a descriptor of its own: a duplicate of the lender's, made when it was
/// retained and closed when it goes, so `layout` names the same file for as long as this object
/// lives, whatever the buffer's owner does meanwhile (a display scanning out a client's buffer
/// that the client destroys).
public final class RetainedDmabuf {
    /// The plane, its descriptor the duplicate this object owns.
    public let layout: DmabufLayout
    private let descriptor: OwnedFileDescriptor

    /// Duplicates `layout`'s descriptor; throws where the process is out of descriptors.
    public init(duplicating layout: DmabufLayout) throws(SystemCallError) {
        let fd = fcntl(layout.fileDescriptor, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw SystemCallError.current("fcntl(F_DUPFD_CLOEXEC)") }
        descriptor = OwnedFileDescriptor(rawValue: fd)
        var retained = layout
        retained.fileDescriptor = fd
        self.layout = retained
    }
}
