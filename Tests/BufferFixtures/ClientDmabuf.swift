import Buffers

/// A client's dma-buf as the compositor hands it to a renderer or a display: its layout, with the
/// descriptor the client's wl_buffer lends, and no pixels the CPU may map.
public final class ClientDmabuf: PixelBuffer {
    public let layout: DmabufLayout

    public init(_ layout: DmabufLayout) {
        self.layout = layout
    }

    public var width: Int { layout.width }
    public var height: Int { layout.height }
    public var format: PixelFormat { layout.format }
    public var kind: BufferKind { .clientDmabuf }
    public var dmabuf: DmabufLayout? { layout }
    public func withPixels<Result>(_ body: (PixelRows) throws -> Result) rethrows -> Result? { nil }
}
